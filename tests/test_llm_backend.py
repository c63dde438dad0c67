"""The generative answer path against a real OpenAI-protocol HTTP server on 127.0.0.1.

The server (tests/openai_stub.py) replays scripted replies, so each test fixes exactly
what the model "says" or how the server fails, and checks what reached the reader: only
valid citations, abstention when nothing valid is cited, retries that stay bounded, and
errors (never a half answer presented as complete) when the server fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from eval.bench.procs import free_port
from rag.answer.citations import cited_numbers
from rag.answer.prompts import ABSTAIN_TEXT, PREMISE_MARK, SYSTEM_PROMPT
from rag.errors import AnswerError
from rag.types import Answer
from tests.support.openai_stub import (
    Reply,
    ScriptedLLMServer,
)

FA_QUESTION = "What conservation law does feedback alignment find?"
FA_PAPER = "qklMNNub0H"
FA_TITLE = "Implicit Regularization in Feedback Alignment Learning Mechanisms for Neural Networks"
GOOD = (
    "Implicit Regularization in Feedback Alignment Learning Mechanisms for Neural Networks "
    "finds a conservation law linking changes in synaptic weights to implicit "
    "regularization [1]."
)
MakeAssistant = Callable[..., Any]


def run(assistant: Any, question: str = FA_QUESTION) -> tuple[list[str], Answer | None]:
    """Stream an answer; return the deltas shown and the final Answer (None if it failed)."""
    deltas: list[str] = []
    final: Answer | None = None
    for kind, payload in assistant.stream(question):
        if kind == "delta":
            deltas.append(payload)
        else:
            assert final is None, "one answer event"
            final = payload
    return deltas, final


def failure(assistant: Any) -> tuple[list[str], AnswerError]:
    """Stream an answer that must fail; return the deltas shown before it did."""
    deltas: list[str] = []
    with pytest.raises(AnswerError) as raised:
        for kind, payload in assistant.stream(FA_QUESTION):
            assert kind == "delta", "no answer event may claim completion"
            deltas.append(payload)
    return deltas, raised.value


def only_valid_markers_shown(deltas: list[str], n_sources: int) -> bool:
    shown = ""
    for delta in deltas:
        shown += delta
        if any(not 1 <= n <= n_sources for n in cited_numbers(shown)):
            return False
    return True


# --- what the model says -----------------------------------------------------------------------
def test_invented_marker_is_removed_and_counted(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.text(GOOD + " It was also tested on ImageNet [9]."))
    deltas, answer = run(llm_assistant())
    assert answer is not None and not answer.abstained
    assert answer.answer == GOOD + " It was also tested on ImageNet."
    assert answer.invalid_citations_removed == 1
    assert [(c.n, c.paper_id) for c in answer.citations] == [(1, FA_PAPER)]
    # The snippet is the cited abstract's own best sentence, not text the model wrote.
    snippet = answer.citations[0].snippet
    assert snippet and snippet in llm_assistant().papers[FA_PAPER].abstract
    assert snippet not in answer.answer
    assert answer.backend == "openai-compatible" and answer.model == "stub"
    assert "".join(deltas).strip() == answer.answer
    assert only_valid_markers_shown(deltas, 5)


def test_request_carries_rules_fenced_sources_and_the_question(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.text(GOOD))
    run(llm_assistant())
    (request,) = llm_server.requests
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["model"] == "stub" and body["stream"] is True
    assert body["temperature"] == 0.0 and body["max_tokens"] == 512
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Cite only numbers that appear in the sources" in system["content"]
    text = user["content"]
    assert user["role"] == "user"
    assert text.startswith(f'Sources:\n<source n="1">\nTitle: {FA_TITLE}\nAuthors: ')
    assert "\nAbstract: " in text.split("</source>")[0]
    assert [text.count(f'<source n="{n}">') for n in range(1, 6)] == [1] * 5
    assert text.count("</source>") == 5
    assert f"Question: {FA_QUESTION}" in text
    assert ABSTAIN_TEXT in text


def test_a_premise_the_model_reads_as_contradicted_is_reported(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    # The model, told to check the question's premise against the abstract (rule 7), says
    # it does not hold: the answer carries that sentence as `contradicted`, like the
    # offline check's, and the reader sees it first.
    said = "it finds a conservation law linking synaptic weight changes to regularization [1]."
    llm_server.queue(Reply.text(f"**{PREMISE_MARK}** {said} {GOOD}"))
    question = "Why does feedback alignment break every conservation law?"
    _, answer = run(llm_assistant(), question)
    assert answer is not None and not answer.abstained
    assert answer.contradicted == [said]
    assert answer.answer.startswith(f"**{PREMISE_MARK}**")
    assert [c.n for c in answer.citations] == [1]
    (request,) = llm_server.requests
    assert PREMISE_MARK in request.body["messages"][0]["content"]


def test_an_answer_that_accepts_the_premise_reports_no_contradiction(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    # "says otherwise" elsewhere in a sentence is no premise correction
    llm_server.queue(Reply.text(GOOD + " Nothing in it says otherwise: it holds [1]."))
    _, answer = run(llm_assistant())
    assert answer is not None and not answer.abstained
    assert answer.contradicted == []


@pytest.mark.parametrize(
    "reply",
    [
        ABSTAIN_TEXT,
        "The sources do not answer this question [1].",  # the phrase, even with a marker
        "Feedback alignment is a learning rule.",  # no citation at all
        "Feedback alignment is a learning rule [6].",  # only an invalid one
    ],
)
def test_answers_without_valid_support_abstain(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant, reply: str
) -> None:
    llm_server.queue(Reply.text(reply))
    _, answer = run(llm_assistant())
    assert answer is not None and answer.abstained
    assert answer.answer == ABSTAIN_TEXT
    assert answer.citations == []
    assert answer.related and answer.related[0].paper_id == FA_PAPER
    assert answer.invalid_citations_removed == (1 if "[6]" in reply else 0)


def test_stream_split_everywhere_is_assembled_and_never_shows_a_bad_marker(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    chunks = ["Feedback", " alignment", " keeps", " a law", " [", "1", "]", " and", " also"]
    chunks += [" [", "9", "]", ".", " Both", " hold [1", ", ", "7]", "", " too", " [2, 1", "]."]
    llm_server.queue(Reply.text("".join(chunks), chunks))
    deltas, answer = run(llm_assistant())
    assert answer is not None and not answer.abstained
    expected = "Feedback alignment keeps a law [1] and also. Both hold [1] too [2][1]."
    assert answer.answer == expected
    assert "".join(deltas) == expected
    assert answer.invalid_citations_removed == 2
    assert [c.n for c in answer.citations] == [1, 2]
    assert only_valid_markers_shown(deltas, 5)
    assert len(deltas) > 5, "the answer streams; it is not held back to the end"


def test_ask_gives_the_same_answer_as_the_stream(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.text(GOOD), Reply.text(GOOD))
    assistant = llm_assistant()
    _, streamed = run(assistant)
    asked = assistant.ask(FA_QUESTION)
    assert streamed is not None
    assert asked.model_dump(exclude={"timings_ms"}) == streamed.model_dump(exclude={"timings_ms"})


# --- how the server fails ----------------------------------------------------------------------
def test_rate_limit_then_success_is_retried(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.error(429, "slow down"), Reply.text(GOOD))
    _, answer = run(llm_assistant(llm_max_retries=2))
    assert answer is not None and answer.answer == GOOD
    assert len(llm_server.requests) == 2
    assert all(r.stream for r in llm_server.requests)


def test_two_server_errors_then_success_is_retried(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.error(500), Reply.error(503), Reply.text(GOOD))
    _, answer = run(llm_assistant(llm_max_retries=2))
    assert answer is not None and answer.answer == GOOD
    assert len(llm_server.requests) == 3


@pytest.mark.parametrize("retries", [0, 2])
def test_persistent_server_error_is_a_502_after_exactly_the_configured_retries(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant, retries: int
) -> None:
    llm_server.queue(*[Reply.error(500, "model crashed")] * 12)
    deltas, error = failure(llm_assistant(llm_max_retries=retries))
    assert error.status == 502
    assert str(error) == "the language model failed (HTTP 500)"
    assert deltas == []
    # One retry loop, not one per layer (the client, llama-index and ours each had one).
    assert len(llm_server.requests) == retries + 1


def test_rate_limit_that_persists_says_so(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(*[Reply.error(429)] * 3)
    _, error = failure(llm_assistant(llm_max_retries=0))
    assert error.status == 502
    assert "rate-limited (HTTP 429)" in str(error)
    assert len(llm_server.requests) == 1


def test_server_that_hangs_is_a_504_after_the_timeout(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    assistant = llm_assistant(llm_timeout_s=1.0, llm_max_retries=0)
    llm_server.queue(Reply.hang(20))
    _, error = failure(assistant)
    waited = time.monotonic() - llm_server.requests[0].at  # from the request, not retrieval
    assert error.status == 504
    assert str(error) == "the language model did not answer in time"
    assert 0.9 <= waited < 5.0, "gave up after the timeout, not after the server"
    assert len(llm_server.requests) == 1


def test_one_timeout_then_success_is_retried(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.hang(20), Reply.text(GOOD))
    _, answer = run(llm_assistant(llm_timeout_s=1.0, llm_max_retries=1))
    assert answer is not None and answer.answer == GOOD
    assert len(llm_server.requests) == 2


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
def test_stream_cut_midway_is_an_error_not_an_answer(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant, chunked: bool
) -> None:
    # Close-delimited: the body just ends, and only the missing finish_reason tells.
    llm_server.queue(
        Reply.cut(["Feedback alignment", " keeps a law [1]", " and more [9"], chunked=chunked),
        Reply.text(GOOD),
    )
    deltas, error = failure(llm_assistant())
    assert error.status == 502
    assert "broke off" in str(error) or "ended before it was complete" in str(error)
    assert "".join(deltas).startswith("Feedback alignment keeps a law")
    assert only_valid_markers_shown(deltas, 5)
    assert len(llm_server.requests) == 1, "text was shown: retrying would repeat it"


def test_stream_cut_before_any_text_is_retried(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    llm_server.queue(Reply.cut([]), Reply.text(GOOD))
    _, answer = run(llm_assistant(llm_max_retries=1))
    assert answer is not None and answer.answer == GOOD
    assert len(llm_server.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        Reply.raw(b'{"choices": [{"message": {"content": "cut'),  # JSON, not an event stream
        Reply.raw(b"data: {not json\n\n", content_type="text/event-stream"),
        Reply.raw(b"<html>502 Bad Gateway</html>", content_type="text/html"),
    ],
    ids=["truncated-json", "bad-sse-json", "html"],
)
def test_malformed_reply_is_an_error(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant, reply: Reply
) -> None:
    llm_server.queue(reply, reply)
    deltas, error = failure(llm_assistant(llm_max_retries=1))
    assert error.status == 502
    assert str(error).startswith("the language model")
    assert deltas == []
    assert len(llm_server.requests) == 2  # nothing was shown, so it was retried once


def test_unreachable_server_is_a_502_saying_so(llm_assistant: MakeAssistant) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    _, error = failure(llm_assistant(llm_base_url=dead, llm_max_retries=0))
    assert error.status == 502
    assert str(error) == "the language model server cannot be reached"


def test_failed_answer_leaves_the_assistant_usable(
    llm_server: ScriptedLLMServer, llm_assistant: MakeAssistant
) -> None:
    assistant = llm_assistant(llm_max_retries=0)
    llm_server.queue(Reply.error(500), Reply.text(GOOD))
    failure(assistant)
    _, answer = run(assistant)
    assert answer is not None and answer.answer == GOOD
