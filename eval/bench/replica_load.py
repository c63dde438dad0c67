"""Section 6's load half: client threads posting questions round-robin to the replicas,
one of which is SIGKILLed halfway (eval.bench.replicas), with the failover a load balancer
does: a connection error is retried once on the other replica."""

from __future__ import annotations

import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from eval.bench.procs import rss_mb
from eval.bench.samples import summarise


@dataclass
class Replica:
    name: str
    proc: subprocess.Popen[bytes]
    url: str
    log: Path
    ready_s: float = 0.0


@dataclass
class Sample:
    started: float  # seconds since the load began
    ms: float
    status: int | None  # None: no answer from either replica
    failed_over: bool


def one_request(clients: list[httpx.Client], first: int, question: str) -> tuple[int | None, bool]:
    """POST /v1/ask to replica `first`; on a connection failure (refused, reset, closed
    mid-answer) once more to the other, as a load balancer retries an idempotent request
    on the next backend. Returns (status, failed over)."""
    for attempt in range(2):
        client = clients[(first + attempt) % len(clients)]
        try:
            return client.post("/v1/ask", json={"question": question}).status_code, attempt > 0
        except httpx.TimeoutException:
            return None, attempt > 0  # slow, not gone: sending it again would run it twice
        except httpx.TransportError:
            continue
    return None, True


def load_client(
    urls: list[str], offset: int, questions: list[str], t0: float, until: float
) -> list[Sample]:
    """One client thread: keep-alive connections to every replica, requests round-robin
    over them (starting at `offset`), back to back until `until`."""
    clients = [httpx.Client(base_url=u, timeout=60) for u in urls]
    samples: list[Sample] = []
    try:
        n = 0
        while time.monotonic() < until:
            question = questions[(offset * 7 + n) % len(questions)]
            begun = time.monotonic()
            status, failed_over = one_request(clients, (offset + n) % len(urls), question)
            ms = (time.monotonic() - begun) * 1000
            samples.append(Sample(round(begun - t0, 3), round(ms, 1), status, failed_over))
            n += 1
    finally:
        for client in clients:
            client.close()
    return samples


def phase_summary(samples: list[Sample]) -> dict[str, Any]:
    ok = [s.ms for s in samples if s.status is not None and 200 <= s.status < 300]
    limited = sum(1 for s in samples if s.status == 429)
    stats = summarise(ok, digits=1)
    return {
        "requests": len(samples),
        "ok": len(ok),
        "errors": len(samples) - len(ok) - limited,  # no answer, or any non-2xx but 429
        "rate_limited_429": limited,
        "failed_over": sum(1 for s in samples if s.failed_over),
        "latency_ms": {k: stats.get(k) for k in ("n", "p50", "p95", "max")},
    }


def kill_under_load(
    replicas: list[Replica], questions: list[str], clients: int, seconds: float
) -> dict[str, Any]:
    """`clients` threads asking for `seconds`; the first replica SIGKILLed halfway."""
    victim = replicas[0]
    urls = [r.url for r in replicas]
    t0 = time.monotonic()
    until = t0 + seconds
    with ThreadPoolExecutor(clients) as pool:
        futures = [pool.submit(load_client, urls, i, questions, t0, until) for i in range(clients)]
        time.sleep(seconds / 2)
        victim_rss = rss_mb(victim.proc.pid)
        victim.proc.send_signal(signal.SIGKILL)
        killed_at = time.monotonic() - t0
        victim.proc.wait(timeout=10)
        samples = [s for f in futures for s in f.result()]
    before = [s for s in samples if s.started < killed_at]
    after = [s for s in samples if s.started >= killed_at]
    return {
        "clients": clients,
        "seconds": seconds,
        "killed": victim.name,
        "killed_at_s": round(killed_at, 2),
        "killed_replica_rss_mb": victim_rss,
        "before_kill": phase_summary(before),
        "after_kill": phase_summary(after),
        "total": phase_summary(samples),
    }
