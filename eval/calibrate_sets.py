"""`python -m eval calibrate-sets`: fit the topic-membership model on set questions.

For every topic question (list, count, compare; no metadata filters) the parser's topic is
scanned over the whole catalogue; labels are the gold set (1) and every other paper (0),
allowed papers left out. A logistic model (eval.calibrate.fit_logistic) is fitted on the
300 best-scoring papers of each question; the membership threshold maximises the mean F1.
Out-of-sample numbers: leave one question out (refit without it, score it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from eval.calibrate import fit_logistic
from eval.questions import load_questions
from rag import Assistant, Settings

POOL = 300
THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def _rows(settings: Settings, path: Path) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    assistant = Assistant.from_settings(settings)
    pipeline = assistant._current()
    scanner = pipeline.topics()
    out = []
    for q in load_questions(path):
        if q.kind not in ("list", "count", "compare"):
            continue
        plan = pipeline.planner.plan(q.question)
        if not plan.topic or not plan.constraints.is_empty():
            continue
        x = scanner.features(plan.topic)
        ids = scanner.index.ids
        gold, allowed = set(q.gold_ids), set(q.allowed_ids)
        y = np.array([1 if p in gold else (-1 if p in allowed else 0) for p in ids])
        out.append((q, x, y))
    return out


def _pool(x: np.ndarray) -> np.ndarray:
    return np.argsort(-(x[:, 0] + x[:, 4] + x[:, 2]))[:POOL]


def _fit(rows: list[tuple[Any, np.ndarray, np.ndarray]], l2: float) -> tuple[np.ndarray, float]:
    xs, ys = [], []
    for _, x, y in rows:
        pool = _pool(x)
        keep = y[pool] >= 0
        xs.append(x[pool][keep])
        ys.append(y[pool][keep])
    return fit_logistic(np.vstack(xs), np.concatenate(ys).astype(float), l2)


def _f1(p: np.ndarray, y: np.ndarray, threshold: float) -> tuple[float, float, float]:
    predicted, gold, allowed = p >= threshold, y == 1, y == -1
    hits = int((predicted & gold).sum())
    wrong = int((predicted & ~gold & ~allowed).sum())
    recall = hits / max(1, int(gold.sum()))
    precision = hits / (hits + wrong) if hits + wrong else 0.0
    return recall, precision, (2 * recall * precision / (recall + precision) if hits else 0.0)


def calibrate_sets(settings: Settings, path: Path, l2: float = 1.0) -> str:
    rows = _rows(settings, path)
    held_out: dict[float, list[tuple[str, tuple[float, float, float]]]] = {
        t: [] for t in THRESHOLDS
    }
    for k, (q, x, y) in enumerate(rows):
        w, b = _fit(rows[:k] + rows[k + 1 :], l2)
        p = 1 / (1 + np.exp(-(x @ w + b)))
        for t in THRESHOLDS:
            held_out[t].append((q.category, _f1(p, y, t)))
    best = max(THRESHOLDS, key=lambda t: np.mean([r[2] for _, r in held_out[t]]))
    w, b = _fit(rows, l2)
    lines = [f"{len(rows)} topic questions; leave-one-question-out, threshold {best}:"]
    for category in sorted({c for c, _ in held_out[best]}):
        vals = np.array([r for c, r in held_out[best] if c == category])
        lines.append(
            f"  {category:16s} recall {vals[:, 0].mean():.3f} precision {vals[:, 1].mean():.3f}"
            f" F1 {vals[:, 2].mean():.3f} (n={len(vals)})"
        )
    lines.append("paste into rag/sets/topics.py:")
    lines.append(f"WEIGHTS = {tuple(round(float(v), 2) for v in w)}")
    lines.append(f"BIAS = {round(b, 2)}")
    lines.append(f"MEMBER = {best}")
    return "\n".join(lines)
