"""What every request passes first, whatever its route (the API's own checks on /v1 come
after, in rag.api.middleware):

- header limits (431) and a body limit: a declared length over it is refused (413) before a byte is read, an
  undeclared one as soon as it passes it, and a body that stalls is dropped (408);
- wrong credentials throttled per address: after `FAILED_AUTH_BURST` wrong keys (on /v1)
  or wrong passwords (the UI's /login), further attempts from that address get 429 with
  Retry-After until its budget refills; requests with a good key or a logged-in session
  are never slowed by it;
- the UI's own routes (Gradio's queue, reset, cancel, heartbeat, files, components) only
  for a logged-in session when the UI is protected, and no uploads at all (the UI takes
  none);
- CORS only for RAG_CORS_ORIGINS: Gradio answers any localhost origin with credentials
  allowed, which a page on another local port could use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag.api.admission import buckets, client_address
from rag.api.errors import error_response
from rag.api.middleware import authorized

FAILED_AUTH_PER_MINUTE = 10.0  # wrong keys or passwords an address may try, on average
FAILED_AUTH_BURST = 10
HEADER_BYTES = 32_768  # a request's header names and values, in all
MAX_HEADERS = 100
BODY_TIMEOUT_S = 30.0  # the longest pause between two pieces of a request body
GRADIO_PREFIX = "/gradio_api/"
NO_UPLOADS = ("/gradio_api/upload", "/gradio_api/upload_progress")
CORS_HEADERS = (
    b"access-control-allow-origin",
    b"access-control-allow-credentials",
    b"access-control-allow-methods",
    b"access-control-allow-headers",
    b"access-control-expose-headers",
    b"access-control-max-age",
)


def _is_v1(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/")


class GradioSession:
    """Whether a request carries a logged-in Gradio session: its cookie names a token the
    mounted Gradio app issued. `app` is looked up per request (the UI mounts after the API
    is built); no UI, or a UI without a login: every request counts as logged in."""

    def __init__(self, find_app: Callable[[], Any]) -> None:
        self.find_app = find_app

    def protected(self) -> bool:
        app = self.find_app()
        return app is not None and (app.auth is not None or app.auth_dependency is not None)

    def logged_in(self, scope: Scope) -> bool:
        app = self.find_app()
        if app is None or (app.auth is None and app.auth_dependency is None):
            return True
        cookies = _cookies(Headers(scope=scope))
        for name in (f"access-token-{app.cookie_id}", f"access-token-unsecure-{app.cookie_id}"):
            token = cookies.get(name)
            if token and token in app.tokens:
                return True
        return False


def _cookies(headers: Headers) -> dict[str, str]:
    out: dict[str, str] = {}
    for header in headers.getlist("cookie"):
        for part in header.split(";"):
            name, _, value = part.strip().partition("=")
            if name:
                out[name] = value
    return out


def _bearer_sent(headers: Headers) -> bool:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


class Edge:
    """ASGI middleware, outermost: body limit, failed-auth throttle, the UI's routes behind
    its login, CORS scoped to RAG_CORS_ORIGINS. See the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        api_keys: list[str],
        cors_origins: list[str],
        trust_proxy: bool,
        session: GradioSession,
        body_timeout_s: float = BODY_TIMEOUT_S,
        failed_per_minute: float = FAILED_AUTH_PER_MINUTE,
        failed_burst: int = FAILED_AUTH_BURST,
        storage: str = "",
    ) -> None:
        self.app, self.max_body, self.api_keys = app, max_body, api_keys
        self.cors_origins = set(cors_origins)
        self.trust_proxy, self.session = trust_proxy, session
        self.body_timeout_s = body_timeout_s
        self.failed = buckets(failed_per_minute, failed_burst, storage, "failed-auth")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        raw = scope.get("headers") or []
        size = sum(len(k) + len(v) for k, v in raw)
        if size > HEADER_BYTES or len(raw) > MAX_HEADERS:
            text = (
                f"headers: {len(raw):,} headers, {size:,} bytes (limits {MAX_HEADERS} "
                f"headers, {HEADER_BYTES:,} bytes)"
            )
            await self._refuse(scope, receive, send, 431, text)
            return
        headers = Headers(scope=scope)
        address = client_address(scope, self.trust_proxy)
        send = self._cors_scoped(scope, headers, send)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:  # before a byte is read
            await self._refuse(scope, receive, send, 413, self._too_large())
            return
        # Wrong credentials: an address out of budget is refused before its next guess.
        login = path in ("/login", "/login/") and method == "POST"
        guessing = login or (_is_v1(path) and bool(self.api_keys) and _bearer_sent(headers))
        # What a wrong guess gets: Gradio's 400 for a wrong password, the API's 401 for a key.
        wrong = 400 if login else 401
        if guessing:
            wait = self.failed.peek(address)
            # The key is compared only for an address out of budget: a good key passes.
            if wait > 0 and (login or not self._good_key(headers)):
                await self._refuse(scope, receive, send, 429, _throttled(wait), wait)
                return
        if path.startswith(GRADIO_PREFIX):
            if path in NO_UPLOADS or path.startswith("/gradio_api/upload/"):
                await self._refuse(scope, receive, send, 403, "uploads: this UI takes none")
                return
            if not self.session.logged_in(scope):
                await self._refuse(scope, receive, send, 401, "log in first")
                return
        state = {"started": False, "refused": False}

        async def watched_send(message: Message) -> None:
            if state["refused"]:
                return  # the edge has answered (413/408); the app's own reply goes nowhere
            if message["type"] == "http.response.start":
                state["started"] = True
                if guessing and message["status"] == wrong:
                    self.failed.take(address)  # a wrong key or password spends budget
            await send(message)

        async def refuse(status: int, text: str) -> Message:
            # Frameworks turn a failing body read into their own 400: the edge answers
            # itself and tells the app the client left.
            if not state["started"]:
                state["refused"] = True
                await self._refuse(scope, _nothing, send, status, text)
            return {"type": "http.disconnect"}

        await self.app(scope, self._limited(receive, refuse), watched_send)

    def _good_key(self, headers: Headers) -> bool:
        return bool(self.api_keys) and authorized(headers.get("authorization"), self.api_keys)

    def _too_large(self) -> str:
        return f"body: larger than the {self.max_body:,}-byte limit"

    def _limited(
        self, receive: Receive, refuse: Callable[[int, str], Awaitable[Message]]
    ) -> Receive:
        seen, over = 0, False

        async def limited() -> Message:
            nonlocal seen, over
            if over:
                return {"type": "http.disconnect"}
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout_s)
            except TimeoutError:
                over = True
                return await refuse(408, "body: the client stopped sending")
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    over = True
                    return await refuse(413, self._too_large())
            return message

        return limited

    def _cors_scoped(self, scope: Scope, headers: Headers, send: Send) -> Send:
        """Outside /v1 (whose CORS is rag.api.middleware's), CORS headers only for an
        allowed origin."""
        origin = headers.get("origin")
        if _is_v1(scope["path"]) or origin is None or origin in self.cors_origins:
            return send

        async def stripped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        (k, v)
                        for k, v in message.get("headers", [])
                        if k.lower() not in CORS_HEADERS
                    ],
                }
            await send(message)

        return stripped

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        status: int,
        message: str,
        wait: float | None = None,
    ) -> None:
        kind = {401: "authentication_error", 429: "rate_limit_error"}.get(
            status, "invalid_request_error"
        )
        headers = {"Retry-After": str(max(1, int(wait + 0.999)))} if wait else None
        if status == 401 and _is_v1(scope["path"]):
            headers = {"WWW-Authenticate": 'Bearer realm="icml-rag"'}
        await error_response(status, message, kind, headers=headers, detail=message)(
            scope, receive, send
        )


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


def _throttled(wait: float) -> str:
    return f"too many failed logins or wrong keys from this address; retry in {max(1, int(wait + 0.999))} s"
