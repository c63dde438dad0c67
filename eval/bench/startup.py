"""Section 4: `rag serve` from launch to /healthz and to the first answered /v1/ask.

Each run launches the real command (`rag serve`, which execs `python -m ui`) as a new
process over a private copy of the store this bench built, polls /healthz every 50 ms
until it answers, then sends one /v1/ask and waits for its answer. The serving
process's resident memory is read (psutil) after that first answer.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from eval.bench.procs import BenchError, bench_env, free_port, rss_mb, running_server
from eval.bench.samples import median_of


def serve_command(port: int) -> list[str]:
    exe = Path(sys.executable).parent / "rag"
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "rag.cli"]
    return [*base, "serve", "--host", "127.0.0.1", "--port", str(port)]


def one_start(
    data_dir: Path, model_cache: str, question: str, log_path: Path, timeout_s: float
) -> dict[str, Any]:
    port = free_port()
    env = bench_env(
        RAG_DATA_DIR=str(data_dir), RAG_MODEL_CACHE_DIR=model_cache, RAG_BACKEND="extractive"
    )
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    try:
        server = running_server(serve_command(port), f"{base}/healthz", log_path, timeout_s, env)
        with server as proc:
            healthz_s = time.perf_counter() - started
            ask_started = time.perf_counter()
            reply = httpx.post(f"{base}/v1/ask", json={"question": question}, timeout=timeout_s)
            answered = time.perf_counter()
            rss = rss_mb(proc.pid)
    except BenchError as exc:
        raise BenchError(f"rag serve: {exc}") from exc
    if reply.status_code != 200:
        raise BenchError(f"rag serve: /v1/ask answered {reply.status_code}: {reply.text[:500]}")
    return {
        "healthz_s": round(healthz_s, 3),
        "first_answer_s": round(answered - started, 3),
        "first_ask_ms": round((answered - ask_started) * 1000, 1),
        "rss_after_first_answer_mb": rss,
        "abstained": bool(reply.json().get("abstained")),
    }


def measure_startup(
    store_dir: Path,
    model_cache: str,
    questions: list[str],
    repeats: int,
    work: Path,
    timeout_s: float,
    log: Any,
) -> dict[str, Any]:
    data_dir = work / "serve-store"
    shutil.rmtree(data_dir, ignore_errors=True)
    shutil.copytree(store_dir, data_dir)  # PersistentClient: one process per directory
    bm25_cached = (data_dir / "bm25").exists()
    runs = []
    for r in range(repeats):
        log(f"startup: rag serve {r + 1}/{repeats}")
        question = questions[r % len(questions)]
        runs.append(one_start(data_dir, model_cache, question, work / f"serve-{r}.log", timeout_s))
    shutil.rmtree(data_dir, ignore_errors=True)
    keys = ("healthz_s", "first_answer_s", "first_ask_ms", "rss_after_first_answer_mb")
    return {
        "command": " ".join(serve_command(0)[:-4]),
        "repeats": repeats,
        "bm25_index_was_cached": bm25_cached,
        "runs": runs,
        "median": {k: median_of(runs, k) for k in keys},
        "notes": [
            "from launching `rag serve` (a new process) to /healthz answering 200, and to "
            "the first /v1/ask answered (extractive backend)",
            "the store is a private copy of the one this bench built; its BM25 index was "
            "already persisted by the latency section (as after any earlier start)"
            if bm25_cached
            else "the store had no persisted BM25 index: the first start built it",
            "rss_after_first_answer_mb: resident memory of the serving process (psutil)",
            "the bench's model cache: the exported ONNX model, and every text embedded by the "
            "ingest and latency sections (so the evidence warm-up `rag serve` starts after "
            "ready finds its sentences cached, as on a machine that served before)",
        ],
    }
