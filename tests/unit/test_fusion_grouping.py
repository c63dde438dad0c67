"""Reciprocal-rank hybrid fusion and per-paper grouping on fixed retriever outputs (no model, no store)."""

from __future__ import annotations

import pytest
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from rag.retrieval.fusion import PaperFusionRetriever, fuse_rankings
from rag.retrieval.grouping import CHUNKS_PER_PAPER, PerPaperGrouper
from rag.retrieval.hits import ChunkHit, PaperHit, cosine_from_chroma


class FixedRetriever(BaseRetriever):
    """Returns the same (chunk id, paper id, score) hits for any query."""

    def __init__(self, hits: list[tuple[str, str, float]]) -> None:
        super().__init__()
        self.hits = hits

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [
            NodeWithScore(
                node=TextNode(id_=cid, text=f"text of {cid}", metadata={"paper_id": pid}), score=s
            )
            for cid, pid, s in self.hits
        ]


def fuse(
    dense: list[tuple[str, str, float]],
    bm25: list[tuple[str, str, float]],
    dense_weight: float = 0.4,
) -> list[ChunkHit]:
    retriever = PaperFusionRetriever(
        [FixedRetriever(dense), FixedRetriever(bm25)],
        ["dense", "bm25"],
        top_k=100,
        fusion="zscore",
        dense_weight=dense_weight,
    )
    hits = retriever.retrieve("any question")
    assert all(isinstance(h, ChunkHit) for h in hits)
    return hits  # type: ignore[return-value]


def paper_order(hits: list[ChunkHit]) -> list[str]:
    return list(dict.fromkeys(h.paper_id for h in hits))


def test_fusion_ranks_papers_not_chunks() -> None:
    # Paper A has three strong dense chunks; they count once, so B is the dense list's
    # second paper (not its fourth) and wins with BM25's first place.
    dense = [("a1", "A", 0.9), ("a2", "A", 0.85), ("a3", "A", 0.8), ("b1", "B", 0.7)]
    bm25 = [("b1", "B", 12.0), ("c1", "C", 5.0)]
    hits = fuse(dense, bm25)
    assert paper_order(hits) == ["B", "A", "C"]
    score = {h.paper_id: h.score for h in hits}
    # Each paper's best chunk per retriever, as ranked papers: what the fusion sees.
    expected = fuse_rankings(
        {
            "dense": {"A": (cosine_from_chroma(0.9), 1), "B": (cosine_from_chroma(0.7), 2)},
            "bm25": {"B": (12.0, 1), "C": (5.0, 2)},
        },
        "zscore",
        0.4,
    )
    assert score == pytest.approx(expected)


def test_each_retrievers_raw_score_and_paper_rank_travel_on_the_hit() -> None:
    hits = fuse([("a1", "A", 0.9), ("b1", "B", 0.7)], [("b1", "B", 12.0)])
    b1 = next(h for h in hits if h.node.node_id == "b1")
    assert (b1.dense_score, b1.dense_rank, b1.bm25_score, b1.bm25_rank) == (0.7, 2, 12.0, 1)
    a1 = next(h for h in hits if h.node.node_id == "a1")
    assert (a1.bm25_score, a1.bm25_rank) == (None, None)
    assert "_dense_score" not in a1.node.metadata  # typed fields, not metadata keys


def test_equal_fused_scores_are_ordered_by_dense_similarity() -> None:
    # A is first in dense, B first in BM25: the same fused score; A's dense score is higher.
    hits = fuse(
        [("a1", "A", 0.9), ("b1", "B", 0.3)], [("b1", "B", 9.0), ("a1", "A", 1.0)], dense_weight=0.5
    )
    assert hits[0].score == pytest.approx(hits[-1].score)
    assert paper_order(hits) == ["A", "B"]


def test_grouping_keeps_one_hit_per_paper_with_its_best_signals() -> None:
    dense = [(f"a{i}", "A", 0.9 - i / 100) for i in range(5)] + [("b1", "B", 0.5)]
    hits = fuse(dense, [("a4", "A", 7.0), ("c1", "C", 3.0)])
    grouped = PerPaperGrouper(top_k=2).postprocess_nodes(hits)
    # B (dense #2) and C (BM25 #2) tie on fused score; B's dense similarity breaks the tie.
    assert [g.node.metadata["paper_id"] for g in grouped] == ["A", "B"]
    top = grouped[0]
    assert isinstance(top, PaperHit)
    assert top.node.node_id == "a0"  # the paper's best chunk leads
    assert len(top.chunks) == CHUNKS_PER_PAPER
    assert top.dense_score == pytest.approx(0.9) and top.bm25_score == 7.0
    assert (top.dense_rank, top.bm25_rank) == (1, 1)


def test_grouping_accepts_plain_llama_index_nodes() -> None:
    nodes = [
        NodeWithScore(node=TextNode(id_="x1", text="x", metadata={"paper_id": "X"}), score=0.4),
        NodeWithScore(node=TextNode(id_="x2", text="y", metadata={"paper_id": "X"}), score=0.3),
    ]
    (only,) = PerPaperGrouper(top_k=5).postprocess_nodes(nodes)
    assert isinstance(only, PaperHit)
    assert [c.chunk_id for c in only.chunks] == ["x1", "x2"]
    assert only.dense_score is None and only.dense_rank is None


def test_papers_writing_a_rare_name_of_the_question_come_first() -> None:
    from rag.retrieval.retriever import named_first
    from rag.types import Paper, RetrievedPaper

    def hit(pid: str, abstract: str) -> RetrievedPaper:
        return RetrievedPaper(paper=Paper(id=pid, title=pid, abstract=abstract), score=1.0)

    papers = [
        hit("a", "Real-world datasets."),
        hit("b", "A scalable estimator."),
        hit("cox", "We call it CoxSig."),
    ]
    assert [p.paper.id for p in named_first(papers, ["CoxSig"])] == ["cox", "a", "b"]
    assert [p.paper.id for p in named_first(papers, ["ALE"])] == ["a", "b", "cox"]  # a word
