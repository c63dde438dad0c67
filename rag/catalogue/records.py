"""The paper records of a store, read by id from its index file instead of held in memory.

A `Mapping[str, Paper]`: `records[pid]`, `pid in records`, `len`, iteration in the order
papers were indexed. A record is parsed when first asked for and the recent ones are
kept (a question reads a few dozen), so opening a store of any size reads none of them;
iterating the values streams them in one query. One instance serves one pipeline (one
store state): its length is counted once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, ValuesView
from typing import Any

from rag.embedding.lru import LRUCache
from rag.types import Paper

CACHED_PAPERS = 20_000
IDS_PER_QUERY = 500  # values per `in (...)`: well under sqlite's bound on variables
_RECORDED = "record is not null"  # a paper whose chunks are indexed before its record is not


def rows_in(db: sqlite3.Connection, query: str, values: Iterable[str]) -> Iterator[Any]:
    """The rows of `query` ("... in ({}) ...") over `values`, IDS_PER_QUERY at a time."""
    listed = list(values)
    for start in range(0, len(listed), IDS_PER_QUERY):
        part = listed[start : start + IDS_PER_QUERY]
        yield from db.execute(query.format(",".join("?" * len(part))), part)


class PaperRecords(Mapping[str, Paper]):
    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect  # this thread's connection to the file
        self._recent: LRUCache[str, Paper] = LRUCache(CACHED_PAPERS)
        self._size: int | None = None

    def __getitem__(self, paper_id: str) -> Paper:
        hit = self._recent.get(paper_id)
        if hit is not None:
            return hit
        row = (
            self._connect()
            .execute(f"select record from papers where paper_id = ? and {_RECORDED}", (paper_id,))
            .fetchone()
        )
        if row is None:
            raise KeyError(paper_id)
        paper = Paper.model_validate_json(row[0])
        self._recent.put(paper_id, paper)
        return paper

    def __contains__(self, paper_id: object) -> bool:
        if not isinstance(paper_id, str):
            return False
        if self._recent.get(paper_id) is not None:
            return True
        query = f"select 1 from papers where paper_id = ? and {_RECORDED}"
        return self._connect().execute(query, (paper_id,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        query = f"select paper_id from papers where {_RECORDED} order by rowid"
        return (str(row[0]) for row in self._connect().execute(query))

    def __len__(self) -> int:
        if self._size is None:
            query = f"select count(*) from papers where {_RECORDED}"
            self._size = int(self._connect().execute(query).fetchone()[0])
        return self._size

    def stream(self) -> Iterator[Paper]:
        """Every record in index order, in one query (not one look-up per id)."""
        query = f"select record from papers where {_RECORDED} order by rowid"
        return (Paper.model_validate_json(row[0]) for row in self._connect().execute(query))

    def values(self) -> ValuesView[Paper]:
        return _StreamedValues(self)

    def items(self) -> ItemsView[str, Paper]:
        return _StreamedItems(self)

    def many(self, paper_ids: Iterable[str]) -> list[Paper]:
        """The records of `paper_ids` that have one, in the order given: those not kept
        parsed are read 500 to a query (a list of thousands is not thousands of reads)."""
        wanted = list(paper_ids)
        found = {pid: hit for pid in wanted if (hit := self._recent.get(pid)) is not None}
        missing = [pid for pid in wanted if pid not in found]
        query = f"select paper_id, record from papers where paper_id in ({{}}) and {_RECORDED}"
        for pid, record in rows_in(self._connect(), query, missing):
            found[pid] = paper = Paper.model_validate_json(record)
            self._recent.put(pid, paper)
        return [found[pid] for pid in wanted if pid in found]

    def known(self, paper_ids: list[str]) -> set[str]:
        """Those of `paper_ids` that have a record."""
        query = f"select paper_id from papers where paper_id in ({{}}) and {_RECORDED}"
        return {str(r[0]) for r in rows_in(self._connect(), query, paper_ids)}


class _StreamedValues(ValuesView[Paper]):
    _mapping: PaperRecords

    def __iter__(self) -> Iterator[Paper]:
        return self._mapping.stream()


class _StreamedItems(ItemsView[str, Paper]):
    _mapping: PaperRecords

    def __iter__(self) -> Iterator[tuple[str, Paper]]:
        return ((paper.id, paper) for paper in self._mapping.stream())
