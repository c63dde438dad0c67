"""The error statuses each route documents in /openapi.json."""

from __future__ import annotations

from typing import Any

from rag.api.schemas import ErrorResponse

MAX_BODY_BYTES = 1_048_576  # 1 MiB: far above any real question plus a long chat history
_REASONS = {
    400: "Invalid JSON.",
    401: "Missing or wrong API key.",
    404: "Unknown model.",
    413: f"Body larger than {MAX_BODY_BYTES:,} bytes.",
    415: "Content-Type is not application/json.",
    422: "A field is invalid; the message names it.",
    429: "Over the client's rate limit, or the server's answers in flight; retry after "
    "`Retry-After` seconds.",
    502: "The language model failed.",
    503: "The paper store is unreachable or empty.",
    504: "The language model timed out.",
}
Responses = dict[int | str, dict[str, Any]]


def error_docs(*statuses: int) -> Responses:
    return {s: {"model": ErrorResponse, "description": _REASONS[s]} for s in statuses}


class ErrorDocs:
    """The statuses routes share, with 401 only when an API key is required."""

    def __init__(self, auth: bool) -> None:
        self.auth: tuple[int, ...] = (401,) if auth else ()
        self.body = error_docs(400, *self.auth, 413, 415, 422, 429, 503)
        self.answer = error_docs(400, *self.auth, 413, 415, 422, 429, 502, 503, 504)

    def plain(self, *statuses: int) -> Responses:
        return error_docs(*self.auth, *statuses)
