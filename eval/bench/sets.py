"""Section 5: answers about the conference as a set (metadata, list, count, compare).

`Assistant.ask` over pools of set questions, one pool per kind: the dev split of the set
questions (never the held-out test split) plus a few fixed ones. One process, one
assistant over the store: the topic scan's index (every chunk vector read once, built
lazily by the first topic question) is built and timed on its own first, then the
evidence warm-up `rag serve` runs in the background is waited for, so the samples are a
server's steady state. A warm-up round runs every question first and is not counted;
then every question is asked `rounds` times. Before every timed call the query-embedding
cache and the topic scan's recent-topics cache are emptied: a repeated question would
otherwise be timed as a cache hit, and these pools stand for new questions.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from eval.bench.samples import percentile, summarise

ROOT = Path(__file__).resolve().parent.parent.parent
SETS_DEV = ROOT / "eval" / "datasets" / "sets_dev.jsonl"
SET_KINDS = ("metadata", "list", "count", "compare")
# Beyond the dev split: catalogue-wide questions and topics the dev questions do not
# name, each checked to parse as its pool's kind when it was added.
FIXED: dict[str, tuple[str, ...]] = {
    "metadata": (
        "How many ICML 2024 papers are there?",
        "How many papers did Yoshua Bengio co-author at ICML 2024?",
        "List the oral papers with an author from Stanford.",
    ),
    "list": (
        "Which ICML 2024 papers are about graph neural networks?",
        "List the ICML 2024 papers on diffusion models for protein design.",
    ),
    "count": (
        "How many ICML 2024 papers are about reinforcement learning from human feedback?",
        "How many ICML 2024 papers study adversarial robustness?",
    ),
    "compare": (
        "Compare the ICML 2024 papers on speculative decoding.",
        "How do the ICML 2024 papers on sharpness-aware minimization differ?",
    ),
}


def set_pools(
    per_kind: int | None = None, dev: Path = SETS_DEV
) -> tuple[dict[str, list[str]], dict[str, dict[str, int]]]:
    """(questions by kind, count per source by kind): the dev questions of each kind in
    file order, then the fixed ones, distinct; `per_kind` keeps the first N of each."""
    pools: dict[str, list[tuple[str, str]]] = {k: [] for k in SET_KINDS}
    seen: set[str] = set()

    def add(kind: str, text: str, source: str) -> None:
        key = " ".join(text.lower().split())
        if kind in pools and key not in seen:
            seen.add(key)
            pools[kind].append((text.strip(), source))

    for line in dev.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if not row.get("turns"):  # a chat follow-up means nothing asked alone
                add(row["kind"], row["question"], dev.name)
    for kind, fixed in FIXED.items():
        for question in fixed:
            add(kind, question, "fixed")
    questions: dict[str, list[str]] = {}
    sources: dict[str, dict[str, int]] = {}
    for kind, pool in pools.items():
        kept = pool[:per_kind] if per_kind else pool
        questions[kind] = [q for q, _ in kept]
        sources[kind] = {}
        for _, source in kept:
            sources[kind][source] = sources[kind].get(source, 0) + 1
    return questions, sources


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


class ColdAsker:
    """Asks with the per-question caches emptied first (the module docstring says why)."""

    def __init__(self, assistant: Any) -> None:
        from eval.run import _cold_query_cache

        self.assistant = assistant
        self._cold_query = lambda: _cold_query_cache(assistant.embed_model)
        self.cleared = {"query_embedding": self._cold_query(), "topic_scan": self._cold_topics()}

    def _cold_topics(self) -> bool:
        # The scanner keeps the features of its last 64 topics so a follow-up rescans
        # nothing; a timed repeat must not hit them.
        self.assistant.pipeline.topics().clear_cache()
        return True

    def ask(self, question: str) -> tuple[float, Any]:
        self._cold_query()
        self._cold_topics()
        started = time.perf_counter()
        answer = self.assistant.ask(question)
        return _ms_since(started), answer


def _kind_summary(
    kind: str, questions: list[str], samples: dict[str, list[float]], answers: dict[str, Any]
) -> dict[str, Any]:
    values = [ms for q in questions for ms in samples[q]]
    matched = [q for q in questions if _plan_kind(answers[q]) == kind]
    on_set_path = [q for q in questions if answers[q].aggregate is not None]
    return {
        "questions": len(questions),
        "latency_ms": summarise(values),
        "per_question_median_ms": {
            q: round(percentile(samples[q], 50), 2) for q in questions if samples[q]
        },
        "plan_kind_matched": round(len(matched) / len(questions), 3) if questions else None,
        "set_path": round(len(on_set_path) / len(questions), 3) if questions else None,
        "mismatched": [
            {"question": q, "plan_kind": _plan_kind(answers[q])}
            for q in questions
            if q not in matched
        ],
    }


def _plan_kind(answer: Any) -> str | None:
    return answer.plan.kind if answer.plan is not None else None


def measure_sets(
    assistant: Any,
    pools: dict[str, list[str]],
    rounds: int,
    warmup_rounds: int,
    log: Any,
    warm_timeout_s: float = 3600.0,
) -> dict[str, Any]:
    """Time every pool's questions over an open assistant; see the module docstring."""
    from eval.bench.latency import warm_evidence

    started = time.perf_counter()
    assistant.pipeline.topics()  # before start_warmup, whose thread would build it too
    topic_build_ms = _ms_since(started)
    log(f"sets: topic index built in {topic_build_ms / 1000:.1f} s; evidence warm-up next")
    warmup_report = warm_evidence(assistant, warm_timeout_s)
    asker = ColdAsker(assistant)
    every = [q for kind in SET_KINDS for q in pools.get(kind, [])]
    log(f"sets: {warmup_rounds} warm-up + {rounds} timed round(s) of {len(every)} questions")
    for _ in range(warmup_rounds):
        for q in every:
            asker.ask(q)
    samples: dict[str, list[float]] = {q: [] for q in every}
    answers: dict[str, Any] = {}
    for r in range(rounds):
        for q in every:
            ms, answers[q] = asker.ask(q)
            samples[q].append(ms)
        log(f"sets: round {r + 1}/{rounds} done")
    kinds = {
        kind: _kind_summary(kind, pools[kind], samples, answers)
        for kind in SET_KINDS
        if pools.get(kind)
    }
    return {
        "questions": {kind: pools.get(kind, []) for kind in SET_KINDS},
        "rounds": rounds,
        "warmup_rounds": warmup_rounds,
        "topic_index_build_ms": round(topic_build_ms, 1),
        "evidence_warmup": warmup_report,
        "caches_cleared_per_call": asker.cleared,
        "kinds": kinds,
        "notes": [
            "topic index build: Pipeline.topics() alone, on the main thread, before any "
            "question; the first topic question (list, count, compare) of a process pays it "
            "unless `rag serve`'s background warm-up built it first; excluded from the samples",
            "samples: Assistant.ask wall time, extractive backend, after the evidence "
            f"warm-up and {warmup_rounds} untimed round(s); {rounds} timed round(s) of every "
            "question, p50/p95/max over all of a kind's samples (nearest rank)",
            "the query-embedding cache and the topic scan's recent-topics cache are emptied "
            "before every timed call, so a repeat is timed as a new question",
            "plan.kind matched: the share of a pool's questions whose Answer.plan.kind is the "
            "pool's kind (the parser's sanity, not a quality score); set path: the share "
            "answered from the catalogue or the topic scan (Answer.aggregate set) rather than "
            "the cited retrieval answer a list falls back to",
        ],
    }


def open_and_measure_sets(
    settings: dict[str, Any],
    store_dir: Path,
    per_kind: int | None,
    rounds: int,
    warmup_rounds: int,
    log: Any,
) -> dict[str, Any]:
    """The bench's entry: the pools, an assistant over the store, the measurement."""
    from eval.run import build_settings
    from rag import Assistant

    pools, sources = set_pools(per_kind)
    started = time.perf_counter()
    assistant = Assistant.from_settings(build_settings(**{**settings, "data_dir": str(store_dir)}))
    open_ms = _ms_since(started)
    body = measure_sets(assistant, pools, rounds, warmup_rounds, log)
    return {"assistant_open_ms": round(open_ms, 1), "question_sources": sources, **body}
