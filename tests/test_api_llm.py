"""The API over the LLM answer path, against the scripted OpenAI-protocol server
(tests/openai_stub.py): what a client sees when the model answers, cites nothing valid,
breaks mid-stream, or times out."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from rag.answer.prompts import ABSTAIN_TEXT
from rag.api.app import create_api
from tests.support.api import serve
from tests.support.openai_stub import (
    Reply,
    ScriptedLLMServer,
)

QUESTION = "What conservation law does feedback alignment find?"
GOOD = (
    "Feedback alignment follows a conservation law linking changes in synaptic weights to "
    "implicit regularization [1]."
)


def ask_stream(url: str) -> tuple[str, Any, Exception | None]:
    """Stream one question with the openai client: (content seen, final chunk, error)."""
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
    parts: list[str] = []
    final = None
    try:
        stream = client.chat.completions.create(
            model="icml-rag", messages=[{"role": "user", "content": QUESTION}], stream=True
        )
        for chunk in stream:
            parts.append(chunk.choices[0].delta.content or "")
            if chunk.choices[0].finish_reason:
                final = chunk
    except openai.APIError as exc:
        return "".join(parts), final, exc
    return "".join(parts), final, None


def test_llm_answer_streams_with_citations(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    assistant = llm_assistant(llm_max_retries=0)
    llm_server.queue(Reply.text(GOOD), Reply.text(GOOD))
    with serve(create_api(assistant, assistant.settings)) as url:
        content, final, error = ask_stream(url)
        body = {"messages": [{"role": "user", "content": QUESTION}]}
        plain = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60).json()
    assert error is None and final is not None
    extra = final.model_extra or {}
    assert extra["abstained"] is False and [c["n"] for c in extra["citations"]] == [1]
    assert extra["citations"][0]["paper_id"] == "qklMNNub0H"
    assert content.startswith(GOOD) and "\n\nReferences:\n[1] " in content
    assert plain["choices"][0]["message"]["content"] == content
    assert llm_server.unexpected == 0 and llm_server.pending == 0


def test_llm_text_without_valid_citation_ends_as_an_abstention(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    """Streamed text cannot be taken back: the abstention follows it, and the final chunk
    says `abstained` with no citations, so a client never shows it as a cited answer."""
    assistant = llm_assistant(llm_max_retries=0)
    llm_server.queue(Reply.text("It finds a conservation law [9]."))
    with serve(create_api(assistant, assistant.settings)) as url:
        content, final, error = ask_stream(url)
    assert error is None and final is not None
    extra = final.model_extra or {}
    assert extra["abstained"] is True and extra["citations"] == []
    assert "[9]" not in content  # the invented marker never reached the client
    assert content.startswith("It finds a conservation law")
    assert f"\n\n{ABSTAIN_TEXT}\n\nRelated papers" in content


def test_llm_failure_mid_stream_sends_an_error_event_then_done(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    assistant = llm_assistant(llm_max_retries=0)
    llm_server.queue(Reply.cut(["Feedback alignment follows ", "a conservation law"]))
    llm_server.queue(Reply.cut(["Feedback alignment follows ", "a conservation law"]))
    with serve(create_api(assistant, assistant.settings)) as url:
        content, final, error = ask_stream(url)
        body = {"messages": [{"role": "user", "content": QUESTION}], "stream": True}
        raw = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
    assert isinstance(error, openai.APIError) and final is None
    assert content.startswith("Feedback alignment follows")  # deltas arrived before the error
    events = [e.removeprefix("data: ") for e in raw.text.split("\n\n") if e]
    assert raw.status_code == 200 and events[-1] == "[DONE]"
    assert json.loads(events[-2])["error"]["code"] == "502"
    assert any("Feedback alignment" in e for e in events[:-2])


def test_llm_timeout_is_504(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    assistant = llm_assistant(llm_max_retries=0, llm_timeout_s=1.0)
    llm_server.queue(Reply.hang(5))
    with serve(create_api(assistant, assistant.settings)) as url:
        response = httpx.post(f"{url}/v1/ask", json={"question": QUESTION}, timeout=60)
    assert response.status_code == 504, response.text
    assert response.json()["error"] == {
        "message": "the language model did not answer in time",
        "type": "upstream_error",
        "param": None,
        "code": "504",
    }


@pytest.mark.parametrize("status", [500, 429])
def test_llm_http_errors_are_502(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any], status: int
) -> None:
    assistant = llm_assistant(llm_max_retries=0)
    llm_server.queue(Reply.error(status))
    with serve(create_api(assistant, assistant.settings)) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(
                model="icml-rag", messages=[{"role": "user", "content": QUESTION}]
            )
    assert info.value.status_code == 502
    assert f"HTTP {status}" in info.value.message
