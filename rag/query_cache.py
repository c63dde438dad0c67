"""A bounded, thread-safe LRU of query embeddings shared by the local embedding runtimes.

Repeated questions (UI retries, follow-ups, eval comparisons across modes) then skip the
model: the query embedding is the floor of every retrieval's latency.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from threading import Lock


class QueryEmbeddingCache:
    def __init__(self, size: int = 2048) -> None:
        self._size = size
        self._items: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = Lock()

    def get(self, query: str, compute: Callable[[str], list[float]]) -> list[float]:
        with self._lock:
            hit = self._items.get(query)
            if hit is not None:
                self._items.move_to_end(query)
                return hit
        vector = compute(query)  # outside the lock: embedding is the slow part
        with self._lock:
            self._items[query] = vector
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return vector

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
