"""Names asked of the abstracts as written (capitals that are also a word, either of two
names), papers with no affiliation however asked, and whole-conference negations."""

from __future__ import annotations

from rag.catalogue.catalogue import Catalogue
from rag.plan.parser import QuestionParser
from rag.sets.metadata import MetadataAnswerer
from rag.types import Paper
from tests.unit.test_metadata_answers import assert_answered


def _paper(pid: str, abstract: str, places: list[str] | None = None) -> Paper:
    return Paper(
        id=pid, title=f"Paper {pid}", abstract=abstract, authors=["Ann Kim"],
        extra={"affiliations": ["MIT"] if places is None else places},
    )  # fmt: skip


PAPERS = Catalogue.of(
    [
        _paper("m1", "We evaluate on GSM8K and MATH."),
        _paper("m2", "Results on the MATH benchmark."),
        _paper("w1", "We study math word problems."),
        _paper("w2", "Applied math for control."),
        _paper("w3", "The math of attention."),
        _paper("j1", "We evaluate on MuJoCo locomotion."),
        _paper("j2", "Offline RL on D4RL.", places=[]),
        _paper("c1", "Accuracy on CIFAR-10 and Cifar100."),
    ]
)


def test_a_name_in_capitals_that_is_also_a_word_is_matched_as_written() -> None:
    assert PAPERS.mentioning("MATH") == {"m1", "m2"}  # "math" the word is no benchmark
    assert PAPERS.mentioning("math") >= {"m1", "m2", "w1", "w2", "w3"}
    # a name no abstract writes as a word keeps matching however it is cased
    assert PAPERS.mentioning("CIFAR") == {"c1"}


def test_either_of_two_names_asked_is_their_union() -> None:
    assert_answered(PAPERS, "Which papers evaluate on MuJoCo or D4RL?", {"j1", "j2"})
    assert_answered(PAPERS, "Which papers mention MuJoCo or D4RL?", {"j1", "j2"})


def test_papers_with_no_affiliation_however_asked() -> None:
    for question in (
        "How many papers have no affiliations in the data?",
        "Are there any ICML 2024 papers that don't have any affiliation listed?",
    ):
        assert_answered(PAPERS, question, {"j2"})


def test_a_title_word_after_a_misspelt_verb_is_the_titles() -> None:
    plan = QuestionParser(PAPERS).plan("how many papers menton attention in the title")
    assert plan.constraints.title_words == ["attention"] and not plan.topic, plan


def test_a_negation_over_every_paper_says_how_it_was_judged() -> None:
    question = "Which papers don't use any neural networks?"
    plan = QuestionParser(PAPERS).plan(question)
    assert (plan.topic, plan.not_about) == ("", "neural networks")
    answer = MetadataAnswerer(PAPERS).answer(question, plan, about={"m1": True})
    assert answer.answer.startswith("7 of the 8 ICML 2024 papers are not about “neural networks”")
    assert answer.aggregate is not None
    assert any("without discussing it counts as not about it" in n for n in answer.aggregate.notes)


def test_a_word_typed_in_capitals_that_no_abstract_writes_so_is_the_word() -> None:
    assert PAPERS.mentioning("ATTENTION") == PAPERS.mentioning("attention") == {"w3"}


def test_a_model_named_with_its_version_after_use_is_asked_as_written() -> None:
    parser = QuestionParser(PAPERS)
    assert parser.plan("Which papers use Llama-2 70B?").constraints.text_words == ["Llama-2 70B"]
    assert parser.plan("Which papers fine-tune Llama 2?").constraints.text_words == ["Llama 2"]
    plan = parser.plan("Which papers use Transformers?")  # a field's word: a topic
    assert plan.constraints.text_words == [] and plan.topic == "Transformers"
