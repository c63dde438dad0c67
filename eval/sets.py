"""`python -m eval sets`: questions about the conference as a set, scored as sets.

Configurations answering every question in the same run: `system` (the assistant as users
get it), `baseline` (the engine alone: the top-k cited answer every question got before
question analysis existed) and, with `--baseline-ref REF`, `previous` (the assistant of
commit REF, run from a copy of that commit on the same store, so today's behaviour is
measured beside the change).

A configuration's set for a question is the aggregate's member rows when it returns one
(rows marked `closest` are ranked, not claimed), else the papers its answer cites. Allowed
papers (borderline, `allowed_ids`) count neither for nor against. Metrics per question:
- recall, precision, F1 of that set; `exact` for metadata questions (the set equals the
  gold set up to allowed papers, or the ranking equals the gold ranking; a statistic's
  number, `aggregate.value`, equals `gold_value` to one decimal, a share's papers too; an
  uncountable statistic claims no count and says it cannot be counted);
- `count_within_25` / `count_rel_error`: the count the answer leads with (`aggregate.count`;
  a cited answer states none) against the gold count, for counts, metadata and two-facet
  topics;
- `range_holds`: some number of the range the answer states ("3–7 papers: 3 clearly") is
  within 25 % of the gold count (a bare count is a range of one);
- `none_answered` (two-facet topics with no gold paper): the answer claims none
  (`aggregate.count == 0`) and still ranks the closest papers, cited;
- `count_claimed` (described topics, uncountable statistics): the answer states a count
  (it should not, unless it named the topic); `suggestion_hit` (described): one of the first three suggested topics
  is one of the question's `topic_names` (or holds one, or is held by one, as token
  phrases); `closest_recall`: gold papers among the first ten rows, over min(10, gold);
- `named_in_table` (comparisons of named papers): every named paper is a row of the table;
  `cited_recall` for comparisons;
- `top_right` (superlatives over reported figures, "the largest speedup"): the first row
  is a gold paper; where no paper states the figure, the answer claims none (count 0);
- `places_found` / `places_counted` (institution rankings): the share of the gold's
  institutions the answer ranks, and ranks with the gold's count and no extra row.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from eval.metrics import mean, percentile
from eval.questions import Question, load_questions
from rag import Answer, Assistant, Settings
from rag.answer.references import answer_with_references
from rag.catalogue.names import fold
from rag.text import topic_tokens, without_accents

CONFIGS = ("system", "baseline")
STATISTIC_TOLERANCE = 0.05  # a statistic said to one decimal
KEYS = (
    "recall", "precision", "f1", "count_within_25", "count_rel_error", "range_holds", "exact",
    "cited_recall",
    "none_answered", "count_claimed", "suggestion_hit", "closest_recall", "named_in_table",
    "places_found", "places_counted", "top_right",
)  # fmt: skip
COUNTED = ("count", "metadata")
SUGGESTIONS_READ = 3
CLOSEST_READ = 10


def returned_set(answer: Answer) -> tuple[set[str], int | None]:
    if answer.aggregate is not None:
        rows = [p for p in answer.aggregate.papers if p.membership != "closest"]
        return {p.paper_id for p in rows}, answer.aggregate.count
    return {c.paper_id for c in answer.citations}, None


def _count_scores(q: Question, count: int | None) -> tuple[float | None, float | None]:
    counted = q.kind in COUNTED or q.category.startswith("facet")
    if not counted or q.gold_ranking or q.category == "facet-empty":
        return None, None
    gold = q.gold_count if q.gold_count is not None else len(q.gold_ids)
    within = float(count is not None and abs(count - gold) <= 0.25 * gold)
    rel = abs(count - gold) / max(1, gold) if count is not None else None
    return within, rel


def _range_holds(q: Question, answer: Answer) -> float | None:
    count = answer.aggregate.count if answer.aggregate else None
    if _count_scores(q, count)[0] is None:
        return None
    if count is None or answer.aggregate is None:
        return 0.0
    gold = q.gold_count if q.gold_count is not None else len(q.gold_ids)
    high = count + (answer.aggregate.touching or 0)
    return float(count <= 1.25 * gold and high >= 0.75 * gold)  # some value of it is within 25 %


def _levels(ranking: Any) -> list[tuple[int, frozenset[str]]]:
    """A ranking as its count levels, names tied at a level in any order."""
    levels: dict[int, set[str]] = {}
    for name, n in ranking:
        levels.setdefault(int(n), set()).add(str(name))
    return sorted(((n, frozenset(names)) for n, names in levels.items()), reverse=True)


def _named_topic(suggested: str, names: list[str]) -> bool:
    """The suggestion is one of the names, or holds one, or is held by one ("jailbreak
    attacks" for "jailbreak"; "over-smoothing" for "over-smoothing in GNNs")."""
    said = topic_tokens(suggested)
    return any(_inside(n, said) or _inside(said, n) for n in map(topic_tokens, names) if n)


def _inside(part: list[str], whole: list[str]) -> bool:
    return any(whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1))


def score(q: Question, answer: Answer) -> dict[str, float | None]:
    got, count = returned_set(answer)
    gold, allowed = set(q.gold_ids), set(q.allowed_ids)
    judged = got - allowed
    hits = len(judged & gold)
    recall = hits / len(gold) if gold else (1.0 if not judged else 0.0)
    precision = hits / len(judged) if judged else (1.0 if not gold else 0.0)
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    within, rel = _count_scores(q, count)
    exact = None
    if q.exact:
        if q.gold_ranking:
            ranking = answer.aggregate.ranking if answer.aggregate else []
            exact = float(_levels(ranking) == _levels(q.gold_ranking))
        else:
            exact = float(judged == gold and (count is None or count >= len(gold)))
    cited = {c.paper_id for c in answer.citations}
    rows = [p.paper_id for p in answer.aggregate.papers] if answer.aggregate else []
    out: dict[str, float | None] = dict.fromkeys(KEYS)
    out.update(
        recall=recall,
        precision=precision,
        f1=f1,
        count_within_25=within,
        count_rel_error=rel,
        range_holds=_range_holds(q, answer),
        exact=exact,
        cited_recall=len(cited & gold) / len(gold) if q.kind == "compare" and gold else None,
    )
    if q.category == "reported-top":
        out["top_right"] = float(bool(rows) and rows[0] in gold) if gold else float(count == 0)
    if q.category == "facet-empty" and not gold:
        out["none_answered"] = float(count == 0 and bool(answer.citations))
    if q.topic_names:
        suggested = [s.topic for s in answer.suggested_topics[:SUGGESTIONS_READ]]
        out["count_claimed"] = float(count is not None)
        out["suggestion_hit"] = float(any(_named_topic(s, q.topic_names) for s in suggested))
        ranked = rows or [c.paper_id for c in answer.citations]
        first = [p for p in ranked if p not in allowed][:CLOSEST_READ]
        out["closest_recall"] = len(set(first) & gold) / min(CLOSEST_READ, len(gold or [1]))
    if q.names:
        out["named_in_table"] = float(gold <= set(rows))
    if q.gold_value is not None:  # a statistic: its number (and a share's papers) exact
        value = answer.aggregate.value if answer.aggregate else None
        hit = value is not None and abs(value - q.gold_value) < STATISTIC_TOLERANCE
        out["exact"] = float(hit and (not gold or judged == gold))
    if q.uncountable:  # "How many institutions …": no number claimed, and the reason said
        claimed = float(count is not None)
        said = bool(_CANNOT_COUNT.search(answer.answer))
        out.update(count_claimed=claimed, exact=float(not claimed and said))
    if q.gold_institutions:
        found, counted = _places_scores(q, answer.aggregate.ranking if answer.aggregate else [])
        out.update(places_found=found, places_counted=counted)
        out["exact"] = float(found == counted == 1.0)
    return out


# how an answer says a statistic cannot be counted (not a misread question's silence)
_CANNOT_COUNT = re.compile(r"\b(?:cannot|can['’]?t|can\s+not)\s+(?:be\s+)?count", re.I)


def _places_scores(q: Question, ranking: list[tuple[str, int]]) -> tuple[float, float]:
    """An institution ranking against the gold: the share of gold institutions the answer
    ranks (a row whose name the gold's pattern matches), and the share it ranks with the
    gold's count and no row besides the gold's (ties at the cut are in the gold)."""
    found = counted = 0
    # the name folded (punctuation as spaces) and as written, lower case without accents
    rows = [((fold(name), without_accents(name).lower()), n) for name, n in ranking]
    for _, pattern, n in q.gold_institutions:
        hits = [got for names, got in rows if any(re.search(pattern, x) for x in names)]
        found += bool(hits)
        counted += bool(hits) and hits[0] == n
    total = len(q.gold_institutions)
    extra = len(rows) > total
    return found / total, (counted / total) * (not extra)


def _answer(assistant: Assistant, q: Question, config: str) -> tuple[Answer, float]:
    history = conversation(assistant, q.turns) if config == "system" else []
    started = time.perf_counter()
    if config == "system":
        answer = assistant.ask(q.question, history=history)
    else:
        answer = assistant.engine.answer(q.question)
    return answer, (time.perf_counter() - started) * 1000


def conversation(assistant: Assistant, turns: list[str]) -> list[dict[str, str]]:
    """A chat's history as the UI keeps it: each earlier question asked in turn, with the
    answer shown and its references."""
    history: list[dict[str, str]] = []
    for turn in turns:
        shown = answer_with_references(assistant.ask(turn, history=history))
        history += [{"role": "user", "content": turn}, {"role": "assistant", "content": shown}]
    return history


# Run in a copy of another commit: its `rag` answers each question; one JSON line each.
_PREVIOUS = """
import json, sys, time
from rag import Assistant, Settings
assistant = Assistant.from_settings(Settings())
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in open(sys.argv[1], encoding="utf-8"):
        q = json.loads(line)
        history = []
        try:  # a conversation's earlier questions first, as the UI keeps them
            from rag.answer.references import answer_with_references
            for turn in q.get("turns", []):
                shown = answer_with_references(assistant.ask(turn, history=history))
                history += [{"role": "user", "content": turn}, {"role": "assistant", "content": shown}]
        except Exception:
            history = []
        started = time.perf_counter()
        try:
            answer = assistant.ask(q["question"], history=history).model_dump(mode="json")
        except Exception as exc:  # that commit failed this question: scored as no answer
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        ms = (time.perf_counter() - started) * 1000
        out.write(json.dumps({"id": q["id"], "ms": ms, "answer": answer}) + "\\n")
"""


def previous_answers(ref: str, questions: Path, store: Path) -> dict[str, tuple[Answer, float]]:
    """Every question answered by the assistant of commit `ref` on the same store."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="icml-rag-previous-") as tmp:
        archive = Path(tmp) / "ref.tar"
        subprocess.run(
            ["git", "-C", str(root), "archive", "--format=tar", "-o", str(archive), ref],
            check=True,
        )
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "src", filter="data")
        source, out = Path(tmp) / "src", Path(tmp) / "answers.jsonl"
        env = {**os.environ, "PYTHONPATH": str(source), "RAG_DATA_DIR": str(store.resolve())}
        run = subprocess.run(
            [sys.executable, "-c", _PREVIOUS, str(questions.resolve()), str(out)],
            env=env,
            cwd=tmp,
            stderr=subprocess.PIPE,
            text=True,
        )
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise RuntimeError(f"the assistant of {ref} failed: {last}")
        found = {}
        for line in out.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            answer = record["answer"]
            if "error" in answer:  # the commit raised: an abstention that says so
                answer = {"question": "", "answer": f"(failed: {answer['error']})",
                          "abstained": True, "backend": "error", "mode": ""}  # fmt: skip
            found[record["id"]] = (Answer.model_validate(answer), record["ms"])
        return found


def run_sets(
    settings: Settings, questions_path: Path, out_dir: Path, baseline_ref: str | None = None
) -> dict[str, Any]:
    questions = load_questions(questions_path)
    # Before this process opens the store: an embedded store is one process at a time.
    previous = (
        previous_answers(baseline_ref, questions_path, settings.data_dir) if baseline_ref else {}
    )
    assistant = Assistant.from_settings(settings)
    records = []
    for q in questions:
        answers = [(config, *_answer(assistant, q, config)) for config in CONFIGS]
        if q.id in previous:
            answers.append(("previous", *previous[q.id]))
        for config, answer, ms in answers:
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
                    "suggested": [s.topic for s in answer.suggested_topics],
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
    """One line per configuration and category; a metric no question of it has is "–"."""
    head = f"{'config':9} {'category':16} {'n':>3} " + " ".join(f"{k[:10]:>10}" for k in KEYS)
    lines = [head + f" {'p50 ms':>7} {'p95 ms':>7}"]
    for config, categories in summary.items():
        for category, block in categories.items():
            cells = " ".join(
                f"{block[k]:10.3f}" if block[k] is not None else f"{'–':>10}" for k in KEYS
            )
            p50, p95 = block["latency_p50_ms"], block["latency_p95_ms"]
            lines.append(f"{config:9} {category:16} {block['n']:3d} {cells} {p50:7.0f} {p95:7.0f}")
    return "\n".join(lines)
