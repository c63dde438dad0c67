"""rag/refresh.py: a replica polls the store's generation and reloads only when it moves."""

from __future__ import annotations

import threading
from typing import Any

from rag.refresh import StoreWatcher


class FakeStore:
    def __init__(self) -> None:
        self.current: Any = ("papers-1", 0)
        self.followed: list[Any] = []
        self.outages = 0

    def generation(self) -> Any:
        if self.outages:
            self.outages -= 1
            raise ConnectionError("server down")
        return self.current

    def follow(self, seen: Any) -> bool:
        self.followed.append(seen)
        return seen[0] != "papers-1"


class FakeAssistant:
    """reload() says whether the store's content changed since the last load."""

    def __init__(self) -> None:
        self.store = FakeStore()
        self.content_changed = False
        self.reload_calls = 0
        self.reloaded = threading.Event()

    def reload(self) -> bool:
        self.reload_calls += 1
        changed, self.content_changed = self.content_changed, False
        if changed:
            self.reloaded.set()
        return changed


def test_the_first_poll_checks_once_then_only_a_new_generation_reloads() -> None:
    assistant = FakeAssistant()
    watcher = StoreWatcher(assistant, 5.0)  # type: ignore[arg-type]
    assert watcher.check() is False and assistant.reload_calls == 1  # fingerprint unchanged
    assert watcher.check() is False and assistant.reload_calls == 1  # one small read, no scan
    assistant.store.current = ("papers-1", 1)
    assistant.content_changed = True
    assert watcher.check() is True and watcher.reloads == 1
    assert watcher.check() is False and assistant.reload_calls == 2


def test_a_reload_is_reported_with_its_duration() -> None:
    assistant, reported = FakeAssistant(), []
    watcher = StoreWatcher(assistant, 5.0, on_reload=lambda g, s: reported.append((g, s)))  # type: ignore[arg-type]
    assistant.content_changed = True
    watcher.check()
    assert [g for g, _ in reported] == [("papers-1", 0)] and reported[0][1] >= 0


def test_new_collections_are_followed_before_reloading() -> None:
    assistant = FakeAssistant()
    watcher = StoreWatcher(assistant, 5.0)  # type: ignore[arg-type]
    watcher.check()
    assistant.store.current = ("papers-2", 1)  # another process ran `rag ingest --rebuild`
    assistant.content_changed = True
    assert watcher.check() is True
    assert assistant.store.followed[-1] == ("papers-2", 1)


def test_the_thread_outlives_an_outage_and_then_reloads() -> None:
    assistant = FakeAssistant()
    assistant.store.outages = 3
    assistant.content_changed = True
    watcher = StoreWatcher(assistant, 0.01).start()  # type: ignore[arg-type]
    try:
        assert assistant.reloaded.wait(timeout=5)
    finally:
        watcher.stop()
    assert assistant.store.outages == 0 and watcher.reloads == 1


def test_zero_seconds_means_no_thread() -> None:
    watcher = StoreWatcher(FakeAssistant(), 0).start()  # type: ignore[arg-type]
    assert watcher._thread is None
