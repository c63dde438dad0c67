"""The chunks of given papers, read from Chroma for the lexical index (rag.store.lexical).

Only a paper whose chunks are all there, each with the paper's recorded content hash, is
handed on: chunks an interrupted ingest left are not indexed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.store.chroma import PaperStore
    from rag.types import Paper

log = logging.getLogger(__name__)
META_KEYS = ("paper_id", "title", "authors", "url", "status", "chunk_index", "n_chunks")
# A paper to index: (paper id, content hash, [(chunk id, text, citing metadata), …]).
PaperChunks = tuple[str, str, list[tuple[str, str, dict[str, Any]]]]


def chunks_of(
    store: PaperStore, todo: dict[str, tuple[str, int]], scan_batch: int, id_batch: int
) -> Iterator[list[tuple[str, str, list[tuple[str, str, dict]]]]]:
    """The chunks of the `todo` papers (id -> (hash, chunk count)) in batches of papers,
    only those whose chunks are all there with the recorded hash (a complete paper)."""
    if not todo:
        return
    pages = _scan(store) if scan_batch else _by_id(store, list(todo), id_batch)
    found: dict[str, list[tuple[int, str, str, dict]]] = {}
    for ids, docs, metas in pages:
        for cid, doc, meta in zip(ids, docs, metas, strict=True):
            pid = str(meta.get("paper_id", ""))
            wanted = todo.get(pid)
            if wanted is None or str(meta.get("paper_hash", "")) != wanted[0]:
                continue  # another paper, or a chunk an interrupted write left
            entry = (int(meta.get("chunk_index", 0)), cid, doc or "", _meta(meta))
            found.setdefault(pid, []).append(entry)
        ready = [pid for pid, got in found.items() if len(got) == todo[pid][1]]
        if ready and len(ready) >= scan_batch:
            yield [_paper_entry(pid, todo[pid][0], found.pop(pid)) for pid in ready]
    ready = [pid for pid, got in found.items() if len(got) == todo[pid][1]]
    if ready:
        yield [_paper_entry(pid, todo[pid][0], found.pop(pid)) for pid in ready]
    if found:
        log.warning("lexical index: %d paper(s) with missing chunks left out", len(found))


def with_records(
    store: PaperStore, batch: list[PaperChunks]
) -> tuple[list[PaperChunks], dict[str, Paper]]:
    """The batch's papers with their records (for the catalogue), read by id; a paper
    whose record has another hash than its chunks (rewritten since) waits for a later sync."""
    records = store.paper_records([pid for pid, _, _ in batch])
    kept = [entry for entry in batch if records.get(entry[0], ("",))[0] == entry[1]]
    if len(kept) < len(batch):
        log.warning(
            "lexical index: %d paper(s) changed while read, left out", len(batch) - len(kept)
        )
    return kept, {pid: records[pid][1] for pid, _, _ in kept}


def _paper_entry(
    pid: str, phash: str, chunks: list[tuple[int, str, str, dict]]
) -> tuple[str, str, list[tuple[str, str, dict]]]:
    return pid, phash, [(cid, text, meta) for _, cid, text, meta in sorted(chunks)]


def _meta(meta: dict[str, Any]) -> dict[str, Any]:
    return {key: meta[key] for key in META_KEYS if key in meta}


def _scan(store: PaperStore) -> Iterable[tuple[list[str], list[str], list[dict]]]:
    offset = 0
    while True:
        page = store.chunks.get(
            limit=2_000,
            offset=offset,
            include=["documents", "metadatas"],  # type: ignore[list-item]
        )
        if not page["ids"]:
            return
        yield page["ids"], page["documents"] or [], page["metadatas"] or []  # type: ignore[misc]
        offset += len(page["ids"])


def _by_id(
    store: PaperStore, pids: list[str], batch: int
) -> Iterable[tuple[list[str], list[str], list[dict]]]:
    for start in range(0, len(pids), batch):
        part = pids[start : start + batch]
        page = store.chunks.get(
            where={"paper_id": {"$in": part}},  # type: ignore[dict-item]
            include=["documents", "metadatas"],  # type: ignore[list-item]
        )
        yield page["ids"], page["documents"] or [], page["metadatas"] or []  # type: ignore[misc]
