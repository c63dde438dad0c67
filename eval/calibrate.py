"""`python -m eval calibrate`: fit the abstention model on a question file.

Questions the answer handles by naming what the abstract does not state (Answer.missing,
not_mentioned) are left out: they are not refused, and need not be. Each question is
answered with the threshold disabled (abstain_threshold=0) so its
evidence features are recorded whatever they are: [best_cosine, coverage, agreement]
(Answer.evidence). A logistic regression (numpy, Newton's method, L2 on the weights
only) predicts `answerable`; its weights are what rag/answer/evidence.py's CONFIDENCE_WEIGHTS /
CONFIDENCE_BIAS hold. The threshold maximises balanced accuracy (mean of abstention
accuracy and 1 - false-abstention rate) subject to false abstention <= a cap: refusing
an answerable question is the costlier mistake for a research assistant.

Out-of-sample numbers: leave-one-out (refit and re-threshold without each question)
and stratified 5-fold cross-validation with a fixed seed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from eval.questions import Question, QuestionFileError, load_questions
from eval.run import build_settings
from rag import Assistant

FEATURES = ("best_cosine", "coverage", "agreement")
CV_SEED = 13
CV_FOLDS = 5


@dataclass
class Rates:
    threshold: float
    abstention_accuracy: float  # unanswerable refused
    false_abstention_rate: float  # answerable refused

    @property
    def balanced(self) -> float:
        return 0.5 * (self.abstention_accuracy + 1.0 - self.false_abstention_rate)


def rates(p: np.ndarray, y: np.ndarray, threshold: float) -> Rates:
    abstain = p < threshold  # the engine abstains when confidence < threshold
    unanswerable, answerable = y == 0, y == 1
    acc = float(abstain[unanswerable].mean()) if unanswerable.any() else 0.0
    false = float(abstain[answerable].mean()) if answerable.any() else 0.0
    return Rates(threshold, acc, false)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 50
) -> tuple[np.ndarray, float]:
    """L2-penalised logistic regression by Newton's method (deterministic, no scaling,
    so the weights apply to the raw features the engine computes)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    theta = np.zeros(design.shape[1])
    penalty = np.diag([l2] * x.shape[1] + [0.0])  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-design @ theta))
        gradient = design.T @ (p - y) + penalty @ theta
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(theta))
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta[:-1], float(theta[-1])


def predict(x: np.ndarray, weights: np.ndarray, bias: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(x @ weights + bias)))


def choose_threshold(p: np.ndarray, y: np.ndarray, max_false: float) -> Rates:
    """Best balanced accuracy with false abstention <= max_false (lowest such threshold)."""
    ordered = np.unique(p)
    candidates = [0.0, *((ordered[:-1] + ordered[1:]) / 2), float(ordered[-1]) + 1e-9]
    allowed = [rates(p, y, t) for t in candidates]
    feasible = [r for r in allowed if r.false_abstention_rate <= max_false + 1e-12]
    pool = feasible or [min(allowed, key=lambda r: r.false_abstention_rate)]
    return max(pool, key=lambda r: (round(r.balanced, 12), -r.threshold))


def out_of_sample(
    x: np.ndarray, y: np.ndarray, l2: float, max_false: float, folds: list[np.ndarray]
) -> Rates:
    """Refit and re-threshold on each training part; decide the held-out questions."""
    abstain = np.zeros(len(y), dtype=bool)
    for held in folds:
        train = np.setdiff1d(np.arange(len(y)), held)
        weights, bias = fit_logistic(x[train], y[train], l2)
        chosen = choose_threshold(predict(x[train], weights, bias), y[train], max_false)
        abstain[held] = predict(x[held], weights, bias) < chosen.threshold
    return Rates(
        float("nan"),
        float(abstain[y == 0].mean()) if (y == 0).any() else 0.0,
        float(abstain[y == 1].mean()) if (y == 1).any() else 0.0,
    )


def stratified_folds(y: np.ndarray, k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    for label in (0, 1):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        for i, j in enumerate(idx):
            folds[i % k].append(int(j))
    return [np.array(sorted(f)) for f in folds if f]


def collect(
    assistant: Assistant, questions: list[Question], mode: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels, and the confidence the current weights give each question."""
    rows, labels, current = [], [], []
    for q in tqdm(questions, unit="question", desc="answering", file=sys.stderr):
        answer = assistant.ask(q.question, mode=mode)
        if not answer.evidence:
            continue  # answered about the conference as a set: no single-paper evidence
        if not q.answerable and (answer.missing or answer.not_mentioned):
            # Handled by naming what the abstract lacks: refusing it too is no aim.
            continue
        rows.append([float(answer.evidence.get(f, 0.0)) for f in FEATURES])
        labels.append(1.0 if q.answerable else 0.0)
        current.append(answer.confidence)
    return np.array(rows), np.array(labels), np.array(current)


def calibrate(
    questions_paths: list[Path],
    *,
    mode: str | None = None,
    l2: float = 0.1,
    max_false: float = 0.05,
    assistant: Assistant | None = None,
) -> str:
    """Fit, evaluate and return the printable report (nothing in rag/ is edited)."""
    questions = [q for path in questions_paths for q in load_questions(path)]
    questions_path = ", ".join(str(p) for p in questions_paths)
    if assistant is None:
        # Evidence does not depend on the answer writer: extractive is free and offline.
        settings = build_settings(abstain_threshold=0.0, backend="extractive")
        assistant = Assistant.from_settings(settings)
    configured = build_settings().abstain_threshold
    x, y, current = collect(assistant, questions, mode)
    if len(set(y.tolist())) < 2:
        raise QuestionFileError(
            f"{questions_path}: needs both answerable and unanswerable questions"
        )
    weights, bias = fit_logistic(x, y, l2)
    fitted = choose_threshold(predict(x, weights, bias), y, max_false)
    now = rates(current, y, configured)
    loo = out_of_sample(x, y, l2, max_false, [np.array([i]) for i in range(len(y))])
    cv = out_of_sample(x, y, l2, max_false, stratified_folds(y, CV_FOLDS, CV_SEED))
    w = ", ".join(f"{v:.3f}" for v in weights)
    lines = [
        f"calibrated on {questions_path}: {int(y.sum())} answerable, {int((1 - y).sum())} "
        f"unanswerable; mode {mode or assistant.settings.retrieval_mode}; L2 {l2}; "
        f"false abstention cap {max_false:.0%}",
        "",
        "paste into rag/answer/evidence.py (features: " + ", ".join(FEATURES) + "):",
        f"    CONFIDENCE_WEIGHTS = ({w})",
        f"    CONFIDENCE_BIAS = {bias:.3f}",
        f"and set the default abstain_threshold = {fitted.threshold:.3f}",
        "",
        "                          abstention acc  false abstention  balanced acc",
        _row("current weights+threshold", now),
        _row("fitted, in-sample", fitted),
        _row("fitted, leave-one-out", loo),
        _row(f"fitted, {CV_FOLDS}-fold CV (seed {CV_SEED})", cv),
        "",
        f"(current threshold {configured} read from settings/env; out-of-sample rows refit "
        "and re-choose the threshold on each training part.)",
    ]
    return "\n".join(lines)


def _row(label: str, r: Rates) -> str:
    return (
        f"{label:<34}{r.abstention_accuracy:>8.3f}{r.false_abstention_rate:>18.3f}"
        f"{r.balanced:>14.3f}"
    )
