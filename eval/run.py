"""`python -m eval run`: every configuration answers the same questions; one Assistant.

Per question and configuration the record holds the retrieved paper ids (top 10, for
the retrieval metrics), the answer with its citations (top_k sources, as a user gets
it), the judge's verdicts when an LLM is configured, and timings.

Latency fairness: the query-embedding cache is emptied before each timed call, so
every retrieval pays for embedding its question as a new question would; and the order
of the answering configurations rotates from question to question, so each is the one
that fills the evidence step's sentence cache equally often (the others then find some
of their sources' sentences already embedded: answer latency is warm-ish for all).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.baseline import BASELINE_NAME, BaselineRetriever
from eval.judge import Judge, judge_scores
from eval.metrics import dedupe, missing_facts, score_question
from eval.questions import Question, load_questions, unknown_gold_ids
from eval.report import write_outputs
from rag import AnswerError, Assistant, Settings
from rag.settings import RETRIEVAL_MODES

log = logging.getLogger(__name__)
RETRIEVAL_DEPTH = 10


class UsageError(ValueError):
    """A command-line option the harness cannot use."""


@dataclass(frozen=True)
class Config:
    name: str
    mode: str | None  # None: the llama-index baseline (retrieval only)


def default_out_dir() -> Path:
    return Path("eval/out") / datetime.now().strftime("%Y%m%d-%H%M%S")


def git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _cold_query_cache(embed_model: Any) -> bool:
    """Empty the embedding model's query cache; False if it has none we know of (then
    repeated questions across configurations are timed with a warm cache)."""
    clear = getattr(embed_model, "clear_query_cache", None)
    if not callable(clear):
        return False
    clear()
    return True


class Runner:
    def __init__(
        self, assistant: Assistant, top_k: int | None, baseline: BaselineRetriever | None
    ) -> None:
        self.assistant = assistant
        self.top_k = top_k
        self.baseline = baseline
        self.judge: Judge | None = None
        self.cold_query_cache = _cold_query_cache(assistant.embed_model)
        if assistant.llm is not None:
            self.judge = Judge(assistant.llm, assistant.settings.llm_model)

    def _baseline(self, q: Question) -> dict[str, Any]:
        assert self.baseline is not None
        _cold_query_cache(self.assistant.embed_model)
        chunk_ids, elapsed = self.baseline.retrieve(q.question)
        retrieved = dedupe(chunk_ids)[:RETRIEVAL_DEPTH]
        metrics = score_question(
            gold=q.gold_ids,
            answerable=q.answerable,
            key_facts=q.key_facts,
            retrieved=retrieved,
            answer=None,
            abstained=None,
            cited=None,
        )
        return {
            "retrieved_ids": retrieved,
            "chunk_paper_ids": chunk_ids,
            "answer": None,
            "abstained": None,
            "citations": [],
            "metrics": metrics,
            "latency_ms": {"retrieve": round(elapsed, 2), "answer": None},
        }

    def _system(self, q: Question, mode: str) -> dict[str, Any]:
        _cold_query_cache(self.assistant.embed_model)
        started = time.perf_counter()
        error = None
        try:
            answer = self.assistant.ask(q.question, top_k=self.top_k, mode=mode)
        except AnswerError as exc:  # one failed LLM call is a recorded failure, not a crash
            answer, error = None, str(exc)
        wall = (time.perf_counter() - started) * 1000
        depth = max(RETRIEVAL_DEPTH, self.top_k or 0)
        papers = self.assistant.retrieve(q.question, top_k=depth, mode=mode)  # type: ignore[arg-type]
        retrieved = [p.paper.id for p in papers][:RETRIEVAL_DEPTH]
        cited = [(c.n, c.paper_id) for c in answer.citations] if answer else []
        metrics = score_question(
            gold=q.gold_ids,
            answerable=q.answerable,
            key_facts=q.key_facts,
            retrieved=retrieved,
            answer=answer.answer if answer else None,
            abstained=answer.abstained if answer else None,
            cited=cited,
            gaps=bool(answer and (answer.missing or answer.not_mentioned or answer.contradicted)),
            byline_facts=q.byline_facts,
        )
        record: dict[str, Any] = {
            "retrieved_ids": retrieved,
            "answer": answer.answer if answer else None,
            "abstained": answer.abstained if answer else None,
            "citations": [{"n": n, "paper_id": pid} for n, pid in cited],
            "missing": answer.missing if answer else [],
            "not_mentioned": answer.not_mentioned if answer else [],
            "confidence": answer.confidence if answer else None,
            "evidence": answer.evidence if answer else None,
            "timings_ms": answer.timings_ms if answer else None,
            "metrics": metrics,
            "latency_ms": {
                "retrieve": answer.timings_ms.get("retrieve") if answer else None,
                "answer": round(wall, 2),
            },
            "missing_key_facts": missing_facts(q.key_facts, answer.answer) if answer else None,
        }
        if error:
            record["error"] = error
        if self.judge is not None and answer is not None and not answer.abstained:
            contexts = [
                self.assistant.papers[c.paper_id].abstract
                for c in answer.citations
                if c.paper_id in self.assistant.papers
            ]
            verdicts = self.judge.verdicts(q.question, answer.answer, contexts, q.reference_answer)
            record["verdicts"] = verdicts
            metrics.update(judge_scores(verdicts))
        return record

    def evaluate(self, q: Question, config: Config) -> dict[str, Any]:
        body = self._baseline(q) if config.mode is None else self._system(q, config.mode)
        return {"config": config.name, **q.to_json(), **body}

    def run(self, questions: list[Question], configs: list[Config]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {c.name: [] for c in configs}
        bar = tqdm(
            total=len(questions) * len(configs), unit="answer", desc="evaluating", file=sys.stderr
        )
        answering = [c for c in configs if c.mode is not None]
        others = [c for c in configs if c.mode is None]
        for i, q in enumerate(questions):
            # Rotate only the answering configurations: whichever answers first pays for
            # embedding the sources' sentences; the baseline computes no evidence.
            shift = i % max(1, len(answering))
            for config in answering[shift:] + answering[:shift] + others:
                out[config.name].append(self.evaluate(q, config))
                bar.update(1)
        bar.close()
        return out


def build_configs(modes: list[str], baseline: bool) -> list[Config]:
    configs = [Config(name=m, mode=m) for m in modes]
    if baseline:
        configs.append(Config(name=BASELINE_NAME, mode=None))
    return configs


def run_eval(
    settings: Settings,
    questions_path: Path,
    modes: list[str],
    out_dir: Path,
    *,
    top_k: int | None = None,
    baseline: bool = True,
    assistant: Assistant | None = None,
) -> dict[str, Any]:
    """Evaluate `modes` (+ the baseline) on one question file; write and return the summary."""
    questions = load_questions(questions_path)
    assistant = assistant or Assistant.from_settings(settings)
    unknown = unknown_gold_ids(questions, assistant.papers)
    if unknown:
        log.warning(
            "%d gold id(s) are not in the store's catalogue (%s papers): %s",
            len(unknown),
            f"{len(assistant.papers):,}",
            ", ".join(unknown),
        )
    retriever = (
        BaselineRetriever(assistant.store.vector_store, assistant.embed_model) if baseline else None
    )
    runner = Runner(assistant, top_k, retriever)
    configs = build_configs(modes, baseline)
    records = runner.run(questions, configs)
    primary = settings.retrieval_mode if settings.retrieval_mode in modes else modes[0]
    run_config: dict[str, Any] = {
        "questions": str(questions_path),
        "primary": primary,
        "backend": assistant.synthesizer.name,
        "llm_model": assistant.synthesizer.model,
        "top_k": top_k or settings.top_k,
        "retrieval_depth": RETRIEVAL_DEPTH,
        "embed_model": settings.embedding_id(),
        "embed_runtime": settings.embed_runtime,
        "store": settings.store_location(),
        "collection": settings.collection,
        "papers": len(assistant.papers),
        "abstain_threshold": settings.abstain_threshold,
        "candidate_chunks": settings.candidate_chunks,
        "fusion": settings.fusion,
        "fusion_dense_weight": settings.fusion_dense_weight,
        "unknown_gold_ids": unknown,
        "git_commit": git_commit(),
        "started": datetime.now().isoformat(timespec="seconds"),
        "judge": runner.judge.describe() if runner.judge else "skipped: no LLM configured",
        "query_cache_cleared_per_call": runner.cold_query_cache,
    }
    config_meta = {c.name: {"name": c.name, "mode": c.mode} for c in configs}
    if retriever is not None:
        config_meta[BASELINE_NAME] = retriever.describe()
    return write_outputs(out_dir, questions, records, run_config, config_meta)


def build_settings(**overrides: Any) -> Settings:
    """Settings from the environment / .env, with explicit overrides; None means unset."""
    given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    return Settings(**given)


def settings_from_args(backend: str | None) -> Settings:
    return build_settings(backend=backend)


def parse_modes(value: str) -> list[str]:
    modes = [m.strip() for m in value.split(",") if m.strip()]
    bad = [m for m in modes if m not in RETRIEVAL_MODES]
    if bad or not modes:
        raise UsageError(
            f"--compare: {', '.join(bad) or '(empty)'} not in {', '.join(RETRIEVAL_MODES)}"
        )
    return list(dict.fromkeys(modes))
