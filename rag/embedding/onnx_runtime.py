"""all-MiniLM-L6-v2 on ONNX Runtime, exported and int8-quantised locally from the bundled weights.

Why: on a 2-core CPU, PyTorch embeds ~40 abstracts/s; ONNX Runtime with dynamic int8
quantisation is several times faster and needs no torch at all: the graph is written
straight from the safetensors weights (rag.embedding.onnx_graph; torch.onnx.export took
35-110 s and torch + transformers ~100 s of install). The export and quantisation run once
(a few seconds) into `model_cache_dir/onnx/`, keyed by a hash of the model files, and are
reused by every later process. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from rag.embedding.lru import LRUCache, query_cache

log = logging.getLogger(__name__)
MAX_LENGTH = 256  # the model's trained window; longer inputs are truncated, as in torch
WHOLE_INPUT = 2048
# v3: written by onnx_graph without torch (the same int8 vectors as v2's torch export of
# "eager" attention, softmax(QKᵀ + mask), without the SDPA path's IsNaN/Where ops).
# Bump when the export's vectors change: a new directory, so nothing stale is reused (and
# the embedding cache, keyed by it, starts afresh). The graph written from the weights gives
# the earlier torch export's vectors bit for bit, so that export's "v2" stands.
EXPORT = "v2"
# Each text is run alone (a batch of one) unless asked otherwise. The int8 graph quantises
# its activations with one scale per run, so a text batched with others got a vector that
# depended on its neighbours (median cosine .9955 between batchings) and the shipped
# vectors had to be made in ingest's own batches; alone, a text's vector is its own, as a
# query's always was, and a little closer to fp32 (median cosine .99478 against .99439 for
# batches of 32, 400 chunks). It is also the fastest: no padding, and small activations
# that stay in cache while two runs share the cores. 2,400 chunks on 2 cores: 24.0-24.6 s
# in batches of 32, 20.0 s alone; 600 abstract sentences: 1.55 -> 1.29-1.34 s.
SINGLE_TEXT_RUNS = 1


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
    # or whole tensors moved vectors to cosine ~0.93 of fp32; this keeps ~0.995.
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


def _encode_batch(tokenizer: Any, texts: list[str]) -> list[Any]:
    try:
        return list(tokenizer.encode_batch(texts))
    except TypeError:
        # A lone surrogate (legal in a JSON "\ud800" escape) is not UTF-8 and the Rust
        # tokenizer refuses the whole batch: read it as U+FFFD, as any UTF-8 decoder would.
        return list(tokenizer.encode_batch([t.encode("utf-8", "replace").decode() for t in texts]))


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
    return lambda texts: [len(e.ids) for e in _encode_batch(tokenizer, texts)]


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity call on this platform
        return os.cpu_count() or 1


class OnnxEmbedding(BaseEmbedding):
    """A llama-index embedding backed by an ONNX Runtime session (mean pooling, L2 norm)."""

    _session: Any = PrivateAttr()
    _tokenizer: Any = PrivateAttr()
    _counter: Any = PrivateAttr()
    _query_cache: LRUCache[str, list[float]] = PrivateAttr(default_factory=query_cache)
    _needs_token_types: bool = PrivateAttr(default=True)
    _batch: int = PrivateAttr(default=1)
    _streams: int = PrivateAttr(default=1)
    _pool: ThreadPoolExecutor | None = PrivateAttr(default=None)
    _pool_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self,
        model_dir: Path,
        onnx_path: Path,
        threads: int = 0,
        embed_batch_size: int = SINGLE_TEXT_RUNS,
    ) -> None:
        # llama-index slices what it hands `_get_text_embeddings` by `embed_batch_size`;
        # give it whole slices so `_encode` spreads them over the streams, longest first.
        # One text per run by default (SINGLE_TEXT_RUNS), not batches of `embed_batch_size`.
        super().__init__(model_name=str(model_dir), embed_batch_size=WHOLE_INPUT)
        self._batch = embed_batch_size
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        # One thread per run, and `threads` runs side by side (the session is thread-safe
        # and releases the GIL): ONNX Runtime's intra-op threads meet at every op, ~150 per
        # run, and two runs of one thread embedded ~8 % more texts/s on 2 cores, the same
        # vectors to the bit. A single text (a query) costs the same either way.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._streams = threads or usable_cpus()
        self._session = ort.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self._needs_token_types = any(
            i.name == "token_type_ids" for i in self._session.get_inputs()
        )
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_LENGTH)
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._counter = word_piece_tokenizer(model_dir)

    @classmethod
    def class_name(cls) -> str:
        return "OnnxEmbedding"

    def count_tokens(self, texts: list[str]) -> list[int]:
        # A second, untruncated tokenizer: chunking must see what would be cut, and toggling
        # truncation on the shared one would race with embedding on another thread.
        return [len(e.ids) for e in _encode_batch(self._counter, texts)]

    @property
    def dimension(self) -> int:
        return len(self._encode(["dimension probe"])[0])

    def _run(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._needs_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encodings = _encode_batch(self._tokenizer, texts)
        # Sorted by length: a batch of several texts pads to similar widths.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        # At least one batch per stream, so a few texts (an answer's sentences) use them all.
        size = max(1, min(self._batch, -(-len(order) // self._streams)))
        batches = [order[start : start + size] for start in range(0, len(order), size)]
        # Longest first: the streams take batches in turn, and the last ones are the
        # shortest, so neither stream idles long while the other finishes.
        batches.reverse()
        vectors = self._map(lambda batch: self._run([encodings[i] for i in batch]), batches)
        out = np.empty((len(texts), vectors[0].shape[1]), dtype=np.float32)
        for batch, part in zip(batches, vectors, strict=True):
            out[batch] = part
        return out

    def _map(
        self, run: Callable[[list[int]], np.ndarray], batches: list[list[int]]
    ) -> list[np.ndarray]:
        """`run` over the batches, `_streams` at a time (in order when one would do)."""
        if self._streams < 2 or len(batches) < 2:
            return [run(batch) for batch in batches]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._streams, thread_name_prefix="onnx-run")
        return list(self._pool.map(run, batches))

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
