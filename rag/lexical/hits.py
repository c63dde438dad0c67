"""What a lexical search reads besides the postings (rag.lexical.index): which chunks the
allowed papers own, and the rows of the top chunks."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: str
    text: str
    meta: dict[str, Any]
    score: float  # BM25: larger is better


class ChunkOwners:
    """Which paper each chunk id belongs to, as numbers: a filter of any size becomes a
    bool array gathered over the chunks instead of a join in SQLite per query (slow for a
    filter of many papers). Read once, on the first filtered search, and extended by the
    rows added since: a chunk's row never changes (a changed paper gets new chunk ids), so
    what was read stays right."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._number: dict[str, int] = {}
        self._owner = np.zeros(0, dtype=np.int32)
        self._read_below = 0  # chunk ids below this have been read

    def _extend(self, db: sqlite3.Connection, size: int) -> None:
        """Read the rows below `size` not read yet (the caller holds the lock)."""
        if size <= self._read_below:
            return
        rows = db.execute(
            "select id, paper_id from chunks where id >= ? and id < ? order by id",
            (self._read_below, size),
        )
        found = rows.fetchall()
        owner = np.full(size, -1, dtype=np.int32)
        owner[: len(self._owner)] = self._owner
        if found:
            number = self._number
            docs = np.fromiter((r[0] for r in found), np.int64, len(found))
            owner[docs] = [number.setdefault(r[1], len(number)) for r in found]
        self._owner, self._read_below = owner, size

    def warm(self, db: sqlite3.Connection, size: int) -> None:
        """Read the owners now, so the first filtered question does not pay for it."""
        with self._lock:
            self._extend(db, size)

    def docs_of(self, db: sqlite3.Connection, allowed: set[str], size: int) -> np.ndarray:
        """The chunk ids below `size` of the `allowed` papers."""
        with self._lock:  # numbers and owners read together: another thread may extend them
            self._extend(db, size)
            owner, number = self._owner, self._number
            wanted = np.zeros(len(number) + 1, dtype=bool)  # the last slot: chunks of no paper
            picked = [number[p] for p in allowed if p in number]
        wanted[np.asarray(picked, dtype=np.int64)] = True
        return np.flatnonzero(wanted[owner[:size]])


def hits_of(db: sqlite3.Connection, docs: list[int], scores: dict[int, float]) -> list[LexicalHit]:
    """The top chunks' rows, best first, with their scores."""
    if not docs:
        return []
    marks = ",".join("?" * len(docs))
    rows = {r[0]: r[1:] for r in db.execute(f"{_ROWS} where c.id in ({marks})", docs)}
    out = []
    for doc in docs:
        if doc in rows:  # gone since the state was read: skip it
            cid, text, meta, phash = rows[doc]
            out.append(LexicalHit(cid, text, _written_meta(meta, phash), scores[doc]))
    return out


def rows_of(db: sqlite3.Connection, chunk_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """chunk id -> (text, metadata) of those of `chunk_ids` the index holds."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    return {
        cid: (text, _written_meta(meta, phash))
        for _, cid, text, meta, phash in db.execute(
            f"{_ROWS} where c.chunk_id in ({marks})", chunk_ids
        )
    }


# A chunk's row and its paper's content hash (kept once per paper, not per chunk).
_ROWS = "select c.id, c.chunk_id, c.text, c.meta, p.hash from chunks c left join papers p using (paper_id)"


def _written_meta(meta: str, paper_hash: str | None) -> dict[str, Any]:
    """A row's metadata as the store holds it: without the index's own length, with the
    paper's hash."""
    out = {k: v for k, v in json.loads(meta).items() if k != "_len"}
    out["paper_hash"] = paper_hash or ""
    return out
