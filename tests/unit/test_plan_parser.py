"""Question analysis: kinds, constraints and topics, offline and deterministic."""

from __future__ import annotations

import pytest

from rag.catalogue.catalogue import Catalogue
from rag.plan.parser import QuestionParser
from rag.types import Paper
from tests.unit.test_catalogue import CATALOGUE, PLACES

PARSER = QuestionParser(CATALOGUE)


@pytest.mark.parametrize(
    ("question", "kind", "topic"),
    [
        ("What is GraphsGPT pretrained on?", "paper", ""),
        ("Which ICML 2024 paper explains why feedback alignment works?", "paper", ""),
        ("How many GPUs were used to train Medusa's heads?", "paper", ""),
        (
            "Which ICML 2024 papers use diffusion models to generate molecules?",
            "list",
            "diffusion models to generate molecules",
        ),
        ("How many ICML 2024 papers are about federated learning?", "count", "federated learning"),
        (
            "Show me all the conformal prediction papers at ICML 2024.",
            "list",
            "conformal prediction",
        ),
        ("What papers at ICML 2024 study continual learning?", "list", "continual learning"),
        (
            "How many ICML 2024 papers are about in-context learning?",
            "count",
            "in-context learning",
        ),
        (
            "Compare the approaches of ICML 2024 papers on LLM quantization.",
            "compare",
            "LLM quantization",
        ),
        ("How do the ICML 2024 matrix completion papers differ?", "compare", "matrix completion"),
        # no paper of this catalogue is named GraphsGPT: a topic, not a paper to be like
        ("Which ICML 2024 papers are similar to GraphsGPT?", "list", "GraphsGPT"),
    ],
)
def test_kind_and_topic(question: str, kind: str, topic: str) -> None:
    plan = PARSER.plan(question)
    assert (plan.kind, plan.topic) == (kind, topic)


@pytest.mark.parametrize(
    ("question", "authors", "places", "statuses"),
    [
        # a seven-word institution; "who" and "what" a metadata question asks of is no topic
        ("How many ICML 2024 papers have an author from the Hong Kong University of Science "
         "and Technology?", [], ["Hong Kong University of Science and Technology"], []),
        ("Which of Ada Berg's ICML 2024 papers involve someone from the Allen Institute for "
         "AI?", ["Ada Berg"], ["Allen Institute for AI"], []),
        ("Which of Cai Wen's ICML 2024 papers got an oral or a spotlight?", ["Cai Wen"], [],
         ["Oral", "Spotlight"]),
        ("Show me the Microsoft papers that were orals at ICML 2024.", [], ["Microsoft"],
         ["Oral"]),
        ("How many ICML 2024 papers have a Caltech author?", [], ["Caltech"], []),
        # chatty framings around the question
        ("Hi! How many orals were there at ICML 2024?", [], [], ["Oral"]),
        ("Could you tell me how many ICML 2024 papers have a Caltech author?", [], ["Caltech"],
         []),
        ("I'm looking for the papers by Luo, Yu at ICML 2024. How many are there?", ["Yu Luo"],
         [], []),
        ("I'm looking for Bo Dai's spotlight papers that have a Huawei-affiliated author. Which "
         "ones are they?", ["Bo Dai"], ["Huawei"], ["Spotlight"]),
        ("Could you list the ICML 2024 papers by Beurer-Kellner?", ["Luca Beurer-Kellner"], [],
         []),
        # two institutions on one paper; an abbreviated "University"
        ("Which ICML 2024 papers have authors from both Harvard and Meta?", [],
         ["Harvard", "Meta"], []),
        ("Which ICML 2024 papers have authors from Harvard and Meta?", [],
         ["Harvard", "Meta"], []),
        ("Any ICML 2024 publications co-written by Harvard University and Meta researchers?",
         [], ["Meta", "Harvard University"], []),
        ("Which ICML 2024 papers have authors from Michigan State Univ.?", [],
         ["Michigan State University"], []),
        ("I'm looking for the ICML 2024 papers that got either an oral or a spotlight. How "
         "many are there?", [], [], ["Oral", "Spotlight"]),
        # an institution that has or gets something; "in total", "altogether", "Inc."
        ("How many orals did Imperial have?", [], ["Imperial"], ["Oral"]),
        ("How many orals and spotlights did Imperial College London get altogether.", [],
         ["Imperial College London"], ["Oral", "Spotlight"]),
        ("how many spotlight papers came out of Adobe", [], ["Adobe"], ["Spotlight"]),
        ("How many ICML 2024 papers have an author from Adobe Inc. in total?", [], ["Adobe"],
         []),
    ],
)  # fmt: skip
def test_metadata_questions_as_users_word_them(
    question: str, authors: list[str], places: list[str], statuses: list[str]
) -> None:
    plan = QuestionParser(PLACES).plan(question)
    assert (plan.kind, plan.topic) == ("metadata", "")
    assert plan.constraints.authors == authors
    assert plan.constraints.affiliations == places
    assert plan.constraints.statuses == statuses


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("how many ICML 2024 titles mention classification?", ["classification"]),
        ("List every spotlight paper at ICML 2024 whose title mentions decomposition.",
         ["decomposition"]),
        ("How many ICML 2024 oral papers have a title that mentions agents?", ["agents"]),
        ("Which ICML 2024 papers have 'geometry' in the title?", ["geometry"]),
        ("Which ICML 2024 papers have geometry in their titles?", ["geometry"]),
    ],
)  # fmt: skip
def test_words_in_the_title_as_users_ask_for_them(question: str, words: list[str]) -> None:
    plan = QuestionParser(PLACES).plan(question)
    assert plan.kind == "metadata" and plan.topic == "" and plan.constraints.title_words == words


@pytest.mark.parametrize(
    "question",
    [
        "Which papers have US-based authors?",  # "US" would be Sydney's acronym
        "Which Statistics papers were orals?",  # a department's word, not a place
        "Which papers from either Harvard or Meta study LLMs?",  # either: no one filter
    ],
)
def test_words_that_only_look_like_institutions(question: str) -> None:
    assert QuestionParser(PLACES).plan(question).constraints.affiliations == []


def test_chatty_forms_that_are_not_requests() -> None:
    from rag.plan.framing import plain_question

    assert plain_question("Hi-fi audio generation papers?") == "Hi-fi audio generation papers?"
    stated = "I'm looking for papers on RLHF. Which of them use PPO?"
    assert plain_question(stated) == stated
    assert QuestionParser(PLACES).plan("Give me the number of papers on diffusion.").kind == "count"
    plan = QuestionParser(PLACES).plan("Which ICML 2024 papers have an LLM in their title?")
    assert plan.constraints.title_words == ["LLM"]


def test_a_request_is_no_question_of_its_own() -> None:
    from rag.plan.framing import plain_question

    assert plain_question("Can you use LoRA without labels?") == "Can you use LoRA without labels?"
    assert plain_question("Please list the papers by Yu Luo") == "List the papers by Yu Luo"


def test_a_capitalised_topic_before_papers_is_no_institution() -> None:
    plan = QuestionParser(PLACES).plan("Which Bayesian optimization papers appeared at ICML 2024?")
    assert plan.constraints.affiliations == [] and plan.kind == "list"


def test_authors_are_resolved_whatever_the_case() -> None:
    plan = PARSER.plan("how many icml 2024 papers does masashi sugiyama have")
    assert plan.kind == "metadata" and plan.constraints.authors == ["Masashi Sugiyama"]
    plan = PARSER.plan("Which of Jakob Foerster's ICML 2024 papers were spotlights?")
    assert plan.constraints.authors == ["Jakob Nicolaus Foerster"]
    assert plan.constraints.statuses == ["Spotlight"]


def test_an_ambiguous_name_is_unresolved_with_its_candidates() -> None:
    plan = PARSER.plan("Which papers did M. Sugiyama co-author?")
    assert plan.kind == "metadata" and plan.constraints.authors == []
    (item,) = plan.unresolved
    assert item.candidates == [("Masashi Sugiyama", 2), ("Mahito Sugiyama", 1)]


def test_an_unknown_name_is_unresolved_with_suggestions() -> None:
    plan = PARSER.plan("Which ICML 2024 papers did Masashi Sugimoto co-author?")
    assert plan.kind == "metadata"
    assert plan.unresolved[0].text == "Masashi Sugimoto"
    assert "Masashi Sugiyama" in plan.unresolved[0].suggestions


@pytest.mark.parametrize(
    ("question", "affiliation", "statuses"),
    [
        ("How many papers have at least one author at MIT?", "MIT", []),
        ("Which oral papers have an author affiliated with EPFL?", "EPFL", ["Oral"]),
        (
            "How many ICML 2024 papers include an author from the University of Tokyo?",
            "University of Tokyo",
            [],
        ),
    ],
)
def test_institutions_after_their_cue(question: str, affiliation: str, statuses: list[str]) -> None:
    plan = PARSER.plan(question)
    assert plan.kind == "metadata" and plan.topic == ""
    assert plan.constraints.affiliations == [affiliation]
    assert plan.constraints.statuses == statuses


def test_status_with_a_topic_is_a_filtered_topic_question() -> None:
    plan = PARSER.plan("List the oral papers about reinforcement learning.")
    assert (plan.kind, plan.topic, plan.constraints.statuses) == (
        "list",
        "reinforcement learning",
        ["Oral"],
    )


def test_ranking_questions() -> None:
    plan = PARSER.plan("Which authors have the most papers at ICML 2024?")
    assert (plan.kind, plan.ranking) == ("metadata", "authors")


def test_two_co_authors_title_words_and_initials() -> None:
    plan = PARSER.plan("Which papers did Masashi Sugiyama and Jianye Hao write together?")
    assert (plan.kind, plan.topic) == ("metadata", "")
    assert plan.constraints.authors == ["Masashi Sugiyama", "Jianye HAO"]
    plan = PARSER.plan("Which ICML 2024 papers have 'Title' in the title?")
    assert plan.constraints.title_words == ["Title"] and plan.kind == "metadata"
    plan = PARSER.plan("Papers by K. Kawaguchi?")
    assert plan.constraints.authors == ["Kenji Kawaguchi"]


def test_who_has_the_most_papers_is_a_ranking() -> None:
    assert PARSER.plan("Who wrote the most papers?").ranking == "authors"


def test_institution_with_a_topic_keeps_the_topic_clean() -> None:
    plan = PARSER.plan("list all papers from the University of Tokyo about reinforcement learning")
    assert (plan.kind, plan.topic) == ("list", "reinforcement learning")
    assert plan.constraints.affiliations == ["University of Tokyo"]


@pytest.mark.parametrize(
    "question",
    [
        "What happens to the heads at the end of training in the paper?",
        "Which university is the paper from?",
    ],
)
def test_stopwords_and_generic_words_are_never_institutions(question: str) -> None:
    assert PARSER.plan(question).constraints.affiliations == []


NAMED = Catalogue.of(
    [
        Paper(id="b", title="BiLLM: Pushing the Limit of Quantization", abstract="One."),
        Paper(id="g", title="A Graph is Worth K Words", abstract="We introduce GraphsGPT."),
        Paper(id="d1", title="Diffusion for Molecules", abstract="GraphsGPT-like ideas."),
        Paper(id="d2", title="Diffusion for Images", abstract="Pixels."),
    ]
)


@pytest.mark.parametrize(
    ("question", "paper_id"),
    [
        ("Papers like BiLLM?", "b"),
        ("Which papers are most similar to 'A Graph is Worth K Words'?", "g"),
        ("Which ICML 2024 papers are similar to GraphsGPT?", "g"),  # named in one abstract
        ("papers like Diffusion for Images", "d2"),
    ],
)
def test_papers_like_a_named_paper(question: str, paper_id: str) -> None:
    plan = QuestionParser(NAMED).plan(question)
    assert (plan.kind, plan.like_paper) == ("similar", paper_id)


def test_papers_like_a_topic_are_a_topic_list() -> None:
    plan = QuestionParser(NAMED).plan("Which papers are like diffusion?")  # two titles
    assert (plan.kind, plan.topic, plan.like_paper) == ("list", "diffusion", "")


def test_an_llm_draft_is_checked_against_the_catalogue() -> None:
    from rag.plan.llm_planner import PlanDraft, QuestionPlanner, UnusableDraft

    planner = QuestionPlanner(QuestionParser(NAMED), llm=None)
    plan = planner.validated(PlanDraft(kind="similar", like_title="BiLLM"))
    assert (plan.kind, plan.like_paper, plan.source) == ("similar", "b", "llm")
    plan = planner.validated(PlanDraft(kind="similar", like_title="diffusion"))
    assert (plan.kind, plan.topic, plan.like_paper) == ("list", "diffusion", "")
    plan = planner.validated(PlanDraft(kind="paper", topic="quantization"))
    assert (plan.kind, plan.topic) == ("paper", "")
    for unusable in (PlanDraft(kind="count"), PlanDraft(kind="metadata")):
        with pytest.raises(UnusableDraft):
            planner.validated(unusable)
    assert planner.plan("Papers like BiLLM?").source == "parser"  # no LLM: the parser


@pytest.mark.parametrize(
    ("question", "items"),
    [
        ("Compare SAMformer and Timer", ["SAMformer", "Timer"]),
        ("compare TDPO with Nash learning from human feedback", ["TDPO", "Nash learning from human feedback"]),
        ("How does Medusa differ from EAGLE?", ["Medusa", "EAGLE"]),
        ("What are the differences between BiLLM, QuIP# and AQLM?", ["BiLLM", "QuIP#", "AQLM"]),
        ("SAMformer vs. Timer", ["SAMformer", "Timer"]),
        ("How do Medusa and EAGLE differ?", ["Medusa", "EAGLE"]),
        ("glide vs medusa vs lookahead decoding", ["Glide", "medusa", "lookahead decoding"]),
        ("How do CTAN and PATH-WL differ in what they are built on?", []),  # one aspect asked
        (
            "Compare the paper that merges models with task vectors with TIES.",
            ["the paper that merges models with task vectors", "TIES"],
        ),
        # the papers on a topic, and clauses that merely contain "versus", name nothing
        ("Compare the approaches of ICML 2024 papers on LLM quantization.", []),
        ("How do the ICML 2024 matrix completion papers differ?", []),
        ("What accuracy is reached using the top-variance versus bottom-variance pixel subspaces in the study of reconstruction?", []),
    ],
)  # fmt: skip
def test_a_comparison_of_named_things_lists_them(question: str, items: list[str]) -> None:
    plan = PARSER.plan(question)
    assert plan.compared == items
    if items:
        assert (plan.kind, plan.topic) == ("compare", "")


def test_an_acronym_after_by_is_no_family_name() -> None:
    from tests.unit.test_catalogue import paper

    parser = QuestionParser(
        Catalogue.of([paper("a1", ["Yiming Ai"], ["MIT"]), paper("a2", ["Jiahao Ai"], ["MIT"])])
    )
    plan = parser.plan("Why did papers promoted by AI/ML influencers get more citations?")
    assert not plan.unresolved and plan.constraints.authors == []
    # the family name written as a name still is one
    assert parser.plan("Which ICML 2024 papers were written by Ai?").unresolved


def test_list_the_work_on_a_topic_is_a_list() -> None:
    plan = PARSER.plan("List the ICML 2024 work on federated unlearning.")
    assert (plan.kind, plan.topic) == ("list", "federated unlearning")
    plan = PARSER.plan("Show me research on federated unlearning.")
    assert (plan.kind, plan.topic) == ("list", "federated unlearning")
    # one work asked for is one paper
    assert PARSER.plan("What work segments teeth in dental X-rays?").kind == "paper"


@pytest.mark.parametrize(
    "question",
    [
        "How do the authors show that feedback alignment works?",
        "Can you show me how Medusa's decoding heads work?",
        "What experiments show that the method works on real robots?",
    ],
)
def test_show_and_work_as_verbs_ask_of_one_paper(question: str) -> None:
    assert PARSER.plan(question).kind == "paper"


def test_the_maker_of_a_model_is_no_affiliation() -> None:
    plan = QuestionParser(PLACES).plan(
        "Did stealing the projection matrix from Microsoft's Phi models cost more than $50?"
    )
    assert plan.constraints.affiliations == []
    plan = QuestionParser(PLACES).plan("Which ICML 2024 papers have authors from Microsoft?")
    assert plan.constraints.affiliations == ["Microsoft"]


def test_a_name_close_to_no_author_after_of_is_no_person() -> None:
    plan = QuestionParser(PLACES).plan(
        "Quick one: which artist painted The Garden of Earthly Delights?"
    )
    assert plan.unresolved == [] and plan.kind == "paper"
    plan = QuestionParser(PLACES).plan("What did Zxqvb Plorkin publish at ICML 2024?")
    assert [u.text for u in plan.unresolved] == ["Zxqvb Plorkin"]


@pytest.mark.parametrize(
    ("question", "places"),
    [
        ("How many ICML 2024 papers came from Harvard's Kempner campus?", ["Harvard"]),
        ("Did stealing the matrix from Microsoft's Phi models cost more than $50?", []),
    ],
)  # fmt: skip
def test_a_possessive_names_a_maker_only_before_a_product(question: str, places: list[str]) -> None:
    assert QuestionParser(PLACES).plan(question).constraints.affiliations == places


def test_leading_authors_each_and_a_paper_count_keep_their_meaning() -> None:
    plan = QuestionParser(PLACES).plan("Who are the leading authors at ICML 2024?")
    assert plan.ranking == "authors"
    plan = QuestionParser(PLACES).plan(
        "List the joint papers of Ada Berg and Cai Wen with the status of each."
    )
    assert plan.constraints.authors == ["Ada Berg", "Cai Wen"] and plan.constraints.any_of == []
    plan = QuestionParser(PLACES).plan("What's Microsoft's paper count for orals?")
    assert plan.constraints.affiliations == ["Microsoft"] and plan.constraints.statuses == ["Oral"]


def test_the_llm_planner_can_rank_by_place_and_hold_title_words() -> None:
    from rag.plan.llm_planner import PlanDraft, QuestionPlanner

    planner = QuestionPlanner(QuestionParser(PLACES), None)
    plan = planner.validated(PlanDraft(kind="metadata", top_authors=True, ranked_by="last"))
    assert plan.ranking == "last_authors"
    draft = PlanDraft(
        kind="metadata", any_title_words=["minimax", "benchmark"], not_title_words=["image"]
    )
    plan = planner.validated(draft)
    assert plan.constraints.any_title_words == ["minimax", "benchmark"]
    assert plan.constraints.not_title_words == ["image"]
