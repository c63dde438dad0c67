"""Chroma: the client, the two collections, batched writes and whole-store reads.

Two collections: `<name>` holds the embedded chunks (read by llama-index's
ChromaVectorStore); `<name>_papers` holds one record per paper with its content hash
and chunk count. A paper record is written only after all its chunks, so a paper with
chunks but no matching record is an interrupted write that the next ingest repairs.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Where
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import ChromaError
from llama_index.core.schema import BaseNode, TextNode
from llama_index.vector_stores.chroma import ChromaVectorStore

from rag.settings import Settings
from rag.types import Paper

log = logging.getLogger(__name__)
READ_PAGE = 2_000
# One request to a Chroma server. chromadb's HTTP client has no timeout at all, so a frozen
# server (stopped process, dropped packets) would hold every request thread forever.
SERVER_TIMEOUT_S = 30.0
SERVER_CONNECT_TIMEOUT_S = 5.0


class StoreError(RuntimeError):
    """The store cannot be reached or used as asked."""


class ModelMismatchError(StoreError):
    pass


# SQLite's words (Chroma's Rust core passes them on) and the errnos behind a failed write.
_FULL = ("database or disk is full", "(code: 13)", "no space left")
_READ_ONLY = ("readonly database", "read-only", "(code: 8)", "permission denied")
_IO = ("disk i/o error", "(code: 778)", "file too large")
# Chroma's embedded log took the write but could not fold it into its segments; with a
# full disk every later read retries (and fails) the same way until space is freed.
_LOG = ("failed to apply logs", "error in compaction")


def failure_reason(exc: BaseException) -> str:
    """Why a store operation failed, in words a reader can act on (raw message kept)."""
    raw = str(exc) or type(exc).__name__
    code = exc.errno if isinstance(exc, OSError) else None
    text = raw.lower()
    if code in (errno.ENOSPC, errno.EDQUOT) or any(s in text for s in _FULL):
        return f"the disk is full ({raw})"
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or any(s in text for s in _READ_ONLY):
        return f"the data directory is read-only or not writable ({raw})"
    if code == errno.EFBIG or any(s in text for s in _IO):
        # SQLite reports a write refused for size (EFBIG, RLIMIT_FSIZE) as an I/O error.
        return f"a disk write failed: the disk may be full or a file-size limit reached ({raw})"
    if any(s in text for s in _LOG):
        return f"Chroma cannot apply its write log: the disk may be full ({raw})"
    return raw


@dataclass(frozen=True)
class ChunkRecord:
    id: str
    paper_id: str
    paper_hash: str


def make_client(settings: Settings) -> ClientAPI:
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    try:
        if settings.chroma_host:
            client = chromadb.HttpClient(
                host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
            )
            _bound_server_requests(client)
            return client
        settings.chroma_path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.chroma_path), settings=chroma_settings)
    except Exception as exc:  # chromadb raises bare Exceptions and ValueErrors here
        raise StoreError(
            f"cannot open the Chroma store ({settings.store_location()}): {failure_reason(exc)}"
        ) from exc


def _bound_server_requests(client: ClientAPI) -> None:
    # chromadb keeps its httpx session on the client's server object; no public setting.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if not isinstance(session, httpx.Client):
        log.warning("cannot set a timeout on chromadb's HTTP client; requests are unbounded")
        return
    session.timeout = httpx.Timeout(SERVER_TIMEOUT_S, connect=SERVER_CONNECT_TIMEOUT_S)


def chunk_node(
    chunk_id: str, text: str, paper: Paper, index: int, n_chunks: int, paper_hash: str
) -> TextNode:
    """A llama-index node whose embedded text is `title\\ntext` and whose metadata cites."""
    metadata = {
        "paper_id": paper.id,
        "title": paper.title,
        "authors": "; ".join(paper.authors),
        "url": paper.url,
        "status": paper.status,
        "chunk_index": index,
        "n_chunks": n_chunks,
        "paper_hash": paper_hash,
    }
    hidden = [k for k in metadata if k != "title"]
    return TextNode(
        id_=chunk_id,
        text=text,
        metadata=metadata,
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=hidden,
        metadata_template="{value}",
        text_template="{metadata_str}\n{content}",
    )


def _paper_metadata(paper: Paper, n_chunks: int) -> dict[str, Any]:
    return {
        "title": paper.title,
        "authors": json.dumps(paper.authors, ensure_ascii=False),
        "url": paper.url,
        "status": paper.status,
        "hash": paper.content_hash(),
        "n_chunks": n_chunks,
        "extra": json.dumps(paper.extra, ensure_ascii=False, default=str),
    }


def _paper_from_record(paper_id: str, abstract: str, meta: dict[str, Any]) -> Paper:
    return Paper(
        id=paper_id,
        title=str(meta.get("title", "")),
        authors=json.loads(str(meta.get("authors") or "[]")),
        abstract=abstract,
        url=str(meta.get("url", "")),
        status=str(meta.get("status", "")),
        extra=json.loads(str(meta.get("extra") or "{}")),
    )


WRITING_FLAG = "ingest_in_progress"


def bm25_index_path(settings: Settings, fingerprint: str) -> Path:
    """Where the BM25 index of one store state lives (a new fingerprint, a new index)."""
    return settings.data_dir / "bm25" / f"{settings.collection}-{fingerprint}"


class PaperStore:
    """The Chroma side of the project; every read and write of the store goes through here."""

    def __init__(self, settings: Settings, client: ClientAPI | None = None) -> None:
        self.settings = settings
        self.client = client or make_client(settings)
        try:
            self.chunks: Collection = self.client.get_or_create_collection(
                settings.collection, metadata={"hnsw:space": "cosine"}, embedding_function=None
            )
            self.papers: Collection = self.client.get_or_create_collection(
                f"{settings.collection}_papers", embedding_function=None
            )
            self.max_batch = int(self.client.get_max_batch_size())
        except Exception as exc:
            raise StoreError(
                f"cannot open collections at {settings.store_location()}: {failure_reason(exc)}"
            ) from exc
        self.vector_store = ChromaVectorStore(chroma_collection=self.chunks)

    # --- model bookkeeping ----------------------------------------------------------
    def recorded_model(self) -> tuple[str, int] | None:
        meta = self.chunks.metadata or {}
        if "embed_model" not in meta:
            return None
        return str(meta["embed_model"]), int(meta.get("embed_dim", 0))

    def check_model(self, name: str, dim: int | None = None) -> None:
        """Refuse to mix embedding spaces in one collection (`dim` None: names only)."""
        recorded = self.recorded_model()
        if recorded is None:
            if self.chunks.count() > 0:
                raise ModelMismatchError(
                    f"collection '{self.settings.collection}' has chunks but no recorded "
                    "embedding model; run `rag ingest --rebuild`"
                )
            return
        if recorded[0] != name or (dim is not None and recorded[1] != dim):
            raise ModelMismatchError(
                f"collection '{self.settings.collection}' was built with {recorded[0]} "
                f"(dim {recorded[1]}), not {name} (dim {dim}); run `rag ingest --rebuild` "
                "or set RAG_COLLECTION to another collection"
            )

    def record_model(self, name: str, dim: int) -> None:
        meta = dict(self.chunks.metadata or {})
        meta.pop("hnsw:space", None)  # fixed at creation; modify() refuses to change it
        meta.update({"embed_model": name, "embed_dim": dim})
        with self._writing():
            self.chunks.modify(metadata=meta)

    def mark_writing(self, writing: bool) -> None:
        """Flag an ingest in progress (cleared when it completes): a run that finds the flag
        set knows the last one died mid-write and scans every chunk (ingest.repair)."""
        meta = dict(self.papers.metadata or {})
        meta[WRITING_FLAG] = writing
        with self._writing():
            self.papers.modify(metadata=meta)

    def was_interrupted(self) -> bool:
        return bool((self.papers.metadata or {}).get(WRITING_FLAG))

    # --- reads ----------------------------------------------------------------------
    def _pages(self, collection: Collection, include: list[Any]) -> Iterator[Any]:
        offset = 0
        while True:
            with self._reading():
                page = collection.get(limit=READ_PAGE, offset=offset, include=include)
            if not page["ids"]:
                return
            yield page
            offset += len(page["ids"])

    def paper_hashes(self) -> dict[str, tuple[str, int]]:
        """paper id -> (content hash, chunk count) of every complete paper."""
        out: dict[str, tuple[str, int]] = {}
        for page in self._pages(self.papers, ["metadatas"]):
            for pid, meta in zip(page["ids"], page["metadatas"], strict=True):
                out[pid] = (str(meta.get("hash", "")), int(meta.get("n_chunks", 0)))
        return out

    def chunk_records(self) -> list[ChunkRecord]:
        out = []
        for page in self._pages(self.chunks, ["metadatas"]):
            for cid, meta in zip(page["ids"], page["metadatas"], strict=True):
                out.append(
                    ChunkRecord(cid, str(meta.get("paper_id", "")), str(meta.get("paper_hash", "")))
                )
        return out

    def load_papers(self) -> dict[str, Paper]:
        out: dict[str, Paper] = {}
        for page in self._pages(self.papers, ["metadatas", "documents"]):
            for pid, doc, meta in zip(
                page["ids"], page["documents"], page["metadatas"], strict=True
            ):
                out[pid] = _paper_from_record(pid, doc or "", meta)
        return out

    def load_chunk_nodes(self) -> list[TextNode]:
        """Every chunk as a node (text + metadata), for the BM25 index."""
        nodes = []
        for page in self._pages(self.chunks, ["metadatas", "documents"]):
            for cid, doc, meta in zip(
                page["ids"], page["documents"], page["metadatas"], strict=True
            ):
                paper = Paper(
                    id=str(meta["paper_id"]),
                    title=str(meta.get("title", "")),
                    authors=[a for a in str(meta.get("authors", "")).split("; ") if a],
                    abstract="-",
                    url=str(meta.get("url", "")),
                    status=str(meta.get("status", "")),
                )
                nodes.append(
                    chunk_node(
                        cid,
                        doc or "",
                        paper,
                        int(meta.get("chunk_index", 0)),
                        int(meta.get("n_chunks", 1)),
                        str(meta.get("paper_hash", "")),
                    )
                )
        return nodes

    def fingerprint(self) -> str:
        """Changes whenever the set of complete papers (or their content) changes."""
        digest = hashlib.sha256()
        for pid, (phash, n) in sorted(self.paper_hashes().items()):
            digest.update(f"{pid}:{phash}:{n}\n".encode())
        meta = self.recorded_model()
        digest.update(repr(meta).encode())
        return digest.hexdigest()[:16]

    def counts(self) -> tuple[int, int]:
        with self._reading():
            return self.papers.count(), self.chunks.count()

    @contextmanager
    def _reading(self) -> Iterator[None]:
        # Local failures (disk full, unreadable files) get a reason; a Chroma server that
        # cannot be reached (httpx errors) is left to callers, who report an outage.
        try:
            yield
        except (ChromaError, OSError) as exc:
            raise StoreError(
                f"cannot read the store ({self.settings.store_location()}): {failure_reason(exc)}"
            ) from exc

    # --- writes ---------------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A failed write (disk full, read-only files, server gone) becomes a StoreError
        that names the store; the paper records written so far stay valid (see ingest)."""
        try:
            yield
        except (ChromaError, OSError, httpx.HTTPError) as exc:
            raise StoreError(
                f"cannot write to the store ({self.settings.store_location()}): "
                f"{failure_reason(exc)}; papers stored before this point are kept, and "
                "re-running `rag ingest` finishes the rest"
            ) from exc

    def _batches(self, items: Sequence[Any]) -> Iterator[Sequence[Any]]:
        for start in range(0, len(items), self.max_batch):
            yield items[start : start + self.max_batch]

    def add_chunk_nodes(self, nodes: Sequence[BaseNode]) -> None:
        with self._writing():
            for batch in self._batches(nodes):
                self.vector_store.add(list(batch))

    def upsert_papers(self, papers: Sequence[tuple[Paper, int]]) -> None:
        with self._writing():
            for batch in self._batches(papers):
                # Paper records are looked up by id, never by vector; Chroma wants one anyway.
                dummy: list[Sequence[float]] = [[1.0] for _ in batch]
                self.papers.upsert(
                    ids=[p.id for p, _ in batch],
                    documents=[p.abstract for p, _ in batch],
                    metadatas=[_paper_metadata(p, n) for p, n in batch],
                    embeddings=dummy,
                )

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        with self._writing():
            for batch in self._batches(list(chunk_ids)):
                self.chunks.delete(ids=list(batch))

    def delete_chunks_of(self, paper_ids: Sequence[str]) -> None:
        with self._writing():
            for batch in self._batches(list(paper_ids)):
                # cast: mypy cannot see "$in" as the Literal key chromadb's Where type wants.
                self.chunks.delete(where=cast(Where, {"paper_id": {"$in": list(batch)}}))

    def delete_papers(self, paper_ids: Sequence[str]) -> None:
        with self._writing():
            for batch in self._batches(list(paper_ids)):
                self.papers.delete(ids=list(batch))

    def drop(self) -> None:
        """Delete both collections (for `--rebuild`) and recreate them empty."""
        for name in (self.settings.collection, f"{self.settings.collection}_papers"):
            try:
                self.client.delete_collection(name)
            except Exception as exc:  # a missing collection is fine; Chroma raises various types
                log.debug("delete_collection(%s): %s", name, exc)
        self.__init__(self.settings, self.client)  # type: ignore[misc]
