"""Bad input gets a clear 4xx that names the field, never a 500 or a stack trace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rag.api.app import MAX_BODY_BYTES, create_api
from tests.support.api import serve

Q = "Which paper explains why feedback alignment works through implicit regularization?"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def base_url(assistant: Any) -> Iterator[str]:
    with serve(create_api(assistant, assistant.settings)) as url:
        yield url


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
