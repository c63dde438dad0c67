"""The HTTP API end to end: real uvicorn, real store and embeddings, the official OpenAI
client. Limits and malformed input: test_api_limits.py; fuzzing: test_api_fuzz.py."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from eval.bench.procs import free_port, wait_http
from rag.answer.prompts import ABSTAIN_TEXT
from rag.answer.references import short_authors
from rag.answer.unicode_math import plain_text, readable_math
from rag.api.app import create_api
from rag.assistant import Assistant
from rag.store.chroma import PaperStore
from tests.support.api import serve
from tests.support.settings import make_settings

FEEDBACK_Q = "Which paper explains why feedback alignment works through implicit regularization?"
FOLLOW_UP_Q = "What conditions for convergence does it give?"
OFF_TOPIC_Q = "How do I fix a flat bicycle tire?"
GRAPHS_Q = "Which paper pretrains GraphsGPT on 100M molecules?"
MARKER = re.compile(r"\[(\d+)\]")


@pytest.fixture
def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0, timeout=60)


def user(content: str) -> Any:  # an OpenAI message param (a TypedDict)
    return {"role": "user", "content": content}


def check_citations(content: str, citations: list[dict[str, Any]]) -> set[int]:
    """Every [n] in the answer part has a citation n, and every citation is used."""
    answer_part = content.split("\n\nReferences:", 1)[0]
    used = {int(n) for n in MARKER.findall(answer_part)}
    numbers = {c["n"] for c in citations}
    assert used and used == numbers, (used, numbers)
    for c in citations:  # the numbered reference list, LaTeX shown as Unicode
        assert f"[{c['n']}] {readable_math(c['title'])}" in content
    return numbers


def collect_stream(stream: Any) -> tuple[str, Any, Any]:
    parts, final, usage = [], None, None
    for chunk in stream:
        if not chunk.choices:
            usage = chunk.usage
            continue
        parts.append(chunk.choices[0].delta.content or "")
        if chunk.choices[0].finish_reason:
            final = chunk
    return "".join(parts), final, usage


def test_models_endpoint_lists_the_assistant(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["icml-rag"]
    assert client.models.retrieve("icml-rag").owned_by == "icml-rag"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-4o")


def test_chat_completion_cites_and_lists_references(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="icml-rag",
        messages=[{"role": "system", "content": "Ignored."}, user(FEEDBACK_Q)],
    )
    message = reply.choices[0].message
    extra = message.model_extra or {}
    assert reply.model == "icml-rag" and reply.choices[0].finish_reason == "stop"
    assert extra["abstained"] is False
    check_citations(message.content or "", extra["citations"])
    assert "qklMNNub0H" in {c["paper_id"] for c in extra["citations"]}
    assert "\n\nReferences:\n[1] " in (message.content or "")
    assert reply.usage is not None and reply.usage.completion_tokens == len(
        (message.content or "").split()
    )


def test_stream_assembles_to_the_same_cited_message(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="any-name", messages=[user(FEEDBACK_Q)])
    stream = client.chat.completions.create(
        model="any-name",
        messages=[user(FEEDBACK_Q)],
        stream=True,
        stream_options={"include_usage": True},
    )
    content, final, usage = collect_stream(stream)
    assert content == plain.choices[0].message.content
    assert final is not None and final.choices[0].finish_reason == "stop"
    # The structured answer rides on the final chunk and on its delta.
    for extra in (final.model_extra or {}, final.choices[0].delta.model_extra or {}):
        assert extra["abstained"] is False
        check_citations(content, extra["citations"])
    assert usage is not None and usage.completion_tokens == len(content.split())


def test_follow_up_uses_history(client: openai.OpenAI) -> None:
    first = client.chat.completions.create(model="icml-rag", messages=[user(FEEDBACK_Q)])
    history = [user(FEEDBACK_Q), {"role": "assistant", "content": first.choices[0].message.content}]
    alone = client.chat.completions.create(model="icml-rag", messages=[user(FOLLOW_UP_Q)])
    follow = client.chat.completions.create(
        model="icml-rag", messages=[*history, user(FOLLOW_UP_Q)]
    )
    alone_ids = {c["paper_id"] for c in (alone.choices[0].message.model_extra or {})["citations"]}
    extra = follow.choices[0].message.model_extra or {}
    check_citations(follow.choices[0].message.content or "", extra["citations"])
    assert "qklMNNub0H" in {c["paper_id"] for c in extra["citations"]}
    assert "qklMNNub0H" not in alone_ids  # the history, not the question, found the paper


def test_retrieval_options_ride_in_extra_body(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model="icml-rag",
        messages=[user(FEEDBACK_Q)],
        extra_body={"top_k": 1, "mode": "bm25", "filters": {"author": "Koyejo"}},
    )
    citations = (reply.choices[0].message.model_extra or {})["citations"]
    assert [c["n"] for c in citations] == [1]
    assert all(any("Koyejo" in a for a in c["authors"]) for c in citations)
    with pytest.raises(openai.UnprocessableEntityError, match=r"filters\.venue"):
        client.chat.completions.create(
            model="icml-rag", messages=[user(FEEDBACK_Q)], extra_body={"filters": {"venue": "x"}}
        )


@pytest.mark.parametrize("stream", [False, True])
def test_off_topic_question_abstains_without_citations(client: openai.OpenAI, stream: bool) -> None:
    messages: Any = [user(OFF_TOPIC_Q)]
    if stream:
        content, final, _ = collect_stream(
            client.chat.completions.create(model="icml-rag", messages=messages, stream=True)
        )
        extra = final.model_extra or {}
    else:
        reply = client.chat.completions.create(model="icml-rag", messages=messages)
        content, extra = (
            reply.choices[0].message.content or "",
            reply.choices[0].message.model_extra,
        )
    assert extra is not None and extra["abstained"] is True and extra["citations"] == []
    assert content.startswith(ABSTAIN_TEXT) and not MARKER.search(content)
    assert extra["related"] and "Related papers (not support for an answer):" in content


def test_ask_returns_the_cli_answer_json(base_url: str, assistant: Any) -> None:
    response = httpx.post(f"{base_url}/v1/ask", json={"question": FEEDBACK_Q, "top_k": 3})
    assert response.status_code == 200
    assert re.fullmatch(r"answer;dur=\d+\.\d", response.headers["server-timing"])
    got = response.json()
    answer = assistant.ask(FEEDBACK_Q, top_k=3)
    expected = answer.model_dump(mode="json")
    assert set(got) == set(expected) | {"plain_text"}
    for key in ("answer", "citations", "abstained", "mode", "backend", "related"):
        assert got[key] == expected[key]
    assert got["plain_text"] == plain_text(answer)


def test_ask_follow_up_reports_the_standalone_question(base_url: str) -> None:
    first = httpx.post(f"{base_url}/v1/ask", json={"question": FEEDBACK_Q}, timeout=60).json()
    history = [
        {"role": "user", "content": FEEDBACK_Q},
        {"role": "assistant", "content": first["answer"]},
    ]
    body = {"question": FOLLOW_UP_Q, "history": history}
    got = httpx.post(f"{base_url}/v1/ask", json=body, timeout=60).json()
    assert got["question"] == FOLLOW_UP_Q and "feedback alignment" in got["standalone_question"]


def test_retrieve_returns_ranked_papers_with_chunks(base_url: str) -> None:
    body = {"question": "feedback alignment conservation law", "top_k": 3, "mode": "hybrid"}
    got = httpx.post(f"{base_url}/v1/retrieve", json=body, timeout=60).json()
    papers = got["papers"]
    assert got["mode"] == "hybrid" and got["top_k"] == 3 and len(papers) == 3
    assert papers[0]["paper"]["id"] == "qklMNNub0H"
    assert [p["score"] for p in papers] == sorted((p["score"] for p in papers), reverse=True)
    assert all(p["chunks"] and p["chunks"][0]["text"] for p in papers)

    only = {**body, "mode": "bm25", "filters": {"author": "Koyejo"}}
    filtered = httpx.post(f"{base_url}/v1/retrieve", json=only, timeout=60).json()["papers"]
    assert filtered and all(
        any("koyejo" in a.lower() for a in p["paper"]["authors"]) for p in filtered
    )


def test_stats_health_schema_and_docs(base_url: str, assistant: Any) -> None:
    assert httpx.get(f"{base_url}/v1/stats").json() == json.loads(json.dumps(assistant.stats()))
    health = httpx.get(f"{base_url}/healthz")
    assert health.status_code == 200 and health.json()["backend"] == "extractive"
    assert health.json()["papers"] == 152
    schema = httpx.get(f"{base_url}/openapi.json").json()
    assert {"/v1/chat/completions", "/v1/models", "/v1/ask", "/v1/retrieve", "/v1/stats"} <= set(
        schema["paths"]
    )
    assert "securitySchemes" not in schema.get("components", {})  # no key configured
    docs = httpx.get(f"{base_url}/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


# --- API key ------------------------------------------------------------------------------
SECRET = "s3cret-key-for-tests-0123456789"


def test_api_key_is_required_and_never_echoed(
    assistant: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = make_settings(assistant.settings.data_dir, backend="extractive", api_key=SECRET)
    bodies: list[str] = []
    with serve(create_api(assistant, settings)) as url:
        wrong = openai.OpenAI(base_url=f"{url}/v1", api_key=SECRET[:-1] + "X", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as info:
            wrong.chat.completions.create(model="icml-rag", messages=[user(FEEDBACK_Q)])
        bodies.append(json.dumps(info.value.body))

        bare = httpx.post(f"{url}/v1/ask", json={"question": FEEDBACK_Q})
        assert bare.status_code == 401
        assert bare.headers["www-authenticate"].startswith("Bearer")
        basic = httpx.get(f"{url}/v1/models", auth=("user", SECRET))
        assert basic.status_code == 401
        # Unauthenticated callers learn nothing about their request, even if it is broken.
        broken = httpx.post(f"{url}/v1/ask", content=b"{", headers={"content-type": "text/x"})
        assert broken.status_code == 401
        bodies += [bare.text, basic.text, broken.text]

        right = openai.OpenAI(base_url=f"{url}/v1", api_key=SECRET, max_retries=0)
        reply = right.chat.completions.create(model="icml-rag", messages=[user(FEEDBACK_Q)])
        assert (reply.choices[0].message.model_extra or {})["citations"]
        assert httpx.get(f"{url}/healthz").status_code == 200  # health stays open
        schema = httpx.get(f"{url}/openapi.json").json()
        assert schema["paths"]["/v1/ask"]["post"]["security"] == [{"bearer": []}]
        assert "401" in schema["paths"]["/v1/ask"]["post"]["responses"]
    assert not any(SECRET in body or SECRET[:-1] in body for body in bodies)
    assert not any(SECRET[:-1] in record.getMessage() for record in caplog.records)


def test_cors_is_off_by_default_and_scoped_to_v1(base_url: str, assistant: Any) -> None:
    preflight = {"Origin": "http://app.example", "Access-Control-Request-Method": "POST"}
    off = httpx.options(f"{base_url}/v1/ask", headers=preflight)
    assert "access-control-allow-origin" not in off.headers

    settings = make_settings(
        assistant.settings.data_dir, backend="extractive", cors_origins=["http://app.example"]
    )
    with serve(create_api(assistant, settings)) as url:
        on = httpx.options(f"{url}/v1/ask", headers=preflight)
        assert on.status_code == 200
        assert on.headers["access-control-allow-origin"] == "http://app.example"
        simple = httpx.get(f"{url}/v1/models", headers={"Origin": "http://app.example"})
        assert simple.headers["access-control-allow-origin"] == "http://app.example"
        other = httpx.get(f"{url}/v1/models", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in other.headers
        health = httpx.get(f"{url}/healthz", headers={"Origin": "http://app.example"})
        assert "access-control-allow-origin" not in health.headers


# --- failures behind the API -------------------------------------------------------------
def test_unreachable_llm_maps_to_502_and_a_stream_error_event(
    assistant: Any, embed_model: Any
) -> None:
    settings = make_settings(
        assistant.settings.data_dir,
        backend="openai-compatible",
        llm_base_url=f"http://127.0.0.1:{free_port()}/v1",  # nothing listens there
        llm_max_retries=0,
        llm_timeout_s=2,
    )
    broken = Assistant(settings, assistant.store, embed_model)
    with serve(create_api(broken, settings)) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="icml-rag", messages=[user(FEEDBACK_Q)])
        assert info.value.status_code == 502
        assert "cannot be reached" in info.value.message

        stream = client.chat.completions.create(
            model="icml-rag", messages=[user(FEEDBACK_Q)], stream=True
        )
        with pytest.raises(openai.APIError, match="cannot be reached"):
            collect_stream(stream)

        raw = httpx.post(
            f"{url}/v1/chat/completions",
            json={"messages": [user(FEEDBACK_Q)], "stream": True},
            timeout=30,
        )
        events = [line for line in raw.text.split("\n\n") if line]
        assert raw.status_code == 200 and events[-1] == "data: [DONE]"
        error = json.loads(events[-2].removeprefix("data: "))["error"]
        assert error["type"] == "upstream_error" and error["code"] == "502"

        ask = httpx.post(f"{url}/v1/ask", json={"question": FEEDBACK_Q}, timeout=30)
        assert ask.status_code == 502 and "Traceback" not in ask.text
        # Off-topic questions abstain before the LLM is called, so they still work.
        calm = httpx.post(f"{url}/v1/ask", json={"question": OFF_TOPIC_Q}, timeout=30)
        assert calm.status_code == 200 and calm.json()["abstained"] is True


def test_empty_store_is_503_but_healthy(tmp_path: Path, embed_model: Any) -> None:
    settings = make_settings(tmp_path / "empty", backend="extractive")
    empty = Assistant(settings, PaperStore(settings), embed_model)
    with serve(create_api(empty, settings)) as url:
        health = httpx.get(f"{url}/healthz")
        assert health.status_code == 200 and health.json()["papers"] == 0
        for path, body in [
            ("/v1/ask", {"question": FEEDBACK_Q}),
            ("/v1/retrieve", {"question": FEEDBACK_Q}),
            ("/v1/chat/completions", {"messages": [user(FEEDBACK_Q)]}),
            ("/v1/chat/completions", {"messages": [user(FEEDBACK_Q)], "stream": True}),
        ]:
            response = httpx.post(f"{url}{path}", json=body, timeout=30)
            assert response.status_code == 503, (path, response.text)
            assert "rag ingest" in response.json()["error"]["message"]


def test_graphsgpt_question_cites_zxxSJAVQPc(client: openai.OpenAI) -> None:
    content, final, _ = collect_stream(
        client.chat.completions.create(model="icml-rag", messages=[user(GRAPHS_Q)], stream=True)
    )
    extra = final.model_extra or {}
    assert check_citations(content, extra["citations"])
    assert "zxxSJAVQPc" in {c["paper_id"] for c in extra["citations"]}
    assert content.endswith(last_reference_line(extra))


def test_content_shows_latex_as_unicode_and_structured_fields_keep_it(
    client: openai.OpenAI, base_url: str
) -> None:
    plain = client.chat.completions.create(model="icml-rag", messages=[user(GRAPHS_Q)])
    content = plain.choices[0].message.content or ""
    streamed, final, _ = collect_stream(
        client.chat.completions.create(model="icml-rag", messages=[user(GRAPHS_Q)], stream=True)
    )
    assert streamed == content
    assert "A Graph is Worth K Words" in content and "100M molecules" in content
    assert "$" not in content
    titles = [c["title"] for c in (final.model_extra or {})["citations"]]
    assert any("Worth $K$ Words" in t for t in titles)  # citations keep the abstracts' LaTeX
    got = httpx.post(f"{base_url}/v1/ask", json={"question": GRAPHS_Q}, timeout=60).json()
    assert "$100$M" in got["answer"] and "100M molecules" in got["plain_text"]
    assert got["plain_text"] == content


def last_reference_line(extra: dict[str, Any]) -> str:
    """The last numbered reference, in rag.formatting's line shape."""
    c = extra["citations"][-1]
    title = readable_math(c["title"])
    return f"[{c['n']}] {title} — {short_authors(c['authors'])} — {c['url'] or c['paper_id']}"


@pytest.mark.chroma_server
def test_health_is_503_when_the_store_goes_away(tmp_path: Path, embed_model: Any) -> None:
    """A real `chroma run` that is stopped under a running API: health and stats say 503."""
    port = free_port()
    exe = Path(sys.executable).parent / "chroma"
    args = [str(exe), "run", "--path", str(tmp_path / "db"), "--host", "127.0.0.1"]
    proc = subprocess.Popen(
        [*args, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/api/v2/heartbeat", 60, proc)
        settings = make_settings(
            tmp_path / "data", backend="extractive", chroma_host="127.0.0.1", chroma_port=port
        )
        remote = Assistant(settings, PaperStore(settings), embed_model)
        with serve(create_api(remote, settings)) as url:
            assert httpx.get(f"{url}/healthz").status_code == 200
            proc.terminate()
            proc.wait(timeout=30)
            health = httpx.get(f"{url}/healthz", timeout=60)
            assert health.status_code == 503
            assert health.json() == {
                "ok": False,
                "backend": "extractive",
                "papers": None,
                "error": "the store cannot be reached",
            }
            stats = httpx.get(f"{url}/v1/stats", timeout=60)
            assert stats.status_code == 503 and "cannot read the store" in stats.text
    finally:
        if proc.poll() is None:
            proc.kill()
