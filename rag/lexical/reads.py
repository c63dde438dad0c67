"""The chunks of given papers, read from Chroma for the lexical index (rag.lexical.index).

Only a paper whose chunks are all there, each with the paper's recorded content hash, is
handed on: chunks an interrupted ingest left are not indexed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rag.store.chroma import PaperStore
    from rag.types import Paper

log = logging.getLogger(__name__)
# Papers per Chroma read by id, and per segment when a sync reads the whole store.
SYNC_BATCH = 256
SCAN_BATCH = 2_048
# Beyond this share of the store changed, one paged scan of every chunk beats reads by id.
FULL_SCAN_SHARE = 0.2
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


def written_entry(paper: Paper, chunks: Sequence[Any]) -> tuple[PaperChunks, Paper]:
    """A paper ingest has just written (its chunk nodes, in order) as a sync would read it
    back from Chroma: the chunks' text and citing metadata, and the paper's record."""
    from rag.store.nodes import paper_from_record, paper_metadata

    rows = [
        (
            node.node_id,
            node.text,
            _meta({k: "" if v is None else v for k, v in node.metadata.items()}),
        )
        for node in chunks
    ]
    written = paper_metadata(paper, len(chunks))  # the record upsert_papers wrote
    record = paper_from_record(paper.id, paper.abstract, written)
    return (paper.id, str(written["hash"]), rows), record


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


class SyncedIndex(Protocol):
    """What a sync needs of rag.lexical.index.LexicalIndex."""

    def meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def reload_state(self) -> None: ...
    def paper_hashes(self) -> dict[str, str]: ...
    def replace_papers(
        self, remove: Sequence[str], add: Sequence[PaperChunks], records: Any = None
    ) -> None: ...


@dataclass
class SyncReport:
    added: int = 0
    removed: int = 0
    chunks: int = 0
    seconds: float = 0.0
    skipped: bool = False  # the generation was the one already synced


def sync_from(index: SyncedIndex, store: PaperStore) -> SyncReport:
    """Bring `index` in step with the store's complete papers (rag.lexical.index's doc)."""
    started = time.perf_counter()
    report = SyncReport()
    current = store.generation()
    generation = json.dumps(list(current))  # before the read: never ahead
    model = repr(store.recorded_model())
    if index.meta("generation") == generation and index.meta("model") == model:
        report.skipped = True
        index.reload_state()  # another process may have written
        return report
    # Another embedding, or other collections (a `--rebuild`: its chunks reuse the ids
    # `paper::n` but may be cut otherwise, so a paper's unchanged hash proves nothing):
    # a new store, read afresh. (A file from before the collection was recorded keeps
    # its rows: its first sync only records it.)
    other_model = index.meta("model") not in (None, model)
    other_collections = index.meta("collection") not in (None, current[0])
    if other_model or other_collections:
        index.replace_papers(list(index.paper_hashes()), [])
    index.set_meta("model", model)
    index.set_meta("collection", current[0])
    want = store.paper_hashes()
    have = index.paper_hashes()
    gone = [pid for pid in have if pid not in want]
    todo = {pid: v for pid, v in want.items() if have.get(pid) != v[0]}
    if gone:
        index.replace_papers(gone, [])
    full = len(todo) > FULL_SCAN_SHARE * len(want)
    for found in chunks_of(store, todo, SCAN_BATCH if full else 0, SYNC_BATCH):
        batch, records = with_records(store, found)
        index.replace_papers([], batch, records)
        report.added += len(batch)
        report.chunks += sum(len(chunks) for _, _, chunks in batch)
    report.removed = len(gone)
    index.set_meta("generation", generation)
    report.seconds = time.perf_counter() - started
    return report
