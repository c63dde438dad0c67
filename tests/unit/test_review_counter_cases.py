"""Counter-cases a review of the premise and gap rules found: true premises the widened
rules had read as false, and the asker's words they had read as the paper's."""

from __future__ import annotations

from rag.answer.contradictions import contradicted
from rag.answer.credited import first_credited
from rag.answer.premises import unmentioned
from rag.answer.question_parts import question_parts
from rag.answer.supplied import check_abstract
from rag.answer.swapped import swapped_roles


def _missing(question: str, abstract: str) -> list[str]:
    return check_abstract(question, question_parts(question), abstract, "A Study", 1).descriptions


def test_a_first_the_paper_claims_without_we_stands() -> None:
    sentences = [
        "However, existing quantization techniques fall short of maintaining LLM performance "
        "under ultra-low bit-widths.",
        "BiLLM, for the first time, achieves high-accuracy inference at 1.08-bit weights across "
        "various LLM families, keeping LLM performance.",
    ]
    question = "How does BiLLM become the first to keep LLM performance with 1-bit weights?"
    assert first_credited(question, sentences) == ""


def test_a_first_the_question_credits_to_others_and_a_first_token_are_no_claims() -> None:
    sentence = (
        'The spikes are "catapults", a phenomenon originally observed in GD in Lewkowycz et '
        "al. (2020)."
    )
    credited = "Where do catapults, first observed by Lewkowycz et al. in GD, occur in SGD?"
    assert first_credited(credited, [sentence]) == ""
    token = "Why do LLMs put an attention sink on the first token that has little meaning?"
    assert (
        first_credited(token, ["Recent studies explore the attention sink in initial tokens."])
        == ""
    )


def test_compared_with_existing_works_the_paper_speaks_of_itself() -> None:
    sentences = [
        "Compared with existing CMAB works, CMAB-MT not only enhances the modeling power but "
        "also leverages statistical properties of multivariant random variables.",
    ]
    question = (
        "How does CMAB-MT enhance modeling power by leveraging statistical properties of "
        "multivariant random variables, while earlier CMAB works could not?"
    )
    assert (
        swapped_roles(question, sentences, "Combinatorial Bandits with Multivariant Triggering")
        == ""
    )


def test_outperforming_the_baselines_asks_the_methods_figure() -> None:
    question = "By how much does the algorithm outperform strong baselines in ARI?"
    abstract = "Our algorithm outperforms strong baselines by 12% in ARI on five datasets."
    assert _missing(question, abstract) == []


def test_steps_counted_are_no_names_asked() -> None:
    question = "How many steps is the iteration divided into, and what are they?"
    parts = question_parts(question)
    assert [p.kind for p in parts][1] == "other"


def test_a_plural_subject_and_a_noun_in_ier_stay_premises() -> None:
    abstract = "We control drones with a learned policy that stabilizes flight."

    def df(word: str) -> int:
        return 1 if word in ("quadrotors", "quadrotor", "supplier", "supply") else 500

    assert unmentioned("How do quadrotors stabilize flight?", "Drones", abstract, df) == [
        "quadrotors"
    ]
    assert unmentioned("Which supplier provides the drones?", "Drones", abstract, df) == [
        "supplier"
    ]


def test_such_as_those_names_nothing() -> None:
    question = "Which baselines does the method beat?"
    abstract = "The method beats baselines such as those used in prior work."
    assert _missing(question, abstract) == ["which baselines does the method beat"]


def test_a_preamble_with_an_abbreviation_keeps_its_question() -> None:
    parts = question_parts("E.g. take GaLore vs. LoRA. How much faster is GaLore's training?")
    assert parts[0].kind == "number"


def test_an_improvement_question_is_not_turned_by_the_drop_an_abstract_fixes() -> None:
    sentence = (
        "Fine-tuning on new tasks leads to a performance drop on the original tasks, known as "
        "catastrophic forgetting."
    )
    question = "How does Model Tailor improve performance on new tasks while preserving old tasks?"
    assert contradicted(question, [sentence], "Model Tailor") == ""
