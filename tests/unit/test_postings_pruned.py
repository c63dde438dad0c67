"""MaxScore (rag.lexical.postings.best_chunks) finds exactly the top k that scoring every
chunk finds (bm25_scores), over several segments, with deletions, repeated query terms and
filters narrow and wide; ChunkOwners turns paper filters into chunk ids incrementally."""

from __future__ import annotations

import itertools
import sqlite3

import numpy as np
import pytest

from rag.lexical import postings
from rag.lexical.hits import ChunkOwners

VOCAB = 60
CHUNKS = 3_000


def _segments(rng: np.random.Generator) -> list[postings.Segment]:
    """Chunks with Zipf-like term use (a few terms in most chunks, most terms rare), split
    over three segments as merges would leave them."""
    weights = 1.0 / np.arange(1, VOCAB + 1) ** 1.1
    weights /= weights.sum()
    doc_terms = [
        rng.choice(VOCAB, size=int(rng.integers(3, 40)), p=weights).tolist() for _ in range(CHUNKS)
    ]
    cuts = [0, 1_700, 2_600, CHUNKS]
    return [
        postings.Segment(f"s{i}", **postings.build_arrays(range(lo, hi), doc_terms[lo:hi]))
        for i, (lo, hi) in enumerate(itertools.pairwise(cuts))
    ]


def _reference(scores: np.ndarray, pool: np.ndarray, k: int) -> tuple[set[int], float]:
    values = scores[pool]
    order = np.argsort(-values, kind="stable")[:k]
    kept = [int(pool[i]) for i in order if values[i] > 0]
    return set(kept), float(scores[kept[-1]]) if kept else 0.0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("filtered", [None, "narrow", "wide"])
def test_the_pruned_top_k_is_the_full_top_k(seed: int, filtered: str | None) -> None:
    rng = np.random.default_rng(seed)
    segments = _segments(rng)
    deleted = np.sort(rng.choice(CHUNKS, size=150, replace=False)).astype(np.int64)
    n_docs = CHUNKS - len(deleted) + len(deleted)  # deleted still count until merged
    avgdl = 21.5
    candidates = None
    if filtered:
        share = 0.01 if filtered == "narrow" else 0.6
        candidates = np.sort(rng.choice(CHUNKS, size=int(CHUNKS * share), replace=False))
    for _ in range(25):
        # rare and common terms, sometimes one repeated
        terms = rng.choice(VOCAB, size=int(rng.integers(1, 12))).tolist()
        k = int(rng.choice([1, 5, 40]))
        full = postings.bm25_scores(segments, terms, n_docs, avgdl, CHUNKS)
        full[deleted] = 0.0
        pool = np.arange(CHUNKS) if candidates is None else candidates
        want, kth = _reference(full, pool, k)
        got, values = postings.best_chunks(
            segments, terms, n_docs, avgdl, CHUNKS, k, deleted, candidates
        )
        assert list(values) == sorted(values, reverse=True)
        assert np.allclose(values, full[got], rtol=1e-5)
        # the same chunks, but for ties at the k-th score
        assert all(abs(full[d] - kth) < 1e-5 for d in want ^ set(got.tolist())), terms
        assert not set(got.tolist()) & set(deleted.tolist())


def test_a_rare_term_in_fewer_than_k_chunks_does_not_stop_the_cut() -> None:
    # The first cut bounds the k-th best among the rarest terms' chunks; when they are
    # fewer than k (or filtered out), the next terms' chunks join them rather than every
    # term being read whole.
    rng = np.random.default_rng(0)
    n = 20_000
    doc_terms = []
    for doc in range(n):
        terms = [9] * int(rng.integers(5, 30))
        for term, share in [(1, 0.2), (2, 0.2), (3, 0.2), (4, 0.2), (5, 0.6)]:
            if rng.random() < share:
                terms += [term] * int(rng.integers(1, 4))
        doc_terms.append(terms + ([0] if doc in (10, 20, 30) else []))
    segments = [postings.Segment("s", **postings.build_arrays(range(n), doc_terms))]
    avgdl = sum(map(len, doc_terms)) / n
    plan = postings._query_terms(segments, [0, 1, 2, 3, 4, 5], n)
    kb = postings.K1 * postings.B / avgdl
    no_rare = np.zeros(n, dtype=bool)
    no_rare[[10, 20, 30]] = True
    for excluded in (None, no_rare):
        scores = np.zeros(n, dtype=np.float32)
        live, first_unread = postings._read_rarest(scores, plan, 10, kb, excluded)
        assert live is not None and first_unread < len(plan)
        full = postings.bm25_scores(segments, [0, 1, 2, 3, 4, 5], n, avgdl, n)
        if excluded is not None:
            full[excluded] = 0.0
        got, _ = postings.best_chunks(
            segments,
            [0, 1, 2, 3, 4, 5],
            n,
            avgdl,
            n,
            10,
            np.flatnonzero(no_rare) if excluded is not None else np.zeros(0, dtype=np.int64),
        )
        assert set(got.tolist()) == set(np.argsort(-full, kind="stable")[:10].tolist())


@pytest.mark.parametrize("heavy_terms", [5, 6])  # 5: the best entries name k chunks; 6: fewer
def test_the_leaders_are_distinct_chunks_holding_the_pools_k_best(heavy_terms: int) -> None:
    # Three chunks outscore all others and each sits in every heavy term's postings, so
    # the best LEADERS_KEPT x k entries repeat them; with six terms they name fewer than k
    # chunks and the leaders come from a mark per chunk id instead.
    k, n = 4, 1_000
    rng = np.random.default_rng(1)
    scores = rng.random(n).astype(np.float32)
    scores[[7, 8, 9]] = [5.0, 6.0, 7.0]
    pool = [np.sort(np.unique(np.r_[rng.choice(n, 40), 7, 8, 9])) for _ in range(heavy_terms)]
    excluded = np.zeros(n, dtype=bool)
    excluded[pool[0][:3]] = True  # never a leader, whatever its score
    excluded[[7, 8, 9]] = False
    leaders = postings._leaders(scores, pool, k, excluded)
    pooled = np.unique(np.concatenate(pool))
    pooled = pooled[~excluded[pooled]]
    assert len(set(leaders.tolist())) == len(leaders) <= postings.LEADERS_KEPT * k
    assert not excluded[leaders].any() and set(leaders.tolist()) <= set(pooled.tolist())
    best = pooled[np.argsort(-scores[pooled])[:k]]
    assert set(best.tolist()) <= set(leaders.tolist())
    small = [np.array([3, 5]), np.array([5, 6])]  # no more than kept: every distinct chunk
    assert postings._leaders(scores, small, k, None).tolist() == [3, 5, 6]


def test_no_terms_or_an_empty_index_find_nothing() -> None:
    segments = _segments(np.random.default_rng(1))
    none = np.zeros(0, dtype=np.int64)
    assert len(postings.best_chunks(segments, [], CHUNKS, 20.0, CHUNKS, 5, none)[0]) == 0
    assert len(postings.best_chunks([], [3], 0, 0.0, 0, 5, none)[0]) == 0


def test_chunk_owners_follow_the_rows_added_since_the_last_read() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("create table chunks (id integer primary key, paper_id text not null)")
    db.executemany("insert into chunks values (?, ?)", [(1, "A"), (2, "A"), (3, "B")])
    owners = ChunkOwners()
    assert owners.docs_of(db, {"A"}, 4).tolist() == [1, 2]
    db.executemany("insert into chunks values (?, ?)", [(4, "C"), (6, "A")])
    # a search over the older state (size 4) does not see the new rows yet
    assert owners.docs_of(db, {"A", "C"}, 4).tolist() == [1, 2]
    assert owners.docs_of(db, {"A", "C"}, 7).tolist() == [1, 2, 4, 6]
    assert owners.docs_of(db, {"nobody"}, 7).tolist() == []
    assert owners.docs_of(db, set(), 7).tolist() == []
