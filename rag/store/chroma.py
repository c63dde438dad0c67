"""Chroma: the client, the two collections, batched writes and whole-store reads.

Two collections: `<name>` holds the embedded chunks (read by llama-index's
ChromaVectorStore); `<name>_papers` holds one record per paper with its content hash
and chunk count. A paper record is written only after all its chunks, so a paper with
chunks but no matching record is an interrupted write that the next ingest repairs.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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

from rag.errors import ModelMismatchError, translate
from rag.settings import Settings
from rag.store.nodes import (
    ChunkRecord,
    chunk_record,
    node_from_record,
    paper_from_record,
    paper_metadata,
)
from rag.types import Paper

log = logging.getLogger(__name__)
READ_PAGE = 2_000
# One request to a Chroma server. chromadb's HTTP client has no timeout at all, so a frozen
# server (stopped process, dropped packets) would hold every request thread forever.
SERVER_TIMEOUT_S = 30.0
SERVER_CONNECT_TIMEOUT_S = 5.0
WRITING_FLAG = "ingest_in_progress"


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
        raise translate(exc, "open", settings.store_location()) from exc


def _bound_server_requests(client: ClientAPI) -> None:
    # chromadb builds its httpx session with timeout=None and offers no setting for it
    # (chromadb/api/fastapi.py), so the timeout goes onto the session it keeps.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if not isinstance(session, httpx.Client):
        log.warning("cannot set a timeout on chromadb's HTTP client; requests are unbounded")
        return
    session.timeout = httpx.Timeout(SERVER_TIMEOUT_S, connect=SERVER_CONNECT_TIMEOUT_S)


class PaperStore:
    """The Chroma side of the project; every read and write of the store goes through here."""

    def __init__(self, settings: Settings, client: ClientAPI | None = None) -> None:
        self.settings = settings
        self.location = settings.store_location()
        self.client = client or make_client(settings)
        self._open_collections()

    def _open_collections(self) -> None:
        name = self.settings.collection
        try:
            self.chunks: Collection = self.client.get_or_create_collection(
                name, metadata={"hnsw:space": "cosine"}, embedding_function=None
            )
            self.papers: Collection = self.client.get_or_create_collection(
                f"{name}_papers", embedding_function=None
            )
            self.max_batch = int(self.client.get_max_batch_size())
        except Exception as exc:
            raise translate(exc, "open", self.location) from exc
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
        return [
            chunk_record(cid, meta)
            for page in self._pages(self.chunks, ["metadatas"])
            for cid, meta in zip(page["ids"], page["metadatas"], strict=True)
        ]

    def load_papers(self) -> dict[str, Paper]:
        out: dict[str, Paper] = {}
        for page in self._pages(self.papers, ["metadatas", "documents"]):
            for pid, doc, meta in zip(
                page["ids"], page["documents"], page["metadatas"], strict=True
            ):
                out[pid] = paper_from_record(pid, doc or "", meta)
        return out

    def load_chunk_nodes(self) -> list[TextNode]:
        """Every chunk as a node (text + metadata), for the BM25 index."""
        return [
            node_from_record(cid, doc or "", meta)
            for page in self._pages(self.chunks, ["metadatas", "documents"])
            for cid, doc, meta in zip(
                page["ids"], page["documents"], page["metadatas"], strict=True
            )
        ]

    def chunk_vectors(self) -> tuple[Any, list[str]]:
        """Every chunk's embedding (a float32 matrix) and its paper id, for topic scans."""
        import numpy as np

        rows: list[Any] = []
        papers: list[str] = []
        for page in self._pages(self.chunks, ["embeddings", "metadatas"]):
            rows.append(np.asarray(page["embeddings"], dtype=np.float32))
            papers += [str(m.get("paper_id", "")) for m in page["metadatas"]]
        return (np.vstack(rows) if rows else np.zeros((0, 1), dtype=np.float32)), papers

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
            raise translate(exc, "read", self.location) from exc

    # --- writes ---------------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A failed write (disk full, read-only files, server gone) becomes a StoreError
        that names the store; the paper records written so far stay valid (see ingest)."""
        try:
            yield
        except (ChromaError, OSError, httpx.HTTPError) as exc:
            raise translate(exc, "write", self.location) from exc

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
                    metadatas=[paper_metadata(p, n) for p, n in batch],
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
        self._open_collections()
