"""Batched store writes that survive a slow or briefly unreachable Chroma server.

A large batch can take longer than the HTTP read timeout once the collection's HNSW
index has grown. So writes go in batches well under that limit, a batch that times out is
retried after a growing pause and halved (the server may simply be slower than the batch
size assumed), and every write is idempotent (upserts and deletes by id), so sending a
batch again that the server did finish after the client gave up changes nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

log = logging.getLogger(__name__)
# Connection refused/reset, a dropped connection, or no answer in time: the request may
# or may not have been applied, and trying again is safe because every write is idempotent.
TRANSIENT: tuple[type[BaseException], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
MAX_DELAY_S = 30.0
# A batch halved while the server was busy doubles again after this many writes in a row
# succeed (up to the configured size): a passing slow spell must not slow a build for good.
GROW_AFTER = 8


@dataclass
class WritePolicy:
    """How one store writes: records per request, retries after a transient failure, and
    the first pause (doubled after each consecutive failure, at most MAX_DELAY_S)."""

    batch: int
    retries: int
    base_delay_s: float = 1.0
    sleep: Callable[[float], None] = time.sleep
    ceiling: int = 0  # the configured batch (0: `batch` as given)
    streak: int = 0  # writes in a row that succeeded

    def __post_init__(self) -> None:
        self.ceiling = self.ceiling or self.batch

    def delay(self, failures: int) -> float:
        return float(min(MAX_DELAY_S, self.base_delay_s * 2 ** (failures - 1)))

    def succeeded(self) -> None:
        self.streak += 1
        if self.streak >= GROW_AFTER and self.batch < self.ceiling:
            self.batch, self.streak = min(self.ceiling, self.batch * 2), 0

    def timed_out(self) -> None:
        self.streak = 0
        self.batch = max(1, self.batch // 2)


def write_batched(
    items: Sequence[Any], send: Callable[[Sequence[Any]], object], policy: WritePolicy
) -> None:
    """`send` every item, `policy.batch` at a time, in order.

    A transient failure is retried (at most `policy.retries` times in a row for one
    batch, then re-raised for the caller to translate); a timeout also halves the batch
    for this and later writes of the policy, until GROW_AFTER successes double it again.
    Items before the failing batch stay written, so a caller that gives up leaves a
    prefix that a re-run completes.
    """
    start = failures = 0
    while start < len(items):
        batch = items[start : start + policy.batch]
        try:
            send(batch)
        except TRANSIENT as exc:
            failures += 1
            if failures > policy.retries:
                raise
            if isinstance(exc, httpx.TimeoutException):
                policy.timed_out()
            pause = policy.delay(failures)
            log.warning(
                "store write of %d records failed (%s: %s); retry %d/%d in %.0f s with "
                "batches of %d",
                len(batch),
                type(exc).__name__,
                exc,
                failures,
                policy.retries,
                pause,
                policy.batch,
            )
            policy.sleep(pause)
            continue
        start += len(batch)
        failures = 0
        policy.succeeded()


def retried(call: Callable[[], object], policy: WritePolicy) -> None:
    """One small idempotent write (collection metadata), retried like a batch; its
    timeouts say nothing about the data batch size, so that is left alone."""
    write_batched([None], lambda _: call(), replace(policy, batch=1, ceiling=1))
