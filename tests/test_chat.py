"""Follow-up questions in chat end to end on the real store, and the LLM condense step
(against the scripted OpenAI-protocol server). The rule itself: tests/unit/test_followups.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rag.answer.followups import MAX_HISTORY_CHARS, condense_llm, condense_rule
from rag.answer.references import answer_with_references
from rag.types import ChatMessage
from tests.support.conversation import FA_FIRST, FA_FOLLOW_UP, FA_PAPER, TITLES, history
from tests.support.openai_stub import (
    Reply,
    ScriptedLLMServer,
)


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
    # the one cited paper is named where the follow-up pointed at it
    title = first.citations[0].title
    assert follow.standalone_question == f"What conservation law does {title} find?"
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


def test_a_follow_up_to_a_set_answer_narrows_that_set(assistant: Any) -> None:
    from rag.answer.references import answer_with_references

    first_question = "Which papers are about reinforcement learning?"
    first = assistant.ask(first_question)
    turns = [
        {"role": "user", "content": first_question},
        {"role": "assistant", "content": answer_with_references(first)},
    ]
    narrowed = assistant.ask("Which of them are posters?", history=turns)
    assert first.aggregate is not None and narrowed.aggregate is not None
    every = {p.paper_id for p in first.aggregate.papers}
    kept = {p.paper_id: p.status for p in narrowed.aggregate.papers}
    assert kept and set(kept) <= every and set(kept.values()) == {"Poster"}
    assert narrowed.standalone_question == "Which poster papers about reinforcement learning?"
    # "Who wrote the second one?": that paper's byline
    second = first.citations[1]
    wrote = assistant.ask("Who wrote the second one?", history=turns)
    assert wrote.citations and wrote.citations[0].paper_id == second.paper_id


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


def test_an_evaluated_follow_up_is_asked_after_its_conversations_turns(assistant: Any) -> None:
    from eval.questions import Question
    from eval.sets import _answer

    q = Question(
        id="q1",
        question="Which of them are posters?",
        gold_ids=[],
        answerable=True,
        turns=["Which papers are about reinforcement learning?"],
    )
    answer, _ = _answer(assistant, q, "system")
    assert answer.standalone_question == "Which poster papers about reinforcement learning?"
