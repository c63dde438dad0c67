"""The harness end to end on the fixture corpus: files, keys, baseline, CLI."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from eval.metrics import LATENCY_KEYS, METRIC_KEYS
from eval.run import run_eval

QUESTIONS = [
    {
        "id": "fx-1",
        "question": "Why do learning rules that send error signals backward through fixed "
        "random matrices still end up following the true gradient?",
        "gold_ids": ["qklMNNub0H"],
        "answerable": True,
        "category": "paraphrase",
        "key_facts": ["conservation law", "alignment dominance"],
    },
    {
        "id": "fx-2",
        "question": "How many bits per weight does BiLLM use to quantize LLMs?",
        "gold_ids": ["qOl2WWOqFg"],
        "answerable": True,
        "category": "numeric",
        "key_facts": ["1.08-bit"],
    },
    {
        "id": "fx-3",
        "question": "How many APIs from Rapid API does AnyTool use?",
        "gold_ids": ["qFILbkTQWw"],
        "answerable": True,
        "category": "numeric",
        "key_facts": ["16,000"],
    },
    {
        "id": "fx-4",
        "question": "How long should sourdough bread dough rise before baking?",
        "gold_ids": [],
        "answerable": False,
        "category": "unanswerable",
    },
    {
        "id": "fx-5",
        "question": "Which paper studies graph neural network explainers under attack?",
        "gold_ids": ["qIOSNyPPwB", "NOTINSTORE"],
        "answerable": True,
        "category": "multi",
    },
]
BLOCK_KEYS = {*METRIC_KEYS, "latency_ms", "ci95"}


def write_questions(path: Path) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return path


def check_block(block: dict[str, Any]) -> None:
    assert set(block) == BLOCK_KEYS
    assert set(block["latency_ms"]) == set(LATENCY_KEYS)
    for key in METRIC_KEYS:
        assert block[key] is None or 0.0 <= block[key] <= 1.0, key


@pytest.mark.slow
def test_compare_run_writes_every_output(
    assistant: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        summary = run_eval(
            assistant.settings,
            write_questions(tmp_path / "q.jsonl"),
            ["dense", "bm25", "hybrid"],
            out,
            assistant=assistant,
        )
    assert "NOTINSTORE" in caplog.text  # unknown gold ids are warned about, by name

    for name in ("results.jsonl", "summary.json", "report.md", "metrics.png", "latency.png"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "metrics.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "summary.json").read_text()) == summary

    assert {"n", "config", "overall", "by_category", "configs"} == set(summary)
    assert summary["n"] == len(QUESTIONS)
    assert summary["config"]["name"] == "hybrid"  # the configured default mode is primary
    assert summary["config"]["query_cache_cleared_per_call"] is True
    assert set(summary["configs"]) == {"dense", "bm25", "hybrid", "baseline"}
    for block in summary["configs"].values():
        assert set(block) == {"n", "config", "overall", "by_category"}
        check_block(block["overall"])
        assert set(block["by_category"]) == {"paraphrase", "numeric", "unanswerable", "multi"}
        for category in block["by_category"].values():
            check_block(category)

    hybrid = summary["configs"]["hybrid"]["overall"]
    assert hybrid["citation_validity"] == 1.0
    assert hybrid["recall@10"] is not None and hybrid["recall@10"] >= 0.75
    baseline = summary["configs"]["baseline"]
    assert baseline["config"]["similarity_top_k"] == 10
    assert baseline["overall"]["recall@10"] is not None
    assert all(baseline["overall"][k] is None for k in METRIC_KEYS[5:])
    assert baseline["overall"]["latency_ms"]["answer_p50"] is None
    assert baseline["overall"]["latency_ms"]["retrieve_p50"] > 0
    # Unanswerable questions never count toward retrieval metrics.
    assert summary["configs"]["dense"]["by_category"]["unanswerable"]["recall@10"] is None

    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(QUESTIONS) * 4
    by = {(r["config"], r["id"]): r for r in rows}
    feedback = by[("hybrid", "fx-1")]
    assert "qklMNNub0H" in feedback["retrieved_ids"]
    assert len(feedback["retrieved_ids"]) == 10
    assert feedback["latency_ms"]["answer"] >= feedback["latency_ms"]["retrieve"] > 0
    assert by[("hybrid", "fx-5")]["metrics"]["recall@10"] == 0.5  # NOTINSTORE is unreachable
    assert len(by[("baseline", "fx-1")]["chunk_paper_ids"]) == 10

    report = (out / "report.md").read_text()
    assert "## Overall" in report and "## By category: bm25" in report
    assert "NOTINSTORE" in report  # listed among the missed gold


@pytest.mark.slow
def test_cli_single_mode_without_baseline(
    store_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from eval.__main__ import main

    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    monkeypatch.setenv("RAG_BACKEND", "extractive")
    questions = write_questions(tmp_path / "q.jsonl")
    code = main(["run", "--questions", str(questions), "--mode", "bm25", "--no-baseline"])
    assert code == 0 or pytest.fail(capsys.readouterr().err)
    # default --out is eval/out/<timestamp> relative to the working directory
    written = list((tmp_path / "eval" / "out").iterdir())
    assert len(written) == 1
    summary = json.loads((written[0] / "summary.json").read_text())
    assert set(summary) == {"n", "config", "overall", "by_category"}
    assert summary["config"]["mode"] == "bm25"
    assert summary["config"]["judge"].startswith("skipped")
    printed = capsys.readouterr().out
    assert "R@10" in printed and "bm25" in printed
