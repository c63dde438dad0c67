"""What every /v1 request passes before routing: the guard (API key, Content-Type, body
size, well-formed JSON) and CORS scoped to /v1."""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag.api.errors import error_response
from rag.text import repeated_key

log = logging.getLogger(__name__)


# --- middleware -------------------------------------------------------------------------
def _is_v1(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/")


def authorized(header: str | None, keys: list[str]) -> bool:
    scheme, _, token = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    # Every key is compared, so the time taken does not tell which one nearly matched.
    matches = [hmac.compare_digest(token.strip().encode(), key.encode()) for key in keys]
    return any(matches)


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        raise _DuplicateKey(str(repeated_key(pairs)))
    return obj


class _DuplicateKey(ValueError):
    pass


def json_body_problem(body: bytes) -> str | None:
    """Why `body` is not acceptable JSON, or None (an empty body is left to the schema).

    Python's json (which FastAPI uses) keeps the last of two equal keys, so
    `{"question": "a", "question": "b"}` would mean different things to a proxy or log
    that reads the first; it is refused. Depth, encoding and giant numbers get a message
    that says what is wrong instead of FastAPI's "There was an error parsing the body".
    """
    if not body.strip():
        return None
    try:
        json.loads(body, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        return f"body: key '{str(exc)[:80]}' appears twice in one object"
    except json.JSONDecodeError as exc:
        return f"body: invalid JSON ({exc.msg}: line {exc.lineno} column {exc.colno})"
    except UnicodeDecodeError as exc:
        return f"body: not valid UTF-8 (byte {exc.start})"
    except RecursionError:
        return "body: invalid JSON (nested too deeply)"
    except ValueError:  # Python refuses integers of more than 4,300 digits
        return "body: invalid JSON (a number has more than 4,300 digits)"
    return None


class V1Guard:
    """Key, Content-Type, body-size and JSON checks on /v1, before any parsing or routing,
    so an unauthenticated caller learns nothing and no handler sees an oversized body."""

    def __init__(
        self, app: ASGIApp, api_keys: list[str], max_body: int, json_paths: set[str]
    ) -> None:
        self.app, self.api_keys, self.max_body = app, api_keys, max_body
        self.json_paths = json_paths  # POST routes that take JSON; elsewhere routing answers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_v1(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if self.api_keys and not authorized(headers.get("authorization"), self.api_keys):
            await error_response(
                401,
                "missing or invalid API key: send `Authorization: Bearer <key>`",
                "authentication_error",
                headers={"WWW-Authenticate": 'Bearer realm="icml-rag"'},
            )(scope, receive, send)
            return
        if scope["method"] == "POST":  # the only method with a body here; others get 405
            json_route = scope["path"] in self.json_paths
            if json_route and not _is_json(headers.get("content-type")):
                await error_response(
                    415, "content-type: must be application/json", "invalid_request_error"
                )(scope, receive, send)
                return
            body = await self._read_body(headers, receive)
            if body is None:
                await error_response(
                    413,
                    f"body: larger than the {self.max_body:,}-byte limit",
                    "invalid_request_error",
                )(scope, receive, send)
                return
            problem = json_body_problem(body) if json_route else None
            if problem:
                await error_response(400, problem, "invalid_request_error")(scope, receive, send)
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    async def _read_body(self, headers: Headers, receive: Receive) -> bytes | None:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            return None
        chunks, size, more = [], 0, True
        while more:  # chunked bodies have no length header: count what arrives
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # later calls wait for the disconnect, as usual

    return replay


class V1CORS:
    """CORS for /v1 only (the UI and health check are same-origin)."""

    def __init__(self, app: ASGIApp, origins: list[str]) -> None:
        self.app = app
        self.cors = CORSMiddleware(
            app,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
            max_age=600,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        use_cors = scope["type"] == "http" and _is_v1(scope["path"])
        await (self.cors if use_cors else self.app)(scope, receive, send)
