"""load ▶ validate ▶ chunk ▶ embed ▶ upsert, idempotent, incremental and crash-safe.

A paper counts as stored only when its record in `<collection>_papers` carries the
paper's current content hash and its chunk count matches the chunks in the store; the
record is written after the chunks. Anything else (chunks of an interrupted write, a
record whose chunks went missing) is repaired at the start of the next run.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rag.corpus.chunking import chunk_papers, embed_text
from rag.corpus.records import LoadIssue, load_corpus
from rag.errors import CorpusError
from rag.lexical.index import LexicalIndex, open_index
from rag.lexical.reads import written_entry
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.store.lock import writer_lock
from rag.store.nodes import chunk_node
from rag.types import Paper

if TYPE_CHECKING:  # the model and llama-index are loaded only when something is embedded
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.schema import TextNode

    # one slice's papers with their chunks, as chunked and then embedded
    PaperNodes = list[tuple[Paper, list[TextNode]]]

log = logging.getLogger(__name__)
PAPERS_PER_WRITE = 128
SLICES_PER_EMBED = 4
ProgressFn = Callable[[int, int], None]


@dataclass
class IngestReport:
    papers: int = 0
    chunks: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    pruned: int = 0
    repaired: int = 0
    embedded_chunks: int = 0
    seconds: float = 0.0
    issues: list[LoadIssue] = field(default_factory=list)
    # (id, stored title, new title) of every stored paper a record replaced
    replaced: list[tuple[str, str, str]] = field(default_factory=list)

    def replacement_lines(self) -> list[str]:
        """One line per replaced paper, naming it, so a record with a wrong id is seen."""
        return [
            f"replaced {pid} '{_short(old)}'"
            + ("" if old == new else f" with a record titled '{_short(new)}'")
            for pid, old, new in self.replaced
        ]

    def summary(self) -> str:
        return (
            f"papers {self.papers:,} | chunks {self.chunks:,} | new {self.new:,} | "
            f"updated {self.updated:,} | unchanged {self.unchanged:,} | skipped {self.skipped:,}"
            + (f" | pruned {self.pruned:,}" if self.pruned else "")
            + (f" | repaired {self.repaired:,}" if self.repaired else "")
            + f" | {self.seconds:.1f} s"
        )


def _short(title: str, limit: int = 80) -> str:
    title = " ".join(title.split())
    return title if len(title) <= limit else title[: limit - 1] + "…"


def replacements(store: PaperStore, todo: list[Paper]) -> list[tuple[str, str, str]]:
    """(id, stored title, new title) for each paper in `todo` already in the store."""
    stored = store.paper_records([p.id for p in todo])
    return [(p.id, stored[p.id][1].title, p.title) for p in todo if p.id in stored]


def repair(store: PaperStore, records: dict[str, tuple[str, int]] | None = None) -> int:
    """Remove partial writes; return how many papers/chunks were touched."""
    records = store.paper_hashes() if records is None else records
    chunk_counts: Counter[tuple[str, str]] = Counter()
    orphans: list[str] = []
    for chunk in store.chunk_records():
        recorded = records.get(chunk.paper_id)
        if recorded is None or recorded[0] != chunk.paper_hash:
            orphans.append(chunk.id)
        else:
            chunk_counts[(chunk.paper_id, chunk.paper_hash)] += 1
    broken = [pid for pid, (phash, n) in records.items() if chunk_counts[(pid, phash)] != n]
    if orphans:
        store.delete_chunks(orphans)
    if broken:
        store.delete_chunks_of(broken)
        store.delete_papers(broken)
    return len(orphans) + len(broken)


def _nodes_for(
    papers: Sequence[Paper], settings: Settings, embed_model: BaseEmbedding
) -> PaperNodes:
    from rag.embedding.base import token_counter

    chunked = chunk_papers(
        papers,
        settings.chunk_max_tokens,
        settings.chunk_overlap_sentences,
        token_counter(embed_model),
    )
    out = []
    for paper, chunks in zip(papers, chunked, strict=True):
        phash = paper.content_hash()
        nodes = [chunk_node(c.id, c.text, paper, c.index, len(chunks), phash) for c in chunks]
        out.append((paper, nodes))
    return out


def embedded_texts(nodes: Sequence[TextNode]) -> list[str]:
    """What the model sees of each chunk: its title, then its text."""
    return [embed_text(str(n.metadata["title"]), n.text) for n in nodes]


def _embed(nodes: list[TextNode], embed_model: BaseEmbedding) -> None:
    vectors = embed_model.get_text_embedding_batch(embedded_texts(nodes))
    for node, vector in zip(nodes, vectors, strict=True):
        node.embedding = vector


def embed_windows(papers: Sequence[Paper]) -> Iterator[list[Sequence[Paper]]]:
    """The papers as ingest handles them: write slices of PAPERS_PER_WRITE, embedded
    SLICES_PER_EMBED slices at a time (scripts/ship_vectors.py embeds them the same way)."""
    window = PAPERS_PER_WRITE * SLICES_PER_EMBED
    for start in range(0, len(papers), window):
        part = papers[start : start + window]
        yield [part[s : s + PAPERS_PER_WRITE] for s in range(0, len(part), PAPERS_PER_WRITE)]


class _OrderedWriter:
    """Slices written in order on one thread while the caller embeds the next window;
    after a failed write the slices queued behind it are skipped (they count 0 chunks), so
    the ingest stops at the failure and what was written before it stays (each slice is
    durable whole)."""

    def __init__(self, write: Callable[[PaperNodes, int], int]) -> None:
        self._write = write
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store-write")
        self._pending: deque[Future[int]] = deque()
        self._failed = False  # read and set on the writer thread only

    def submit(self, batch: PaperNodes, done: int) -> None:
        self._pending.append(self._pool.submit(self._guarded, batch, done))

    def _guarded(self, batch: PaperNodes, done: int) -> int:
        if self._failed:
            return 0
        try:
            return self._write(batch, done)
        except BaseException:
            self._failed = True
            raise

    def drain(self) -> int:
        """Wait for every queued slice; chunks written. The first failure is raised."""
        written = 0
        while self._pending:
            head = self._pending[0]
            try:
                written += head.result()
            finally:
                # Interrupted while it still runs (Ctrl-C): left for close() to report.
                if head.done():
                    self._pending.popleft()
        return written

    def close(self) -> None:
        """Let queued writes finish (a slice is durable whole). Stopped by an error
        elsewhere while they ran: a write that failed too is logged, not dropped."""
        try:
            for pending in self._pending:
                if pending.exception() is not None:
                    log.warning(
                        "writing the slice before the failure failed too: %r",
                        pending.exception(),
                    )
        finally:
            # Interrupted while waiting: the slice being written finishes, none after it
            # starts, and no write outlives the ingest call.
            self._pool.shutdown(wait=True, cancel_futures=True)


def write_papers(
    store: PaperStore,
    papers: Sequence[Paper],
    settings: Settings,
    embed_model: BaseEmbedding,
    progress: ProgressFn | None = None,
    lexical: LexicalIndex | None = None,
) -> int:
    """Chunk, embed and store papers in slices, each slice durable on its own.

    A window of SLICES_PER_EMBED slices goes to the model in one call: the ONNX runtime
    runs its texts longest first on every core, the torch runtime sorts them by length
    across the call (less padding than within 128 papers). Writes stay 128 papers each (a
    failed or killed write costs less). A window's slices are written in order while the
    next window is embedded, each slice's paper records after its chunks; a failed write
    stops the ingest when that embed returns, and what was written stays (the next run
    repairs or resumes). With `lexical`, each written slice goes into that index too, on
    the writer thread while the model runs, so the sync after the commit finds nothing to
    read back (it would run after the model, with one core idle)."""
    if progress:
        progress(0, len(papers))  # start the clock before the first (slow) window
    total, done = len(papers), 0

    def write(batch: PaperNodes, done: int) -> int:
        nodes = [node for _, paper_nodes in batch for node in paper_nodes]
        store.delete_chunks_of([paper.id for paper, _ in batch])
        store.add_chunk_nodes(nodes)
        store.upsert_papers([(paper, len(paper_nodes)) for paper, paper_nodes in batch])
        if lexical is not None:  # what the sync after the commit would read back
            entries = [written_entry(paper, paper_nodes) for paper, paper_nodes in batch]
            lexical.replace_papers([], [e for e, _ in entries], {r.id: r for _, r in entries})
        if progress:
            progress(done, total)
        return len(nodes)

    def chunked(window: list[Sequence[Paper]]) -> list[PaperNodes]:
        return [_nodes_for(part, settings, embed_model) for part in window]

    written = 0
    writer = _OrderedWriter(write)
    windows = embed_windows(papers)
    window = next(windows, [])
    batches = chunked(window)
    try:
        while window:
            _embed([n for batch in batches for _, nodes in batch for n in nodes], embed_model)
            written += writer.drain()  # the previous window is in before this one goes
            # The next window is chunked while no write runs: chunking is Python and the
            # Rust tokenizer, which take turns with a Chroma write for the GIL.
            following = next(windows, [])
            following_batches = chunked(following)
            for part, batch in zip(window, batches, strict=True):
                done += len(part)
                writer.submit(batch, done)
            window, batches = following, following_batches
        written += writer.drain()
    finally:
        writer.close()
    return written


def _existing_papers(
    store: PaperStore, settings: Settings, report: IngestReport
) -> dict[str, tuple[str, int]]:
    """The complete papers in the store, after repairing what an interrupted run left."""
    store.check_model(settings.embedding_id())  # before any repair touches the store
    existing = store.paper_hashes()
    # Scanning every chunk's metadata would be most of an unchanged re-run, so
    # it happens only when the last ingest did not finish or the counts disagree.
    if store.was_interrupted() or sum(n for _, n in existing.values()) != store.counts()[1]:
        report.repaired = repair(store, existing)
        existing = store.paper_hashes() if report.repaired else existing
    return existing


def _embed_and_write(
    store: PaperStore,
    todo: Sequence[Paper],
    settings: Settings,
    embed_model: BaseEmbedding,
    progress: ProgressFn | None,
) -> int:
    from rag.embedding.base import bulk_embedding, embed_dimension

    dim = embed_dimension(embed_model)
    store.check_model(settings.embedding_id(), dim)
    if store.recorded_model() is None:
        store.record_model(settings.embedding_id(), dim)
    # Synced first (a `--rebuild` or another model starts it afresh), then fed as slices land.
    lexical = open_index(settings, store)
    # A worker process pays only when writes overlap the model: from the second window on.
    several_windows = len(todo) > PAPERS_PER_WRITE * SLICES_PER_EMBED
    try:
        with bulk_embedding(embed_model) if several_windows else nullcontext():
            return write_papers(store, todo, settings, embed_model, progress, lexical)
    finally:
        lexical.close()


def ingest(
    settings: Settings,
    paths: Sequence[Path] | None = None,
    *,
    rebuild: bool = False,
    prune: bool = False,
    strict: bool = False,
    embed_model: BaseEmbedding | None = None,
    store: PaperStore | None = None,
    progress: ProgressFn | None = None,
) -> IngestReport:
    """Load the corpus files and bring the store in step with them (see the module doc).
    On an embedded store, one ingest at a time (rag.store.lock)."""
    lock = nullcontext() if settings.chroma_host else writer_lock(settings.data_dir)
    with lock:
        return _ingest(settings, paths, rebuild, prune, strict, embed_model, store, progress)


def _ingest(
    settings: Settings,
    paths: Sequence[Path] | None,
    rebuild: bool,
    prune: bool,
    strict: bool,
    embed_model: BaseEmbedding | None,
    store: PaperStore | None,
    progress: ProgressFn | None,
) -> IngestReport:
    started = time.perf_counter()
    loaded = load_corpus(paths or settings.corpus_paths, strict=strict)
    if prune and loaded.issues:
        # A record that failed to load has no id we can trust: pruning would delete its
        # stored paper (or, if every line is broken, the whole store).
        raise CorpusError(
            f"--prune needs a clean load, but {len(loaded.issues)} record(s) failed; nothing "
            f"written. First: {loaded.issues[0]}"
        )
    report = IngestReport(issues=loaded.issues, skipped=len(loaded.issues))
    store = store or PaperStore(settings)
    if rebuild:
        store.drop()
    existing = _existing_papers(store, settings, report)
    todo = [p for p in loaded.papers if existing.get(p.id, ("",))[0] != p.content_hash()]
    report.new = sum(1 for p in todo if p.id not in existing)
    report.updated = len(todo) - report.new
    if report.updated:
        report.replaced = replacements(store, [p for p in todo if p.id in existing])
        retitled = [r for r in report.replaced if r[1].strip().lower() != r[2].strip().lower()]
        if strict and retitled:
            pid, old, new = retitled[0]
            raise CorpusError(
                f"--strict: {len(retitled)} record(s) would replace a stored paper under "
                f"another title (first: {pid} '{_short(old)}' by '{_short(new)}'); nothing "
                "written. Check the ids, or run without --strict to replace them."
            )
    report.unchanged = len(loaded.papers) - len(todo)
    wanted = {p.id for p in loaded.papers}
    gone = [pid for pid in existing if pid not in wanted] if prune else []
    if todo or gone:
        store.mark_writing(True)
    if todo:
        # The model is loaded only when something needs embedding: an unchanged re-run
        # skips the model's set-up and importing llama-index.
        from rag.embedding.factory import build_embed_model
        from rag.embedding.shipped import fill_cache_from_shipped

        embed_model = embed_model or build_embed_model(settings)
        # A corpus shipped with its vectors (the bundled one) fills the embedding cache.
        fill_cache_from_shipped(embed_model, settings, paths or settings.corpus_paths)
        report.embedded_chunks = _embed_and_write(store, todo, settings, embed_model, progress)
    if gone:
        store.delete_chunks_of(gone)
        store.delete_papers(gone)
        report.pruned = len(gone)
    if todo or gone or report.repaired or store.was_interrupted():
        store.mark_writing(False)  # the commit: replicas reload on the new generation
    # The lexical index follows the commit (only the papers that changed); one killed here
    # is caught up by the next sync, which sees it is behind the store's generation.
    open_index(settings, store).close()
    report.papers, report.chunks = store.counts()
    report.seconds = time.perf_counter() - started
    return report
