"""A follow-up to a set answer read against the plan of the question before it."""

from __future__ import annotations

from rag.answer.followups import pointed_follow_up
from rag.plan.parser import QuestionParser
from rag.plan.turns import followed_up
from rag.types import ChatMessage
from tests.unit.test_new_user_metadata import PLACES

PARSER = QuestionParser(PLACES)


def _after(*questions: str) -> list[ChatMessage]:
    history = []
    for q in questions:
        history += [ChatMessage(role="user", content=q), ChatMessage(role="assistant", content="…")]
    return history


def _plan(question: str, *before: str):  # type: ignore[no-untyped-def]
    found = followed_up(question, _after(*before), PARSER.plan, PLACES)
    return None if found is None else found.plan


def test_which_of_them_narrows_the_set_the_last_answer_listed() -> None:
    plan = _plan("Which of them are orals?", "Which papers are about diffusion models?")
    assert plan is not None
    assert (plan.kind, plan.topic, plan.constraints.statuses) == (
        "list",
        "diffusion models",
        ["Oral"],
    )
    plan = _plan("How many of those have an author from Google?", "Show oral papers on diffusion.")
    assert plan is not None
    assert (plan.kind, plan.topic, plan.constraints.statuses, plan.constraints.affiliations) == (
        "count",
        "diffusion",
        ["Oral"],
        ["Google"],
    )
    plan = _plan("Which of those mention GPT-4?", "Which papers did Ann Kim write?")
    assert plan is not None
    assert (plan.constraints.authors, plan.constraints.text_words) == (["Ann Kim"], ["GPT-4"])


def test_what_about_puts_the_new_thing_in_place_of_its_kind() -> None:
    asked = "Which papers from Stanford University are about diffusion?"
    plan = _plan("What about from Google?", asked)
    assert plan is not None
    assert (plan.topic, plan.constraints.affiliations) == ("diffusion", ["Google"])
    plan = _plan("What about Bo Li?", "Which papers did Ann Kim write?")
    assert plan is not None and plan.constraints.authors == ["Bo Li"]
    plan = _plan("Same question but for graph neural networks.", asked)
    assert plan is not None
    assert (plan.topic, plan.constraints.affiliations) == (
        "graph neural networks",
        ["Stanford University"],
    )
    plan = _plan("And how many posters?", "How many spotlight papers are on federated learning?")
    assert plan is not None
    assert (plan.kind, plan.constraints.statuses) == ("count", ["Poster"])
    plan = _plan("And how many mention GPT-3.5?", "How many papers mention GPT-4?")
    assert plan is not None and plan.constraints.text_words == ["GPT-3.5"]
    # a follow-up on a follow-up reads back to the set
    plan = _plan("Which of those are orals?", asked, "What about from Google?")
    assert plan is not None
    assert (plan.constraints.affiliations, plan.constraints.statuses) == (["Google"], ["Oral"])


def test_what_is_no_set_follow_up_is_left_to_the_text_rule() -> None:
    assert _plan("Who wrote the second one?", "Which papers are about diffusion?") is None
    assert _plan("Which of them are orals?", "How does Medusa speed up decoding?") is None
    assert _plan("Which of them are orals?") is None  # no conversation
    assert _plan("How many papers are about transformers?", "Which papers are about GNNs?") is None


def test_a_pointer_at_one_listed_paper_names_it() -> None:
    listed = {
        1: "Medusa: Simple LLM Inference",
        2: "Break the Sequential Dependency of LLM Inference",
    }
    assert pointed_follow_up("Who wrote the second one?", listed) == (
        "Who wrote Break the Sequential Dependency of LLM Inference?"
    )
    assert pointed_follow_up("Tell me more about [1]", listed) == "Tell me more about Medusa"
    assert pointed_follow_up("Compare the first two", listed) == (
        "Compare Medusa and Break the Sequential Dependency of LLM Inference"
    )
    # a name that reads as two things is quoted whole
    assert pointed_follow_up("Tell me about [1]", {1: "RLAIF vs. RLHF: Scaling RL"}) == (
        "Tell me about “RLAIF vs. RLHF: Scaling RL”"
    )
    assert pointed_follow_up("Tell me about [3]", listed) == ""


def test_a_turn_naming_another_paper_asks_the_last_question_of_it() -> None:
    from rag.answer.followups import another_named, named_follow_up

    medusa = "Medusa: Simple LLM Inference Acceleration"
    assert another_named("What about EAGLE?", "How much faster is Medusa-2?", medusa) == (
        "How much faster is EAGLE?"
    )
    assert another_named("And QuIP#?", "What datasets does it use?", medusa) == "What is QuIP#?"
    assert another_named("What about the second one?", "What is Medusa?", medusa) == ""
    # "Who are the authors?": the authors of the paper the last answer was about
    assert named_follow_up("Who are the authors?", medusa) == "Who are the authors of Medusa?"


def test_what_about_a_part_of_the_papers_is_no_other_set() -> None:
    asked = "Which papers from Stanford University are about diffusion?"
    assert _plan("What about the limitations?", asked) is None
    assert _plan("What about in 2023?", asked) is None


def test_another_name_replaces_the_paper_only_where_it_names_a_paper() -> None:
    from rag.answer.followups import another_named

    medusa = "Medusa: Simple LLM Inference Acceleration"
    papers = {"EAGLE"}
    asked = "Does Medusa speed up Vicuna-7B?"
    assert another_named("What about Llama 2?", asked, medusa, papers.__contains__) == ""
    assert another_named("What about EAGLE?", asked, medusa, papers.__contains__) == (
        "Does EAGLE speed up Vicuna-7B?"
    )


def test_a_topic_asked_of_a_topics_papers_is_a_second_facet() -> None:
    plan = _plan(
        "Which of them are about audio or music?", "Which oral papers are about diffusion?"
    )
    assert plan is not None
    assert (plan.kind, plan.topic, plan.constraints.statuses) == (
        "list",
        "diffusion with audio or music",
        ["Oral"],
    )


def test_his_papers_and_a_bare_status_narrow_the_papers_just_listed() -> None:
    plan = _plan("How many of his papers are orals?", "Which papers did Bo Li write?")
    assert plan is not None
    assert (plan.kind, plan.constraints.authors, plan.constraints.statuses) == (
        "metadata",
        ["Bo Li"],
        ["Oral"],
    )
    plan = _plan("Which are orals?", "How many papers are about LLM agents?")
    assert plan is not None
    assert (plan.kind, plan.topic, plan.constraints.statuses) == ("list", "LLM agents", ["Oral"])


def test_which_ones_after_a_list_narrows_it() -> None:
    plan = _plan("Which ones are about scaling laws?", "Which papers are about mixture of experts?")
    assert plan is not None
    assert (plan.kind, plan.topic) == ("list", "mixture of experts with scaling laws")
    assert _plan("Which ones are about scaling laws?") is None  # nothing listed before


def test_a_facet_said_whole_is_not_added_twice_and_a_superlative_is_no_facet() -> None:
    plan = _plan(
        "Which of them are about federated learning with differential privacy?",
        "Which papers are about federated learning?",
    )
    assert plan is not None and plan.topic == "federated learning with differential privacy"
    assert (
        _plan("Which of them report the largest speedup?", "Which papers are about quantization?")
        is None
    )
