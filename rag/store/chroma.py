"""Chroma: the client, the two collections, batched writes and whole-store reads.

Two collections: `<name>` holds the embedded chunks (read by llama-index's
ChromaVectorStore); `<name>_papers` holds one record per paper with its content hash
and chunk count. A paper record is written only after all its chunks, so a paper with
chunks but no matching record is an interrupted write that the next ingest repairs.

The papers collection's metadata also carries the store's *generation*, bumped once by
each ingest that commits a change: other processes serving the same Chroma server poll
it (one small read) to learn when to reload (rag.refresh).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Where
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import ChromaError

from rag.errors import ModelMismatchError, translate
from rag.settings import Settings
from rag.store.nodes import (
    ChunkRecord,
    chunk_record,
    node_from_record,
    paper_from_record,
    paper_metadata,
)
from rag.store.writes import WritePolicy, retried, write_batched
from rag.types import Paper

if TYPE_CHECKING:  # llama-index is imported when a node is read or written, not to open:
    # an unchanged re-ingest never needs it, and the import is a large share of that run
    from llama_index.core.schema import BaseNode, TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

log = logging.getLogger(__name__)
READ_PAGE = 2_000
# One request to a Chroma server. chromadb's HTTP client has no timeout at all, so a frozen
# server (stopped process, dropped packets) would hold every request thread forever.
SERVER_TIMEOUT_S = 30.0
SERVER_CONNECT_TIMEOUT_S = 5.0
WRITING_FLAG = "ingest_in_progress"
GENERATION = "generation"
# What a replica compares between polls: the papers collection's id (new after a
# `--rebuild`, which drops and recreates it) and the generation it carries.
Generation = tuple[str, int]


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


def reopened_embedded_client(settings: Settings) -> ClientAPI:
    """A client that loads the embedded store afresh. chromadb keeps one system per path
    for the whole process, so a new client would share the stale one; its cache entry is
    dropped first (the old client goes on serving whoever still holds it)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient._identifier_to_system.pop(str(settings.chroma_path), None)
    return make_client(settings)


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
            limit = int(self.client.get_max_batch_size())
        except Exception as exc:
            raise translate(exc, "open", self.location) from exc
        if self.settings.chroma_host:  # an embedded write has no HTTP timeout to stay under
            limit = min(limit, self.settings.store_write_batch)
        self.policy = WritePolicy(batch=limit, retries=self.settings.store_write_retries)
        # llama-index's view wraps the collection object: built afresh over the new one
        self.__dict__.pop("vector_store", None)

    @cached_property
    def vector_store(self) -> ChromaVectorStore:
        """llama-index's view of the chunk collection, for its retrievers."""
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self.chunks)

    @property
    def max_batch(self) -> int:
        """Records per write request (shrinks when a server write times out)."""
        return self.policy.batch

    @max_batch.setter
    def max_batch(self, value: int) -> None:
        self.policy.batch = self.policy.ceiling = value

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
            retried(lambda: self.chunks.modify(metadata=meta), self.policy)

    def mark_writing(self, writing: bool) -> None:
        """Flag an ingest in progress (cleared when it completes): a run that finds the flag
        set knows the last one died mid-write and scans every chunk (ingest.repair).
        Clearing it commits the ingest: the generation moves on in the same write, so
        replicas see the change only once it is complete."""
        with self._writing():
            # Read afresh: this object's metadata is as it was opened, and writing back a
            # generation another process has since moved on would let a poller miss one.
            meta = dict(self._fresh_papers().metadata or {})
            meta[WRITING_FLAG] = writing
            if not writing:
                meta[GENERATION] = int(meta.get(GENERATION, 0)) + 1
            retried(lambda: self.papers.modify(metadata=meta), self.policy)

    def was_interrupted(self) -> bool:
        return bool((self.papers.metadata or {}).get(WRITING_FLAG))

    def commit_state(self) -> tuple[Generation, bool]:
        """The store's current generation, and whether an ingest is writing (or died
        writing), read afresh: one small request."""
        with self._reading():
            fresh = self._fresh_papers()
        meta = fresh.metadata or {}
        return (str(fresh.id), int(meta.get(GENERATION, 0))), bool(meta.get(WRITING_FLAG))

    def generation(self) -> Generation:
        """The store's current generation, read afresh (for polling)."""
        return self.commit_state()[0]

    def _fresh_papers(self) -> Collection:
        return self.client.get_collection(self.papers.name, embedding_function=None)

    def follow(self, seen: Generation) -> bool:
        """Reopen the collections after another process changed the store (`seen`, a new
        generation): on a server only when they are other ones (`rag ingest --rebuild`);
        on an embedded store always, since its client keeps the vector index it loaded
        and never sees another process's additions. True if it reopened."""
        # The papers collection as opened carries the generation it was opened at: the
        # watcher's first poll of an unchanged store has nothing to follow.
        opened = (str(self.papers.id), int((self.papers.metadata or {}).get(GENERATION, 0)))
        if seen == opened:
            return False
        if self.settings.chroma_host and seen[0] == str(self.papers.id):
            return False
        if not self.settings.chroma_host:
            self.client = reopened_embedded_client(self.settings)
        self._open_collections()
        return True

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

    def paper_records(self, paper_ids: Sequence[str]) -> dict[str, tuple[str, Paper]]:
        """paper id -> (recorded content hash, paper) of the given papers, read by id."""
        out: dict[str, tuple[str, Paper]] = {}
        for start in range(0, len(paper_ids), READ_PAGE):
            part = list(paper_ids[start : start + READ_PAGE])
            with self._reading():
                page = self.papers.get(ids=part, include=["metadatas", "documents"])  # type: ignore[list-item]
            for pid, doc, meta in zip(
                page["ids"], page["documents"] or [], page["metadatas"] or [], strict=True
            ):
                out[pid] = (
                    str(meta.get("hash", "")),
                    paper_from_record(pid, doc or "", dict(meta)),
                )
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
        """Changes whenever the set of complete papers (or their content) changes. It reads
        every paper record: a serving process keys its state by `state_key` instead."""
        digest = hashlib.sha256()
        for pid, (phash, n) in sorted(self.paper_hashes().items()):
            digest.update(f"{pid}:{phash}:{n}\n".encode())
        meta = self.recorded_model()
        digest.update(repr(meta).encode())
        return digest.hexdigest()[:16]

    def state_key(self, generation: Generation) -> str:
        """A short key of one committed store state, with no scan: the generation moves
        with every committed change, and the model is part of the state (caches key on it)."""
        payload = json.dumps([generation[0], generation[1], repr(self.recorded_model())])
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

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

    def add_chunk_nodes(self, nodes: Sequence[BaseNode]) -> None:
        """Write chunks as upserts (llama-index's ChromaVectorStore.add would `add`), so a
        batch sent again after a timeout the server did finish is harmless."""
        with self._writing():
            write_batched(nodes, self._upsert_chunks, self.policy)

    def _upsert_chunks(self, batch: Sequence[BaseNode]) -> None:
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import node_to_metadata_dict

        flat = self.vector_store.flat_metadata
        metadatas: list[Any] = []
        for node in batch:  # the record shape ChromaVectorStore.add writes and reads back
            meta = node_to_metadata_dict(node, remove_text=True, flat_metadata=flat)
            metadatas.append({k: "" if v is None else v for k, v in meta.items()})
        vectors: list[Sequence[float]] = [node.get_embedding() for node in batch]
        self.chunks.upsert(
            ids=[node.node_id for node in batch],
            embeddings=vectors,
            metadatas=metadatas,
            documents=[node.get_content(metadata_mode=MetadataMode.NONE) for node in batch],
        )

    def upsert_papers(self, papers: Sequence[tuple[Paper, int]]) -> None:
        with self._writing():
            write_batched(papers, self._upsert_paper_records, self.policy)

    def _upsert_paper_records(self, batch: Sequence[tuple[Paper, int]]) -> None:
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
            write_batched(list(chunk_ids), lambda b: self.chunks.delete(ids=list(b)), self.policy)

    def delete_chunks_of(self, paper_ids: Sequence[str]) -> None:
        def delete(batch: Sequence[str]) -> None:
            # cast: mypy cannot see "$in" as the Literal key chromadb's Where type wants.
            self.chunks.delete(where=cast(Where, {"paper_id": {"$in": list(batch)}}))

        with self._writing():
            write_batched(list(paper_ids), delete, self.policy)

    def delete_papers(self, paper_ids: Sequence[str]) -> None:
        with self._writing():
            write_batched(list(paper_ids), lambda b: self.papers.delete(ids=list(b)), self.policy)

    def drop(self) -> None:
        """Delete both collections (for `--rebuild`) and recreate them empty."""
        for name in (self.settings.collection, f"{self.settings.collection}_papers"):
            try:
                self.client.delete_collection(name)
            except Exception as exc:  # a missing collection is fine; Chroma raises various types
                log.debug("delete_collection(%s): %s", name, exc)
        self._open_collections()
