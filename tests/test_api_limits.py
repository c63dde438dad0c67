"""Bad input gets a clear 4xx that names the field, never a 500 or a stack trace; too many
answers (per client, or in flight at once) get a 429 with Retry-After."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rag.api.app import MAX_BODY_BYTES, create_api
from rag.errors import InputError
from tests.support.api import serve
from tests.support.settings import make_settings
from tests.support.ui_http import UIError, UISession

Q = "Which paper explains why feedback alignment works through implicit regularization?"
JSON = {"content-type": "application/json"}


def post(url: str, body: Any = None, *, raw: bytes | None = None, **kw: Any) -> httpx.Response:
    if raw is not None:
        return httpx.post(url, content=raw, headers=kw.pop("headers", JSON), timeout=60, **kw)
    return httpx.post(url, json=body, timeout=60, **kw)


def assert_error(response: httpx.Response, status: int, *needles: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    error = response.json()["error"]
    for needle in needles:
        assert needle in error["message"], error
    return error


TURN = {"role": "user", "content": "earlier question"}
ASK_CASES = [
    ({"question": 123}, "question", "valid string"),
    ({}, "question", "Field required"),
    ({"question": ""}, "question", "at least 1"),
    ({"question": " \t\n\x00 "}, "question", "visible character"),
    ({"question": "x" * 2001}, "question", "at most 2000"),
    ({"question": Q, "history": [TURN] * 21}, "history", "at most 20"),
    ({"question": Q, "history": [{"role": "robot", "content": "x"}]}, "history.0.role", "'user'"),
    ({"question": Q, "history": "not a list"}, "history", "valid list"),
    ({"question": Q, "top_k": 0}, "top_k", "greater than or equal to 1"),
    ({"question": Q, "top_k": 51}, "top_k", "less than or equal to 50"),
    ({"question": Q, "top_k": "five"}, "top_k", "valid integer"),
    ({"question": Q, "top_k": 2.5}, "top_k", "valid integer"),
    ({"question": Q, "top_k": True}, "top_k", "valid integer"),  # not silently 1
    ({"question": Q, "top_k": "5"}, "top_k", "valid integer"),
    ({"question": Q, "mode": "semantic"}, "mode", "'dense', 'bm25' or 'hybrid'"),
    ({"question": Q, "filters": {"venue": "ICML"}}, "filters.venue", "Extra inputs"),
    ({"question": Q, "filters": {"status": "Oral"}}, "filters.status", "valid list"),
    ({"question": Q, "temperature": 0.2}, "temperature", "Extra inputs"),
]


@pytest.mark.parametrize(("body", "field", "message"), ASK_CASES)
def test_ask_rejects_bad_fields_by_name(
    base_url: str, body: dict[str, Any], field: str, message: str
) -> None:
    error = assert_error(post(f"{base_url}/v1/ask", body), 422, f"{field}: ", message)
    assert error["param"] == field and error["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": Q, "top_k": 0}, "top_k"),
        ({"question": Q, "filters": {"year": 2024}}, "filters.year"),
        ({"question": Q, "history": []}, "history"),  # retrieve takes no history
        ({"question": "y" * 5000}, "question"),
    ],
)
def test_retrieve_rejects_bad_fields_by_name(
    base_url: str, body: dict[str, Any], field: str
) -> None:
    assert assert_error(post(f"{base_url}/v1/retrieve", body), 422, f"{field}: ")["param"] == field


def msg(role: str, content: Any) -> dict[str, Any]:
    return {"role": role, "content": content}


CHAT_CASES = [
    ({"messages": []}, "messages", "at least 1"),
    ({"messages": [msg("system", "only instructions")]}, "messages", "no user message"),
    ({"messages": [msg("tool", "x")]}, "messages.0", "'system', 'developer', 'user'"),
    ({"messages": [msg("user", "x" * 2001)]}, "messages.0.user.content", "at most 2000"),
    (
        {"messages": [msg("user", [{"type": "text", "text": "x" * 1500}] * 2)]},
        "messages",
        "limit 2,000",
    ),
    (
        {"messages": [msg("user", [{"type": "image_url", "image_url": {"url": "x"}}])]},
        "messages.0.user.content",
        "",
    ),
    (
        {"messages": [msg("user", "a"), msg("assistant", "b")] * 12 + [msg("user", Q)]},
        "messages",
        "",
    ),
    ({"messages": [msg("user", Q)], "top_k": 51}, "top_k", "less than or equal to 50"),
    ({"messages": [msg("user", Q)], "mode": "fuzzy"}, "mode", "'dense', 'bm25' or 'hybrid'"),
    ({"messages": [msg("user", Q)], "filters": {"venue": "x"}}, "filters.venue", "Extra inputs"),
    ({"messages": [msg("user", Q)], "stream": "true"}, "stream", "valid boolean"),
    ({"messages": [msg("user", " \n ")]}, "messages.0.user.content", "visible character"),
    ({"messages": [msg("user", [])]}, "messages.0.user.content", ""),
    ({"messages": "hello"}, "messages", "valid list"),
]


@pytest.mark.parametrize(("body", "field", "message"), CHAT_CASES)
def test_chat_rejects_bad_fields_by_name(
    base_url: str, body: dict[str, Any], field: str, message: str
) -> None:
    for stream in (False, True):  # a stream request fails before any SSE is sent
        payload = {**body, "stream": stream} if "stream" not in body else body
        error = assert_error(post(f"{base_url}/v1/chat/completions", payload), 422, message)
        assert error["message"].startswith(f"{field}")


def test_history_at_the_limit_is_accepted(base_url: str) -> None:
    turns = [msg("user", "a question"), msg("assistant", "an answer")] * 10
    chat = post(f"{base_url}/v1/chat/completions", {"messages": [*turns, msg("user", Q)]})
    assert chat.status_code == 200, chat.text
    ask = post(f"{base_url}/v1/ask", {"question": "x" * 2000, "history": turns})
    assert ask.status_code == 200, ask.text


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/retrieve", "/v1/chat/completions"])
def test_malformed_bodies(base_url: str, path: str) -> None:
    url = f"{base_url}{path}"
    assert_error(post(url, raw=b'{"question": '), 400, "invalid JSON")
    assert_error(post(url, raw=b"\xff\xfe not utf-8"), 400)
    assert_error(post(url, raw=b"[1, 2]"), 422, "body: ")
    assert_error(post(url, raw=b""), 422, "body: Field required")
    nested = b'{"question": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert post(url, raw=nested).status_code in (400, 422)
    for headers in (
        {"content-type": "text/plain"},
        {"content-type": "application/x-www-form-urlencoded"},
        {},
    ):
        assert_error(post(url, raw=b'{"question": "x"}', headers=headers), 415, "content-type")
    # JSON escapes can smuggle a lone surrogate, which no tokenizer could encode; pydantic
    # refuses it as a string.
    lone = b'{"question": "bad \\ud800 text", "messages": [{"role": "user", "content": "\\ud800"}]}'
    assert_error(post(url, raw=lone), 422, "unicode string")


def test_huge_bodies_are_refused_before_parsing(base_url: str) -> None:
    big = b'{"question": "' + b"x" * MAX_BODY_BYTES + b'"}'
    assert_error(post(f"{base_url}/v1/ask", raw=big), 413, "1,048,576-byte limit")

    def chunked() -> Iterator[bytes]:  # no Content-Length: the guard must count
        yield b'{"question": "'
        for _ in range(20):
            yield b"x" * 65_536
        yield b'"}'

    response = httpx.post(f"{base_url}/v1/chat/completions", content=chunked(), headers=JSON)
    assert_error(response, 413, "limit")


def test_unknown_routes_and_methods(base_url: str) -> None:
    assert_error(httpx.get(f"{base_url}/v1/nothing-here"), 404, "Not Found")
    wrong_method = httpx.get(f"{base_url}/v1/ask")
    assert_error(wrong_method, 405, "Method Not Allowed")
    assert "POST" in wrong_method.headers["allow"]
    assert_error(httpx.get(f"{base_url}/v1/models/gpt-4o"), 404, "gpt-4o")


# --- admission control: rate limit and in-flight bound --------------------------------
def limited_app(assistant: Any, **overrides: Any) -> Any:
    settings = make_settings(assistant.settings.data_dir, backend="extractive", **overrides)
    return create_api(assistant, settings)


def assert_refused(response: httpx.Response, *needles: str) -> int:
    error = assert_error(response, 429, *needles)
    assert error["type"] == "rate_limit_error"
    retry_after = response.headers["retry-after"]
    assert retry_after.isdigit() and int(retry_after) >= 1  # whole seconds, as HTTP says
    return int(retry_after)


def test_a_burst_over_the_rate_limit_is_429_until_the_bucket_refills(assistant: Any) -> None:
    app = limited_app(assistant, rate_limit_per_minute=60, rate_limit_burst=3)
    with serve(app) as url:
        # The answer routes share one budget per client, and a refused body spends it too.
        # (Cheap 422s here: a slow answer would let the bucket refill while it runs.)
        for path in ("/v1/ask", "/v1/retrieve", "/v1/chat/completions"):
            assert post(f"{url}{path}", {"top_k": 0}).status_code == 422, path
        refused = post(f"{url}/v1/ask", {"question": Q})
        wait = assert_refused(refused, "rate limit", "bursts of 3", "retry in 1 s")
        assert wait == 1  # 60 a minute: one more request a second
        for path in ("/healthz", "/v1/models", "/v1/stats"):  # exempt
            assert httpx.get(f"{url}{path}").status_code == 200, path
        time.sleep(wait)
        assert post(f"{url}/v1/ask", {"question": Q}).status_code == 200


def test_clients_with_different_keys_are_limited_separately(assistant: Any) -> None:
    app = limited_app(
        assistant, api_key="key-a, key-b", rate_limit_per_minute=1, rate_limit_burst=2
    )
    a, b = ({"Authorization": f"Bearer key-{name}"} for name in "ab")
    with serve(app) as url:
        ask = f"{url}/v1/retrieve"
        assert [post(ask, {"question": Q}, headers=a).status_code for _ in range(2)] == [200] * 2
        assert assert_refused(post(ask, {"question": Q}, headers=a)) == 60
        assert post(ask, {"question": Q}, headers=b).status_code == 200  # b has its own
        # A wrong key is turned away before admission: it neither spends nor gets a 429.
        assert post(ask, {"question": Q}, headers={"Authorization": "Bearer x"}).status_code == 401
        assert post(ask, {"question": Q}, headers=b).status_code == 200
        assert_refused(post(ask, {"question": Q}, headers=b))


class Gated:
    """The shared assistant with answers that wait for `gate` (a stream after its first
    event), and `entered` released as each one starts waiting."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.gate, self.entered = inner, threading.Event(), threading.Semaphore(0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def ask(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.release()
        self.gate.wait(30)
        return self.inner.ask(*args, **kwargs)

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        events = self.inner.stream(*args, **kwargs)
        yield next(events)
        self.entered.release()
        self.gate.wait(30)
        yield from events


def in_thread(fn: Any, *args: Any, **kwargs: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn(*args, **kwargs)), daemon=True)
    thread.start()
    return thread, out


def streamed(url: str) -> tuple[int, str]:
    body = {"messages": [msg("user", Q)], "stream": True}
    with httpx.stream("POST", url, json=body, timeout=60) as response:
        return response.status_code, response.read().decode()


def test_answers_beyond_the_inflight_bound_are_429_and_streams_hold_their_slot(
    assistant: Any,
) -> None:
    gated = Gated(assistant)
    settings = make_settings(
        assistant.settings.data_dir,
        backend="extractive",
        max_inflight_answers=2,
        inflight_wait_s=0.2,
    )
    with serve(create_api(gated, settings)) as url:  # type: ignore[arg-type]
        slow_ask, asked = in_thread(post, f"{url}/v1/ask", {"question": Q})
        slow_stream, stream = in_thread(streamed, f"{url}/v1/chat/completions")
        for _ in range(2):
            assert gated.entered.acquire(timeout=30)
        # Both slots taken, one by a stream that has already sent its first chunk.
        refused = post(f"{url}/v1/chat/completions", {"messages": [msg("user", Q)]})
        assert assert_refused(refused, "server busy", "2 answers in progress") == 1
        assert httpx.get(f"{url}/healthz").status_code == 200  # never queued behind answers
        gated.gate.set()
        for thread in (slow_ask, slow_stream):
            thread.join(60)
        assert asked[0].status_code == 200
        assert stream[0][0] == 200 and stream[0][1].rstrip().endswith("data: [DONE]")
        assert post(f"{url}/v1/ask", {"question": Q}).status_code == 200  # slots came back


def test_a_request_waits_briefly_for_a_free_slot(assistant: Any) -> None:
    gated = Gated(assistant)
    settings = make_settings(
        assistant.settings.data_dir,
        backend="extractive",
        max_inflight_answers=1,
        inflight_wait_s=10,
    )
    with serve(create_api(gated, settings)) as url:  # type: ignore[arg-type]
        first, first_out = in_thread(post, f"{url}/v1/ask", {"question": Q})
        assert gated.entered.acquire(timeout=30)
        second, second_out = in_thread(post, f"{url}/v1/retrieve", {"question": Q})
        time.sleep(0.3)
        assert not second_out  # waiting for the slot, not refused
        gated.gate.set()
        for thread in (first, second):
            thread.join(60)
        assert first_out[0].status_code == second_out[0].status_code == 200


def test_ui_questions_spend_the_same_rate_limit(assistant: Any, tmp_path: Any) -> None:
    from ui.layout import mount_ui

    settings = make_settings(
        tmp_path, backend="extractive", rate_limit_per_minute=1, rate_limit_burst=1
    )
    app = mount_ui(create_api(assistant, settings), assistant, settings)
    with serve(app, lifespan="on") as url, httpx.Client(base_url=url, timeout=60) as client:
        session = UISession(client)
        assert session.ask(Q)
        with pytest.raises(UIError) as refused:
            session.ask(Q)
        assert "HTTP 429" in str(refused.value) and "rate limit" in str(refused.value)
        joined = client.post("/gradio_api/queue/join", json={})
        assert joined.status_code == 429 and "rate limit" in joined.json()["detail"]
        assert "retry-after" in joined.headers
        assert post(f"{url}/v1/retrieve", {"question": Q}).status_code == 429  # same client


def test_replicas_with_one_limits_storage_share_one_budget(assistant: Any) -> None:
    # Two apps in one process over the same `limits` storage: what two replicas on one
    # Redis see (memory:// is that storage within a process).
    shared = {"rate_limit_per_minute": 60, "rate_limit_burst": 3, "rate_limit_storage": "memory://"}
    local = {"rate_limit_per_minute": 60, "rate_limit_burst": 3}
    for overrides, refused in ((shared, True), (local, False)):
        first, second = limited_app(assistant, **overrides), limited_app(assistant, **overrides)
        with serve(first) as a, serve(second) as b:
            codes = [post(f"{url}/v1/retrieve", {"question": Q}).status_code for url in (a, b, a)]
            assert codes == [200, 200, 200]
            fourth = post(f"{b}/v1/retrieve", {"question": Q})
            if refused:  # the fourth request within the window, on either replica
                assert_refused(fourth, "rate limit")
            else:  # each replica its own budget
                assert fourth.status_code == 200
    with pytest.raises(InputError, match="rate_limit_storage: cannot use 'nowhere://x'"):
        limited_app(assistant, rate_limit_per_minute=60, rate_limit_storage="nowhere://x")
