"""all-MiniLM-L6-v2 on ONNX Runtime, exported and int8-quantised locally from the bundled weights.

Why: on a CPU, ONNX Runtime with dynamic int8 quantisation embeds several times faster
than PyTorch and needs no torch at all: the graph is written straight from the
safetensors weights (rag.embedding.onnx_graph), with no torch export. The export and
quantisation run once into `model_cache_dir/onnx/`, keyed by a hash of the model files,
and are reused by every later process. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from rag.embedding.lru import LRUCache, query_cache
from rag.embedding.onnx_encoder import SINGLE_TEXT_RUNS, OnnxEncoder, encode_batch
from rag.embedding.onnx_worker import EncoderProcess, WorkerError

log = logging.getLogger(__name__)
WHOLE_INPUT = 2048
# A bulk input at least this long goes to the worker process (one ingest window is ~1,000).
BULK_TEXTS = 64
# Bump when the export's vectors change: a new directory, so nothing stale is reused (and
# the embedding cache, keyed by it, starts afresh). The graph written from the weights gives
# the torch export's vectors bit for bit, so it keeps that export's version.
EXPORT = "v2"


def model_fingerprint(model_dir: Path) -> str:
    digest = hashlib.sha256()
    for name in ("config.json", "tokenizer.json", "model.safetensors", "pytorch_model.bin"):
        path = model_dir / name
        if path.exists():
            stat = path.stat()
            digest.update(f"{name}:{stat.st_size}".encode())
            with path.open("rb") as handle:  # head of the weights: cheap, and enough to tell apart
                digest.update(handle.read(1 << 20))
    return digest.hexdigest()[:12]


def export_onnx(model_dir: Path, cache_dir: Path, quantize: bool = True) -> Path:
    """Export (and quantise) once; return the .onnx path. Atomic: a crash leaves no half file."""
    variant = "int8" if quantize else "fp32"
    target_dir = cache_dir / "onnx" / f"{model_dir.name}-{model_fingerprint(model_dir)}-{EXPORT}"
    target = target_dir / f"model-{variant}.onnx"
    if target.exists():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    tmp_dir = target_dir / f".tmp-{os.getpid()}"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    tmp_dir.mkdir()
    try:
        produced = _export_fp32(model_dir, tmp_dir / "model-fp32.onnx")
        if quantize:
            produced = _quantize_int8(produced, tmp_dir / "model-int8.onnx")
        os.replace(produced, target)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return target


def _export_fp32(model_dir: Path, fp32: Path) -> Path:
    """safetensors → ONNX (opset 17, dynamic batch and sequence axes, last hidden state out).

    Written op by op from the weights (rag.embedding.onnx_graph), no torch: the graph the
    torch export of eager-attention BertModel gave, to the same int8 vectors.
    """
    from rag.embedding.onnx_graph import write_bert_onnx

    return write_bert_onnx(model_dir, fp32)


def _quantize_int8(fp32: Path, int8: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # MatMul weights only, per output channel: quantising the embedding table (Gather)
    # or whole tensors moves the vectors much further from fp32.
    # The quantiser warns on the root logger that a "pre-processing" step would help (shape
    # inference for image models); it changes nothing here, so the terminal is spared that
    # one message (a filter, not a level: other threads' warnings still get through).
    root = logging.getLogger()
    root.addFilter(_not_preprocessing_advice)
    try:
        quantize_dynamic(
            str(fp32),
            str(int8),
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul"],
            per_channel=True,
        )
    finally:
        root.removeFilter(_not_preprocessing_advice)
    return int8


def _not_preprocessing_advice(record: logging.LogRecord) -> bool:
    return "consider to run pre-processing before quantization" not in record.getMessage()


def word_piece_tokenizer(model_dir: Path) -> Any:
    """The model's tokenizer, untruncated and unpadded: what chunking counts with."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def word_piece_counter(model_dir: Path) -> Callable[[list[str]], list[int]]:
    """Word-piece counts without loading the model (the same counts `count_tokens` gives)."""
    tokenizer = word_piece_tokenizer(model_dir)
    return lambda texts: [len(e.ids) for e in encode_batch(tokenizer, texts)]


class OnnxEmbedding(BaseEmbedding):
    """A llama-index embedding backed by an ONNX Runtime session (mean pooling, L2 norm)."""

    _encoder: OnnxEncoder = PrivateAttr()
    _counter: Callable[[list[str]], list[int]] = PrivateAttr()
    _query_cache: LRUCache[str, list[float]] = PrivateAttr(default_factory=query_cache)
    _worker_args: tuple[Path, Path, int] = PrivateAttr()
    _bulk: bool = PrivateAttr(default=False)
    _worker: EncoderProcess | None = PrivateAttr(default=None)
    _worker_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self,
        model_dir: Path,
        onnx_path: Path,
        threads: int = 0,
        embed_batch_size: int = SINGLE_TEXT_RUNS,
    ) -> None:
        # llama-index slices what it hands `_get_text_embeddings` by `embed_batch_size`;
        # give it whole slices so the encoder spreads them over its streams, longest first.
        # One text per run by default (SINGLE_TEXT_RUNS), not batches of `embed_batch_size`.
        super().__init__(model_name=str(model_dir), embed_batch_size=WHOLE_INPUT)
        self._encoder = OnnxEncoder(model_dir, onnx_path, threads, embed_batch_size)
        self._worker_args = (model_dir, onnx_path, self._encoder.streams)
        self._counter = word_piece_counter(model_dir)

    @classmethod
    def class_name(cls) -> str:
        return "OnnxEmbedding"

    @property
    def encoder(self) -> OnnxEncoder:
        return self._encoder

    def count_tokens(self, texts: list[str]) -> list[int]:
        # A second, untruncated tokenizer: chunking must see what would be cut, and toggling
        # truncation on the shared one would race with embedding on another thread.
        return self._counter(texts)

    @property
    def dimension(self) -> int:
        return len(self._encode(["dimension probe"])[0])

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """While inside, inputs of BULK_TEXTS texts or more after the first are embedded by a
        worker process (rag.embedding.onnx_worker: the same vectors), so Chroma writes on
        another thread of this process no longer stop the model. The first such input is
        embedded here while the worker starts (nothing is written yet then)."""
        self._bulk = True
        try:
            yield
        finally:
            self._bulk = False
            with self._worker_lock:
                if self._worker is not None:
                    self._worker.close()
                    self._worker = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._bulk and len(texts) >= BULK_TEXTS:
            with self._worker_lock:
                if self._worker is None:
                    try:
                        self._worker = EncoderProcess(*self._worker_args)
                    except OSError as exc:  # cannot start a process: no worse than before
                        log.warning("no embedding worker (%r); embedding in this process", exc)
                        self._bulk = False
                    return self._encoder.encode(texts)
                try:
                    return self._worker.encode(texts)
                except WorkerError as exc:
                    log.warning("%s; embedding in this process instead", exc)
                    self._bulk = False  # no second worker for this bulk
        return self._encoder.encode(texts)

    def clear_query_cache(self) -> None:
        self._query_cache.clear()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._query_cache.get_or_compute(query, lambda q: self._encode([q])[0].tolist())

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)
