"""Hybrid retrieval: reciprocal-rank fusion of the retrievers' *paper* rankings.

A `QueryFusionRetriever` whose fusion ranks papers, not chunks (a paper with three
matching chunks must not crowd out two others), and keeps each retriever's raw score and
paper rank on every chunk (`ChunkHit`): abstention and tie-breaking need them.
"""

from __future__ import annotations

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.llms import MockLLM
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
from llama_index.core.schema import NodeWithScore, QueryBundle

from rag.retrieval.hits import ChunkHit, RetrieverName


class PaperFusionRetriever(QueryFusionRetriever):
    """Reciprocal-rank fusion over per-retriever paper rankings, raw scores kept."""

    def __init__(
        self,
        retrievers: list[BaseRetriever],
        names: list[RetrieverName],
        top_k: int,
        rrf_k: float,
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
        by_chunk: dict[str, ChunkHit] = {}
        for (_, idx), nodes in results.items():
            paper_rank: dict[str, int] = {}
            for node in sorted(nodes, key=lambda n: n.score or 0.0, reverse=True):
                pid = str(node.node.metadata.get("paper_id", ""))
                if pid not in paper_rank:
                    paper_rank[pid] = len(paper_rank) + 1
                    fused[pid] = fused.get(pid, 0.0) + 1.0 / (self._rrf_k + paper_rank[pid])
                hit = by_chunk.setdefault(node.node.node_id, ChunkHit(node=node.node))
                hit.note(self._names[idx], node.score, paper_rank[pid])
        hits = list(by_chunk.values())
        for hit in hits:
            hit.score = fused[hit.paper_id]
        # Chunks of the same paper share its fused score; keep each paper's best chunk first.
        hits.sort(key=lambda h: (h.score or 0.0, h.dense_score or 0.0), reverse=True)
        return list[NodeWithScore](hits)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = self._run_sync_queries([query_bundle])
        return self._reciprocal_rerank_fusion(results)
