"""A persistent cache of text embeddings, keyed by embedding space + text hash.

Why: embedding is most of ingest and the evidence step (embedding the retrieved abstracts'
sentences) dominates answer latency. Both embed the same texts again and again: a
`--rebuild`, a second store over the same corpus, a restarted server reading the same
papers. One SQLite file per embedding space under `model_cache_dir/embeddings/` makes
each text cost the model once per machine; SQLite (WAL) is safe across processes, so
many app processes can share it.

A cache must never be the reason an answer or an ingest fails: if the file cannot be
opened or written (read-only directory, disk full), a warning is logged once and the
model is used without it.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from rag.embedding.base import embed_dimension, token_counter

log = logging.getLogger(__name__)
# llama-index hands `_get_text_embeddings` at most `embed_batch_size` texts per call; the
# wrapper wants whole calls (an ingest window: cache look-up in one query, length sorting
# across all misses) and leaves real batching to the wrapped model.
WHOLE_SLICE = 2048
_SQLITE_VARS = 900  # stay under SQLite's host-parameter limit in IN (...) look-ups


def text_key(text: str) -> bytes:
    """The cache's key of a text: 16 bytes of its SHA-256 (shipped vector files use it too)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


class EmbeddingCache:
    """text → float32 vector, in `<directory>/<space>.sqlite`."""

    def __init__(self, directory: Path, space: str) -> None:
        safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in space)
        self.path = directory / f"{safe}.sqlite"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self.hits = 0
        self.misses = 0

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB)"
                )
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._give_up("open", exc)
        return self._conn

    def _give_up(self, action: str, exc: Exception) -> None:
        # Warn once, then run uncached: the cache is an accelerator, not a dependency.
        if not self._broken:
            log.warning(
                "embedding cache %s: cannot %s (%s); continuing without it", self.path, action, exc
            )
        self._broken = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = {text_key(t): t for t in dict.fromkeys(texts)}
        found = {wanted[k]: v for k, v in self.get_keyed(list(wanted)).items()}
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def get_keyed(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """Look-up by text key (see `text_key`): shipped vectors come without their texts."""
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return found
            try:
                for start in range(0, len(keys), _SQLITE_VARS):
                    part = list(keys[start : start + _SQLITE_VARS])
                    rows = conn.execute(
                        f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                        part,
                    ).fetchall()
                    for key, blob in rows:
                        found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
            except sqlite3.Error as exc:
                self._give_up("read", exc)
        return found

    def put_many(self, items: Sequence[tuple[str, Any]]) -> None:
        self.put_keyed([(text_key(t), v) for t, v in items])

    def put_keyed(self, items: Sequence[tuple[bytes, Any]]) -> None:
        rows = [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items]
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            except sqlite3.Error as exc:
                self._give_up("write", exc)

    def __len__(self) -> int:
        with self._lock:
            conn = self._connection()
            if conn is None:
                return 0
            return int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class CachedEmbedding(BaseEmbedding):
    """Wraps any llama-index embedding: text embeddings go through an `EmbeddingCache`.

    Query embeddings are not persisted (the wrapped model keeps an in-memory LRU of them):
    questions rarely repeat across processes, abstracts and their sentences do.
    """

    _inner: BaseEmbedding = PrivateAttr()
    _cache: EmbeddingCache = PrivateAttr()

    def __init__(self, inner: BaseEmbedding, cache: EmbeddingCache) -> None:
        super().__init__(model_name=inner.model_name, embed_batch_size=WHOLE_SLICE)
        self._inner = inner
        self._cache = cache

    @classmethod
    def class_name(cls) -> str:
        return "CachedEmbedding"

    @property
    def inner(self) -> BaseEmbedding:
        return self._inner

    @property
    def cache(self) -> EmbeddingCache:
        return self._cache

    @property
    def dimension(self) -> int:
        return embed_dimension(self._inner)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return token_counter(self._inner)(texts)

    def clear_query_cache(self) -> None:
        clear = getattr(self._inner, "clear_query_cache", None)
        if callable(clear):
            clear()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._inner.get_query_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        known = self._cache.get_many(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            vectors = self._inner.get_text_embedding_batch(missing)
            self._cache.put_many(list(zip(missing, vectors, strict=True)))
            known.update(
                zip(missing, (np.asarray(v, dtype=np.float32) for v in vectors), strict=True)
            )
        return [known[t].tolist() for t in texts]
