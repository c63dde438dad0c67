"""Immutable segments of postings in memory-mapped numpy files, and BM25 over them.

A segment holds, for a batch of chunks, every (term, chunk) pair sorted by term: the chunk
id, the term's count in it (tf) and the chunk's length (dl), with a term table and offsets
so a term's postings are one slice. Written once (to a temporary name, then renamed),
opened with `mmap_mode="r"`: opening costs nothing at any size, and a query touches only
its terms' slices. Merging several segments (dropping deleted chunks) writes a new one.

Scoring is bm25s' "lucene" variant exactly (k1 1.5, b 0.75, idf ln(1 + (N - df + .5) /
(df + .5)), tf / (tf + k1 (1 - b + b dl / avgdl))), so the scores and their scale are
the ones fusion was fitted on. `bm25_scores` scores every chunk (the reference);
`best_chunks` finds the same top k without reading every posting of common terms (MaxScore,
below), which is what keeps a query fast at 100x.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

K1 = 1.5
B = 0.75
ARRAYS = ("terms", "offsets", "docs", "tfs", "dls")
# MaxScore's first cut looks for the k-th best among the chunks of the rarest terms read,
# up to about this many postings of them (_read_rarest).
LEADER_POSTINGS = 50_000
# ... and of those, the best LEADERS_KEPT x k at that point stand for them at later checks.
LEADERS_KEPT = 4
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Segment:
    name: str
    terms: npt.NDArray[np.int32]  # sorted term ids
    offsets: Ints  # postings of terms[i]: [offsets[i], offsets[i + 1])
    docs: npt.NDArray[np.int32]
    tfs: npt.NDArray[np.uint16]
    dls: npt.NDArray[np.uint16]

    @property
    def postings(self) -> int:
        return len(self.docs)

    def slice(self, term: int) -> tuple[int, int]:
        at = int(np.searchsorted(self.terms, term))
        if at >= len(self.terms) or int(self.terms[at]) != term:
            return 0, 0
        return int(self.offsets[at]), int(self.offsets[at + 1])

    def df(self, term: int) -> int:
        lo, hi = self.slice(term)
        return hi - lo


def build_arrays(
    doc_ids: Sequence[int], doc_terms: Sequence[Sequence[int]]
) -> dict[str, np.ndarray]:
    """The arrays of a segment over chunks `doc_ids`, each given as its list of term ids."""
    pairs_t: list[int] = []
    pairs_d: list[int] = []
    lens: list[int] = []
    for doc, terms in zip(doc_ids, doc_terms, strict=True):
        pairs_t += terms
        pairs_d += [doc] * len(terms)
        lens.append(len(terms))
    t = np.asarray(pairs_t, dtype=np.int64)
    d = np.asarray(pairs_d, dtype=np.int64)
    dl_by_doc = dict(zip(doc_ids, lens, strict=True))
    key = np.unique(t << 32 | d, return_counts=True)  # (term, doc) pairs with their counts
    terms_, docs = key[0] >> 32, key[0] & 0xFFFFFFFF
    dls = np.fromiter((dl_by_doc[int(x)] for x in docs), dtype=np.int64, count=len(docs))
    return _pack(terms_, docs, key[1], dls)


def _pack(terms: Ints, docs: Ints, tfs: Ints, dls: Ints) -> dict[str, np.ndarray]:
    """Postings sorted by (term, doc) into the on-disk arrays."""
    starts = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]]) if len(terms) else terms
    return {
        "terms": terms[starts].astype(np.int32),
        "offsets": np.r_[starts, len(terms)].astype(np.int64),
        "docs": docs.astype(np.int32),
        "tfs": np.minimum(tfs, 65535).astype(np.uint16),
        "dls": np.minimum(dls, 65535).astype(np.uint16),
    }


def merge_arrays(segments: Sequence[Segment], deleted: Ints) -> dict[str, np.ndarray]:
    """One segment's arrays holding the live postings of `segments`."""
    terms = np.concatenate([np.repeat(s.terms, np.diff(s.offsets)) for s in segments])
    docs = np.concatenate([np.asarray(s.docs) for s in segments]).astype(np.int64)
    tfs = np.concatenate([np.asarray(s.tfs) for s in segments]).astype(np.int64)
    dls = np.concatenate([np.asarray(s.dls) for s in segments]).astype(np.int64)
    live = ~np.isin(docs, deleted) if len(deleted) else np.ones(len(docs), dtype=bool)
    terms, docs, tfs, dls = terms[live], docs[live], tfs[live], dls[live]
    order = np.lexsort((docs, terms))
    return _pack(terms[order], docs[order], tfs[order], dls[order])


def write_segment(folder: Path, name: str, arrays: dict[str, np.ndarray]) -> None:
    """Each array to `<name>.<array>.npy`, durable before the caller records the segment."""
    for key in ARRAYS:
        final = folder / f"{name}.{key}.npy"
        tmp = final.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, arrays[key])
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(final)


def open_segment(folder: Path, name: str) -> Segment:
    # Plain ndarray views of the maps: a numpy memmap's slicing costs Python per call.
    loaded = {k: np.asarray(np.load(folder / f"{name}.{k}.npy", mmap_mode="r")) for k in ARRAYS}
    for key in ARRAYS:
        _read_ahead(folder / f"{name}.{key}.npy")
    return Segment(name, **loaded)


def _read_ahead(path: Path) -> None:
    """Ask the kernel to bring the file into the page cache in the background: after a
    restart on a busy machine the first questions would otherwise wait on the disk for
    each posting page they touch. Nothing is mapped or read here (no RSS, no wait)."""
    advise = getattr(os, "posix_fadvise", None)  # not on macOS
    if advise is None:
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # merged away since it was mapped: the mapping still reads it
        return
    try:
        advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    finally:
        os.close(fd)


def remove_segment(folder: Path, name: str) -> None:
    # A process still reading it keeps its mapping: an unlinked file lives until unmapped.
    for key in ARRAYS:
        (folder / f"{name}.{key}.npy").unlink(missing_ok=True)


def bm25_scores(
    segments: Sequence[Segment], terms: Sequence[int], n_docs: int, avgdl: float, size: int
) -> npt.NDArray[np.float32]:
    """BM25 of every chunk id below `size` for the query `terms` (repeats count again,
    as in bm25s); chunks without a query term score 0."""
    scores = np.zeros(size, dtype=np.float32)
    if n_docs <= 0 or avgdl <= 0:
        return scores
    norm = K1 * (1 - B)  # the part of the length normalisation that is the same for all
    for term in terms:
        df = sum(s.df(term) for s in segments)
        if df == 0:
            continue
        idf = np.float32(np.log(1 + (n_docs - df + 0.5) / (df + 0.5)))
        for seg in segments:
            lo, hi = seg.slice(term)
            if lo == hi:
                continue
            tf = seg.tfs[lo:hi].astype(np.float32)
            dl = seg.dls[lo:hi].astype(np.float32)
            # Chunk ids are unique within one term's slice, so += adds once per chunk.
            scores[seg.docs[lo:hi]] += idf * tf / (tf + norm + (K1 * B / avgdl) * dl)
    return scores


@dataclass(frozen=True)
class _Term:
    weight: float  # idf times how often the query repeats the term
    slices: tuple[tuple[Segment, int, int], ...]
    postings: int
    bound: float  # the most it adds to a chunk's score: weight x tf / (tf + ...) < weight


def _query_terms(segments: Sequence[Segment], terms: Sequence[int], n_docs: int) -> list[_Term]:
    """The query's distinct terms found in the index, rarest (fewest postings) first.
    One binary search per segment for all of them: per term and segment, the calls cost
    more than the search."""
    repeats = Counter(terms)
    wanted = np.fromiter(sorted(repeats), dtype=np.int64, count=len(repeats))
    found: dict[int, list[tuple[Segment, int, int]]] = {}
    for seg in segments:
        if not len(seg.terms):
            continue
        at = np.minimum(np.searchsorted(seg.terms, wanted), len(seg.terms) - 1)
        for j in np.flatnonzero(seg.terms[at] == wanted).tolist():
            lo, hi = int(seg.offsets[at[j]]), int(seg.offsets[at[j] + 1])
            if hi > lo:
                found.setdefault(int(wanted[j]), []).append((seg, lo, hi))
    out = []
    for term, slices in found.items():
        df = sum(hi - lo for _, lo, hi in slices)
        weight = float(np.log(1 + (n_docs - df + 0.5) / (df + 0.5))) * repeats[term]
        out.append(_Term(weight, tuple(slices), df, weight))
    return sorted(out, key=lambda t: t.postings)


def _add(
    scores: np.ndarray, tfs: np.ndarray, dls: np.ndarray, docs: np.ndarray, weight: float, kb: float
) -> None:
    """weight x tf / (tf + k1 (1 - b) + k1 b dl / avgdl) added to the `docs`' scores, in
    place: numpy's own temporaries and its int32 -> intp index conversion (twice, for
    the read and the write) cost more than the arithmetic."""
    at = docs.astype(np.intp)
    tf = tfs.astype(np.float32)
    norm = tf + np.float32(K1 * (1 - B))  # (tf + k1 (1 - b)) + k1 b dl / avgdl: bm25_scores'
    length = dls.astype(np.float32)  # order of additions, so a score is the same to the bit
    length *= np.float32(kb)
    norm += length
    tf *= np.float32(weight)
    tf /= norm
    tf += scores[at]
    scores[at] = tf


def _add_all(scores: np.ndarray, term: _Term, kb: float) -> None:
    for seg, lo, hi in term.slices:
        _add(scores, seg.tfs[lo:hi], seg.dls[lo:hi], seg.docs[lo:hi], term.weight, kb)


def _add_to(scores: np.ndarray, term: _Term, live: Ints, mask: np.ndarray, kb: float) -> None:
    """The term's score added for the `live` chunks only (`mask` marks them):
    a binary search per live chunk when they are few against the slice, else one pass."""
    for seg, lo, hi in term.slices:
        docs = seg.docs[lo:hi]
        if len(live) * 16 < hi - lo:
            pos = np.searchsorted(docs, live)
            inside = pos < len(docs)
            found = np.zeros(len(live), dtype=bool)
            found[inside] = docs[pos[inside]] == live[inside]
            at, hit = lo + pos[found], live[found]
        else:
            sel = np.flatnonzero(mask[docs])
            at, hit = lo + sel, np.asarray(docs[sel], dtype=np.int64)
        _add(scores, seg.tfs[at], seg.dls[at], hit, term.weight, kb)


def _kth_best(scores: np.ndarray, chunks: Ints, k: int) -> float:
    """The k-th best score among `chunks` (0 when there are fewer than k)."""
    if len(chunks) < k:
        return 0.0
    return float(np.partition(scores[chunks], len(chunks) - k)[len(chunks) - k])


def _scored(scores: np.ndarray, above: float, excluded: np.ndarray | None) -> Ints:
    """The chunks scoring more than `above`, but not `excluded` ones."""
    chunks = np.flatnonzero(scores > above)
    return chunks if excluded is None else chunks[~excluded[chunks]]


def _read_rarest(
    scores: np.ndarray, plan: list[_Term], k: int, kb: float, excluded: np.ndarray | None
) -> tuple[Ints | None, int]:
    """Terms read whole, rarest first, until no chunk they missed can reach the top k.
    Returns the chunks still in the running and the first unread term, or (None, len(plan))
    when every term was read.

    The k-th best score so far is taken among the chunks of the rarest terms read, up to
    `LEADER_POSTINGS` of them, and from the first check on among the best `LEADERS_KEPT` x k
    of those: a lower bound of the true k-th best (any subset's is, and scores only grow)
    that holds the likely winners (they have the heavy, rare terms), found without gathering
    every chunk read at each term."""
    pool: list[np.ndarray] = []
    pooled = 0
    starved = False
    leaders: Ints | None = None
    read = 0.0  # the most a chunk can have scored so far
    for i, term in enumerate(plan):
        rest = _bound(plan[i:])
        if read > rest:  # only now can the k-th best so far be out of the unread terms' reach
            if leaders is None:
                leaders = _leaders(scores, pool, k, excluded)
            floor = _kth_best(scores, leaders, k)
            if floor > rest:
                return _scored(scores, floor - rest, excluded), i
            if len(leaders) < k:  # too few to bound anything: pool the next terms too,
                leaders, starved = None, True  # past the cap if need be
        _add_all(scores, term, kb)
        read += term.bound
        if leaders is None and (pooled < LEADER_POSTINGS or starved):
            pool += [seg.docs[lo:hi] for seg, lo, hi in term.slices]
            pooled += term.postings
    return None, len(plan)


def _leaders(
    scores: np.ndarray, pool: list[np.ndarray], k: int, excluded: np.ndarray | None
) -> Ints:
    """Distinct chunks of `pool` (not excluded): the best `LEADERS_KEPT` x k of them, or
    all when there are no more; the likeliest k-th best, so later checks stay O(k).

    Usually the best entries of the postings themselves, made distinct (a chunk repeats
    once per term it holds): when they name at least k chunks those hold the pool's k
    best, so the first check's bound is the one a mark per chunk id gives, found without
    a pass over every chunk id. There may be fewer than 4k of them, so a later check can
    bound lower and look up more chunks (never a different top k). Else each chunk once
    through a mark per chunk id (np.unique of the whole pool is slower)."""
    keep = LEADERS_KEPT * k
    docs = np.concatenate(pool) if len(pool) > 1 else pool[0]
    if excluded is not None:
        docs = docs[~excluded[docs]]
    if len(docs) <= keep:
        return np.unique(docs)
    best = np.unique(_best(scores, docs, keep))
    if len(best) >= k:
        return best
    marked = np.zeros(len(scores), dtype=bool)
    marked[docs] = True
    leaders = np.flatnonzero(marked)
    return _best(scores, leaders, keep) if len(leaders) > keep else leaders


def _best(scores: np.ndarray, chunks: Ints, n: int) -> Ints:
    """The `n` of `chunks` scoring most, in no order (there are more than `n`)."""
    return chunks[np.argpartition(scores[chunks], -n)[-n:]]


def _bound(terms: Sequence[_Term]) -> float:
    """The most `terms` can add to a chunk's score, with a margin for float32 sums."""
    return sum(t.bound for t in terms) * 1.0001


def best_chunks(
    segments: Sequence[Segment],
    terms: Sequence[int],
    n_docs: int,
    avgdl: float,
    size: int,
    k: int,
    deleted: Ints,
    candidates: Ints | None = None,
) -> tuple[Ints, npt.NDArray[np.float32]]:
    """The k best chunk ids for `terms` (only among `candidates` if given) with their
    scores, best first: the k largest of `bm25_scores`, deleted and zero scores left out.

    MaxScore: terms are read rarest first, in full, while a chunk none of them holds could
    still reach the top k; a term adds at most its weight (tf / (tf + ...) < 1). Once the
    k-th best score so far exceeds what the unread terms could add together, only chunks
    already close enough can finish in the top k, and the common terms' long postings
    are looked up for those few instead of read whole. A few candidates (a narrow filter)
    are looked up from the first term."""
    scores = np.zeros(size, dtype=np.float32)
    plan = _query_terms(segments, terms, n_docs) if n_docs > 0 and avgdl > 0 else []
    if not plan:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    kb = K1 * B / avgdl
    dead = deleted[deleted < size]
    excluded = None
    live: Ints | None = None
    start = 0
    if candidates is not None:
        excluded = np.ones(size, dtype=bool)
        excluded[candidates[candidates < size]] = False
        excluded[dead] = True
        live = np.flatnonzero(~excluded)  # few (a narrow filter): every term looked up for them
    elif len(dead):
        excluded = np.zeros(size, dtype=bool)
        excluded[dead] = True
    if live is None or len(live) * 32 >= size:
        live, start = _read_rarest(scores, plan, k, kb, excluded)
    if live is not None:
        mask = np.zeros(size, dtype=bool)
        for i in range(start, len(plan)):
            mask[live] = True
            _add_to(scores, plan[i], live, mask, kb)
            mask[live] = False
            if len(live) > k:  # the k-th best of the live ones rises: fewer stay in the running
                floor = _kth_best(scores, live, k)
                live = live[scores[live] >= floor - _bound(plan[i + 1 :])]
        pool = live
    else:  # every term read whole
        pool = _scored(scores, 0.0, excluded)
    values = scores[pool]
    top = np.argpartition(-values, k)[:k] if len(values) > k else np.arange(len(values))
    top = top[np.lexsort((pool[top], -values[top]))]  # best first, ties in chunk order
    top = top[values[top] > 0]
    return pool[top].astype(np.int64), values[top]
