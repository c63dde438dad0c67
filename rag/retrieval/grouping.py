"""Chunks to papers: one result per paper, its best chunk first, its other chunks attached."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field

from rag.retrieval.hits import ChunkHit, PaperHit
from rag.types import MatchedChunk

CHUNKS_PER_PAPER = 3


def _best(values: Sequence[float | None], pick: Callable[[list[float]], float]) -> float | None:
    present = [v for v in values if v is not None]
    return pick(present) if present else None


class PerPaperGrouper(BaseNodePostprocessor):
    """One `PaperHit` per paper, in input (rank) order, at most `top_k` of them."""

    top_k: int = Field(default=5)

    @classmethod
    def class_name(cls) -> str:
        return "PerPaperGrouper"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        groups: dict[str, list[ChunkHit]] = {}
        for node in nodes:  # input order is rank order
            hit = node if isinstance(node, ChunkHit) else ChunkHit(node=node.node, score=node.score)
            groups.setdefault(hit.paper_id, []).append(hit)
        return [_paper_hit(chunks) for chunks in list(groups.values())[: self.top_k]]


def _paper_hit(chunks: list[ChunkHit]) -> PaperHit:
    head = chunks[0]
    dense_rank = _best([c.dense_rank for c in chunks], min)  # a paper's rank: same on
    bm25_rank = _best([c.bm25_rank for c in chunks], min)  # each chunk of one retriever
    return PaperHit(
        node=head.node,
        score=head.score,
        dense_score=_best([c.dense_score for c in chunks], max),
        bm25_score=_best([c.bm25_score for c in chunks], max),
        dense_rank=int(dense_rank) if dense_rank is not None else None,
        bm25_rank=int(bm25_rank) if bm25_rank is not None else None,
        chunks=[
            MatchedChunk(
                chunk_id=c.node.node_id, text=c.node.get_content(), score=float(c.score or 0.0)
            )
            for c in chunks[:CHUNKS_PER_PAPER]
        ],
    )
