"""rag/store/writes.py: server writes in bounded batches, retried with backoff, idempotent.

A fake collection stands in for a Chroma server that times out, drops connections or
finishes a write after the client stopped waiting; sleeps are recorded, never slept.
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import pytest

from rag.store.writes import MAX_DELAY_S, WritePolicy, retried, write_batched


class FlakyCollection:
    """An upserting collection whose first `failures` calls fail with `error`; with
    `applied_anyway` the failed call's records are stored first (the server finished the
    write, the client gave up waiting)."""

    def __init__(
        self, failures: int, error: Exception | None = None, applied_anyway: bool = False
    ) -> None:
        self.failures = failures
        self.error = error or httpx.ReadTimeout("timed out")
        self.applied_anyway = applied_anyway
        self.records: dict[str, int] = {}
        self.calls: list[int] = []
        self.writes = 0

    def upsert(self, batch: Sequence[str]) -> None:
        self.calls.append(len(batch))
        if self.failures > 0:
            self.failures -= 1
            if self.applied_anyway:
                self._store(batch)
            raise self.error
        self._store(batch)

    def _store(self, batch: Sequence[str]) -> None:
        for item in batch:
            self.records[item] = self.records.get(item, 0) + 1
        self.writes += 1


def policy(batch: int, retries: int, slept: list[float]) -> WritePolicy:
    return WritePolicy(batch=batch, retries=retries, sleep=slept.append)


ITEMS = [f"id{i}" for i in range(10)]


def test_without_faults_items_go_in_batches_of_the_policy() -> None:
    fake, slept = FlakyCollection(0), []
    write_batched(ITEMS, fake.upsert, policy(4, 3, slept))
    assert fake.calls == [4, 4, 2] and set(fake.records) == set(ITEMS) and slept == []


def test_timeouts_are_retried_with_growing_pauses_and_halved_batches() -> None:
    fake, slept = FlakyCollection(3), []
    rules = policy(8, 5, slept)
    write_batched(ITEMS, fake.upsert, rules)
    assert slept == [1.0, 2.0, 4.0]
    # Eight single-record writes in a row succeed, so the batch doubles again.
    assert fake.calls == [8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2]
    assert rules.batch == 2 and rules.ceiling == 8  # later writes go on from here
    assert fake.records == dict.fromkeys(ITEMS, 1)


def test_a_halved_batch_grows_back_to_the_configured_size_but_no_further() -> None:
    fake, slept = FlakyCollection(1), []
    rules = policy(4, 3, slept)
    write_batched([f"id{i}" for i in range(100)], fake.upsert, rules)
    assert fake.calls[:10] == [4, 2, 2, 2, 2, 2, 2, 2, 2, 4]
    assert set(fake.calls[10:]) == {4} and rules.batch == 4


def test_a_lost_connection_is_retried_without_shrinking_the_batch() -> None:
    fake, slept = FlakyCollection(2, httpx.ConnectError("refused")), []
    rules = policy(5, 2, slept)
    write_batched(ITEMS, fake.upsert, rules)
    assert slept == [1.0, 2.0] and fake.calls == [5, 5, 5, 5] and rules.batch == 5
    assert set(fake.records) == set(ITEMS)


def test_a_batch_the_server_finished_after_the_timeout_is_written_again_harmlessly() -> None:
    fake, slept = FlakyCollection(1, applied_anyway=True), []
    write_batched(ITEMS, fake.upsert, policy(10, 2, slept))
    # The first 10 landed, then the retry (halved) upserted them again: same records.
    assert fake.calls == [10, 5, 5] and set(fake.records) == set(ITEMS)
    assert slept == [1.0]


def test_retries_are_counted_per_batch() -> None:
    """Each batch may fail `retries` times in a row; a success resets the count."""
    outcomes = iter([None, "fail", None, "fail", None, "fail", None])
    sent: list[Sequence[str]] = []

    def send(batch: Sequence[str]) -> None:
        if next(outcomes) == "fail":
            raise httpx.RemoteProtocolError("server disconnected")
        sent.append(batch)

    slept: list[float] = []
    write_batched(ITEMS[:4], send, policy(1, 1, slept))
    assert [b[0] for b in sent] == ITEMS[:4] and slept == [1.0, 1.0, 1.0]


def test_giving_up_reraises_and_leaves_the_written_prefix() -> None:
    fake, slept = FlakyCollection(0), []
    real = fake.upsert

    def dies_after_two_batches(batch: Sequence[str]) -> None:
        if fake.writes >= 2:
            raise httpx.ReadTimeout("timed out")
        real(batch)

    with pytest.raises(httpx.ReadTimeout):
        write_batched(ITEMS, dies_after_two_batches, policy(3, 3, slept))
    assert set(fake.records) == set(ITEMS[:6])  # a re-run (ingest repairs) does the rest
    assert slept == [1.0, 2.0, 4.0]


def test_other_errors_are_not_retried() -> None:
    fake, slept = FlakyCollection(1, ValueError("bad record")), []
    with pytest.raises(ValueError, match="bad record"):
        write_batched(ITEMS, fake.upsert, policy(4, 5, slept))
    assert slept == [] and fake.calls == [4]


def test_pauses_are_capped() -> None:
    rules = WritePolicy(batch=1, retries=20)
    assert [rules.delay(n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert rules.delay(12) == MAX_DELAY_S


def test_a_metadata_write_is_retried_without_shrinking_the_data_batches() -> None:
    attempts: list[int] = []

    def modify() -> None:
        attempts.append(1)
        if len(attempts) < 3:
            raise httpx.ReadTimeout("timed out")

    slept: list[float] = []
    rules = policy(1000, 4, slept)
    retried(modify, rules)
    assert len(attempts) == 3 and slept == [1.0, 2.0]
    assert (rules.batch, rules.ceiling, rules.streak) == (1000, 1000, 0)


def test_an_empty_write_sends_nothing() -> None:
    fake, slept = FlakyCollection(0), []
    write_batched([], fake.upsert, policy(4, 1, slept))
    assert fake.calls == []
