"""dense + bm25 ▶ fuse ▶ per paper, assembled from llama-index's own parts.

- dense: `VectorIndexRetriever` over `VectorStoreIndex.from_vector_store(DenseView)`, a
  ChromaVectorStore that reads its hits' text from the lexical index (rag.retrieval.dense)
- bm25: `LexicalRetriever` over the store's lexical index (rag.retrieval.bm25)
- hybrid: `PaperFusionRetriever` (rag.retrieval.fusion: normalised-score or reciprocal-rank
  fusion of paper rankings), also used for one retriever, so every mode yields the same
  typed hits
- `PerPaperGrouper` (rag.retrieval.grouping) turns chunks into one source per paper.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from chromadb.errors import ChromaError
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import VectorIndexRetriever
from llama_index.core.schema import BaseNode, NodeWithScore, TransformComponent
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from rag.catalogue.catalogue import Catalogue
from rag.embedding.base import UntracedCallbacks
from rag.errors import translate
from rag.retrieval.bm25 import BM25Index
from rag.retrieval.dense import DenseView
from rag.retrieval.fusion import PaperFusionRetriever
from rag.retrieval.grouping import PerPaperGrouper
from rag.retrieval.hits import PaperHit, RetrieverName, cosine_from_chroma
from rag.settings import RetrievalMode, RetrievalSettings
from rag.store.chroma import PaperStore
from rag.text import rare_names, writes_name
from rag.types import Filters, RetrievedPaper

log = logging.getLogger(__name__)


# From this many papers (~100k chunks) the dense and BM25 retrievers run side by side; on
# a smaller store BM25 is quick and the threads cost more than they save.
SIDE_BY_SIDE_FROM_PAPERS = 50_000


# A name of the question that this few papers write ("CoxSig") says which papers it asks
# about: they rank first, from among the first NAMED_WINDOW candidates. BM25 alone puts a
# long abstract that coins it below short chunks sharing the question's generic words.
NAMED_PAPERS = 2
NAMED_WINDOW = 30


def named_first(papers: list[RetrievedPaper], names: list[str]) -> list[RetrievedPaper]:
    """`papers` with those writing one of `names` (as a word) first, order kept otherwise."""

    def writes(p: RetrievedPaper) -> bool:
        text = f"{p.paper.title} {p.paper.abstract}"
        return any(writes_name(name, text) for name in names)

    return sorted(papers, key=lambda p: not writes(p))


class ReadOnly(TransformComponent):
    """The transformation of an index that is only read (PaperStore writes the chunks).
    Given so the index does not take llama-index's global default, a SentenceSplitter that
    loads tiktoken's vocabulary at every start, for nothing."""

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        return nodes


class PaperRetriever:
    """Builds per-call llama-index retrievers (cheap) over long-lived indexes (expensive)."""

    def __init__(
        self,
        settings: RetrievalSettings,
        store: PaperStore,
        embed_model: BaseEmbedding,
        catalogue: Catalogue,
        bm25: BM25Index,
        doc_freq: Callable[[str], int] | None = None,
    ) -> None:
        """`doc_freq`: papers using a word (the evidence's TermStats.doc_freq), for the
        question's rare names; without it no name is put first."""
        self.settings = settings
        self.store = store
        self.catalogue = catalogue
        self.bm25 = bm25
        self._doc_freq = doc_freq
        # Hits' text and metadata from the store's lexical index, when there is one.
        rows = bm25.index.chunk_rows if isinstance(bm25, BM25Index) else None
        # The index hands its callback manager to the embedding model (llama-index's
        # resolve_embed_model): one that keeps no trace map, as the model lives on.
        self.index = VectorStoreIndex.from_vector_store(
            DenseView(store.chunks, rows),
            embed_model=embed_model,
            transformations=[ReadOnly()],
            callback_manager=UntracedCallbacks([]),
        )
        # The unfiltered retriever of each mode, built once: they keep no state between
        # calls, and building one (llama-index's fusion retriever resolves its LLM, with an
        # import, each time) would cost every question.
        self._unfiltered: dict[RetrievalMode, BaseRetriever | None] = {}

    def allowed_ids(self, filters: Filters | None) -> set[str] | None:
        if filters is None or filters.is_empty():
            return None
        return self.catalogue.matching(filters)

    def _dense(self, k: int, filters: Filters | None, allowed: set[str] | None) -> BaseRetriever:
        conditions: list[MetadataFilter | MetadataFilters] = []
        if filters is not None and filters.status and allowed is not None:
            # Filters match statuses case-insensitively, Chroma compares exactly: ask for the
            # statuses as the catalogue spells them ("oral" -> "Oral").
            statuses = self.catalogue.spelled_statuses(filters.status)
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
        """The fused retriever for one call, or None when no paper can match."""
        if filters is None or filters.is_empty():  # the catalogue is fixed for this retriever
            if mode not in self._unfiltered:
                self._unfiltered[mode] = self._build(mode, None)
            return self._unfiltered[mode]
        return self._build(mode, filters)

    def _build(self, mode: RetrievalMode, filters: Filters | None) -> BaseRetriever | None:
        allowed = self.allowed_ids(filters)
        if allowed is not None and not allowed:
            return None
        k = self.settings.candidate_chunks
        parts: list[tuple[RetrieverName, BaseRetriever]] = []
        if mode in ("dense", "hybrid"):
            parts.append(("dense", self._dense(k, filters, allowed)))
        if mode in ("bm25", "hybrid"):
            bm25 = self.bm25.make_retriever(k, allowed)
            if bm25 is not None:
                parts.append(("bm25", bm25))
        if not parts:
            return None
        return PaperFusionRetriever(
            [r for _, r in parts],
            [n for n, _ in parts],
            top_k=10 * k,
            fusion=self.settings.fusion,
            dense_weight=self.settings.fusion_dense_weight,
            side_by_side=len(self.catalogue) >= SIDE_BY_SIDE_FROM_PAPERS,
        )

    def retrieve(
        self, query: str, top_k: int, mode: RetrievalMode, filters: Filters | None = None
    ) -> list[RetrievedPaper]:
        """The `top_k` best papers for `query`, each with its matching chunks and scores."""
        retriever = self.build(mode, filters)
        if retriever is None or not query.strip():
            return []
        try:
            nodes = retriever.retrieve(query)
        except (OSError, httpx.HTTPError, ChromaError) as exc:
            # A Chroma server that went away mid-question: a store outage (HTTP 503 / a chat
            # message), not a crash; the next call reconnects on its own. The message goes
            # to API clients and chat readers, so the server's address stays in the log.
            log.warning("store %s unreachable: %r", self.store.location, exc)
            raise translate(exc, "query") from exc
        names = self._rare_names(query) if mode == "hybrid" else []
        # A paper that writes a rare name of the question may sit past the cut: group wider.
        grouped = PerPaperGrouper(top_k=NAMED_WINDOW if names else top_k).postprocess_nodes(nodes)
        papers = [p for p in (self._to_paper(n) for n in grouped) if p is not None]
        if names:
            papers = named_first(papers, names)
        return papers[:top_k]

    def _rare_names(self, query: str) -> list[str]:
        """The question's names ("CoxSig") that at most NAMED_PAPERS papers write."""
        if self._doc_freq is None:
            return []
        return rare_names(query, self._doc_freq, NAMED_PAPERS)

    def _to_paper(self, node: NodeWithScore) -> RetrievedPaper | None:
        assert isinstance(node, PaperHit)
        paper = self.catalogue.papers.get(node.paper_id)
        if paper is None:  # chunk of a paper whose record is not written yet
            return None
        return RetrievedPaper(
            paper=paper,
            score=float(node.score or 0.0),
            dense_score=(
                cosine_from_chroma(node.dense_score) if node.dense_score is not None else None
            ),
            bm25_score=node.bm25_score,
            dense_rank=node.dense_rank,
            bm25_rank=node.bm25_rank,
            chunks=node.chunks,
        )
