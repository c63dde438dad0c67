"""Admission control for the answer routes: a per-client token bucket and a bound on the
answers in flight in this process. Refusals are 429s with `Retry-After`, in the API's one
error shape, before any answering starts.

Why here and not in the routes: a refused request must cost nothing (no body parsing, no
embedding, no thread), and a streamed answer holds its slot until its last chunk is sent,
which only the layer wrapping the whole response can see.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from rag.api.errors import error_response
from rag.errors import InputError

# POST routes that answer (or embed) a question. Health, models, stats, docs are exempt.
ANSWER_PATHS = frozenset({"/v1/ask", "/v1/retrieve", "/v1/chat/completions"})
# The UI's answers: Gradio queues every `queue=True` event through this route, and in
# ui/layout.py only the answer is queued (votes, clears and the set panel are not).
UI_ANSWER_PATH = "/gradio_api/queue/join"
MAX_TRACKED_CLIENTS = 10_000  # buckets kept; the least recently seen are forgotten first


class TokenBuckets:
    """One token bucket per client: `burst` answers at once, refilled at `per_minute`.

    Pure logic with an injected clock, so tests need no sleeping. A forgotten client (more
    than MAX_TRACKED_CLIENTS seen since) comes back with a full bucket: memory stays
    bounded whatever addresses a flood uses, at the price of that small leniency.
    """

    def __init__(
        self,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_TRACKED_CLIENTS,
    ) -> None:
        self.rate = per_minute / 60.0  # tokens per second
        self.burst = float(max(burst, 1))
        self.clock, self.max_clients = clock, max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str) -> float:
        """Spend one token: 0.0 when admitted, else the seconds until one is available."""
        now = self.clock()
        tokens, last = self._buckets.pop(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        admitted = tokens >= 1.0
        if admitted:
            tokens -= 1.0
        self._buckets[client] = (tokens, now)  # re-inserted last: most recently seen
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return 0.0 if admitted else (1.0 - tokens) / self.rate

    def peek(self, client: str) -> float:
        """The seconds until `client` has a token (0.0: it has one now); nothing spent."""
        now = self.clock()
        tokens, last = self._buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def __len__(self) -> int:
        return len(self._buckets)


class SharedBuckets:
    """TokenBuckets' interface over a `limits` storage (Redis, Memcached, …), so replicas
    share one budget: at most `burst` requests in any moving window of burst/rate minutes,
    which allows the same bursts and the same long-run rate as the local buckets."""

    _storages: ClassVar[dict[str, Any]] = {}  # one storage per URI in a process (memory:// shares)

    def __init__(self, per_minute: float, burst: int, uri: str, namespace: str) -> None:
        from limits import RateLimitItemPerSecond
        from limits.storage import storage_from_string
        from limits.strategies import MovingWindowRateLimiter

        if uri not in self._storages:
            self._storages[uri] = storage_from_string(uri)
        self.limiter = MovingWindowRateLimiter(self._storages[uri])
        window_s = max(1, math.ceil(max(burst, 1) * 60.0 / per_minute))
        self.item = RateLimitItemPerSecond(max(burst, 1), window_s, namespace=namespace)

    def _wait(self, client: str) -> float:
        reset = self.limiter.get_window_stats(self.item, client).reset_time
        return max(0.001, reset - time.time())

    def take(self, client: str) -> float:
        return 0.0 if self.limiter.hit(self.item, client) else self._wait(client)

    def peek(self, client: str) -> float:
        return 0.0 if self.limiter.test(self.item, client) else self._wait(client)


def check_storage(uri: str) -> None:
    """Refuse a storage URI `limits` cannot open, at start-up rather than on a request."""
    if not uri:
        return
    from limits.storage import storage_from_string

    try:
        SharedBuckets._storages.setdefault(uri, storage_from_string(uri))
    except Exception as exc:  # limits raises ConfigurationError, ImportError (no redis), …
        raise InputError(f"rate_limit_storage: cannot use '{uri}': {exc}") from exc


def buckets(per_minute: float, burst: int, uri: str, namespace: str) -> Any:
    """In this process (`uri` empty) or in a shared `limits` storage."""
    if not uri:
        return TokenBuckets(per_minute, burst)
    return SharedBuckets(per_minute, burst, uri, namespace)


class InflightLimit:
    """At most `limit` answers at once; a newcomer waits up to `wait_s` for a slot.

    First come, first served: a freed slot passes straight to the longest waiter, and a
    newcomer never takes a slot while others wait. (With the plain "free slot? take it",
    a client that sends its next request the moment its last one ends always got in ahead
    of the queue, and waiters timed out under steady load.) Only the event loop touches
    it (ASGI middleware), so no lock is needed.
    """

    def __init__(self, limit: int, wait_s: float) -> None:
        self.limit, self.wait_s, self.active = limit, wait_s, 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> bool:
        if self.active < self.limit and not self._waiters:
            self.active += 1
            return True
        if self.wait_s <= 0:
            return False
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait({waiter}, timeout=self.wait_s)
        except asyncio.CancelledError:  # the client went away while waiting
            if waiter.done():
                self.release()  # a slot was handed over that nobody will use
            else:
                waiter.cancel()
            raise
        if waiter.done():
            return True  # release() handed this waiter its slot (already counted)
        waiter.cancel()
        self._waiters.remove(waiter)
        return False

    def release(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():  # skip waiters that gave up
                waiter.set_result(None)
                return
        self.active -= 1


def client_address(scope: Scope, trust_proxy: bool) -> str:
    """The caller's address; behind a trusted proxy, the last X-Forwarded-For entry.

    The last entry is the one the proxy itself appended (what it saw connect); earlier ones
    are whatever the client chose to send, so they would let anyone pick a fresh bucket.
    """
    if trust_proxy:
        forwarded = Headers(scope=scope).get("x-forwarded-for", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def client_identity(scope: Scope, api_keys: list[str], trust_proxy: bool) -> str:
    """Whom a request's budget belongs to: its API key when it sends one of the server's
    keys, else its address. Unchecked bearer tokens are ignored: with no key configured,
    anyone could send a fresh token per request and never run out."""
    scheme, _, token = Headers(scope=scope).get("authorization", "").partition(" ")
    token = token.strip()
    if api_keys and scheme.lower() == "bearer" and token:
        for key in api_keys:
            if hmac.compare_digest(token.encode(), key.encode()):
                # A digest, not the key: identities may end up in logs or debuggers.
                return "key:" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return "addr:" + client_address(scope, trust_proxy)


@dataclass(frozen=True)
class AdmissionPolicy:
    """What Admission enforces; 0 switches a limit off."""

    rate_per_minute: float
    burst: int
    max_inflight: int
    inflight_wait_s: float
    trust_proxy: bool
    api_keys: tuple[str, ...] = ()
    storage: str = ""  # a `limits` storage URI shared by replicas; empty: this process

    @classmethod
    def from_settings(cls, settings: Any) -> AdmissionPolicy:
        return cls(
            rate_per_minute=settings.rate_limit_per_minute,
            burst=settings.rate_limit_burst,
            max_inflight=settings.max_inflight_answers,
            inflight_wait_s=settings.inflight_wait_s,
            trust_proxy=settings.trust_proxy,
            api_keys=tuple(settings.api_keys()),
            storage=settings.rate_limit_storage,
        )


def _retry_after(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds)))}


class Admission:
    """ASGI middleware: the rate limit on API and UI answers, the in-flight bound on API
    answers. The UI's answers are already bounded by Gradio's queue (RAG_UI_CONCURRENCY),
    which makes them wait their turn instead of being refused."""

    def __init__(self, app: ASGIApp, policy: AdmissionPolicy) -> None:
        self.app, self.policy = app, policy
        self.buckets = (
            buckets(policy.rate_per_minute, policy.burst, policy.storage, "answers")
            if policy.rate_per_minute > 0
            else None
        )
        self.inflight = (
            InflightLimit(policy.max_inflight, policy.inflight_wait_s)
            if policy.max_inflight > 0
            else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        is_api, is_ui = path in ANSWER_PATHS, path == UI_ANSWER_PATH
        if not (is_api or is_ui):
            await self.app(scope, receive, send)
            return
        # The slot first: a "server busy" refusal costs the client none of its budget.
        holds_slot = is_api and self.inflight is not None
        if holds_slot and not await self.inflight.acquire():  # type: ignore[union-attr]
            busy = f"server busy ({self.policy.max_inflight} answers in progress)"
            await _refuse(scope, receive, send, 1.0, is_ui, busy)
            return
        try:
            if self.buckets is not None:
                keys = list(self.policy.api_keys)
                identity = client_identity(scope, keys, self.policy.trust_proxy)
                wait = self.buckets.take(identity)
                if wait > 0:
                    limit = (
                        f"{self.policy.rate_per_minute:g} a minute, bursts of {self.policy.burst}"
                    )
                    reason = f"rate limit ({limit} per client)"
                    await _refuse(scope, receive, send, wait, is_ui, reason)
                    return
            await self.app(scope, receive, send)  # a stream holds its slot to the last chunk
        finally:
            if holds_slot:
                self.inflight.release()  # type: ignore[union-attr]


async def _refuse(
    scope: Scope, receive: Receive, send: Send, wait: float, ui: bool, reason: str
) -> None:
    headers = _retry_after(wait)
    message = f"{reason}; retry in {headers['Retry-After']} s"
    # Gradio's page shows a refused queue join's `detail` in its error toast.
    await error_response(
        429, message, "rate_limit_error", headers=headers, detail=message if ui else None
    )(scope, receive, send)
