"""The exported model run on ONNX Runtime: texts in, L2-normalised mean-pooled vectors out.

No llama-index here (rag.embedding.onnx_runtime adapts it to llama-index's interface): the
embedding worker process (rag.embedding.onnx_worker) runs this module alone, and starts in
well under a second.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

MAX_LENGTH = 256  # the model's trained window; longer inputs are truncated, as in torch
# Each text runs alone unless asked otherwise: the int8 graph scales activations per run,
# so a batched text's vector would depend on its neighbours; alone it is its own, unpadded.
SINGLE_TEXT_RUNS = 1


def encode_batch(tokenizer: Any, texts: list[str]) -> list[Any]:
    try:
        return list(tokenizer.encode_batch(texts))
    except TypeError:
        # A lone surrogate (legal in a JSON "\ud800" escape) is not UTF-8 and the Rust
        # tokenizer refuses the whole batch: read it as U+FFFD, as any UTF-8 decoder would.
        return list(tokenizer.encode_batch([t.encode("utf-8", "replace").decode() for t in texts]))


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity call on this platform
        return os.cpu_count() or 1


class OnnxEncoder:
    """An ONNX Runtime session of the exported model and its truncating tokenizer."""

    def __init__(
        self, model_dir: Path, onnx_path: Path, threads: int = 0, batch: int = SINGLE_TEXT_RUNS
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.batch = batch
        options = ort.SessionOptions()
        # One thread per run, and `threads` runs side by side (the session is thread-safe
        # and releases the GIL): one run's intra-op threads would have to meet at every op.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.streams = threads or usable_cpus()
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
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def run(self, encodings: list[Any]) -> np.ndarray:
        """One model run over these tokenised texts (padded to the longest)."""
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

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encodings = encode_batch(self._tokenizer, texts)
        # Sorted by length: a batch of several texts pads to similar widths.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        # At least one batch per stream, so a few texts (an answer's sentences) use them all.
        size = max(1, min(self.batch, -(-len(order) // self.streams)))
        batches = [order[start : start + size] for start in range(0, len(order), size)]
        # Longest first: the streams take batches in turn, and the last ones are the
        # shortest, so neither stream idles long while the other finishes.
        batches.reverse()
        vectors = self._map(lambda batch: self.run([encodings[i] for i in batch]), batches)
        out = np.empty((len(texts), vectors[0].shape[1]), dtype=np.float32)
        for batch, part in zip(batches, vectors, strict=True):
            out[batch] = part
        return out

    def _map(
        self, run: Callable[[list[int]], np.ndarray], batches: list[list[int]]
    ) -> list[np.ndarray]:
        """`run` over the batches, `streams` at a time (in order when one would do)."""
        if self.streams < 2 or len(batches) < 2:
            return [run(batch) for batch in batches]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.streams, thread_name_prefix="onnx-run")
        return list(self._pool.map(run, batches))
