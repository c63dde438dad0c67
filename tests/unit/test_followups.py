"""The deterministic follow-up rule, and the reference list it reads back from history."""

from __future__ import annotations

import pytest

from rag.answer.followups import condense_rule, is_follow_up
from rag.answer.references import previous_references
from rag.types import ChatMessage
from tests.support.conversation import FA_FIRST, FA_FOLLOW_UP, TITLES, history


def test_reference_titles_are_read_back_whole() -> None:
    assert previous_references(history()) == TITLES


def test_only_the_last_assistant_turn_counts() -> None:
    turns = [*history(titles={1: "Old Paper"}), *history(titles={1: "New Paper"})]
    assert previous_references(turns) == {1: "New Paper"}
    assert previous_references([ChatMessage(role="user", content="[1] Not a reference")]) == {}


def test_no_history_or_standalone_question_is_unchanged() -> None:
    assert condense_rule(FA_FOLLOW_UP, []) == FA_FOLLOW_UP
    standalone = "Which ICML 2024 papers use diffusion models for molecule generation?"
    assert not is_follow_up(standalone)
    assert condense_rule(standalone, history()) == standalone


def test_follow_up_carries_the_previous_question_and_cited_titles() -> None:
    rewritten = condense_rule(FA_FOLLOW_UP, history())
    assert rewritten.startswith(FA_FOLLOW_UP)
    assert FA_FIRST in rewritten
    assert TITLES[1] in rewritten and TITLES[2] in rewritten  # the first two references
    assert TITLES[3] not in rewritten


@pytest.mark.parametrize(
    ("question", "pointed"),
    [
        ("What does the second one show?", 2),
        ("And the last paper?", 3),
        ("What does [3] measure?", 3),
        ("How does the first one train?", 1),
    ],
)
def test_follow_up_pointing_at_a_reference_carries_that_title(question: str, pointed: int) -> None:
    rewritten = condense_rule(question, history())
    assert TITLES[pointed] in rewritten
    assert all(TITLES[n] not in rewritten for n in TITLES if n != pointed)


@pytest.mark.parametrize(
    ("question", "follow_up"),
    [
        ("What does [3] measure?", True),
        ("What does the paper contribute?", True),
        ("Which one is faster?", True),
        ("and GraphsGPT?", True),
        ("Compare them", True),
        ("Which papers use diffusion models?", False),  # "papers" alone points nowhere
        ("What method does BiLLM use for salient weights?", False),
        ("Is itself a word here?", False),
        # a pronoun after what the question names itself points at that, not back
        ("What is GraphsGPT and what was it pretrained on?", False),
        ("Which papers study feedback alignment, and what do they find?", False),
        ("What dataset did it use?", True),
        ("Do they report results on ImageNet?", True),  # the name comes after the pronoun
        ("Which ICML 2024 talk is it in?", True),  # ICML is no antecedent
    ],
)
def test_what_counts_as_a_follow_up(question: str, follow_up: bool) -> None:
    assert is_follow_up(question) is follow_up


def test_long_question_is_never_treated_as_a_follow_up() -> None:
    question = "Which paper " + "really " * 30 + "studies it?"
    assert condense_rule(question, history()) == question


MEDUSA = "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads"


@pytest.mark.parametrize(
    ("question", "standalone"),
    [
        ("What hardware did they use?", "What hardware did Medusa use?"),
        ("How fast is it?", "How fast is Medusa?"),
        ("What are its limitations?", "What are Medusa's limitations?"),
        ("What does the paper find about speedups?", "What does Medusa find about speedups?"),
    ],
)
def test_a_follow_up_about_the_one_cited_paper_names_it(question: str, standalone: str) -> None:
    turns = history(titles={1: MEDUSA})
    assert condense_rule(question, turns) == standalone


def test_a_title_without_a_short_name_is_named_whole() -> None:
    turns = history(titles={1: TITLES[1]})
    assert condense_rule("What does it find?", turns) == f"What does {TITLES[1]} find?"
