"""The typed hand-off between the retrieval steps: a chunk hit, then a paper hit.

Both are llama-index `NodeWithScore`s (so llama-index retrievers and postprocessors pass
them along unchanged) whose `score` is the fused score; what each retriever said about
them travels in typed fields, not in node metadata.
"""

from __future__ import annotations

import math
from typing import Literal

from llama_index.core.schema import NodeWithScore
from pydantic import Field

from rag.types import MatchedChunk

RetrieverName = Literal["dense", "bm25"]


def cosine_from_chroma(similarity: float | None) -> float:
    """ChromaVectorStore reports exp(-distance); with cosine space distance = 1 - cos."""
    if not similarity or not math.isfinite(similarity) or similarity <= 0:
        return -1.0
    return 1.0 + math.log(similarity)


class ChunkHit(NodeWithScore):
    """One chunk, with each retriever's raw score for it and its paper's rank there."""

    dense_score: float | None = Field(
        default=None, description="Chroma's similarity, exp(-distance)."
    )
    bm25_score: float | None = None
    dense_rank: int | None = Field(
        default=None, description="Paper rank in the dense list (1-based)."
    )
    bm25_rank: int | None = None

    @property
    def paper_id(self) -> str:
        return str(self.node.metadata.get("paper_id", ""))

    def note(self, retriever: RetrieverName, score: float | None, paper_rank: int) -> None:
        if retriever == "dense":
            self.dense_score, self.dense_rank = score, paper_rank
        else:
            self.bm25_score, self.bm25_rank = score, paper_rank


class PaperHit(ChunkHit):
    """A paper: its best chunk (the node), the best of each signal over its chunks, and its
    other matching chunks."""

    chunks: list[MatchedChunk] = Field(default_factory=list)
