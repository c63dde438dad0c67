"""dense + bm25 ▶ fuse ▶ per paper, assembled from llama-index's own retrievers.

- dense: `VectorIndexRetriever` over `VectorStoreIndex.from_vector_store(ChromaVectorStore)`
- bm25: llama-index's `BM25Retriever`, its index built once per store state and persisted
- hybrid: `PaperFusionRetriever`, a `QueryFusionRetriever` whose reciprocal-rank fusion
  ranks *papers* (a paper with three matching chunks must not crowd out two others) and
  keeps each retriever's raw score, which abstention needs.
- `PerPaperGrouper`, a node postprocessor, turns chunks into one source per paper.
"""

from __future__ import annotations

import logging
import math
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import httpx
import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from chromadb.errors import ChromaError
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.retrievers import QueryFusionRetriever, VectorIndexRetriever
from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)
from llama_index.retrievers.bm25 import BM25Retriever
from pydantic import Field

from rag.settings import RetrievalMode, Settings
from rag.store import PaperStore, StoreError, bm25_index_path
from rag.text import STOPWORDS
from rag.types import Filters, MatchedChunk, Paper, RetrievedPaper

log = logging.getLogger(__name__)
CHUNKS_PER_PAPER = 3
# bm25s' English list has 33 words ("which", "what", "explain" are not among them); question
# phrasing then outweighs the topic words. Queries drop our fuller list as well.
QUERY_STOPWORDS = sorted(STOPWORDS | set(STOPWORDS_EN))


def cosine_from_chroma(similarity: float | None) -> float:
    """ChromaVectorStore reports exp(-distance); with cosine space distance = 1 - cos."""
    if not similarity or similarity <= 0:
        return -1.0
    return 1.0 + math.log(similarity)


class StopwordBM25Retriever(BM25Retriever):
    """BM25Retriever that drops stopwords from the query as it did from the corpus.

    The stock retriever tokenizes queries without stopword removal, so "what", "the" and
    "of" add noise scores to every chunk containing them.
    """

    def _tokens(self, query: str, stopwords: list[str] | str) -> Any:
        return bm25s.tokenize(
            query,
            stopwords=stopwords,
            stemmer=self.stemmer if not self.skip_stemming else None,
            token_pattern=self.token_pattern,
            show_progress=False,
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        tokens = self._tokens(query_bundle.query_str, QUERY_STOPWORDS)
        if not tokens.ids or not tokens.ids[0]:
            # Nothing but question words ("a method"): fall back to the corpus's own list.
            tokens = self._tokens(query_bundle.query_str, "en")
        if not tokens.ids or not tokens.ids[0]:
            return []
        k = min(self.similarity_top_k, len(self.corpus))
        mask = np.array(self.corpus_weight_mask) if self.corpus_weight_mask else None
        indexes, scores = self.bm25.retrieve(tokens, k=k, show_progress=False, weight_mask=mask)
        out = []
        for idx, score in zip(indexes[0], scores[0], strict=True):
            if score <= 0:
                continue
            entry = idx if isinstance(idx, dict) else self.corpus[int(idx)]
            from llama_index.core.vector_stores.utils import metadata_dict_to_node

            out.append(NodeWithScore(node=metadata_dict_to_node(entry), score=float(score)))
        return out


class BM25Index:
    """The bm25s index over all chunks, built once per store fingerprint and kept on disk."""

    def __init__(self, store: PaperStore, settings: Settings, fingerprint: str) -> None:
        path = bm25_index_path(settings, fingerprint)
        root = path.parent
        retriever: BM25Retriever | None = None
        if path.exists():
            try:
                retriever = StopwordBM25Retriever.from_persist_dir(str(path), show_progress=False)
            except Exception as exc:  # a corrupt cache is rebuilt, never trusted
                log.warning("BM25 cache %s unreadable (%s); rebuilding", path, exc)
                retriever = None
        if retriever is None:
            nodes = store.load_chunk_nodes()
            if not nodes:
                self.retriever = None
                self.paper_ids: list[str] = []
                return
            retriever = StopwordBM25Retriever(nodes=list[BaseNode](nodes), similarity_top_k=50)
            _persist(retriever, root, path)
        self.retriever = retriever
        self.paper_ids = [str(entry.get("paper_id", "")) for entry in retriever.corpus]

    def make_retriever(self, top_k: int, allowed: set[str] | None) -> BaseRetriever | None:
        if self.retriever is None:
            return None
        mask = None
        if allowed is not None:
            mask = [int(pid in allowed) for pid in self.paper_ids]
            if not any(mask):
                return None
        retriever = StopwordBM25Retriever(
            existing_bm25=self.retriever.bm25,
            similarity_top_k=min(top_k, len(self.paper_ids)),
            corpus_weight_mask=mask,
        )
        retriever.corpus = self.retriever.corpus  # bm25s keeps no corpus when built from nodes
        return retriever


def _persist(retriever: BM25Retriever, root: Path, path: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        retriever.persist(str(tmp), show_progress=False)
        for old in root.iterdir():  # one cache per collection: drop stale fingerprints
            if old.name.startswith(path.name.rsplit("-", 1)[0] + "-") and old != tmp:
                shutil.rmtree(old, ignore_errors=True)
        tmp.rename(path)
    except OSError as exc:  # read-only data dir: serve from memory, say so once
        log.warning("cannot persist the BM25 index to %s: %s", path, exc)


class PaperFusionRetriever(QueryFusionRetriever):
    """Reciprocal-rank fusion over per-retriever paper rankings, raw scores kept."""

    def __init__(
        self, retrievers: list[BaseRetriever], names: list[str], top_k: int, rrf_k: float
    ) -> None:
        # num_queries=1: no LLM query generation; MockLLM keeps the global Settings.llm unused.
        super().__init__(
            retrievers,
            llm=MockLLM(),
            mode=FUSION_MODES.RECIPROCAL_RANK,
            similarity_top_k=top_k,
            num_queries=1,
            use_async=False,
        )
        self._names = names
        self._rrf_k = rrf_k

    def _reciprocal_rerank_fusion(
        self, results: dict[tuple[str, int], list[NodeWithScore]]
    ) -> list[NodeWithScore]:
        fused: dict[str, float] = {}
        by_chunk: dict[str, NodeWithScore] = {}
        for (_, idx), nodes in results.items():
            name = self._names[idx]
            paper_rank: dict[str, int] = {}
            for node in sorted(nodes, key=lambda n: n.score or 0.0, reverse=True):
                pid = str(node.node.metadata.get("paper_id", ""))
                if pid not in paper_rank:
                    paper_rank[pid] = len(paper_rank) + 1
                    fused[pid] = fused.get(pid, 0.0) + 1.0 / (self._rrf_k + paper_rank[pid])
                kept = by_chunk.setdefault(node.node.node_id, node)
                kept.node.metadata[f"_{name}_score"] = node.score
                kept.node.metadata[f"_{name}_rank"] = paper_rank[pid]
        out = list(by_chunk.values())
        for node in out:
            node.score = fused[str(node.node.metadata.get("paper_id", ""))]
        # Chunks of the same paper share its fused score; keep each paper's best chunk first.
        out.sort(key=lambda n: (n.score or 0.0, _best_raw(n)), reverse=True)
        return out

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = self._run_sync_queries([query_bundle])
        return self._reciprocal_rerank_fusion(results)


def _best_raw(node: NodeWithScore) -> float:
    dense = node.node.metadata.get("_dense_score")
    return float(dense) if dense is not None else 0.0


class PerPaperGrouper(BaseNodePostprocessor):
    """One node per paper (its best chunk), the paper's other matching chunks attached."""

    top_k: int = Field(default=5)

    @classmethod
    def class_name(cls) -> str:
        return "PerPaperGrouper"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        groups: dict[str, list[NodeWithScore]] = {}
        for node in nodes:  # input order is rank order
            groups.setdefault(str(node.node.metadata.get("paper_id", "")), []).append(node)
        out = []
        for chunks in list(groups.values())[: self.top_k]:
            head = chunks[0]
            head.node.metadata["_chunks"] = [
                (c.node.node_id, c.node.get_content(), float(c.score or 0.0))
                for c in chunks[:CHUNKS_PER_PAPER]
            ]
            for key in ("_dense_score", "_bm25_score", "_dense_rank", "_bm25_rank"):
                values = [
                    c.node.metadata[key] for c in chunks if c.node.metadata.get(key) is not None
                ]
                if values:
                    best = min if key.endswith("rank") else max
                    head.node.metadata[key] = best(values)
            out.append(head)
        return out


class PaperRetriever:
    """Builds per-call llama-index retrievers (cheap) over long-lived indexes (expensive)."""

    def __init__(
        self,
        settings: Settings,
        store: PaperStore,
        embed_model: BaseEmbedding,
        catalogue: dict[str, Paper],
        bm25: BM25Index,
    ) -> None:
        self.settings = settings
        self.store = store
        self.catalogue = catalogue
        self.bm25 = bm25
        self.index = VectorStoreIndex.from_vector_store(store.vector_store, embed_model=embed_model)

    def allowed_ids(self, filters: Filters | None) -> set[str] | None:
        if filters is None or filters.is_empty():
            return None
        return {pid for pid, paper in self.catalogue.items() if filters.accepts(paper)}

    def _dense(self, k: int, filters: Filters | None, allowed: set[str] | None) -> BaseRetriever:
        conditions: list[MetadataFilter | MetadataFilters] = []
        if filters is not None and filters.status and allowed is not None:
            # Filters match statuses case-insensitively, Chroma compares exactly: ask for the
            # statuses as the catalogue spells them ("oral" -> "Oral").
            statuses = sorted({self.catalogue[pid].status for pid in allowed})
            conditions.append(
                MetadataFilter(key="status", value=statuses, operator=FilterOperator.IN)
            )
        if (
            allowed is not None
            and filters is not None
            and (filters.author or filters.title or filters.paper_ids)
        ):
            conditions.append(
                MetadataFilter(key="paper_id", value=sorted(allowed), operator=FilterOperator.IN)
            )
        meta = (
            MetadataFilters(filters=conditions, condition=FilterCondition.AND)
            if conditions
            else None
        )
        return VectorIndexRetriever(self.index, similarity_top_k=k, filters=meta)

    def build(self, mode: RetrievalMode, filters: Filters | None) -> BaseRetriever | None:
        allowed = self.allowed_ids(filters)
        if allowed is not None and not allowed:
            return None
        k = self.settings.candidate_chunks
        parts: list[tuple[str, BaseRetriever]] = []
        if mode in ("dense", "hybrid"):
            parts.append(("dense", self._dense(k, filters, allowed)))
        if mode in ("bm25", "hybrid"):
            bm25 = self.bm25.make_retriever(k, allowed)
            if bm25 is not None:
                parts.append(("bm25", bm25))
        if not parts:
            return None
        return PaperFusionRetriever(
            [r for _, r in parts], [n for n, _ in parts], top_k=10 * k, rrf_k=self.settings.rrf_k
        )

    def retrieve(
        self, query: str, top_k: int, mode: RetrievalMode, filters: Filters | None = None
    ) -> list[RetrievedPaper]:
        retriever = self.build(mode, filters)
        if retriever is None or not query.strip():
            return []
        try:
            nodes = retriever.retrieve(query)
        except (OSError, httpx.HTTPError, ChromaError) as exc:
            # A Chroma server that went away mid-question: a store outage (HTTP 503 / a chat
            # message), not a crash; the next call reconnects on its own. The message goes
            # to API clients and chat readers, so the server's address stays in the log.
            log.warning("store %s unreachable: %r", self.settings.store_location(), exc)
            raise StoreError(
                f"the paper store is unreachable right now ({outage_reason(exc)}); "
                "please try again in a moment"
            ) from exc
        grouped = PerPaperGrouper(top_k=top_k).postprocess_nodes(nodes)
        return [p for p in (self._to_paper(n) for n in grouped) if p is not None]

    def _to_paper(self, node: NodeWithScore) -> RetrievedPaper | None:
        meta: dict[str, Any] = node.node.metadata
        paper = self.catalogue.get(str(meta.get("paper_id", "")))
        if paper is None:  # chunk of a paper whose record is not written yet
            return None
        dense = meta.get("_dense_score")
        return RetrievedPaper(
            paper=paper,
            score=float(node.score or 0.0),
            dense_score=cosine_from_chroma(dense) if dense is not None else None,
            bm25_score=meta.get("_bm25_score"),
            dense_rank=meta.get("_dense_rank"),
            bm25_rank=meta.get("_bm25_rank"),
            chunks=[
                MatchedChunk(chunk_id=c, text=t, score=s) for c, t, s in meta.get("_chunks", [])
            ],
        )


def outage_reason(exc: BaseException) -> str:
    """What went wrong reaching the store, without addresses or paths."""
    if isinstance(exc, httpx.TimeoutException):
        return "it did not answer in time"
    if isinstance(exc, httpx.ConnectError | ConnectionError):
        return "connection refused or lost"
    if isinstance(exc, httpx.HTTPError):
        return "the connection failed"
    return type(exc).__name__


def paper_ids(papers: Sequence[RetrievedPaper]) -> list[str]:
    return [p.paper.id for p in papers]
