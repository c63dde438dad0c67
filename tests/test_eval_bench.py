"""`python -m eval bench --smoke`: every section runs end to end on the fixture corpus and
writes results.json (expected keys, sane values), scale.png and the Markdown report.
Not a timed test: no value is compared with a time limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from eval.bench.latency import query_pool
from eval.bench.samples import percentile, ratio, summarise
from eval.bench.sets import SET_KINDS, set_pools
from eval.bench.synth import Varier

ROOT = Path(__file__).resolve().parent.parent
PATHS = ("query_embedding", "dense", "bm25", "hybrid", "answer", "answer_first_sight", "baseline")


def test_percentiles_are_nearest_rank_and_summaries_keep_every_sample() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95
    assert percentile(values, 99) == 99 and percentile([3.0], 99) == 3.0
    summary = summarise([5.0, 1.0, 3.0])
    assert summary["samples"] == [5.0, 1.0, 3.0] and summary["median"] == 3.0
    assert summary["p50"] <= summary["p95"] <= summary["p99"] == summary["max"]
    assert ratio(10.0, 25.0) == 2.5 and ratio(None, 1.0) is None


def test_query_pool_is_distinct_and_keeps_warmup_apart(tmp_path: Path) -> None:
    # A SciTLDR-shaped dev split of our own: the test must not need ../shared. Its first
    # TLDR repeats a dev question (with other case and spacing): it must not count twice.
    from eval.questions import load_questions

    repeated = load_questions(ROOT / "eval" / "datasets" / "dev.jsonl")[0].question
    rows = [{"target": [f"  {repeated.upper()} "]}]
    rows += [{"target": [f"tldr number {i} about topic {i % 7}"]} for i in range(60)]
    (tmp_path / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    team = len(load_questions(ROOT / "eval" / "datasets" / "dev.jsonl"))
    held = len(load_questions(ROOT / "eval" / "datasets" / "test.jsonl"))
    n = team + held + 30  # more than the question files hold: the TLDRs fill the rest
    warm, measured, sources = query_pool(n, 10, tmp_path)
    assert len(measured) == n and len(warm) == 10
    keys = [" ".join(q.lower().split()) for q in warm + measured]
    assert len(set(keys)) == len(keys)  # the repeated dev question is not taken twice
    assert sources["dev.jsonl"] == team and sources["test.jsonl"] == held  # the team's first
    assert sources["scitldr/dev.jsonl (TLDR)"] == 30


def test_synthetic_copies_vary_text_and_keep_vectors_near_and_unit() -> None:
    docs = ["Alpha beta gamma. Delta epsilon zeta. Eta theta iota.", "Kappa lambda mu nu."]
    varier = Varier(docs, seed=3, swap_rate=0.2, sigma=0.015)
    varied = varier.text(docs[0])
    assert varied != docs[0]
    assert len(varied.split()) == len(docs[0].split())
    rng = np.random.default_rng(0)
    real = rng.normal(size=(50, 384)).astype(np.float32)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    noisy = varier.vectors(real)
    assert np.allclose(np.linalg.norm(noisy, axis=1), 1.0, atol=1e-5)
    cosine = np.sum(noisy * real, axis=1)
    assert cosine.min() > 0.9 and cosine.max() < 0.999


def test_set_pools_take_the_dev_split_and_fixed_questions_never_the_test_split() -> None:
    pools, sources = set_pools()
    assert set(pools) == set(SET_KINDS)
    test_split = ROOT / "eval" / "datasets" / "sets_test.jsonl"
    held_out = {json.loads(line)["question"] for line in test_split.read_text().splitlines()}
    every = [q for kind in SET_KINDS for q in pools[kind]]
    assert len(set(every)) == len(every) and not set(every) & held_out
    for kind in SET_KINDS:
        assert sources[kind]["sets_dev.jsonl"] >= 5 and sources[kind]["fixed"] >= 2
        assert sum(sources[kind].values()) == len(pools[kind])
    small, small_sources = set_pools(per_kind=2)
    assert all(small[k] == pools[k][:2] for k in SET_KINDS)
    assert all(sum(small_sources[k].values()) == 2 for k in SET_KINDS)


@pytest.mark.slow
def test_set_answer_section_has_a_row_per_kind_and_the_two_targets(
    store_copy: Path, embed_model: Any
) -> None:
    # The section over the fixture store, one question per kind, one round: the shape of
    # the results and the report, never a time limit (the targets are for the full store).
    from eval.bench.report import sets_lines
    from eval.bench.sets import measure_sets
    from eval.bench.targets import target_rows
    from rag.assistant import Assistant
    from rag.store.chroma import PaperStore
    from tests.support.settings import make_settings

    settings = make_settings(store_copy, backend="extractive")
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    pools, sources = set_pools(per_kind=1)
    body = measure_sets(assistant, pools, rounds=2, warmup_rounds=1, log=lambda _: None)
    body.update(question_sources=sources, assistant_open_ms=1.0)

    assert _positive(body["topic_index_build_ms"]) and body["evidence_warmup"]["done"] is True
    assert body["caches_cleared_per_call"] == {"query_embedding": True, "topic_scan": True}
    assert list(body["kinds"]) == list(SET_KINDS)
    for kind, summary in body["kinds"].items():
        stats = summary["latency_ms"]
        assert summary["questions"] == 1 and stats["n"] == 2 and len(stats["samples"]) == 2
        assert 0 < stats["p50"] <= stats["p95"] <= stats["max"]
        assert 0.0 <= summary["plan_kind_matched"] <= 1.0 and 0.0 <= summary["set_path"] <= 1.0
        assert len(summary["mismatched"]) == (0 if summary["plan_kind_matched"] == 1.0 else 1)
        assert list(summary["per_question_median_ms"]) == pools[kind]

    report = "\n".join(sets_lines(body))
    assert report.startswith("## 5. Set answers") and "Topic index build" in report
    for kind in SET_KINDS:
        assert f"| {kind} | 1 | 2 |" in report
    targets = {row[0]: row for row in target_rows({"sets": body})}
    for kind, limit in (("list", 500.0), ("count", 500.0), ("metadata", 50.0)):
        row = targets[f"{kind} answer p95, ms (set answers)"]
        assert row[1] == limit and row[2] == body["kinds"][kind]["latency_ms"]["p95"]
        assert row[5] in ("yes", "**no**")
    assert targets["complete extractive answer p95 at 1×, ms"][5] == "not measured"


def test_a_merged_run_leaves_earlier_sections_their_own_machine() -> None:
    from eval.bench.run import _stamp_earlier_sections
    from eval.bench.tables import measured_line

    earlier = {"cores": 2, "cpu_model": "AMD EPYC", "git_commit": "24619bc"}
    results: dict[str, Any] = {
        "machine": {**earlier, "ram_gib": 23.5},
        "latency": {"measured": {"finished": "then", "seconds": 1.0}},
        "sets": {"measured": {"machine": {**earlier, "cpu_model": "Xeon"}}},
    }
    _stamp_earlier_sections(results)
    assert results["latency"]["measured"]["machine"] == earlier
    assert results["sets"]["measured"]["machine"]["cpu_model"] == "Xeon"  # its own kept
    assert "on 2 cores, AMD EPYC, commit `24619bc`" in measured_line(results["latency"])


def test_ingest_ratios_repeat_by_repeat_pair_the_runs_of_one_repeat() -> None:
    from eval.bench.report import pair_lines

    def runs(*walls: float) -> dict[str, Any]:
        return {"runs": [{"wall_s": w} for w in walls]}

    base = {"cold": runs(100.0, 150.0)}
    ours = {"cold": runs(20.0, 25.0), "cold_embed_all": runs(50.0, 100.0)}
    # pairs, not medians over medians: 100/50 and 150/100 (the medians would give 1.67)
    assert pair_lines(ours, base) == [
        "Repeat by repeat (baseline cold / ours, wall time): cold 5.00×, 6.00×; "
        "every chunk embedded 2.00×, 1.50×.",
        "",
    ]
    assert pair_lines({"cold": runs(20.0)}, {"cold": runs(100.0)}) == []  # one repeat: none


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and value > 0


@pytest.mark.slow
def test_smoke_run_writes_results_plot_and_report(tmp_path: Path) -> None:
    out, markdown = tmp_path / "bench", tmp_path / "BENCHMARKS.md"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval",
            "bench",
            "--smoke",
            "--out",
            str(out),
            "--markdown",
            str(markdown),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=570,  # under pytest-timeout's 600 s: ~4 min idle, twice that on a busy machine
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())

    machine = results["machine"]
    assert machine["cores"] >= 1 and machine["cpu_model"] and machine["ram_gib"] > 0
    for package in (
        "llama-index-core",
        "chromadb",
        "onnxruntime",
        "torch",
        "sentence-transformers",
    ):
        assert machine["packages"][package]
    assert results["settings"]["rag"]["embed_runtime"]
    assert results["settings"]["bench"]["smoke"] is True

    ingest = results["ingest"]
    ours, base = ingest["ours"], ingest["baseline"]
    for phase in (ours["cold"], ours["warm"], base["cold"]):
        median = phase["median"]
        assert _positive(median["wall_s"]) and _positive(median["peak_rss_mb"])
        assert median["papers"] == 20 and len(phase["runs"]) == 1
    assert ingest["onnx_export_reused"] is True
    rebuild = ours["cold_store_warm_cache"]["median"]
    assert rebuild["embedded_chunks"] == ours["cold"]["median"]["embedded_chunks"] >= 20
    assert ours["warm"]["median"]["embedded_chunks"] == 0  # unchanged re-run embeds nothing
    assert base["cold"]["median"]["embedded_chunks"] >= 20
    assert "skipped" in base["warm"]
    assert ingest["ratios_baseline_over_ours"]["cold"]["wall_s"] > 0

    latency = results["latency"]
    assert len(latency["questions"]) == 4 and len(latency["warmup_questions"]) == 1
    assert not set(latency["questions"]) & set(latency["warmup_questions"])
    assert latency["query_cache_cleared_per_call"] is True
    assert (
        latency["evidence_warmup"]["done"] is True and latency["evidence_warmup"]["sentences"] > 0
    )
    for path in PATHS:
        stats = latency["latency_ms"][path]
        assert stats["n"] == 4 and len(stats["samples"]) == 4
        assert 0 < stats["p50"] <= stats["p95"] <= stats["p99"] == stats["max"]

    rows = {r["scale"]: r for r in results["scale"]["rows"]}
    assert set(rows) == {1, 2} and {r["backend"] for r in rows.values()} == {"embedded"}
    assert rows[1]["chunks"] == results["scale"]["source"]["chunks"]
    assert rows[2]["chunks"] == 2 * rows[1]["chunks"] and rows[2]["papers"] == 2 * rows[1]["papers"]
    assert rows[1]["mean_cosine_to_real"] == 1.0 and 0.8 < rows[2]["mean_cosine_to_real"] < 1.0
    for row in rows.values():
        assert _positive(row["build_s"]) and _positive(row["query_process_peak_rss_mb"])
        assert row["latency_ms"]["hybrid"]["n"] == 2
        assert row["warmup_latency_ms"]["bm25"]["n"] == 1  # timed apart, not counted
        # ~330 MB here: a figure near the bench parent's size (torch loaded, ~900 MB)
        # would mean the parent's memory leaked into the child's peak.
        assert row["query_process_peak_rss_mb"] < 700

    startup = results["startup"]["median"]
    assert 0 < startup["healthz_s"] <= startup["first_answer_s"]
    assert _positive(startup["rss_after_first_answer_mb"])

    sets = results["sets"]
    assert list(sets["kinds"]) == ["metadata", "list", "count", "compare"]
    assert all(k["latency_ms"]["n"] == 2 for k in sets["kinds"].values())  # 2 questions, 1 round

    replicas = results["replicas"]  # 1 freshness round, 5 s of load
    (fresh,) = replicas["freshness"]["rounds"]
    assert set(fresh["exit_to_answer_s"]) == {"a", "b"} and replicas["freshness"]["missed"] == 0
    assert replicas["freshness"]["max_from_commit_s"] >= replicas["freshness"]["max_s"]
    load = replicas["kill_under_load"]
    assert (
        load["total"]["requests"]
        == load["before_kill"]["requests"] + load["after_kill"]["requests"]
    )
    assert load["total"]["ok"] > 0 and load["total"]["errors"] == 0
    assert all(_positive(v) for v in replicas["rss_mb"].values())
    assert replicas["papers_after"] == 21  # the 20 papers and the one ingested

    ui = results["ui"]  # the two fixed questions and one more, in Chromium, both UIs
    assert ui["questions"] == 3 and ui["errors"] == {"ours": 0, "baseline": 0}
    for key in ("first_ms", "complete_ms"):
        assert ui[key]["ours"]["n"] == ui[key]["baseline"]["n"] == 3
        assert _positive(ui[key]["ratio_of_medians"])
    assert all(p["ours"]["first_ms"] <= p["ours"]["complete_ms"] for p in ui["pairs"])

    assert (out / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = markdown.read_text()
    for heading in (
        "## Targets",
        "## 1. Ingest",
        "## 2. Query latency",
        "## 3. Scale",
        "## 4. Start-up",
        "## 5. Set answers",
        "## 6. Replicas",
        "## How to reproduce",
    ):
        assert heading in report
    assert "bench/scale.png" in report
    assert "embedded 2×: the first 1 questions right after the open (warm-up" in report
