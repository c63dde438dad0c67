"""Admission control's pure parts: the token bucket on an injected clock, the in-flight
bound, and whom a request's budget belongs to."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rag.api.admission import InflightLimit, TokenBuckets, client_identity


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_admitted_then_the_rate_applies() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=30, burst=3, clock=clock)  # one token every 2 s
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(2.0)
    clock.now += 1.5
    assert buckets.take("a") == pytest.approx(0.5)  # a refused try spends nothing
    clock.now += 0.5
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(2.0)


def test_an_idle_client_refills_only_up_to_the_burst() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=60, burst=2, clock=clock)
    buckets.take("a")
    clock.now += 3600
    assert [buckets.take("a") for _ in range(3)][:2] == [0.0, 0.0]
    assert buckets.take("a") > 0


def test_clients_have_buckets_of_their_own() -> None:
    buckets = TokenBuckets(per_minute=1, burst=1, clock=Clock())
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(60.0)
    assert buckets.take("b") == 0.0


def test_tracked_clients_are_bounded_least_recent_first() -> None:
    buckets = TokenBuckets(per_minute=1, burst=1, clock=Clock(), max_clients=3)
    for name in ("a", "b", "c"):
        buckets.take(name)
    buckets.take("a")  # a is now the most recently seen
    buckets.take("d")
    assert len(buckets) == 3
    assert buckets.take("a") > 0  # still tracked, still empty
    assert buckets.take("b") == 0.0  # forgotten: back with a full bucket


def scope(headers: dict[str, str], client: tuple[str, int] | None = ("10.0.0.5", 5000)) -> Any:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "headers": raw, "client": client}


def test_a_servers_key_is_the_identity_and_never_appears_in_it() -> None:
    keys = ["key-a", "key-b"]
    a = client_identity(scope({"Authorization": "Bearer key-a"}), keys, False)
    b = client_identity(scope({"Authorization": "bearer key-b"}), keys, False)
    assert a.startswith("key:") and b.startswith("key:") and a != b
    assert "key-a" not in a
    # The same key from another address is the same client.
    moved = scope({"Authorization": "Bearer key-a"}, client=("10.9.9.9", 1))
    assert client_identity(moved, keys, False) == a


def test_unchecked_tokens_do_not_buy_a_fresh_bucket() -> None:
    for keys in ([], ["key-a"]):
        for token in ("anything", "other", "key-a "[:-1] + "X"):
            got = client_identity(scope({"Authorization": f"Bearer {token}"}), keys, False)
            assert got == "addr:10.0.0.5"


def test_forwarded_for_counts_only_behind_a_trusted_proxy() -> None:
    forwarded = scope({"X-Forwarded-For": "1.2.3.4, 203.0.113.7"}, client=("127.0.0.1", 1))
    assert client_identity(forwarded, [], trust_proxy=False) == "addr:127.0.0.1"
    # The last entry is the one the proxy wrote; the first is whatever the client sent.
    assert client_identity(forwarded, [], trust_proxy=True) == "addr:203.0.113.7"
    plain = scope({}, client=("127.0.0.1", 1))
    assert client_identity(plain, [], trust_proxy=True) == "addr:127.0.0.1"
    assert client_identity(scope({}, client=None), [], False) == "addr:unknown"


def test_inflight_limit_refuses_at_once_without_a_wait() -> None:
    async def scenario() -> list[bool]:
        limit = InflightLimit(2, wait_s=0)
        got = [await limit.acquire() for _ in range(3)]
        limit.release()
        return [*got, await limit.acquire()]

    assert asyncio.run(scenario()) == [True, True, False, True]


def test_inflight_limit_waits_for_a_slot_up_to_its_wait() -> None:
    async def scenario() -> tuple[bool, bool, int]:
        limit = InflightLimit(1, wait_s=0.3)
        await limit.acquire()
        timed_out = await limit.acquire()  # nobody releases: refused after 0.3 s

        async def release_soon() -> None:
            await asyncio.sleep(0.05)
            limit.release()

        releaser = asyncio.create_task(release_soon())
        admitted = await limit.acquire()
        await releaser
        return timed_out, admitted, limit.active

    assert asyncio.run(scenario()) == (False, True, 1)


def test_a_freed_slot_goes_to_the_longest_waiter_not_a_newcomer() -> None:
    async def scenario() -> list[str]:
        limit = InflightLimit(1, wait_s=5)
        order: list[str] = []
        await limit.acquire()

        async def client(name: str) -> None:
            if await limit.acquire():
                order.append(name)
                await asyncio.sleep(0.01)
                limit.release()

        waiting = asyncio.create_task(client("waiter"))
        await asyncio.sleep(0.01)  # the waiter is queued
        limit.release()
        newcomer = asyncio.create_task(client("newcomer"))  # arrives as the slot frees
        await asyncio.gather(waiting, newcomer)
        return [*order, str(limit.active)]

    assert asyncio.run(scenario()) == ["waiter", "newcomer", "0"]


def test_a_waiter_that_is_cancelled_loses_no_slot() -> None:
    async def scenario() -> int:
        limit = InflightLimit(1, wait_s=5)
        await limit.acquire()
        waiter = asyncio.create_task(limit.acquire())
        await asyncio.sleep(0.01)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
        limit.release()
        assert await limit.acquire()  # the one slot is free again
        return limit.active

    assert asyncio.run(scenario()) == 1
