"""HTTP plumbing of the API: OpenAI-shaped error bodies and exception handlers, the /v1
guard (API key, Content-Type, body size, well-formed JSON), CORS scoped to /v1, and
bearer-auth docs."""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag.assistant import InputError
from rag.store import StoreError
from rag.synthesis import AnswerError

log = logging.getLogger(__name__)


# --- errors -----------------------------------------------------------------------------
def error_response(
    status: int,
    message: str,
    kind: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "param": param, "code": str(status)}}
    return JSONResponse(body, status_code=status, headers=headers)


def _field_name(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def _reason(error: dict[str, Any]) -> str:
    if error.get("type") == "string_pattern_mismatch":  # only QUESTION_PATTERN is used
        return "must contain a visible character"
    reason = str(error.get("msg", "invalid"))
    return reason if len(reason) <= 200 else reason[:200] + "…"


def _validation_response(errors: list[Any]) -> JSONResponse:
    if any(e.get("type") == "json_invalid" for e in errors):
        detail = errors[0].get("ctx", {}).get("error", "")
        return error_response(400, f"body: invalid JSON ({detail})", "invalid_request_error")
    # The offending input is never echoed (it may be a megabyte long), and messages that
    # quote it (a discriminator tag, say) are cut short.
    parts = [f"{_field_name(e.get('loc', ()))}: {_reason(e)}" for e in errors[:5]]
    param = _field_name(errors[0].get("loc", ())) if errors else None
    return error_response(422, "; ".join(parts), "invalid_request_error", param)


def install_error_handlers(app: FastAPI) -> None:
    # Only request validation is the client's fault: a pydantic error raised while building
    # a response is a bug and falls through to the generic 500.
    @app.exception_handler(RequestValidationError)
    async def _request_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_response(list(exc.errors()))

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        # InputError messages read "field: reason".
        field = str(exc).split(":", 1)[0] if ":" in str(exc) else None
        return error_response(422, str(exc), "invalid_request_error", field)

    @app.exception_handler(StoreError)
    async def _store(request: Request, exc: StoreError) -> JSONResponse:
        log.warning("store unavailable: %s", exc)
        return error_response(503, str(exc), "service_unavailable")

    @app.exception_handler(AnswerError)
    async def _answer(request: Request, exc: AnswerError) -> JSONResponse:
        log.warning("answer failed (%s): %s", exc.status, exc)
        return error_response(exc.status, str(exc), "upstream_error")

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, str(exc.detail), kind, headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, "internal error; see the server log", "server_error")


# --- middleware -------------------------------------------------------------------------
def _is_v1(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/")


def _authorized(header: str | None, key: str) -> bool:
    scheme, _, token = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(token.strip().encode(), key.encode())


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
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
        self, app: ASGIApp, api_key: str | None, max_body: int, json_paths: set[str]
    ) -> None:
        self.app, self.api_key, self.max_body = app, api_key, max_body
        self.json_paths = json_paths  # POST routes that take JSON; elsewhere routing answers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_v1(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if self.api_key and not _authorized(headers.get("authorization"), self.api_key):
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


def document_bearer_auth(app: FastAPI) -> None:
    """State the bearer requirement in /openapi.json (enforced by `V1Guard`)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes["bearer"] = {"type": "http", "scheme": "bearer"}
        for path, operations in schema.get("paths", {}).items():
            if _is_v1(path):
                for operation in operations.values():
                    operation["security"] = [{"bearer": []}]
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
