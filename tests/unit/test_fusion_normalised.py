"""Score fusion (zscore, minmax) on fixed scores: the margin a retriever's first paper has
counts, weights move the order, one retriever alone keeps its own order (no model, no store)."""

from __future__ import annotations

import math
import statistics

import pytest

from rag.retrieval.fusion import PaperFusionRetriever, PaperRanking, fuse_rankings, normalise
from rag.retrieval.hits import ChunkHit
from rag.settings import FusionMethod
from tests.unit.test_fusion_grouping import FixedRetriever, paper_order

# BM25 names the method: B is far ahead there. Dense puts A a hair above B.
DENSE: PaperRanking = {"A": (0.62, 1), "B": (0.60, 2), "C": (0.40, 3), "D": (0.38, 4)}
BM25: PaperRanking = {"B": (30.0, 1), "A": (3.0, 2), "C": (2.5, 3), "E": (2.0, 4)}


def order(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda p: -scores[p])


def fused(method: FusionMethod, dense_weight: float = 0.4) -> dict[str, float]:
    return fuse_rankings({"dense": DENSE, "bm25": BM25}, method, dense_weight)


def test_zscore_standardises_over_the_candidates() -> None:
    z = normalise({"a": 1.0, "b": 2.0, "c": 6.0}, "zscore")
    assert statistics.fmean(z.values()) == pytest.approx(0.0)
    assert statistics.pstdev(z.values()) == pytest.approx(1.0)
    assert order(z) == ["c", "b", "a"]


def test_minmax_puts_the_best_at_one_and_the_worst_at_zero() -> None:
    assert normalise({"a": 1.0, "b": 2.0, "c": 6.0}, "minmax") == pytest.approx(
        {"a": 0.0, "b": 0.2, "c": 1.0}
    )


@pytest.mark.parametrize(("method", "alone"), [("zscore", 0.0), ("minmax", 1.0)])
def test_one_candidate_or_equal_scores_do_not_divide_by_zero(
    method: FusionMethod, alone: float
) -> None:
    assert normalise({"a": 0.5}, method) == {"a": alone}
    assert normalise({"a": 2.0, "b": 2.0}, method) == {"a": alone, "b": alone}
    assert normalise({}, method) == {}


@pytest.mark.parametrize("method", ["zscore", "minmax"])
def test_a_wide_bm25_margin_wins_where_reciprocal_rank_ties_it(method: FusionMethod) -> None:
    # Reciprocal rank sees only ranks: A (1st, 2nd) and B (2nd, 1st) would tie. Scores
    # see B's margin.
    assert order(fused(method))[0] == "B"


@pytest.mark.parametrize("method", ["zscore", "minmax"])
def test_the_weight_moves_the_order_from_one_retriever_to_the_other(
    method: FusionMethod,
) -> None:
    assert order(fused(method, dense_weight=1.0))[:3] == ["A", "B", "C"]
    assert order(fused(method, dense_weight=0.0))[:3] == ["B", "A", "C"]


def test_a_paper_one_retriever_missed_scores_as_its_worst_candidate() -> None:
    scores = fused("minmax", dense_weight=0.5)
    # D is not in the BM25 list: BM25's floor (0 after minmax), plus its dense part.
    dense_d = (0.38 - 0.38) / (0.62 - 0.38)
    assert scores["D"] == pytest.approx(0.5 * dense_d + 0.5 * 0.0)
    # E is not in the dense list: dense floor 0, BM25 (2.0 - 2.0) / 28 = 0.
    assert scores["E"] == pytest.approx(0.0)
    assert set(scores) == {"A", "B", "C", "D", "E"}


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_one_retriever_alone_keeps_its_order_whatever_the_weight(weight: float) -> None:
    scores = fuse_rankings({"bm25": BM25}, "zscore", dense_weight=weight)
    assert order(scores) == ["B", "A", "C", "E"]
    assert len(set(scores.values())) == 4  # a weight of 0 must not flatten it


def test_retriever_fuses_by_zscore_by_default_and_keeps_raw_scores() -> None:
    # Chroma's dense scores are exp(-distance); fusion compares cosines, hits keep the raw.
    dense = [("a1", "A", math.exp(-0.38)), ("b1", "B", math.exp(-0.40)), ("c1", "C", 0.5)]
    bm25 = [("b1", "B", 30.0), ("a1", "A", 3.0), ("c1", "C", 2.5)]
    retriever = PaperFusionRetriever(
        [FixedRetriever(dense), FixedRetriever(bm25)], ["dense", "bm25"], top_k=100
    )
    hits = retriever.retrieve("any question")
    assert all(isinstance(h, ChunkHit) for h in hits)
    assert paper_order(hits) == ["B", "A", "C"]  # type: ignore[arg-type]
    b1 = next(h for h in hits if isinstance(h, ChunkHit) and h.node.node_id == "b1")
    assert (b1.dense_score, b1.dense_rank, b1.bm25_score, b1.bm25_rank) == (
        pytest.approx(math.exp(-0.40)),
        2,
        30.0,
        1,
    )
    scores = [h.score or 0.0 for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_a_non_finite_score_ranks_like_the_worst_candidate() -> None:
    import math

    from rag.retrieval.fusion import normalise
    from rag.retrieval.hits import cosine_from_chroma

    out = normalise({"a": 0.9, "b": float("nan"), "c": 0.5}, "zscore")
    assert all(math.isfinite(v) for v in out.values())
    assert out["b"] == out["c"] < out["a"]
    assert cosine_from_chroma(float("nan")) == -1.0


def test_side_by_side_retrievers_fuse_exactly_as_one_after_the_other() -> None:
    dense = [("a1", "A", math.exp(-0.38)), ("b1", "B", math.exp(-0.40)), ("c1", "C", 0.5)]
    bm25 = [("b1", "B", 30.0), ("a1", "A", 3.0), ("d1", "D", 2.5)]

    def fused(side_by_side: bool) -> list[tuple[str, float | None]]:
        retriever = PaperFusionRetriever(
            [FixedRetriever(dense), FixedRetriever(bm25)],
            ["dense", "bm25"],
            top_k=100,
            side_by_side=side_by_side,
        )
        return [(h.node.node_id, h.score) for h in retriever.retrieve("any question")]

    assert fused(True) == fused(False)
    assert [node for node, _ in fused(True)][:2] == ["b1", "a1"]
