"""LLM-judged faithfulness and correctness, only when an LLM backend is configured.

llama-index's FaithfulnessEvaluator / CorrectnessEvaluator get the configured LLM passed
explicitly: the global `llama_index.core.Settings.llm` is never consulted (it would
silently default to OpenAI). The judge is the answering model itself, so these numbers
are self-assessment and are labelled as such in every output.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)
CORRECTNESS_MAX = 5.0


class Judge:
    def __init__(self, llm: Any, model_name: str) -> None:
        from llama_index.core.evaluation import CorrectnessEvaluator, FaithfulnessEvaluator

        self.model_name = model_name
        self.faithfulness = FaithfulnessEvaluator(llm=llm)
        self.correctness = CorrectnessEvaluator(llm=llm)

    def describe(self) -> dict[str, Any]:
        return {
            "judge_model": self.model_name,
            "judge_metrics": {
                "judge_faithfulness": "share of answers the judge finds supported by the "
                "cited abstracts (llama-index FaithfulnessEvaluator)",
                "judge_correctness": "CorrectnessEvaluator score / 5 against reference_answer",
            },
        }

    def verdicts(
        self, question: str, answer: str, contexts: list[str], reference: str | None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"judge_model": self.model_name}
        try:
            result = self.faithfulness.evaluate(
                query=question, response=answer, contexts=contexts or ["(no sources)"]
            )
            out["faithfulness"] = {"passing": result.passing, "feedback": result.feedback}
        except Exception as exc:  # a judge failure must not end the run; it is recorded
            log.warning("faithfulness judge failed: %s", exc)
            out["faithfulness"] = {"error": f"{type(exc).__name__}: {exc}"}
        if reference:
            try:
                result = self.correctness.evaluate(
                    query=question, response=answer, reference=reference
                )
                out["correctness"] = {
                    "score": result.score,
                    "passing": result.passing,
                    "feedback": result.feedback,
                }
            except Exception as exc:
                log.warning("correctness judge failed: %s", exc)
                out["correctness"] = {"error": f"{type(exc).__name__}: {exc}"}
        return out


def judge_scores(verdicts: dict[str, Any] | None) -> dict[str, float | None]:
    """The per-question numbers aggregated as judge_faithfulness / judge_correctness."""
    faith = (verdicts or {}).get("faithfulness") or {}
    correct = (verdicts or {}).get("correctness") or {}
    passing = faith.get("passing")
    score = correct.get("score")
    return {
        "judge_faithfulness": None if passing is None else float(bool(passing)),
        "judge_correctness": None if score is None else float(score) / CORRECTNESS_MAX,
    }
