"""Vectors shipped beside a corpus file, so a first ingest need not run the model over it.

Why: embedding the bundled corpus (~5.4k chunks) is most of a newcomer's first `make run`.
`scripts/ship_vectors.py` embeds it once and writes `data/<corpus>.vectors.npz`; ingest
copies those vectors into the embedding cache, and the cache then answers the model calls
as it would on any re-run.

The file holds, per chunk, the embedding cache's text key (16 bytes of the SHA-256 of
the embedded text, see `cache.text_key`) and the vector in float16 (as good as float32
for cosine), plus a few sample texts with their float32 vectors (each embedded alone) and
a JSON header naming the embedding model and the chunking they were made with.

Trusted only if the header matches this run's embedding id and chunking, and this
machine's model, re-embedding the sample, agrees with the shipped vectors (cosine >=
`MIN_COSINE`: another onnxruntime may quantise the model a little differently). Anything
else logs why and leaves the file unused: every chunk is then embedded, as without it.
A stale file (corpus or chunking changed since) costs nothing: its keys match no chunk's
text, and tests/unit/test_shipped_vectors.py fails until it is regenerated.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.embedding.cache import CachedEmbedding, text_key
from rag.settings import Settings

log = logging.getLogger(__name__)
FORMAT = 1
MIN_COSINE = 0.999
SAMPLE = 16
REGENERATE = ".venv/bin/python scripts/ship_vectors.py"


class ShippedVectorsError(ValueError):
    """A shipped vectors file that cannot be read as one (names the file and the problem)."""


def vectors_path(corpus: Path) -> Path:
    """`data/icml2024.jsonl` → `data/icml2024.vectors.npz`."""
    return corpus.with_name(f"{corpus.name.split('.')[0]}.vectors.npz")


def header_for(settings: Settings) -> dict[str, Any]:
    """What the vectors depend on besides the texts: compared field by field on load."""
    return {
        "format": FORMAT,
        "embedding_id": settings.embedding_id(),
        "embed_backend": settings.embed_backend,
        "chunk_max_tokens": settings.chunk_max_tokens,
        "chunk_overlap_sentences": settings.chunk_overlap_sentences,
    }


@dataclass
class ShippedVectors:
    keys: np.ndarray  # (n, 16) uint8
    vectors: np.ndarray  # (n, dim) float16
    sample_texts: list[str]
    sample_vectors: np.ndarray  # (SAMPLE, dim) float32
    header: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> ShippedVectors:
        try:
            with np.load(path, allow_pickle=False) as data:
                shipped = cls(
                    keys=data["keys"],
                    vectors=data["vectors"],
                    sample_texts=[str(t) for t in data["sample_texts"]],
                    sample_vectors=data["sample_vectors"].astype(np.float32),
                    header=json.loads(str(data["header"])),
                )
        except (OSError, ValueError, KeyError) as exc:
            raise ShippedVectorsError(f"{path}: not a shipped vectors file ({exc})") from exc
        if shipped.keys.shape != (len(shipped.vectors), 16) or shipped.vectors.ndim != 2:
            raise ShippedVectorsError(
                f"{path}: keys {shipped.keys.shape} do not pair with vectors "
                f"{shipped.vectors.shape}"
            )
        return shipped

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(
            tmp,
            keys=self.keys,
            vectors=self.vectors,
            sample_texts=np.array(self.sample_texts),
            sample_vectors=self.sample_vectors.astype(np.float32),
            header=np.array(json.dumps(self.header, sort_keys=True)),
        )
        tmp.replace(path)


def build_shipped(
    texts: Sequence[str],
    vectors: np.ndarray,
    header: dict[str, Any],
    embed_one: Callable[[str], list[float]],
) -> ShippedVectors:
    """Pack embedded texts; the sample spreads over text lengths (short and long chunks).

    The sample is embedded again one text at a time (`embed_one`), as `_sample_cosine`
    does: int8 activations are quantised per batch, so a text's vector moves with its
    batch-mates and only single texts compare exactly.
    """
    unique = dict(zip(texts, range(len(texts)), strict=True))  # last index of each text
    order = sorted(unique, key=len)
    step = max(1, len(order) // SAMPLE)
    sample = order[::step][:SAMPLE]
    return ShippedVectors(
        keys=np.frombuffer(b"".join(text_key(t) for t in unique), dtype=np.uint8).reshape(-1, 16),
        vectors=np.asarray(vectors, dtype=np.float32)[list(unique.values())].astype(np.float16),
        sample_texts=sample,
        sample_vectors=np.asarray([embed_one(t) for t in sample], dtype=np.float32),
        header=header,
    )


def _mismatch(shipped: ShippedVectors, settings: Settings) -> str | None:
    wanted = header_for(settings)
    for field, value in wanted.items():
        if shipped.header.get(field) != value:
            return f"made with {field}={shipped.header.get(field)!r}, this run uses {value!r}"
    return None


def _sample_cosine(shipped: ShippedVectors, model: BaseEmbedding) -> float:
    fresh = np.asarray([model.get_text_embedding(t) for t in shipped.sample_texts], np.float32)
    if fresh.shape != shipped.sample_vectors.shape:
        return -1.0
    fresh /= np.linalg.norm(fresh, axis=1, keepdims=True)
    ref = shipped.sample_vectors / np.linalg.norm(shipped.sample_vectors, axis=1, keepdims=True)
    return float((fresh * ref).sum(axis=1).min())


def fill_cache_from_shipped(
    embed_model: BaseEmbedding, settings: Settings, corpus_paths: Sequence[Path]
) -> int:
    """Copy the verified shipped vectors of these corpus files into the embedding cache.

    Returns how many vectors were added. Never raises for a file it cannot use: the
    cost of ignoring one is the embedding it would have saved, so it logs why instead.
    """
    if not settings.shipped_vectors:
        return 0
    added = 0
    for corpus in corpus_paths:
        path = vectors_path(Path(corpus))
        if path.exists():
            added += _fill_one(path, embed_model, settings)
    return added


def _fill_one(path: Path, embed_model: BaseEmbedding, settings: Settings) -> int:
    if not isinstance(embed_model, CachedEmbedding):
        log.info("shipped vectors %s unused: they fill the embedding cache, which is off", path)
        return 0
    try:
        shipped = ShippedVectors.load(path)
    except ShippedVectorsError as exc:
        log.warning("shipped vectors unused, embedding everything: %s", exc)
        return 0
    why = _mismatch(shipped, settings)
    if why:
        log.info("shipped vectors %s unused: %s", path, why)
        return 0
    cache = embed_model.cache
    if len(cache.get_keyed([bytes(k) for k in shipped.keys[-SAMPLE:]])) == SAMPLE:
        return 0  # copied by an earlier run
    started = time.perf_counter()
    cosine = _sample_cosine(shipped, embed_model.inner)
    if cosine < MIN_COSINE:
        log.warning(
            "shipped vectors %s unused, embedding everything: this machine's model embeds "
            "their %d sample texts at cosine %.4f to the shipped vectors (< %s); "
            "regenerate with `%s`",
            path,
            len(shipped.sample_texts),
            cosine,
            MIN_COSINE,
            REGENERATE,
        )
        return 0
    vectors = shipped.vectors.astype(np.float32)
    vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    cache.put_keyed([(bytes(k), v) for k, v in zip(shipped.keys, vectors, strict=True)])
    log.info(
        "shipped vectors %s: %d chunk vectors into the embedding cache (sample cosine %.5f, "
        "%.1f s)",
        path,
        len(vectors),
        cosine,
        time.perf_counter() - started,
    )
    return len(vectors)
