"""Section 3: retrieval latency and memory as the store grows to N× the real corpus.

For each store kind (the embedded PersistentClient, a real `chroma run` server) and each
multiple N: a fresh process builds the synthetic store (eval.bench.synth, timed), then
another fresh process syncs the store's lexical index (as `rag ingest` would), opens an
Assistant over it and times dense, bm25 and hybrid retrieval (eval.bench.scale_query).
Each store lives in its own directory, removed after its row is measured unless the bench
runs with `--work` (then a later run reuses a finished build: a 100x store takes most of
an hour to write). The server is started for each store and stopped after it, so its
memory is that store's alone.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from eval.bench.procs import chroma_server, rss_mb, run_child

BACKENDS = ("embedded", "server")
COLLECTION = "bench"


def _disk_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024**2, 1)


def build_inputs(source: Path, scale: int, synth: dict[str, Any]) -> dict[str, Any]:
    """What a kept build must have been made from to be reused: the copies, the synthetic
    settings and the exported source (its files' sizes)."""
    files = {f.name: f.stat().st_size for f in sorted(source.iterdir()) if f.is_file()}
    return {"copies": scale, **synth, "source_files": files}


def _kept_build(cell: Path, keep: bool, inputs: dict[str, Any]) -> dict[str, Any] | None:
    """A finished build of the same inputs from an earlier run, else None (the cell emptied)."""
    built = cell / "build.json"
    if keep and built.exists():
        found: dict[str, Any] = json.loads(built.read_text())
        if found.get("inputs") == inputs:
            return {**found, "reused": True}
    shutil.rmtree(cell, ignore_errors=True)
    cell.mkdir(parents=True)
    return None


def _keep_build(cell: Path, build: dict[str, Any], inputs: dict[str, Any]) -> None:
    stamped = {**build, "inputs": inputs, "built_at": datetime.now().isoformat(timespec="seconds")}
    tmp = cell / "build.json.tmp"
    tmp.write_text(json.dumps(stamped))
    tmp.replace(cell / "build.json")  # a half-written file would stop every later reuse


def _row(backend: str, scale: int, build: dict[str, Any], query: dict[str, Any]) -> dict[str, Any]:
    reused = bool(build.get("reused"))
    return {
        "backend": backend,
        "scale": scale,
        "papers": build["papers"],
        "chunks": build["chunks"],
        "build_s": build["build_s"],
        "build_reused": reused,
        "build_note": f"build reused from an earlier run with --work ({build.get('built_at')}); "
        "its build s is that run's"
        if reused
        else None,
        "build_generate_s": build["generate_s"],
        "build_write_s": build["write_s"],
        "build_wall_s": build["wall_s"],
        "build_peak_rss_mb": build["peak_rss_mb"],
        "mean_cosine_to_real": build["mean_cosine_to_real"],
        "lexical": query.get("lexical"),
        "lexical_sync_s": query.get("lexical_sync_s"),
        "open_s": query["open_s"],
        "query_process_peak_rss_mb": query["peak_rss_mb"],
        "query_process_rss_after_open_mb": query["rss_after_open_mb"],
        "query_process_rss_after_queries_mb": query["rss_after_queries_mb"],
        "latency_ms": query["latency_ms"],
        "warmup_latency_ms": query.get("warmup_latency_ms"),
    }


def measure_cell(
    backend: str,
    scale: int,
    settings: dict[str, Any],
    source: Path,
    questions: list[str],
    warmup: list[str],
    work: Path,
    synth: dict[str, Any],
    timeout_s: float,
    keep: bool = False,
) -> dict[str, Any]:
    """One row. With `keep` the store stays in `work` and a later run reuses a finished
    build of the same inputs (its build.json) instead of writing the store again."""
    cell = work / f"{backend}-{scale}x"
    inputs = build_inputs(source, scale, synth)
    build = _kept_build(cell, keep, inputs)
    overrides = {**settings, "data_dir": str(cell / "data"), "collection": COLLECTION}
    server = (
        chroma_server(cell / "server-db", cell / "server.log")
        if backend == "server"
        else nullcontext(None)
    )
    try:
        with server as info:
            if info is not None:
                overrides.update(chroma_host=info["host"], chroma_port=info["port"])
            if build is None:
                payload = {"source": str(source), "settings": overrides, "copies": scale, **synth}
                build = run_child("scale-build", payload, work / "logs", timeout_s)
                _keep_build(cell, build, inputs)
            query = run_child(
                "scale-query",
                {"settings": overrides, "questions": questions, "warmup": warmup},
                work / "logs",
                timeout_s,
            )
            server_rss = rss_mb(info["pid"]) if info is not None else None
        return {
            **_row(backend, scale, build, query),
            "server_rss_mb": server_rss,
            "disk_mb": _disk_mb(cell),
        }
    finally:
        if not keep:
            shutil.rmtree(cell, ignore_errors=True)


def measure_scale(
    settings: dict[str, Any],
    source: Path,
    scales: list[int],
    backends: list[str],
    questions: list[str],
    warmup: list[str],
    work: Path,
    synth: dict[str, Any],
    timeout_s: float,
    log: Callable[[str], None],
    on_row: Callable[[dict[str, Any]], None],
    keep: bool = False,
) -> list[dict[str, Any]]:
    rows = []
    for backend in backends:
        for scale in scales:
            log(f"scale: {backend} {scale}x: building and querying")
            row = measure_cell(
                backend, scale, settings, source, questions, warmup, work, synth, timeout_s, keep
            )
            log(
                f"scale: {backend} {scale}x: {row['chunks']:,} chunks, build {row['build_s']} s, "
                f"hybrid p95 {row['latency_ms']['hybrid']['p95']} ms"
            )
            rows.append(row)
            on_row(row)
    return rows
