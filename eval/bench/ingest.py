"""Section 1: ingest of a corpus, cold (empty store) and warm (unchanged re-run).

Ours is `rag.ingestion` exactly as `rag ingest` calls it; the baseline is
eval.bench.baseline_ingest. Every run is a fresh process (eval.bench.procs.run_child):
its wall time includes imports and model load, as a user waits for them, and its peak
memory is the process's own. The stores of the last repeat are kept for the later
sections (latency and start-up measure the store this run built).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from eval.bench.baseline_ingest import write_documents
from eval.bench.procs import run_child
from eval.bench.samples import median_of, ratio

MEDIAN_KEYS = (
    "wall_s",
    "ingest_s",
    "imports_s",
    "peak_rss_mb",
    "papers_per_s",
    "chunks_per_s",
    "papers",
    "chunks",
    "embedded_chunks",
)


def run_our_ingest(payload: dict[str, Any], process_started: float) -> dict[str, Any]:
    """Child side: rag.ingestion over the corpus into the payload's settings."""
    from eval.run import build_settings
    from rag import ingest

    imports_s = time.perf_counter() - process_started
    settings = build_settings(**payload["settings"])
    report = ingest(settings, [Path(payload["corpus"])])
    return {
        "imports_s": round(imports_s, 3),
        "ingest_s": round(report.seconds, 3),
        "papers": report.papers,
        "chunks": report.chunks,
        "new": report.new,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "skipped": report.skipped,
        "embedded_chunks": report.embedded_chunks,
        "in_process_s": round(time.perf_counter() - process_started, 3),
    }


def _rates(run: dict[str, Any]) -> dict[str, Any]:
    """Throughput over the process's wall time (what a user waits for)."""
    wall = run["wall_s"]
    run["papers_per_s"] = round(run["papers"] / wall, 2) if wall else None
    run["chunks_per_s"] = round(run["embedded_chunks"] / wall, 2) if wall else None
    return run


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"runs": runs, "median": {k: median_of(runs, k) for k in MEDIAN_KEYS}}


def seed_model_cache(target: Path, machine_cache: Path) -> bool:
    """A private model cache: the machine's exported ONNX models (hard links), no
    embeddings. True if there was an export to reuse (else the first run exports)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    exported = machine_cache / "onnx"
    if not exported.is_dir():
        return False

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:  # another file system: a copy does as well
            shutil.copy2(src, dst)

    shutil.copytree(exported, target / "onnx", copy_function=link)
    return True


class Phases:
    """Runs of one pipeline, by phase; every run a fresh process."""

    def __init__(self, task: str, work: Path, timeout_s: float, log: Any) -> None:
        self.task, self.work, self.timeout_s, self.log = task, work, timeout_s, log
        self.runs: dict[str, list[dict[str, Any]]] = {}

    def run(self, phase: str, payload: dict[str, Any], fresh_dir: Path | None = None) -> None:
        if fresh_dir is not None:
            shutil.rmtree(fresh_dir, ignore_errors=True)
        self.log(f"ingest: {self.task} {phase}")
        result = _rates(run_child(self.task, payload, self.work, self.timeout_s))
        self.runs.setdefault(phase, []).append(result)

    def summary(self, *phases: str) -> dict[str, Any]:
        return {p: _summary(self.runs.get(p, [])) for p in phases}


def measure_ingest(
    corpus: Path,
    work: Path,
    repeats: int,
    settings: dict[str, Any],
    machine_model_cache: Path,
    timeout_s: float,
    log: Any,
    baseline_warm: bool = True,
) -> tuple[dict[str, Any], Path, Path, Path]:
    """Returns (section, our built data dir, its model cache, the baseline's data dir)."""
    from rag import load_corpus

    loaded = load_corpus([corpus])
    if loaded.issues:
        log(
            f"ingest: {len(loaded.issues)} record(s) of {corpus} fail to load; first: "
            f"{loaded.issues[0]}"
        )
    ours_dir, base_dir = work / "ours", work / "baseline"
    documents = work / "baseline-documents.jsonl"
    write_documents(loaded.papers, documents)
    ours = Phases("ingest", work / "logs", timeout_s, log)
    base = Phases("baseline-ingest", work / "logs", timeout_s, log)
    seeded = True
    for r in range(repeats):
        log(f"ingest: repeat {r + 1}/{repeats}")
        cache = work / f"model-cache-{r}"
        seeded = seed_model_cache(cache, machine_model_cache) and seeded
        ours_settings = {**settings, "data_dir": str(ours_dir), "model_cache_dir": str(cache)}
        payload = {"settings": ours_settings, "corpus": str(corpus)}
        ours.run("cold", payload, fresh_dir=ours_dir)
        ours.run("warm", payload)
        rebuild_dir = work / "ours-rebuild"
        rebuild = {
            "settings": {**ours_settings, "data_dir": str(rebuild_dir)},
            "corpus": str(corpus),
        }
        ours.run("cold_store_warm_cache", rebuild, fresh_dir=rebuild_dir)
        shutil.rmtree(rebuild_dir, ignore_errors=True)
        # Any other corpus has no shipped vectors: every chunk goes through the model.
        embed_dir, embed_cache = work / "ours-embed-all", work / f"model-cache-embed-{r}"
        seed_model_cache(embed_cache, machine_model_cache)
        every_chunk = {
            **ours_settings,
            "data_dir": str(embed_dir),
            "model_cache_dir": str(embed_cache),
            "shipped_vectors": False,
        }
        ours.run("cold_embed_all", {"settings": every_chunk, "corpus": str(corpus)}, embed_dir)
        shutil.rmtree(embed_dir, ignore_errors=True)
        shutil.rmtree(embed_cache, ignore_errors=True)
        base_payload = {"documents": str(documents), "data_dir": str(base_dir)}
        base.run("cold", base_payload, fresh_dir=base_dir)
        if baseline_warm:
            base.run("warm", base_payload)
    ours_summary = ours.summary("cold", "warm", "cold_store_warm_cache", "cold_embed_all")
    base_summary = base.summary("cold", "warm")
    if not baseline_warm:
        base_summary["warm"]["skipped"] = "not measured in this run (--smoke)"
    ratios = {}
    for phase, base_phase in (("cold", "cold"), ("warm", "warm"), ("cold_embed_all", "cold")):
        o, b = ours_summary[phase]["median"], base_summary[base_phase]["median"]
        ratios[phase] = {k: ratio(o[k], b[k]) for k in ("wall_s", "ingest_s", "peak_rss_mb")}
    section = {
        "corpus": str(corpus),
        "papers_in_corpus": len(loaded.papers),
        "records_failing_to_load": len(loaded.issues),
        "repeats": repeats,
        "onnx_export_reused": seeded,
        "ours": ours_summary,
        "baseline": base_summary,
        "ratios_baseline_over_ours": ratios,
        "notes": [
            "each run is a fresh process; wall_s includes imports and model load",
            "ingest_s: time inside the ingest call (ours: rag.ingestion, model load included; "
            "baseline: HuggingFaceEmbedding load + VectorStoreIndex.from_documents)",
            "peak_rss_mb: the process's own peak resident memory (VmHWM at exit)",
            "cold: empty store in a fresh directory and an empty text-embedding cache (a "
            "private model_cache_dir holding only the exported ONNX model"
            + (", reused from this machine's cache" if seeded else ", exported in the run")
            + "); warm: the same command again, corpus unchanged (the plain pipeline re-embeds "
            "and re-adds everything); cold_store_warm_cache: an empty store with the "
            "embedding cache the cold run filled (a `--rebuild`, or a second store); "
            "cold_embed_all: cold with RAG_SHIPPED_VECTORS=false, every chunk embedded, as "
            "for any corpus that ships no vectors (the bundled one's cold run fills its "
            "embedding cache from data/icml2024.vectors.npz after a 16-text check), its "
            "ratio against the baseline's cold run",
            "chunks_per_s: chunks written in that run over its wall time (0 on our warm "
            "re-run; with the embedding cache filled they come from the cache, not the model)",
        ],
    }
    return section, ours_dir, work / f"model-cache-{repeats - 1}", base_dir
