"""Run outputs: results.jsonl, summary.json, report.md, PNG plots, the printed table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.metrics import LATENCY_KEYS, METRIC_KEYS, aggregate
from eval.questions import Question

JUDGE_KEYS = ("judge_faithfulness", "judge_correctness")
TABLE_COLUMNS = (
    ("R@1", "recall@1"),
    ("R@5", "recall@5"),
    ("R@10", "recall@10"),
    ("MRR", "mrr@10"),
    ("nDCG", "ndcg@10"),
    ("cite-ok", "citation_validity"),
    ("cite-P", "cited_precision"),
    ("cite-R", "cited_recall"),
    ("sent-cit", "sentence_citation_rate"),
    ("facts", "key_fact_coverage"),
    ("abst-acc", "abstention_accuracy"),
    ("false-abst", "false_abstention_rate"),
    ("false-gap", "false_gap_rate"),
    ("byline", "byline_coverage"),
)


def _keys(records: dict[str, list[dict[str, Any]]]) -> tuple[str, ...]:
    judged = any("verdicts" in r for rows in records.values() for r in rows)
    return METRIC_KEYS + (JUDGE_KEYS if judged else ())


def summarise_config(
    rows: list[dict[str, Any]], config: dict[str, Any], keys: Sequence[str]
) -> dict[str, Any]:
    categories = sorted({r["category"] for r in rows})
    return {
        "n": len(rows),
        "config": config,
        "overall": aggregate(rows, keys),
        "by_category": {
            c: aggregate([r for r in rows if r["category"] == c], keys) for c in categories
        },
    }


def build_summary(
    questions: Sequence[Question],
    records: dict[str, list[dict[str, Any]]],
    run_config: dict[str, Any],
    config_meta: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The primary configuration in the documented shape; every one under "configs"."""
    keys = _keys(records)
    per_config = {
        name: summarise_config(rows, {**run_config, **config_meta[name]}, keys)
        for name, rows in records.items()
    }
    primary = run_config["primary"]
    summary: dict[str, Any] = {
        "n": len(questions),
        "config": per_config[primary]["config"],
        "overall": per_config[primary]["overall"],
        "by_category": per_config[primary]["by_category"],
    }
    if len(per_config) > 1:
        summary["configs"] = per_config
    return summary


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def format_table(summary: dict[str, Any]) -> str:
    """The compact overall table printed at the end of a run (one row per config)."""
    configs = summary.get("configs") or {summary["config"]["name"]: summary}
    head = ["config", *(label for label, _ in TABLE_COLUMNS), "ret-p50", "ans-p50"]
    lines = [head]
    for name, block in configs.items():
        overall = block["overall"]
        latency = overall["latency_ms"]
        lines.append(
            [
                name,
                *(_fmt(overall.get(key)) for _, key in TABLE_COLUMNS),
                _fmt(latency.get("retrieve_p50"), 0),
                _fmt(latency.get("answer_p50"), 0),
            ]
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(
            cell.rjust(w) if i else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in lines
    )


def _cell(block: dict[str, Any], key: str) -> str:
    value = block.get(key)
    interval = block.get("ci95", {}).get(key)
    if value is None:
        return "–"
    return f"{value:.3f} [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else f"{value:.3f}"


def _latency_cell(block: dict[str, Any], key: str) -> str:
    value = block["latency_ms"].get(key)
    interval = block["ci95"]["latency_ms"].get(key)
    if value is None:
        return "–"
    return f"{value:.0f} [{interval[0]:.0f}, {interval[1]:.0f}]" if interval else f"{value:.0f}"


def _short(text: str | None, limit: int = 90) -> str:
    text = (text or "").replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _failures(name: str, rows: list[dict[str, Any]]) -> list[str]:
    out = [f"### {name}", ""]
    missed = [r for r in rows if r["answerable"] and r["metrics"].get("recall@10", 1.0) < 1.0]
    out.append(f"**Gold missed in the top 10** ({len(missed)}):")
    out.append("")
    for r in missed:
        lost = [g for g in r["gold_ids"] if g not in r["retrieved_ids"]]
        out.append(
            f"- `{r['id']}` ({r['category']}) {_short(r['question'])} — missing "
            f"{', '.join(lost)}; top 3: {', '.join(r['retrieved_ids'][:3]) or '(none)'}"
        )
    if all(r.get("answer") is None and r.get("abstained") is None for r in rows):
        return [*out, ""]  # retrieval-only configuration
    false_abst = [r for r in rows if r["answerable"] and r["abstained"]]
    answered = [r for r in rows if not r["answerable"] and r["abstained"] is False]
    out += [
        "",
        f"**Wrong abstentions** ({len(false_abst)} answerable refused, "
        f"{len(answered)} unanswerable answered):",
        "",
    ]
    for r in false_abst:
        out.append(
            f"- refused `{r['id']}` ({r['category']}, confidence {_fmt(r.get('confidence'))}) "
            f"{_short(r['question'])}"
        )
    for r in answered:
        cited = ", ".join(c["paper_id"] for c in r["citations"])
        out.append(
            f"- answered `{r['id']}` (confidence {_fmt(r.get('confidence'))}, cited {cited}) "
            f"{_short(r['question'])}"
        )
    facts = [r for r in rows if r.get("missing_key_facts") and not r["abstained"]]
    out += ["", f"**Key facts missing from given answers** ({len(facts)}):", ""]
    for r in facts:
        out.append(f"- `{r['id']}` ({r['category']}): {'; '.join(r['missing_key_facts'])}")
    errors = [r for r in rows if r.get("error")]
    if errors:
        out += ["", f"**Errors** ({len(errors)}):", ""]
        out += [f"- `{r['id']}`: {r['error']}" for r in errors]
    return [*out, ""]


def render_report(summary: dict[str, Any], records: dict[str, list[dict[str, Any]]]) -> str:
    configs = summary.get("configs") or {summary["config"]["name"]: summary}
    run = summary["config"]
    keys = _keys(records)
    names = list(configs)
    lines = [
        "# Evaluation report",
        "",
        f"- questions: `{run['questions']}` ({summary['n']})",
        f"- store: {run['store']} / `{run['collection']}` ({run['papers']:,} papers)",
        f"- answer backend: {run['backend']} {run.get('llm_model') or ''}; top_k {run['top_k']}; "
        f"abstain threshold {run['abstain_threshold']}",
        f"- LLM judge: {run['judge'] if isinstance(run['judge'], str) else run['judge']['judge_model'] + ' (the answering model judging itself)'}",
        f"- commit {run.get('git_commit')}, started {run['started']}",
        "",
        "Values are means over the questions each metric applies to, with 95% bootstrap "
        "intervals. Retrieval metrics use answerable questions only and de-duplicated "
        "paper ids; `baseline` is plain llama-index dense retrieval (top-10 chunks) and "
        "has no answers.",
        "",
        "## Overall",
        "",
        "| metric | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for key in keys:
        lines.append(
            f"| {key} | " + " | ".join(_cell(configs[n]["overall"], key) for n in names) + " |"
        )
    for key in LATENCY_KEYS:
        lines.append(
            f"| {key} (ms) | "
            + " | ".join(_latency_cell(configs[n]["overall"], key) for n in names)
            + " |"
        )
    short_keys = [k for k in keys if k not in ("recall@1", "recall@5")]
    for name in names:
        lines += ["", f"## By category: {name}", ""]
        lines.append("| category | n | " + " | ".join(short_keys) + " |")
        lines.append("|---|---|" + "---|" * len(short_keys))
        rows = records[name]
        for category, block in configs[name]["by_category"].items():
            n = sum(1 for r in rows if r["category"] == category)
            lines.append(
                f"| {category} | {n} | " + " | ".join(_fmt(block.get(k)) for k in short_keys) + " |"
            )
    lines += ["", "## Failures", ""]
    for name in names:
        lines += _failures(name, records[name])
    lines += ["## Plots", "", "![metrics](metrics.png)", "", "![latency](latency.png)", ""]
    return "\n".join(lines)


def plot(summary: dict[str, Any], records: dict[str, list[dict[str, Any]]], out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    configs = summary.get("configs") or {summary["config"]["name"]: summary}
    keys = [k for k in _keys(records)]
    x = np.arange(len(keys))
    width = 0.8 / max(1, len(configs))
    fig, ax = plt.subplots(figsize=(max(10, len(keys) * 0.9), 4.5))
    for i, (name, block) in enumerate(configs.items()):
        values = [block["overall"].get(k) for k in keys]
        ax.bar(x + i * width, [v if v is not None else 0.0 for v in values], width, label=name)
    ax.set_xticks(x + width * (len(configs) - 1) / 2, keys, rotation=35, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean over applicable questions")
    ax.set_title("Metrics by configuration (missing bar: not applicable)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "metrics.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for stage, ax in zip(("retrieve", "answer"), axes, strict=True):
        series = {
            name: [r["latency_ms"][stage] for r in rows if r["latency_ms"].get(stage) is not None]
            for name, rows in records.items()
        }
        everything = [v for values in series.values() for v in values]
        if not everything:
            continue
        bins = np.histogram_bin_edges(everything, bins=30)  # shared, so bars compare
        for name, values in series.items():
            if values:
                ax.hist(values, bins=bins, alpha=0.5, label=name)
        ax.set_title(f"{stage} latency (ms)")
        ax.set_xlabel("ms")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "latency.png", dpi=110)
    plt.close(fig)


def write_outputs(
    out_dir: Path,
    questions: Sequence[Question],
    records: dict[str, list[dict[str, Any]]],
    run_config: dict[str, Any],
    config_meta: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "results.jsonl").open("w", encoding="utf-8") as handle:
        for rows in records.values():
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    summary = build_summary(questions, records, run_config, config_meta)
    (out_dir / "summary.json").write_text(
        json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out_dir / "report.md").write_text(render_report(summary, records), encoding="utf-8")
    plot(summary, records, out_dir)
    return summary
