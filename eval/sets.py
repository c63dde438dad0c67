"""`python -m eval sets`: questions about the conference as a set, scored as sets.

Two configurations answer every question in the same run: `system` (the assistant as users
get it: question analysis, exact metadata answers) and `baseline` (the engine alone: the
top-k cited answer every question got before question analysis existed).

A configuration's set for a question is the aggregate's papers when it returns one, else
the papers its answer cites. Allowed papers (borderline, `allowed_ids`) count neither for
nor against. Metrics per question: set recall, precision, F1; the count (the aggregate's
count; a cited answer states none) within ±25% of the gold count and its relative error;
exact match for metadata questions (the set equals the gold set up to allowed papers, or
the ranking equals the gold ranking); cited recall for comparisons.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from eval.metrics import mean, percentile
from eval.questions import Question, load_questions
from rag import Answer, Assistant, Settings

CONFIGS = ("system", "baseline")
KEYS = ("recall", "precision", "f1", "count_within_25", "count_rel_error", "exact", "cited_recall")


def returned_set(answer: Answer) -> tuple[set[str], int | None]:
    if answer.aggregate is not None:
        return {p.paper_id for p in answer.aggregate.papers}, answer.aggregate.count
    return {c.paper_id for c in answer.citations}, None


def score(q: Question, answer: Answer) -> dict[str, float | None]:
    got, count = returned_set(answer)
    gold, allowed = set(q.gold_ids), set(q.allowed_ids)
    judged = got - allowed
    hits = len(judged & gold)
    recall = hits / len(gold) if gold else (1.0 if not judged else 0.0)
    precision = hits / len(judged) if judged else (1.0 if not gold else 0.0)
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    gold_count = q.gold_count if q.gold_count is not None else len(gold)
    within = rel = None
    if q.kind in ("count", "metadata") and not q.gold_ranking:
        within = float(count is not None and abs(count - gold_count) <= 0.25 * gold_count)
        rel = abs(count - gold_count) / max(1, gold_count) if count is not None else None
    exact = None
    if q.exact:
        if q.gold_ranking:
            ranking = answer.aggregate.ranking if answer.aggregate else []
            exact = float([tuple(r) for r in ranking] == q.gold_ranking)
        else:
            exact = float(judged == gold and (count is None or count >= len(gold)))
    cited = {c.paper_id for c in answer.citations}
    cited_recall = len(cited & gold) / len(gold) if q.kind == "compare" and gold else None
    return {
        "recall": recall,
        "precision": precision,
        "f1": f1,
        "count_within_25": within,
        "count_rel_error": rel,
        "exact": exact,
        "cited_recall": cited_recall,
    }


def _answer(assistant: Assistant, q: Question, config: str) -> tuple[Answer, float]:
    started = time.perf_counter()
    if config == "system":
        answer = assistant.ask(q.question)
    else:
        answer = assistant.engine.answer(q.question)
    return answer, (time.perf_counter() - started) * 1000


def run_sets(settings: Settings, questions_path: Path, out_dir: Path) -> dict[str, Any]:
    questions = load_questions(questions_path)
    assistant = Assistant.from_settings(settings)
    records = []
    for q in questions:
        for config in CONFIGS:
            answer, ms = _answer(assistant, q, config)
            got, count = returned_set(answer)
            records.append(
                {
                    "config": config,
                    "id": q.id,
                    "category": q.category,
                    "kind": q.kind,
                    "plan": answer.plan.model_dump(mode="json") if answer.plan else None,
                    "returned": sorted(got),
                    "count": count,
                    "metrics": score(q, answer),
                    "latency_ms": round(ms, 2),
                }
            )
    summary = summarise(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "sets_results.jsonl").open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    (out_dir / "sets_summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["config"], r["category"])].append(r)
        groups[(r["config"], "all")].append(r)
    out: dict[str, Any] = {}
    for (config, category), rows in sorted(groups.items()):
        block = {k: mean(r["metrics"][k] for r in rows) for k in KEYS}
        block["n"] = len(rows)
        block["latency_p50_ms"] = percentile([r["latency_ms"] for r in rows], 50)
        block["latency_p95_ms"] = percentile([r["latency_ms"] for r in rows], 95)
        out.setdefault(config, {})[category] = block
    return out


def format_table(summary: dict[str, Any]) -> str:
    head = f"{'config':9} {'category':16} {'n':>3} " + " ".join(f"{k[:12]:>12}" for k in KEYS)
    lines = [head + f" {'p50 ms':>7} {'p95 ms':>7}"]
    for config, categories in summary.items():
        for category, block in categories.items():
            cells = " ".join(
                f"{block[k]:12.3f}" if block[k] is not None else f"{'–':>12}" for k in KEYS
            )
            p50, p95 = block["latency_p50_ms"], block["latency_p95_ms"]
            lines.append(f"{config:9} {category:16} {block['n']:3d} {cells} {p50:7.0f} {p95:7.0f}")
    return "\n".join(lines)
