"""A bounded, thread-safe least-recently-used map, shared by the in-memory caches.

Query embeddings (repeated questions, UI retries, follow-ups, eval comparisons across
modes skip the model: the query embedding is the floor of every retrieval's latency) and
the evidence step's sentence vectors both keep their recent entries in one of these.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        hit = self.get(key)
        if hit is not None:
            return hit
        value = compute(key)  # outside the lock: computing is the slow part
        self.put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


QUERY_CACHE_SIZE = 2048


def query_cache() -> LRUCache[str, list[float]]:
    """The query-embedding cache each local runtime keeps."""
    return LRUCache(QUERY_CACHE_SIZE)
