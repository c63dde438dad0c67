"""What a lexical search reads from the index file once scored: the chunks of the allowed
papers, and the rows of the top chunks (rag.store.lexical)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: str
    text: str
    meta: dict[str, Any]
    score: float  # BM25: larger is better


def docs_of(db: sqlite3.Connection, allowed: set[str]) -> np.ndarray:
    """The chunk ids of the `allowed` papers."""
    # A temporary table, not an IN list: thousands of bound parameters hit SQLite's limit.
    db.execute("create temp table if not exists allowed (paper_id text primary key)")
    with db:
        db.execute("delete from allowed")
        db.executemany("insert or ignore into allowed values (?)", ((p,) for p in allowed))
    rows = db.execute("select c.id from chunks c join allowed a on a.paper_id = c.paper_id")
    return np.fromiter((r[0] for r in rows), np.int64)


def hits_of(db: sqlite3.Connection, docs: list[int], scores: np.ndarray) -> list[LexicalHit]:
    """The top chunks' rows, best first, with their scores."""
    if not docs:
        return []
    marks = ",".join("?" * len(docs))
    rows = {
        r[0]: r[1:]
        for r in db.execute(
            f"select id, chunk_id, text, meta from chunks where id in ({marks})", docs
        )
    }
    out = []
    for doc in docs:
        if doc in rows:  # gone since the state was read: skip it
            cid, text, meta = rows[doc]
            clean = {k: v for k, v in json.loads(meta).items() if k != "_len"}
            out.append(LexicalHit(cid, text, clean, float(scores[doc])))
    return out


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indexes of the k largest scores, best first."""
    part = np.argpartition(-scores, k)[:k] if len(scores) > k else np.arange(len(scores))
    return part[np.argsort(-scores[part], kind="stable")]
