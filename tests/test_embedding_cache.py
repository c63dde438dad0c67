"""The persistent text-embedding cache: exact vectors, hits instead of model calls, and
never a failure of its own (unwritable directory, corrupt file)."""

from __future__ import annotations

import logging
import multiprocessing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rag.embedding.cache import CachedEmbedding, EmbeddingCache
from tests.support.settings import make_settings

TEXTS = [
    "Feedback alignment trains networks without weight transport.",
    "A conservation law explains why it works.",
    "Émoji 🧪 and right-to-left \u202etext\u202c survive hashing.",
    "lone surrogate \ud800 is hashed, not rejected",
]


def test_round_trip_is_exact_and_counts_hits(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, "space/with:odd chars")
    vectors = np.random.default_rng(0).standard_normal((len(TEXTS), 8)).astype(np.float32)
    assert cache.get_many(TEXTS) == {}
    cache.put_many(list(zip(TEXTS, vectors, strict=True)))
    found = cache.get_many(TEXTS + TEXTS[:1])
    assert set(found) == set(TEXTS)
    for text, vector in zip(TEXTS, vectors, strict=True):
        assert np.array_equal(found[text], vector)
    assert (cache.hits, cache.misses) == (4, 4)
    assert cache.path.parent == tmp_path and "/" not in cache.path.name
    assert len(EmbeddingCache(tmp_path, "space/with:odd chars")) == 4  # persisted


def test_more_keys_than_one_sqlite_statement_takes(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, "many")
    texts = [f"text {i}" for i in range(2500)]
    cache.put_many([(t, np.full(4, i, dtype=np.float32)) for i, t in enumerate(texts)])
    found = cache.get_many(texts)
    assert len(found) == 2500 and found["text 2499"][0] == 2499


def _writer(directory: str, worker: int) -> None:
    cache = EmbeddingCache(Path(directory), "shared")
    for i in range(50):
        cache.put_many([(f"w{worker}-{i}", np.full(4, i, dtype=np.float32))])


def test_processes_share_one_file(tmp_path: Path) -> None:
    procs = [multiprocessing.Process(target=_writer, args=(str(tmp_path), w)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    assert len(EmbeddingCache(tmp_path, "shared")) == 200


@pytest.mark.parametrize("problem", ["not a directory", "corrupt file"])
def test_a_broken_cache_warns_once_and_the_model_still_answers(
    tmp_path: Path, embed_model: Any, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    if problem == "not a directory":
        blocker = tmp_path / "file"
        blocker.write_text("x")
        cache = EmbeddingCache(blocker / "embeddings", "space")  # mkdir fails, even as root
    else:
        cache = EmbeddingCache(tmp_path, "space")
        cache.path.write_bytes(b"this is not an sqlite database" * 100)
    wrapped = CachedEmbedding(embed_model.inner, cache)
    with caplog.at_level(logging.WARNING, logger="rag.embedding_cache"):
        first = wrapped.get_text_embedding_batch(TEXTS[:2])
        second = wrapped.get_text_embedding_batch(TEXTS[:2])
    assert np.allclose(first, second) and len(first[0]) == 384
    warnings = [r for r in caplog.records if "continuing without it" in r.getMessage()]
    assert len(warnings) == 1 and str(cache.path) in warnings[0].getMessage()


def test_wrapped_model_gives_the_models_vectors_and_skips_it_on_hits(
    tmp_path: Path, embed_model: Any
) -> None:
    inner = embed_model.inner
    wrapped = CachedEmbedding(inner, EmbeddingCache(tmp_path, "real"))
    direct = np.asarray(inner.get_text_embedding_batch(TEXTS))
    cold = np.asarray(wrapped.get_text_embedding_batch(TEXTS))
    assert wrapped.cache.misses == len(TEXTS) and wrapped.cache.hits == 0
    warm = np.asarray(wrapped.get_text_embedding_batch(list(reversed(TEXTS))))
    assert wrapped.cache.hits == len(TEXTS)
    assert np.allclose(direct, cold, atol=1e-6)
    assert np.array_equal(cold, warm[::-1])
    assert wrapped.count_tokens(["a b c"]) == inner.count_tokens(["a b c"])
    assert wrapped.dimension == 384


def test_settings_choose_cached_or_raw(tmp_path: Path) -> None:
    from rag.embedding.factory import build_embed_model

    settings = make_settings(tmp_path)  # the shared model cache: no second ONNX export
    cached = build_embed_model(settings)
    assert isinstance(cached, CachedEmbedding)
    assert cached.cache.path.parent == settings.model_cache_dir / "embeddings"
    assert "int8" in cached.cache.path.name  # the space names the quantised variant
    raw = build_embed_model(make_settings(tmp_path, embed_cache=False))
    assert not isinstance(raw, CachedEmbedding)
