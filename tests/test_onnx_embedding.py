"""The locally exported ONNX model: the same vectors as sentence-transformers (fp32), close
ones when int8-quantised, a graph without the SDPA export's mask ops, order kept across
length-sorted batches."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from rag.embedding import onnx_runtime
from rag.embedding.onnx_encoder import OnnxEncoder
from rag.embedding.onnx_runtime import OnnxEmbedding, export_onnx
from rag.embedding.onnx_worker import EncoderProcess
from tests.support.settings import make_settings

TEXTS = [
    "Feedback alignment trains deep networks without symmetric weight transport.",
    "A conservation law.",
    "We study in-context learning of linear regression by transformers and prove that "
    "a single linear attention layer implements one step of gradient descent. " * 3,
    "Graph generation with transformers that read graphs as sequences of tokens.",
    "x",
]


@pytest.fixture(scope="module")
def torch_vectors(model_dir: Path) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    return np.asarray(model.encode(TEXTS, normalize_embeddings=True))


@pytest.mark.parametrize(("variant", "floor"), [("fp32", 0.9999), ("int8", 0.98)])
def test_vectors_match_sentence_transformers(
    model_dir: Path, torch_vectors: np.ndarray, variant: str, floor: float
) -> None:
    cache_dir = make_settings(Path("unused")).model_cache_dir
    path = export_onnx(model_dir, cache_dir, quantize=variant == "int8")
    vectors = OnnxEmbedding(model_dir, path, embed_batch_size=2)._encode(TEXTS)
    cosines = (vectors * torch_vectors).sum(axis=1)
    assert cosines.min() >= floor, cosines  # int8: worst on a one-token text ("x")
    assert cosines.mean() >= (floor + 1) / 2 - 0.005, cosines
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_export_has_no_sdpa_mask_ops_and_is_reused(model_dir: Path) -> None:
    cache_dir = make_settings(Path("unused")).model_cache_dir
    path = export_onnx(model_dir, cache_dir, quantize=True)
    ops = Counter(
        node.op_type for node in onnx.load(str(path), load_external_data=False).graph.node
    )
    # The SDPA export masks every layer's attention matrix (6 IsNaN, 13 Where: ~23% of the
    # time); eager attention builds the additive mask once.
    assert ops["IsNaN"] == 0 and ops["Where"] <= 2, ops
    mtime = path.stat().st_mtime_ns
    assert export_onnx(model_dir, cache_dir, quantize=True) == path
    assert path.stat().st_mtime_ns == mtime  # cached, not re-exported


def test_length_sorted_batches_keep_input_order(model_dir: Path) -> None:
    cache_dir = make_settings(Path("unused")).model_cache_dir
    model = OnnxEmbedding(model_dir, export_onnx(model_dir, cache_dir), embed_batch_size=2)
    forward = model._encode(TEXTS)
    backward = model._encode(list(reversed(TEXTS)))
    # Sorting by length makes the batches the same whatever the input order; int8 dynamic
    # quantisation scales activations per batch, so the same batches give the same vectors.
    assert np.allclose(forward, backward[::-1], atol=1e-5)
    one_by_one = np.stack([model._encode([t])[0] for t in TEXTS])
    assert ((forward * one_by_one).sum(axis=1) > 0.97).all()
    assert model.count_tokens(["a lone surrogate \ud800 is counted"])[0] > 3


def test_batches_run_side_by_side_with_the_same_vectors(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = export_onnx(model_dir, make_settings(Path("unused")).model_cache_dir)
    alone = OnnxEmbedding(model_dir, path, threads=1, embed_batch_size=2)
    paired = OnnxEmbedding(model_dir, path, threads=2, embed_batch_size=2)
    runs: list[tuple[str, int]] = []
    real_run = OnnxEncoder.run

    def run(self: OnnxEncoder, encodings: list[Any]) -> np.ndarray:
        runs.append((threading.current_thread().name, len(encodings)))
        return real_run(self, encodings)

    monkeypatch.setattr(OnnxEncoder, "run", run)
    assert np.array_equal(alone._encode(TEXTS), paired._encode(TEXTS))  # the same batches
    assert {name for name, _ in runs[:3]} == {threading.current_thread().name}
    assert all(name.startswith("onnx-run") for name, _ in runs[3:]) and len(runs) == 6
    runs.clear()
    few = OnnxEmbedding(model_dir, path, threads=2, embed_batch_size=32)._encode(TEXTS[:3])
    assert sorted(size for _, size in runs) == [1, 2]  # split so both streams take part
    assert np.allclose(np.linalg.norm(few, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_its_own_vector_whatever_it_is_embedded_with(model_dir: Path) -> None:
    """By default every text is run alone: int8 activations are scaled per run, so batched
    with others a text's vector moved with its neighbours (and a query's, always run
    alone, sat a little apart from the same text's stored vector)."""
    path = export_onnx(model_dir, make_settings(Path("unused")).model_cache_dir)
    model = OnnxEmbedding(model_dir, path, threads=2)
    together = model._encode(TEXTS)
    with_others = model._encode([TEXTS[2], "Another abstract, much longer: " * 20, TEXTS[0]])
    assert np.array_equal(together[[2, 0]], with_others[[0, 2]])
    for text, vector in zip(TEXTS, together, strict=True):
        assert np.array_equal(model._encode([text])[0], vector)
        assert np.array_equal(np.asarray(model.get_query_embedding(text), np.float32), vector)


def test_a_bulk_embeds_in_a_worker_process_with_the_same_vectors(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Inside `bulk()` large inputs after the first go to a child process (an embedded
    Chroma write holds this process's GIL); its vectors are this process's to the bit, the
    child ends with the bulk, and a child that died is replaced by this process's model."""
    monkeypatch.setattr(onnx_runtime, "BULK_TEXTS", 3)
    model = OnnxEmbedding(
        model_dir, export_onnx(model_dir, make_settings(Path("unused")).model_cache_dir)
    )
    here = model._encode(TEXTS)
    encoded_here: list[int] = []
    real_encode = OnnxEncoder.encode

    def encode(self: OnnxEncoder, texts: list[str]) -> np.ndarray:
        encoded_here.append(len(texts))
        return real_encode(self, texts)

    monkeypatch.setattr(OnnxEncoder, "encode", encode)
    with model.bulk():
        assert np.array_equal(model._encode(TEXTS), here)  # the first: here, the worker starts
        worker = model._worker
        assert worker is not None and encoded_here == [len(TEXTS)]
        assert np.array_equal(model._encode(TEXTS[::-1]), here[::-1])  # the worker's
        assert np.array_equal(model._encode(TEXTS[:2]), here[:2])  # small: here
        assert encoded_here == [len(TEXTS), 2]
        worker._proc.kill()
        worker._proc.wait()
        with caplog.at_level("WARNING", logger="rag.embedding.onnx_runtime"):
            assert np.array_equal(model._encode(TEXTS), here)  # here again, logged
        assert "went away" in caplog.text and encoded_here == [len(TEXTS), 2, len(TEXTS)]
        model._encode(TEXTS)
        assert len(encoded_here) == 4  # no second worker in this bulk
    assert model._worker is None and worker._proc.returncode is not None


def test_the_worker_process_ends_when_the_bulk_does(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_runtime, "BULK_TEXTS", 3)
    model = OnnxEmbedding(
        model_dir, export_onnx(model_dir, make_settings(Path("unused")).model_cache_dir)
    )
    with model.bulk():
        model._encode(TEXTS)
        model._encode(TEXTS)
        worker = model._worker
        assert worker is not None and worker._proc.poll() is None  # alive, answering
    assert worker._proc.returncode == 0  # its stdin closed: it exited by itself


def test_a_worker_interrupted_mid_answer_is_ended_at_once(model_dir: Path) -> None:
    """Ctrl-C while the worker embeds a window: its answer would fill a pipe nobody reads,
    so closing it must not wait for it to finish (seconds of work) but end it."""
    path = export_onnx(model_dir, make_settings(Path("unused")).model_cache_dir)
    worker = EncoderProcess(model_dir, path, 1)
    long_work = [TEXTS[2]] * 3_000  # a minute of embedding on one stream

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        with pytest.raises(KeyboardInterrupt):
            worker.encode(long_work)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    started = time.monotonic()
    worker.close()
    assert time.monotonic() - started < 3.0
    assert worker._proc.returncode == -signal.SIGKILL
