"""The bench's order of work: sections in sequence, results written after each one.

ingest builds the stores the later sections use (or `--store` names a built data dir);
latency, scale, start-up, set answers and replicas measure them. bench/results.json and
BENCHMARKS.md are rewritten after every section, so a long run that stops keeps what it
measured; with `merge`, sections not run now keep their earlier results (scale rows by
kind and size), and each section records the machine and commit it was measured on.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from eval.bench.machine import describe_machine, load_average
from eval.bench.procs import BenchError
from eval.bench.ui import UI_BASELINE_REF

SECTIONS = ("ingest", "latency", "scale", "startup", "sets", "replicas", "ui")
RAG_SETTINGS_SHOWN = (
    "embed_backend",
    "embed_model",
    "embed_runtime",
    "embed_batch_size",
    "embed_threads",
    "chunk_max_tokens",
    "chunk_overlap_sentences",
    "retrieval_mode",
    "top_k",
    "candidate_chunks",
    "abstain_threshold",
    "answer_max_sentences",
)


@dataclass
class BenchConfig:
    corpus: Path
    out_dir: Path
    markdown: Path
    scitldr_dir: Path
    corpus_limit: int | None = None
    repeats: int = 1
    queries: int = 300
    warmup: int = 10
    scales: list[int] = field(default_factory=lambda: [1, 10])
    scale_backends: list[str] = field(default_factory=lambda: ["embedded", "server"])
    scale_queries: int = 100
    # 20: at 100x the first ~15 questions after an open meet cold pages and caches (bm25
    # 20-180 ms, then ~10); they are timed and reported apart (the warm-up line).
    scale_warmup: int = 20
    startup_repeats: int = 3
    set_questions: int | None = None  # per kind; None: every dev + fixed question
    set_rounds: int = 3
    set_warmup_rounds: int = 1
    baseline_warm: bool = True
    replica_rounds: int = 3  # freshness rounds, one new paper each
    replica_clients: int = 20
    replica_load_s: float = 20.0  # one replica SIGKILLed halfway
    ui_questions: int = 20  # besides the fixed set questions (eval/bench/ui.py)
    ui_baseline_ref: str = UI_BASELINE_REF
    sections: list[str] = field(default_factory=lambda: list(SECTIONS))
    store: Path | None = None
    work: Path | None = None
    merge: bool = False
    smoke: bool = False
    timeout_s: float = 3 * 3600
    sigma: float = 0.015
    swap_rate: float = 0.15
    seed: int = 7

    def describe(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def _limited_corpus(corpus: Path, limit: int, target: Path) -> Path:
    if corpus.suffix != ".jsonl":
        raise BenchError(f"--corpus-limit needs a JSONL corpus, not {corpus}")
    lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    target.write_text("\n".join(lines[:limit]) + "\n", encoding="utf-8")
    return target


def _machine_stamp(machine: dict[str, Any]) -> dict[str, Any]:
    return {k: machine.get(k) for k in ("cores", "cpu_model", "git_commit")}


def _stamp_earlier_sections(results: dict[str, Any]) -> None:
    """Sections measured before sections carried their own machine were described by the
    header alone; a merged run replaces the header, so they keep the one they had."""
    for name in SECTIONS:
        measured = results.get(name, {}).get("measured")
        if isinstance(measured, dict) and "machine" not in measured:
            measured["machine"] = _machine_stamp(results["machine"])


class Bench:
    def __init__(self, cfg: BenchConfig) -> None:
        self.cfg = cfg
        self.rag_overrides: dict[str, Any] = {"backend": "extractive"}
        path = cfg.out_dir / "results.json"
        self.results: dict[str, Any] = (
            json.loads(path.read_text()) if cfg.merge and path.exists() else {}
        )

    def save(self) -> None:
        from eval.bench.report import write_report

        self.cfg.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.cfg.out_dir / "results.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.results, indent=1, ensure_ascii=False) + "\n")
        tmp.replace(path)
        write_report(self.results, self.cfg.markdown, self.cfg.out_dir / "scale.png")

    def _section(self, name: str, body: dict[str, Any], started: float, load: Any) -> None:
        body["measured"] = {
            "finished": datetime.now().isoformat(timespec="seconds"),
            "seconds": round(time.perf_counter() - started, 1),
            "load_average_before": load,
            "load_average_after": load_average(),
            "machine": _machine_stamp(self.results["machine"]),
        }
        self.results[name] = body
        self.save()

    def run(self) -> dict[str, Any]:
        from eval.run import build_settings

        cfg = self.cfg
        unknown = [s for s in cfg.sections if s not in SECTIONS]
        if unknown:
            raise BenchError(f"--sections: {', '.join(unknown)} not in {', '.join(SECTIONS)}")
        if "machine" in self.results:  # merging: the header is about to describe this run
            _stamp_earlier_sections(self.results)
        self.results["machine"] = describe_machine()
        self.results.setdefault("runs", []).append(
            {
                "started": self.results["machine"]["started"],
                "git_commit": self.results["machine"]["git_commit"],
                "config": cfg.describe(),
            }
        )
        rag_settings = build_settings(**self.rag_overrides)
        self.results["settings"] = {
            "bench": cfg.describe(),
            "rag": rag_settings.model_dump(include=set(RAG_SETTINGS_SHOWN), mode="json"),
            "embedding_id": rag_settings.embedding_id(),
            "answer_backend": "extractive",
        }
        work = cfg.work or Path(tempfile.mkdtemp(prefix="rag-bench-"))
        work.mkdir(parents=True, exist_ok=True)
        try:
            self._run_sections(work)
        finally:
            if cfg.work is None:
                shutil.rmtree(work, ignore_errors=True)
        return self.results

    def _stores(self, work: Path) -> tuple[Path, Path | None]:
        """The stores later sections measure: this run's ingest, or a copy of --store.

        Every process of the bench uses a private model cache (rag_overrides), so no
        measurement finds texts embedded before the run, and the bench leaves the
        machine's own embedding cache as it was.
        """
        from eval.bench.ingest import measure_ingest, seed_model_cache
        from eval.run import build_settings

        cfg = self.cfg
        machine_cache = build_settings(**self.rag_overrides).model_cache_dir
        corpus = cfg.corpus
        if cfg.corpus_limit:
            corpus = _limited_corpus(corpus, cfg.corpus_limit, work / "corpus.jsonl")
        if "ingest" in cfg.sections:
            started, load = time.perf_counter(), load_average()
            section, ours, model_cache, baseline = measure_ingest(
                corpus,
                work / "ingest",
                cfg.repeats,
                self.rag_overrides,
                machine_cache,
                cfg.timeout_s,
                log,
                baseline_warm=cfg.baseline_warm,
            )
            section["corpus"] = str(cfg.corpus) + (
                f" (first {cfg.corpus_limit} records)" if cfg.corpus_limit else ""
            )
            self.rag_overrides["model_cache_dir"] = str(model_cache)
            self._section("ingest", section, started, load)
            return ours, baseline
        if cfg.store is None:
            raise BenchError("without the ingest section, --store must name a built data dir")
        if not (cfg.store / "chroma").exists():
            raise BenchError(f"--store {cfg.store}: no chroma/ directory (not a rag data dir)")
        copy = work / "store"
        shutil.rmtree(copy, ignore_errors=True)  # a kept --work from an earlier run
        shutil.copytree(cfg.store, copy)  # never open someone else's PersistentClient dir
        model_cache = work / "model-cache"
        seed_model_cache(model_cache, machine_cache)
        self.rag_overrides["model_cache_dir"] = str(model_cache)
        return copy, None

    def _run_sections(self, work: Path) -> None:
        cfg = self.cfg
        needs_store = {"latency", "scale", "startup", "sets", "replicas", "ui"} & set(cfg.sections)
        if not needs_store and "ingest" not in cfg.sections:
            return
        store, baseline = self._stores(work)
        if "latency" in cfg.sections:
            started, load = time.perf_counter(), load_average()
            from eval.bench.latency import measure_latency

            body = measure_latency(
                self.rag_overrides, store, baseline, cfg.queries, cfg.warmup, cfg.scitldr_dir, log
            )
            self._section("latency", body, started, load)
        if "scale" in cfg.sections:
            self._scale(store, work)
        if "startup" in cfg.sections:
            started, load = time.perf_counter(), load_average()
            from eval.bench.latency import query_pool
            from eval.bench.startup import measure_startup

            _, questions, _ = query_pool(cfg.startup_repeats, 0, cfg.scitldr_dir)
            body = measure_startup(
                store,
                self.rag_overrides["model_cache_dir"],
                questions,
                cfg.startup_repeats,
                work,
                cfg.timeout_s,
                log,
            )
            self._section("startup", body, started, load)
        if "sets" in cfg.sections:
            started, load = time.perf_counter(), load_average()
            from eval.bench.sets import open_and_measure_sets

            body = open_and_measure_sets(
                self.rag_overrides,
                store,
                cfg.set_questions,
                cfg.set_rounds,
                cfg.set_warmup_rounds,
                log,
            )
            self._section("sets", body, started, load)
        if "replicas" in cfg.sections:
            self._replicas(store, work)
        if "ui" in cfg.sections:
            started, load = time.perf_counter(), load_average()
            from eval.bench.latency import query_pool
            from eval.bench.ui import measure_ui

            _, questions, _ = (
                query_pool(cfg.ui_questions, 0, cfg.scitldr_dir)
                if cfg.ui_questions
                else ([], [], {})
            )
            body = measure_ui(
                store,
                self.rag_overrides["model_cache_dir"],
                questions[: cfg.ui_questions],
                cfg.ui_baseline_ref,
                work,
                cfg.timeout_s,
                log,
            )
            self._section("ui", body, started, load)

    def _replicas(self, store: Path, work: Path) -> None:
        from eval.bench.latency import query_pool
        from eval.bench.replicas import measure_replicas

        cfg = self.cfg
        started, load = time.perf_counter(), load_average()
        _, questions, _ = query_pool(100, 0, cfg.scitldr_dir)
        body = measure_replicas(
            self.rag_overrides,
            store,
            questions,
            cfg.replica_rounds,
            cfg.replica_clients,
            cfg.replica_load_s,
            work / "replicas",
            log,
        )
        self._section("replicas", body, started, load)

    def _scale(self, store_dir: Path, work: Path) -> None:
        from eval.bench.latency import query_pool
        from eval.bench.scale import measure_scale
        from eval.bench.synth import export_source
        from eval.run import build_settings
        from rag import PaperStore

        cfg = self.cfg
        started, load = time.perf_counter(), load_average()
        store = PaperStore(build_settings(**self.rag_overrides, data_dir=store_dir))
        source = work / "scale-source"
        exported = export_source(store, source)
        warm, questions, sources = query_pool(cfg.scale_queries, cfg.scale_warmup, cfg.scitldr_dir)
        previous = self.results.get("scale", {}).get("rows", []) if cfg.merge else []
        fresh = {(b, s) for b in cfg.scale_backends for s in cfg.scales}
        rows = [r for r in previous if (r["backend"], r["scale"]) not in fresh]
        body: dict[str, Any] = {
            "source": exported,
            "questions": len(questions),
            "warmup_questions": len(warm),
            "question_sources": sources,
            "synthetic": {"sigma": cfg.sigma, "swap_rate": cfg.swap_rate, "seed": cfg.seed},
            "rows": rows,
            "notes": [
                "copy 0 is the real store; copies 1..N-1 are every paper again under a new id, "
                "sentences shuffled, a share of words swapped for words of other chunks, "
                "vectors + N(0, sigma) noise renormalised (mean cosine to the real vector "
                "in each row)",
                "build_s: writing the copies through rag's PaperStore (ChromaVectorStore.add "
                "+ paper records); lexical_sync_s: the store's lexical index synced from "
                "Chroma in the query process first (as `rag ingest` does; nothing to do for a "
                "reused store; an index file of an older layout files its catalogue tables "
                "there too); open_s: Assistant.from_settings after that (the catalogue and "
                "its look-ups answer from the index file: nothing read whole)",
                "latency: Assistant.retrieve per mode, query-embedding cache emptied per call",
                "memory: the query process's peak (VmHWM) and resident size after the queries; "
                "server_rss_mb: the `chroma run` process after the queries",
            ],
        }

        def on_row(row: dict[str, Any]) -> None:
            body["rows"] = sorted([*body["rows"], row], key=lambda r: (r["backend"], r["scale"]))
            self._section("scale", body, started, load)

        measure_scale(
            self.rag_overrides,
            source,
            cfg.scales,
            cfg.scale_backends,
            questions,
            warm,
            work / "scale",
            {"sigma": cfg.sigma, "swap_rate": cfg.swap_rate, "seed": cfg.seed},
            cfg.timeout_s,
            log,
            on_row,
            keep=cfg.work is not None,  # --work keeps the scale stores and reuses their builds
        )
