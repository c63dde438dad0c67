"""Follow-up questions: the deterministic rule (extractive backend), the LLM condense step
(against the scripted OpenAI-protocol server), and chat end to end on the real store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openai_stub import Reply, ScriptedLLMServer, llm_assistant, llm_server, scripted_server

from rag.chat import (
    MAX_HISTORY_CHARS,
    condense_llm,
    condense_rule,
    is_follow_up,
    previous_references,
)
from rag.formatting import answer_with_references
from rag.types import Answer, ChatMessage, Citation

__all__ = ["llm_assistant", "llm_server", "scripted_server"]  # fixtures, imported to register

FA_PAPER = "qklMNNub0H"
FA_FIRST = "Which paper studies implicit regularization in feedback alignment?"
FA_FOLLOW_UP = "What conservation law does it find?"
TITLES = {
    1: "Implicit Regularization in Feedback Alignment Learning Mechanisms for Neural Networks",
    2: "Probabilistic Generating Circuits - Demystified",  # a title with its own dash
    3: "Position: Mission Critical – Satellite Data is a Distinct Modality in Machine Learning",
}


def rendered_answer(titles: dict[int, str]) -> str:
    """An assistant turn as the CLI/UI put it in history: answer plus reference list."""
    citations = [
        Citation(
            n=n,
            paper_id=f"p{n}",
            title=title,
            authors=["A. Author", "B. Author", "C. Author", "D. Author"],
            url=f"https://openreview.net/forum?id=p{n}",
            snippet="A sentence.",
            score=0.5,
        )
        for n, title in titles.items()
    ]
    answer = Answer(
        question="q",
        answer=" ".join(f"Claim [{n}]." for n in titles),
        abstained=False,
        backend="extractive",
        mode="hybrid",
        citations=citations,
    )
    return answer_with_references(answer)


def history(first: str = FA_FIRST, titles: dict[int, str] = TITLES) -> list[ChatMessage]:
    return [
        ChatMessage(role="user", content=first),
        ChatMessage(role="assistant", content=rendered_answer(titles)),
    ]


# --- the rule ----------------------------------------------------------------------------------
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
    ],
)
def test_what_counts_as_a_follow_up(question: str, follow_up: bool) -> None:
    assert is_follow_up(question) is follow_up


def test_long_question_is_never_treated_as_a_follow_up() -> None:
    question = "Which paper " + "really " * 30 + "studies it?"
    assert condense_rule(question, history()) == question


# --- chat end to end, extractive ---------------------------------------------------------------
def test_follow_up_in_chat_still_cites_the_paper(assistant: Any) -> None:
    first = assistant.ask(FA_FIRST)
    assert first.citations[0].paper_id == FA_PAPER
    turns = [
        ChatMessage(role="user", content=FA_FIRST),
        ChatMessage(role="assistant", content=answer_with_references(first)),
    ]
    follow = assistant.ask(FA_FOLLOW_UP, history=turns)
    assert not follow.abstained
    assert follow.citations[0].paper_id == FA_PAPER
    assert "conservation law" in follow.citations[0].snippet
    assert FA_FIRST in follow.standalone_question
    assert "condense" in follow.timings_ms


def test_history_is_what_answers_a_bare_follow_up(assistant: Any) -> None:
    question = "What does the paper contribute?"
    alone = assistant.ask(question)
    assert alone.abstained and alone.standalone_question == question
    follow = assistant.ask(question, history=history(titles={1: TITLES[1]}))
    assert not follow.abstained
    assert follow.citations[0].paper_id == FA_PAPER


def test_new_question_in_a_chat_is_not_dragged_to_the_previous_topic(assistant: Any) -> None:
    question = "Which papers use diffusion models for molecule generation?"
    answer = assistant.ask(question, history=history(titles={1: TITLES[1]}))
    assert answer.standalone_question == question
    assert FA_PAPER not in [c.paper_id for c in answer.citations]


def test_history_given_as_dicts_is_accepted(assistant: Any) -> None:
    turns = [{"role": m.role, "content": m.content} for m in history()]
    answer = assistant.ask(FA_FOLLOW_UP, history=turns)
    assert FA_FIRST in answer.standalone_question


# --- the LLM condense step ---------------------------------------------------------------------
REWRITE = "What conservation law does the feedback alignment paper find?"
GOOD = "It finds a conservation law linking synaptic weight changes to regularization [1]."


def test_llm_rewrites_the_follow_up_without_streaming(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(Reply.text(f'"{REWRITE}"\nThis rewrite resolves "it".'), Reply.text(GOOD))
    answer = llm_assistant().ask(FA_FOLLOW_UP, history=history())
    assert answer.standalone_question == REWRITE  # first line, quotes stripped
    assert answer.question == FA_FOLLOW_UP
    condense, respond = llm_server.requests
    assert not condense.stream and respond.stream
    (prompt,) = condense.messages
    assert FA_FOLLOW_UP in prompt["content"] and FA_FIRST in prompt["content"]
    # The answer step retrieved for the rewrite and was asked the rewrite.
    assert f"Question: {REWRITE}" in respond.messages[1]["content"]
    assert answer.citations[0].paper_id == FA_PAPER


def test_llm_condense_failure_falls_back_to_the_rule(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(Reply.error(500), Reply.text(GOOD))
    answer = llm_assistant(llm_max_retries=0).ask(FA_FOLLOW_UP, history=history())
    assert answer.standalone_question == condense_rule(FA_FOLLOW_UP, history())
    assert not answer.abstained and answer.citations[0].paper_id == FA_PAPER
    assert [r.stream for r in llm_server.requests] == [False, True]


def test_condense_retries_exactly_the_configured_number_of_times(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    # llama-index's own retry loop around the openai client's made this 2 x 3 requests.
    llm_server.queue(*[Reply.error(503)] * 3, Reply.text(GOOD))
    answer = llm_assistant(llm_max_retries=2).ask(FA_FOLLOW_UP, history=history())
    assert [r.stream for r in llm_server.requests] == [False, False, False, True]
    assert answer.standalone_question == condense_rule(FA_FOLLOW_UP, history())


def test_no_history_means_no_condense_request(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(Reply.text(GOOD))
    llm_assistant().ask("What conservation law does feedback alignment find?")
    assert [r.stream for r in llm_server.requests] == [True]


def test_condense_prompt_keeps_recent_history_within_the_limit(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    turns = [
        ChatMessage(role="user" if i % 2 == 0 else "assistant", content=f"turn {i} " + "x" * 900)
        for i in range(10)
    ]
    llm_server.queue(Reply.text(REWRITE))
    assert condense_llm(FA_FOLLOW_UP, turns, llm_assistant().llm) == REWRITE
    content = llm_server.requests[0].messages[0]["content"]
    assert "turn 9 " in content and "turn 3 " not in content  # the last six at most
    assert len(content) < MAX_HISTORY_CHARS + 1000
    assert content.rstrip().endswith("Standalone question:")


def test_empty_condense_reply_keeps_the_question(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(Reply.text("  \n"))
    assert condense_llm(FA_FOLLOW_UP, history(), llm_assistant().llm) == FA_FOLLOW_UP
