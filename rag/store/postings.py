"""Immutable segments of postings in memory-mapped numpy files, and BM25 over them.

A segment holds, for a batch of chunks, every (term, chunk) pair sorted by term: the chunk
id, the term's count in it (tf) and the chunk's length (dl), with a term table and offsets
so a term's postings are one slice. Written once (to a temporary name, then renamed),
opened with `mmap_mode="r"`: opening costs nothing at any size, and a query touches only
its terms' slices. Merging several segments (dropping deleted chunks) writes a new one.

Scoring is bm25s' "lucene" variant exactly (k1 1.5, b 0.75, idf ln(1 + (N - df + .5) /
(df + .5)), tf / (tf + k1 (1 - b + b dl / avgdl))), so the scores and their scale are
the ones fusion was fitted on.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

K1 = 1.5
B = 0.75
ARRAYS = ("terms", "offsets", "docs", "tfs", "dls")
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
    loaded = {k: np.load(folder / f"{name}.{k}.npy", mmap_mode="r") for k in ARRAYS}
    return Segment(name, **loaded)


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
