"""The ONNX model in a child process, for a bulk ingest whose Chroma writes overlap the model.

Why a process: an embedded Chroma write holds the GIL for as long as it runs (its Rust core
does not release it), so in-process the model's runs, which need the GIL between texts,
stop for every write, whatever its size. In a child the model never waits for them.

The child runs `rag.embedding.onnx_encoder` alone (no llama-index, so it starts quickly) with
the same graph, threads and one-text runs as the parent's own encoder, so its vectors are the
parent's to the bit. Frames on its stdin/stdout: a 4-byte length, then a pickle; texts in,
("ok", vectors) or ("error", message) out. Closing its stdin ends it.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

_LENGTH = struct.Struct("<I")
CLOSE_TIMEOUT_S = 10.0


class WorkerError(RuntimeError):
    """The worker process failed or went away (the caller embeds in-process instead)."""


def _send(stream: IO[bytes], payload: Any) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("the stream ended")
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the stream ended inside a frame")
    return pickle.loads(data)


class EncoderProcess:
    """An OnnxEncoder in a child process; `encode` blocks (without the GIL) until it answers."""

    def __init__(self, model_dir: Path, onnx_path: Path, threads: int) -> None:
        # The child imports this very package, wherever the parent found it.
        source = str(Path(__file__).resolve().parents[2])
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                p for p in (source, os.environ.get("PYTHONPATH", "")) if p
            ),
        }
        args = [str(model_dir), str(onnx_path), str(threads)]
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "rag.embedding.onnx_worker", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._busy = False

    def encode(self, texts: list[str]) -> np.ndarray:
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None
        self._busy = True  # until the answer is read (a Ctrl-C in between leaves it set)
        try:
            _send(stdin, texts)
            status, payload = _receive(stdout)
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            raise WorkerError(f"the embedding worker went away ({exc!r})") from exc
        self._busy = False
        if status != "ok":
            raise WorkerError(f"the embedding worker failed: {payload}")
        return np.asarray(payload, dtype=np.float32)

    def close(self) -> None:
        """End the child (it exits when its stdin closes); kill it if it does not, or at
        once if it was still working for a caller that stopped waiting (interrupted: its
        answer would fill the pipe nobody reads)."""
        if self._busy:
            self._proc.kill()
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def serve(model_dir: Path, onnx_path: Path, threads: int) -> int:
    """The child's loop: encode every frame of texts until stdin closes."""
    from rag.embedding.onnx_encoder import OnnxEncoder

    # Ctrl-C in the terminal reaches the whole process group: the parent stops the ingest
    # and closes this child's stdin, which ends it without a second traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Frames only on the real stdout: anything printed goes to stderr instead.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    encoder = OnnxEncoder(model_dir, onnx_path, threads)
    while True:
        try:
            texts = _receive(stdin)
        except EOFError:
            return 0
        try:
            reply: tuple[str, Any] = ("ok", encoder.encode(texts))
        except Exception as exc:  # told to the parent, which embeds in-process instead
            reply = ("error", repr(exc))
        _send(out, reply)


if __name__ == "__main__":
    model, graph, streams = sys.argv[1:4]
    sys.exit(serve(Path(model), Path(graph), int(streams)))
