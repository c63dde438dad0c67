"""Every API error as OpenAI's `{"error": {"message", "type", "param", "code"}}` body.

Our own errors (rag.errors) carry their status and kind; request validation becomes a
400/422 naming the field; anything else is a 500 with no details (they go to the log).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from rag.errors import InputError, RagError

log = logging.getLogger(__name__)


def error_response(
    status: int,
    message: str,
    kind: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    detail: str | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "error": {"message": message, "type": kind, "param": param, "code": str(status)}
    }
    if detail is not None:  # what Gradio's page reads from a refused request (FastAPI's key)
        body["detail"] = detail
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

    @app.exception_handler(RagError)
    async def _ours(request: Request, exc: RagError) -> JSONResponse:
        if exc.status >= 500:
            log.warning("%s (%s): %s", type(exc).__name__, exc.status, exc)
        param = exc.param if isinstance(exc, InputError) else None
        return error_response(exc.status, str(exc), exc.kind, param)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, str(exc.detail), kind, headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, "internal error; see the server log", "server_error")
