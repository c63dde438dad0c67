"""The edge guard (rag.api.edge) driven as plain ASGI: a body that stalls, one that grows
past the limit with no declared length, and the app's own reply suppressed after the
edge has answered."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rag.api.edge import Edge, GradioSession


async def reading_app(scope: Any, receive: Any, send: Any) -> None:
    """Reads the whole body, as a framework does, then answers 200 (or its own 400 when
    the read ends early, as FastAPI does)."""
    body, more = b"", True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            await send({"type": "http.response.start", "status": 400, "headers": []})
            await send({"type": "http.response.body", "body": b"framework 400"})
            return
        body += message.get("body", b"")
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def run(edge: Edge, receive: Any, headers: list[tuple[bytes, bytes]] | None = None) -> list[Any]:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/gradio_api/queue/join",
        "headers": headers or [],
        "client": ("127.0.0.1", 1),
    }
    asyncio.run(edge(scope, receive, send))
    return sent


def edge(**kwargs: Any) -> Edge:
    options: dict[str, Any] = {
        "max_body": 100,
        "api_keys": [],
        "cors_origins": [],
        "trust_proxy": False,
        "session": GradioSession(lambda: None),
    }
    return Edge(reading_app, **(options | kwargs))


def test_a_stalled_body_gets_408_and_the_apps_reply_is_dropped() -> None:
    async def stalls() -> Any:
        await asyncio.sleep(5)
        return {"type": "http.request", "body": b"late"}

    sent = run(edge(body_timeout_s=0.05), stalls)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [408]
    body = json.loads(
        b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    )
    assert body["error"]["message"] == "body: the client stopped sending"


def test_an_undeclared_body_past_the_limit_gets_413_once() -> None:
    pieces = iter([b"x" * 60, b"x" * 60, b"x" * 60])

    async def chunks() -> Any:
        return {"type": "http.request", "body": next(pieces), "more_body": True}

    sent = run(edge(), chunks)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]


def test_a_body_within_the_limit_reaches_the_app() -> None:
    async def small() -> Any:
        return {"type": "http.request", "body": b"x" * 100, "more_body": False}

    sent = run(edge(), small, [(b"content-length", b"100")])
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"100"
