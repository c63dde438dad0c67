"""Shipped vectors (rag.embedding.shipped): the bundled file matches the bundled corpus's
chunks, and a file is trusted only when its header and a re-embedded sample agree."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.corpus.records import load_corpus
from rag.embedding.cache import CachedEmbedding, EmbeddingCache, text_key
from rag.embedding.shipped import (
    REGENERATE,
    SAMPLE,
    ShippedVectors,
    build_shipped,
    fill_cache_from_shipped,
    header_for,
    vectors_path,
)
from rag.ingestion import _nodes_for, embedded_texts
from rag.settings import BUNDLED_CORPUS, Settings
from tests.support.fake_embedding import HashingEmbedding
from tests.support.paths import FIXTURE_CORPUS


class _Counter:
    """Just the tokenizer: chunking needs word-piece counts, not the model."""

    def __init__(self) -> None:
        from rag.embedding.factory import resolve_local_model_path
        from rag.embedding.onnx_runtime import word_piece_counter

        self.count_tokens = word_piece_counter(Path(resolve_local_model_path("all-MiniLM-L6-v2")))


def chunk_texts(corpus: Path, settings: Settings, model: Any) -> list[str]:
    """The texts ingest embeds for this corpus (rag.ingestion's own recipe)."""
    papers = load_corpus([corpus]).papers
    nodes = [n for _, ns in _nodes_for(papers, settings, cast(BaseEmbedding, model)) for n in ns]
    return embedded_texts(nodes)


def test_bundled_vectors_match_the_bundled_corpus_chunks() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    shipped = ShippedVectors.load(vectors_path(BUNDLED_CORPUS))
    assert shipped.header == header_for(settings), f"stale header: run `{REGENERATE}`"
    wanted = {text_key(t) for t in chunk_texts(BUNDLED_CORPUS, settings, _Counter())}
    have = {bytes(k) for k in shipped.keys}
    assert have == wanted, (
        f"{vectors_path(BUNDLED_CORPUS).name} is stale ({len(wanted - have)} chunks of the "
        f"bundled corpus have no vector, {len(have - wanted)} vectors match no chunk): "
        f"run `{REGENERATE}`"
    )
    assert shipped.vectors.dtype == np.float16 and len(shipped.sample_texts) == SAMPLE
    norms = np.linalg.norm(shipped.vectors.astype(np.float32), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-2)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    target = tmp_path / "papers.jsonl"
    target.write_text(FIXTURE_CORPUS.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def _ship(corpus: Path, settings: Settings, **header: Any) -> list[str]:
    texts = chunk_texts(corpus, settings, HashingEmbedding())
    vectors = np.asarray(HashingEmbedding().get_text_embedding_batch(texts), dtype=np.float32)
    header = {**header_for(settings), **header}
    build_shipped(texts, vectors, header, HashingEmbedding().get_text_embedding).save(
        vectors_path(corpus)
    )
    return texts


def _cached(tmp_path: Path) -> tuple[CachedEmbedding, HashingEmbedding]:
    inner = HashingEmbedding()
    return CachedEmbedding(inner, EmbeddingCache(tmp_path / "cache", "fake")), inner


def test_verified_vectors_fill_the_cache_and_the_model_embeds_only_the_sample(
    tmp_path: Path, corpus: Path
) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    texts = _ship(corpus, settings)
    model, inner = _cached(tmp_path)
    assert fill_cache_from_shipped(model, settings, [corpus]) == len(set(texts))
    assert inner.calls == SAMPLE
    vectors = model.get_text_embedding_batch(texts)
    assert inner.calls == SAMPLE  # every chunk came from the cache
    want = np.asarray(HashingEmbedding().get_text_embedding_batch(texts))
    assert np.allclose(vectors, want, atol=1e-3)
    # A second ingest sees the cache already filled: no re-verification.
    assert fill_cache_from_shipped(model, settings, [corpus]) == 0
    assert inner.calls == SAMPLE


def test_another_model_or_chunking_leaves_the_file_unused_and_says_why(
    tmp_path: Path, corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    _ship(corpus, settings, embedding_id="all-MiniLM-L6-v2")
    model, inner = _cached(tmp_path)
    with caplog.at_level(logging.INFO, logger="rag.embedding.shipped"):
        assert fill_cache_from_shipped(model, settings, [corpus]) == 0
    assert "embedding_id='all-MiniLM-L6-v2'" in caplog.text and str(corpus.parent) in caplog.text
    assert inner.calls == 0 and len(model.cache) == 0
    other = Settings(_env_file=None, chunk_max_tokens=120)  # type: ignore[call-arg]
    _ship(corpus, settings)
    with caplog.at_level(logging.INFO, logger="rag.embedding.shipped"):
        assert fill_cache_from_shipped(model, other, [corpus]) == 0
    assert "chunk_max_tokens=200" in caplog.text


def test_a_sample_this_model_disagrees_with_means_embedding_everything(
    tmp_path: Path, corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    _ship(corpus, settings)
    shipped = ShippedVectors.load(vectors_path(corpus))
    shipped.sample_vectors = np.roll(shipped.sample_vectors, 1, axis=1)  # another model
    shipped.save(vectors_path(corpus))
    model, _ = _cached(tmp_path)
    with caplog.at_level(logging.WARNING, logger="rag.embedding.shipped"):
        assert fill_cache_from_shipped(model, settings, [corpus]) == 0
    assert "cosine" in caplog.text and REGENERATE in caplog.text
    assert len(model.cache) == 0


def test_a_broken_file_is_named_and_skipped(
    tmp_path: Path, corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    vectors_path(corpus).write_bytes(b"not an npz")
    model, _ = _cached(tmp_path)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    with caplog.at_level(logging.WARNING, logger="rag.embedding.shipped"):
        assert fill_cache_from_shipped(model, settings, [corpus]) == 0
    assert "papers.vectors.npz: not a shipped vectors file" in caplog.text


def test_off_when_the_setting_or_the_cache_is_off(tmp_path: Path, corpus: Path) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    _ship(corpus, settings)
    model, inner = _cached(tmp_path)
    off = Settings(_env_file=None, shipped_vectors=False)  # type: ignore[call-arg]
    assert fill_cache_from_shipped(model, off, [corpus]) == 0
    assert fill_cache_from_shipped(inner, settings, [corpus]) == 0
    assert inner.calls == 0 and len(model.cache) == 0


def test_vectors_path_sits_beside_the_corpus() -> None:
    assert vectors_path(Path("data/icml2024.jsonl")) == Path("data/icml2024.vectors.npz")
