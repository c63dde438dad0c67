"""Hybrid retrieval: fusion of the retrievers' *paper* rankings.

A llama-index retriever whose fusion ranks papers, not chunks (a paper with three
matching chunks must not crowd out two others), and keeps each retriever's raw score and
paper rank on every chunk (`ChunkHit`): abstention and tie-breaking need them.

Each paper's signal from one retriever is its best chunk's score there. The default
fusion (`zscore`) standardises each retriever's paper scores over this query's candidates
and adds them with fitted weights; `minmax` rescales them to [0, 1] instead. Both keep how
*far* the first paper is ahead, which reciprocal rank throws away: a BM25 hit that names
the method outscores the rest by a wide margin, and RRF let a dense second place tie it
(measured on dev: docs/decisions.md).
"""

from __future__ import annotations

import contextvars
import math
import statistics
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from rag.retrieval.hits import ChunkHit, RetrieverName, cosine_from_chroma
from rag.settings import FusionMethod

# paper id -> (its best chunk's score in one retriever, the paper's 1-based rank there)
PaperRanking = dict[str, tuple[float, int]]


def normalise(scores: Mapping[str, float], method: FusionMethod) -> dict[str, float]:
    """One retriever's paper scores on a common scale, over this query's candidates only."""
    # A non-finite score (a NaN distance from the store) ranks like the worst candidate.
    finite = [s for s in scores.values() if math.isfinite(s)]
    if not finite:
        return dict.fromkeys(scores, 0.0)
    floor = min(finite)
    scores = {p: s if math.isfinite(s) else floor for p, s in scores.items()}
    values = list(scores.values())
    if method == "minmax":
        low, high = min(values), max(values)
        return {p: (s - low) / (high - low) if high > low else 1.0 for p, s in scores.items()}
    mean = statistics.fmean(values)
    spread = statistics.pstdev(values) or 1.0  # one candidate, or all equal: all at 0
    return {p: (s - mean) / spread for p, s in scores.items()}


def fuse_rankings(
    rankings: Mapping[RetrieverName, PaperRanking],
    method: FusionMethod,
    dense_weight: float,
) -> dict[str, float]:
    """Each candidate paper's fused score (larger is better) from per-retriever rankings."""
    papers = {pid for ranking in rankings.values() for pid in ranking}
    fused = dict.fromkeys(papers, 0.0)
    weights: dict[RetrieverName, float] = {"dense": dense_weight, "bm25": 1.0 - dense_weight}
    for name, ranking in rankings.items():
        scale = normalise({pid: score for pid, (score, _) in ranking.items()}, method)
        # A paper this retriever did not return scores as its worst candidate: an upper
        # bound on what it would have scored, which is all the list tells us.
        floor = min(scale.values(), default=0.0)
        # One retriever alone (dense or bm25 mode) keeps its own order whatever the weight.
        weight = weights[name] if len(rankings) > 1 else 1.0
        for pid in papers:
            fused[pid] += weight * scale.get(pid, floor)
    return fused


# Shared by every fusion retriever of the process: a pool per question would cost a thread
# start each time. Each question uses one thread per retriever (two).
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="retrieve")


class PaperFusionRetriever(BaseRetriever):
    """Fusion of per-retriever paper rankings (normalised scores or reciprocal rank), raw
    scores and ranks kept on every chunk. A plain llama-index retriever (its public
    `_retrieve`), so an upgrade of the library's own fusion retriever cannot change it."""

    def __init__(
        self,
        retrievers: list[BaseRetriever],
        names: list[RetrieverName],
        top_k: int,
        fusion: FusionMethod = "zscore",
        dense_weight: float = 0.4,
        side_by_side: bool = False,
    ) -> None:
        super().__init__()
        # The inner retrievers report to this one's callback manager, whose trace starts
        # afresh at each question; their own (never a trace's root) would keep an entry
        # per question for as long as a retriever lives, and the unfiltered ones are reused.
        for retriever in retrievers:
            retriever.callback_manager = self.callback_manager
        self._retrievers = retrievers
        self._names = names
        self._top_k = top_k  # the papers asked for; the grouping after fusion applies it
        self._fusion: FusionMethod = fusion
        self._dense_weight = dense_weight
        self._side_by_side = side_by_side

    def fuse(self, results: list[list[NodeWithScore]]) -> list[NodeWithScore]:
        """Each retriever's chunks (in `names` order) to one list, best paper first."""
        rankings: dict[RetrieverName, PaperRanking] = {}
        by_chunk: dict[str, ChunkHit] = {}
        for idx, nodes in enumerate(results):
            name = self._names[idx]
            ranking = rankings.setdefault(name, {})
            for node in sorted(nodes, key=lambda n: n.score or 0.0, reverse=True):
                pid = str(node.node.metadata.get("paper_id", ""))
                if pid not in ranking:
                    ranking[pid] = (_comparable(name, node.score), len(ranking) + 1)
                hit = by_chunk.setdefault(node.node.node_id, ChunkHit(node=node.node))
                hit.note(name, node.score, ranking[pid][1])
        fused = fuse_rankings(rankings, self._fusion, self._dense_weight)
        hits = list(by_chunk.values())
        for hit in hits:
            hit.score = fused[hit.paper_id]
        # Chunks of the same paper share its fused score; keep each paper's best chunk first.
        hits.sort(key=lambda h: (h.score or 0.0, h.dense_score or 0.0), reverse=True)
        return list[NodeWithScore](hits)  # every candidate: grouping per paper cuts to top-k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if not self._side_by_side or len(self._retrievers) < 2:  # one: no thread hop
            return self.fuse([r.retrieve(query_bundle) for r in self._retrievers])
        # Side by side, not one after the other: the dense retriever waits on the query
        # embedding and Chroma, BM25 on numpy, mostly outside the GIL, so on a large store
        # hybrid costs about the slower of the two, not their sum.
        futures = [
            _POOL.submit(contextvars.copy_context().run, retriever.retrieve, query_bundle)
            for retriever in self._retrievers
        ]
        return self.fuse([future.result() for future in futures])


def _comparable(name: RetrieverName, score: float | None) -> float:
    """The score fusion normalises: the dense cosine (Chroma's exp(-distance) squeezes the
    spread fusion weighs), BM25 as it is."""
    if name == "dense":
        return cosine_from_chroma(score)
    return float(score or 0.0)
