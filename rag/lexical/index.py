"""The lexical (BM25) index that lives with the store: on disk, synced by paper, mmapped.

One folder per collection, `data_dir/lexical/<collection>/`: `index.sqlite` holds every
indexed chunk (text, citing metadata, length), `papers` (id -> content hash and the paper
record as JSON: the catalogue, read from here at open instead of from Chroma), the term
ids and the list of postings segments (rag.lexical.postings: memory-mapped numpy files).
Opening reads a few rows and maps the segments, whatever the store's size; a query reads
the postings of its rarer terms, looks its common ones up only for the chunks still in the
running (MaxScore, rag.lexical.postings.best_chunks), and reads the rows of its top chunks.
Deleting a chunk leaves a tombstone until the segment holding it is merged away.

The tokens are bm25s': lower-cased words of the title and text, bm25s' stopwords dropped,
Snowball stemmed; scoring is bm25s' too, so ranks and score scale are unchanged (docs/decisions.md).

Sync (`LexicalIndex.sync`) brings the file in step with the Chroma store by paper id and
content hash: papers gone or changed lose their chunks, new or changed ones are read from
Chroma and added, with their paper records. Each batch of papers commits on its own with
its `papers` rows, so a
sync killed half-way leaves whole papers and the next one resumes; the store generation it
synced to is written last, and a sync that finds the same generation does nothing (one
small read). `rag ingest` syncs after its commit; an Assistant syncs when it (re)loads.
"""

from __future__ import annotations

import fcntl
import json
import logging
import math
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rag.catalogue import index as paper_index
from rag.catalogue import terms as paper_terms
from rag.catalogue.catalogue import Catalogue
from rag.catalogue.records import PaperRecords
from rag.lexical import postings
from rag.lexical.hits import ChunkOwners, LexicalHit, hits_of, rows_of
from rag.lexical.postings import Segment
from rag.lexical.reads import PaperChunks, SyncReport, sync_from
from rag.lexical.tokens import query_tokens, tokenize
from rag.types import Paper

if TYPE_CHECKING:
    from rag.settings import Settings
    from rag.store.chroma import Generation, PaperStore

log = logging.getLogger(__name__)
# 3: `papers` keeps each paper's record (the catalogue). An older file is started afresh.
SCHEMA_VERSION = "3"
# Segments merge four at a time per size class (LSM-style): a store of any size keeps a
# few dozen segments at most, and each posting is rewritten about log4(size) times.
MERGE_FANOUT = 4
MERGE_BASE_POSTINGS = 50_000
_SCHEMA = (
    paper_index.PAPERS_TABLE
    + """
create table if not exists meta (key text primary key, value text not null);
create table if not exists chunks (
    id integer primary key autoincrement, chunk_id text not null, paper_id text not null,
    text text not null, meta text not null, seg text not null);
create index if not exists chunks_paper on chunks (paper_id);
-- dense hits read their text and metadata here (rag.retrieval.dense); an older file gets
-- it at its first open (0.6 s at 100x)
create index if not exists chunks_chunk on chunks (chunk_id);
create table if not exists terms (id integer primary key, term text not null unique);
create table if not exists segments (name text primary key, postings integer not null);
create table if not exists deleted (doc integer primary key, seg text not null);
"""
    + paper_terms.SCHEMA
    + paper_index.SCHEMA
)


def index_dir(settings: Settings) -> Path:
    return settings.data_dir / "lexical" / settings.collection


@dataclass(frozen=True)
class _State:
    """What a query reads besides sqlite rows, swapped whole after each write."""

    segments: tuple[Segment, ...] = ()
    deleted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    n_docs: int = 0
    avgdl: float = 0.0
    size: int = 0  # chunk ids are below this


class LexicalIndex:
    """The on-disk index. Writes hold a file lock (one writer across processes) and commit
    with sqlite; queries use one connection per thread and the current `_State`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._owners = ChunkOwners()
        self._db = self._connect()
        with self._db:
            self._db.executescript(_SCHEMA)
        found = self.meta("schema")
        if found not in (None, SCHEMA_VERSION):
            self._reset(found)
        self.set_meta("schema", SCHEMA_VERSION)
        self._state = self._load_state()
        self._fill_paper_tables()

    def _reset(self, found: str) -> None:
        """An index of another layout is dropped whole: the next sync reads the store again
        (once), which is simpler and safer than migrating rows that lack paper records."""
        log.warning(
            "%s: lexical index schema %s, not %s: rebuilt", self.folder, found, SCHEMA_VERSION
        )
        with self._exclusive():
            with self._db:
                tables = ("meta", "papers", "chunks", "terms", "segments", "deleted", "paper_terms")
                for table in (*tables, *paper_index.TABLES):
                    self._db.execute(f"drop table if exists {table}")
            self._db.executescript(_SCHEMA)
            self._drop_orphans()  # every segment file: no row names one now

    def _fill_paper_tables(self) -> None:
        """The word counts and the catalogue's tables for a file written before they were
        kept, or with other rules (each module's version): one scan each, once."""
        fills = (
            (paper_terms.FILLED_KEY, paper_terms.COUNTS_VERSION, paper_terms.fill_counts),
            (paper_index.FILLED_KEY, paper_index.INDEX_VERSION, paper_index.fill),
        )
        for key, version, fill in fills:
            if self.meta(key) == version:
                continue
            with self._exclusive():
                if self.meta(key) != version:  # not just done by another process
                    with self._db:
                        fill(self._db)
                    self.set_meta(key, version)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.folder / "index.sqlite", timeout=60.0, check_same_thread=False)
        db.execute("pragma journal_mode = wal")
        db.execute("pragma synchronous = normal")  # WAL + normal: a commit survives a crash
        paper_index.prepare(db)
        return db

    def _reader(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
        return cast(sqlite3.Connection, db)

    def close(self) -> None:
        self._db.close()

    def meta(self, key: str) -> str | None:
        row = self._db.execute("select value from meta where key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._db:
            self._db.execute("insert or replace into meta values (?, ?)", (key, value))

    def reload_state(self) -> None:
        """Read the segments and counts again (another process may have written)."""
        self._state = self._load_state()

    def _load_state(self) -> _State:
        db = self._db
        names = [str(r[0]) for r in db.execute("select name from segments order by rowid")]
        n_docs = int(self.meta("n_docs") or 0)
        total = int(self.meta("total_len") or 0)
        size = int(db.execute("select coalesce(max(id), 0) + 1 from chunks").fetchone()[0])
        deleted = np.fromiter((r[0] for r in db.execute("select doc from deleted")), np.int64)
        size = max(size, int(deleted.max()) + 1 if len(deleted) else 0)
        return _State(
            segments=tuple(postings.open_segment(self.folder, n) for n in names),
            deleted=deleted,
            n_docs=n_docs,
            avgdl=total / n_docs if n_docs else 0.0,
            size=size,
        )

    def counts(self) -> tuple[int, int]:
        db = self._reader()
        papers = db.execute("select count(*) from papers").fetchone()[0]
        return int(papers), int(db.execute("select count(*) from chunks").fetchone()[0])

    def paper_hashes(self) -> dict[str, str]:
        return dict(self._db.execute("select paper_id, hash from papers").fetchall())

    def papers(self) -> PaperRecords:
        """Every indexed paper's record, by id, read from this file as asked for."""
        return PaperRecords(self._reader)

    def catalogue(self) -> Catalogue:
        """The paper catalogue with its author, institution and status look-ups."""
        return Catalogue(self._reader)

    def chunk_rows(self, chunk_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk id -> (text, metadata) for the chunks of `chunk_ids` this index holds."""
        return rows_of(self._reader(), chunk_ids)

    def warm_filters(self) -> None:
        """Read which paper owns each chunk ahead of the first filtered search."""
        self._owners.warm(self._reader(), self._state.size)

    def paper_counter(self) -> Callable[[str], int]:
        """`word -> how many papers use it` (title and abstract; rag.catalogue.terms)."""
        return paper_terms.count_reader(self._reader)

    def prefix_finder(self) -> Callable[[str], bool]:
        """`stem -> whether a counted word starts with it` (rag.catalogue.terms)."""
        return paper_terms.prefix_reader(self._reader)

    def synced_generation(self) -> Generation | None:
        """The store generation this index was last synced to (None: never synced)."""
        found = self.meta("generation")
        if found is None:
            return None
        collection, counter = json.loads(found)
        return str(collection), int(counter)

    # --- writes ----------------------------------------------------------------------------
    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One writer at a time, in this process and across processes sharing the folder."""
        with self._write_lock, open(self.folder / "lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def replace_papers(
        self,
        remove: Sequence[str],
        add: Sequence[PaperChunks],
        records: Mapping[str, Paper] | None = None,
    ) -> None:
        """One commit: `remove` papers and the `add` ones lose their chunks, then the `add`
        papers' chunks go into a new segment and their `records` into `papers`. A crash
        before the commit leaves only an unreferenced segment file, removed by the next write."""
        with self._exclusive():
            self._replace(list(remove) + [pid for pid, _, _ in add], add, records or {})
            self._merge_some()
            self._drop_orphans()
            self._state = self._load_state()

    def _replace(
        self, gone: list[str], add: Sequence[PaperChunks], records: Mapping[str, Paper]
    ) -> None:
        db = self._db
        name = f"s{uuid.uuid4().hex[:12]}"
        with db:
            n_docs = int(self.meta("n_docs") or 0)
            total = int(self.meta("total_len") or 0)
            for start in range(0, len(gone), 500):
                part = gone[start : start + 500]
                where = f"paper_id in ({','.join('?' * len(part))})"
                old = db.execute(f"select id, seg, meta from chunks where {where}", part).fetchall()
                db.executemany(
                    "insert or replace into deleted values (?, ?)", [(i, s) for i, s, _ in old]
                )
                n_docs -= len(old)
                gone_records = db.execute(
                    f"select record from papers where {where} and record is not null", part
                )
                paper_terms.update_counts(db, [r[0] for r in gone_records], [])
                paper_index.remove(db, part)
                total -= sum(int(json.loads(m).get("_len", 0)) for _, _, m in old)
                db.execute(f"delete from chunks where {where}", part)
                db.execute(f"delete from papers where {where}", part)
            doc_ids: list[int] = []
            doc_terms: list[list[int]] = []
            for pid, phash, chunks in add:
                for cid, text, meta in chunks:
                    tokens = tokenize(f"{meta.get('title', '')}\n{text}")
                    row = {**meta, "_len": len(tokens)}
                    cur = db.execute(
                        "insert into chunks (chunk_id, paper_id, text, meta, seg) values (?, ?, ?, ?, ?)",
                        (cid, pid, text, json.dumps(row), name),
                    )
                    doc_ids.append(int(cur.lastrowid or 0))
                    doc_terms.append(self._term_ids(tokens))
                    n_docs += 1
                    total += len(tokens)
                record = records.get(pid)
                row_json = None if record is None else record.model_dump_json()
                db.execute("insert or replace into papers values (?, ?, ?)", (pid, phash, row_json))
            added = [records[pid] for pid, _, _ in add if pid in records]
            paper_terms.update_counts(db, [], added)
            paper_index.add(db, added)
            if doc_ids:
                arrays = postings.build_arrays(doc_ids, doc_terms)
                postings.write_segment(self.folder, name, arrays)
                db.execute("insert into segments values (?, ?)", (name, len(arrays["docs"])))
            db.execute("insert or replace into meta values ('n_docs', ?)", (str(n_docs),))
            db.execute("insert or replace into meta values ('total_len', ?)", (str(total),))

    def _term_ids(self, tokens: list[str]) -> list[int]:
        cache: dict[str, int] = self.__dict__.setdefault("_term_cache", {})
        out = []
        for tok in tokens:
            tid = cache.get(tok)
            if tid is None:
                self._db.execute("insert or ignore into terms (term) values (?)", (tok,))
                row = self._db.execute("select id from terms where term = ?", (tok,)).fetchone()
                tid = cache[tok] = int(row[0])
            out.append(tid)
        return out

    def _merge_some(self) -> None:
        """Merge MERGE_FANOUT segments of one size class while any class has that many."""
        while True:
            rows = self._db.execute("select name, postings from segments order by rowid").fetchall()
            classes: dict[int, list[str]] = {}
            for name, n in rows:
                level = int(math.log(max(n, 1) / MERGE_BASE_POSTINGS + 1, MERGE_FANOUT))
                classes.setdefault(level, []).append(str(name))
            full = [names for names in classes.values() if len(names) >= MERGE_FANOUT]
            if not full:
                return
            self._merge(full[0][:MERGE_FANOUT])

    def _merge(self, names: list[str]) -> None:
        db = self._db
        marks = ",".join("?" * len(names))
        deleted = np.fromiter(
            (r[0] for r in db.execute(f"select doc from deleted where seg in ({marks})", names)),
            np.int64,
        )
        segs = [postings.open_segment(self.folder, n) for n in names]
        arrays = postings.merge_arrays(segs, deleted)
        name = f"s{uuid.uuid4().hex[:12]}"
        postings.write_segment(self.folder, name, arrays)
        with db:
            db.execute(f"delete from segments where name in ({marks})", names)
            db.execute(f"delete from deleted where seg in ({marks})", names)
            db.execute(f"update chunks set seg = ? where seg in ({marks})", [name, *names])
            db.execute("insert into segments values (?, ?)", (name, len(arrays["docs"])))
        for old in names:
            postings.remove_segment(self.folder, old)

    def _drop_orphans(self) -> None:
        """Segment files no committed row names: a write or merge that died before its commit."""
        known = {str(r[0]) for r in self._db.execute("select name from segments")}
        for path in self.folder.glob("s*.npy"):
            if path.name.split(".", 1)[0] not in known:
                path.unlink(missing_ok=True)
        for path in self.folder.glob("s*.tmp"):
            path.unlink(missing_ok=True)

    def sync(self, store: PaperStore) -> SyncReport:
        """Bring the index in step with the store's complete papers (see the module doc)."""
        return sync_from(self, store)

    # --- reads ------------------------------------------------------------------------------
    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[LexicalHit]:
        """The `k` best chunks for `query` by BM25, only of `allowed` papers if given."""
        state = self._state
        words = query_tokens(query)
        if not words or k <= 0 or not state.n_docs:
            return []
        db = self._reader()
        marks = ",".join("?" * len(set(words)))
        known = dict(
            db.execute(
                f"select term, id from terms where term in ({marks})", sorted(set(words))
            ).fetchall()
        )
        terms = [int(known[w]) for w in words if w in known]
        # Lucene's way: deleted chunks count in N as they do in df until a merge drops them.
        n_docs = state.n_docs + len(state.deleted)
        # Chunks another process added since this one loaded the index are not scored here
        # yet (the next reload sees them): candidates stay below the loaded size.
        candidates = None if allowed is None else self._owners.docs_of(db, allowed, state.size)
        top, scores = postings.best_chunks(
            state.segments, terms, n_docs, state.avgdl, state.size, k, state.deleted, candidates
        )
        return hits_of(db, top.tolist(), dict(zip(top.tolist(), scores.tolist(), strict=True)))


def open_index(settings: Settings, store: PaperStore | None = None) -> LexicalIndex:
    """The collection's lexical index, synced with `store` when one is given."""
    index = LexicalIndex(index_dir(settings))
    if store is not None:
        report = index.sync(store)
        if not report.skipped:
            log.info(
                "lexical index: +%d / -%d papers (%d chunks) in %.1f s",
                report.added,
                report.removed,
                report.chunks,
                report.seconds,
            )
    return index
