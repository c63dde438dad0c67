"""`python -m eval calibrate-sets`: fit the topic-membership models on set questions.

Every topic question (list, count, compare; no metadata constraints, no named papers) is
read as the system reads it (`TopicJudge.read`); a described topic claims no members and is
left out. Labels: the gold set (1), every other paper (0), allowed papers left out.

- One facet ("federated learning"): a logistic model on `TopicScanner.facet_features`,
  fitted on the 300 best-scoring papers of each question (eval.calibrate.fit_logistic).
- Several facets ("adversarial robustness" + "graph neural networks"): every facet must
  hold, so a paper's chance is the product of one presence model per facet (shared
  weights over that facet's features, plus the whole topic's dense match and whether one
  sentence writes every facet), fitted by gradient descent on the same pools.

The membership threshold maximises the mean F1; the "clearly" threshold maximises the
share of counts within ±25 % of the gold count. Out-of-sample numbers: leave one question
out (refit without it, score it). It edits nothing: it prints the constants to paste into
rag/sets/topics.py and rag/sets/judgement.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval.calibrate import fit_logistic
from eval.questions import Question, load_questions
from rag import Assistant, Settings

POOL = 300
MEMBERS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
CLEARS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)


@dataclass
class Row:
    question: Question
    facets: list[str]
    x: np.ndarray  # papers × features (one facet) or facets × papers × features
    shared: np.ndarray | None  # papers × 2 (several facets): whole-topic dense, together
    y: np.ndarray  # 1 gold, -1 allowed, 0 other

    @property
    def several(self) -> bool:
        return self.shared is not None

    def pool(self) -> np.ndarray:
        x = self.x if not self.several else self.x.min(axis=0)
        return np.argsort(-(x[:, 0] + x[:, 4] + x[:, 2] + x[:, 9]))[:POOL]


def rows(settings: Settings, path: Path) -> list[Row]:
    assistant = Assistant.from_settings(settings)
    pipeline = assistant._current()
    judge = pipeline.judge()
    scanner = judge.scanner
    out = []
    for q in load_questions(path):
        if q.kind not in ("list", "count", "compare") or q.names:
            continue
        plan = pipeline.planner.plan(q.question)
        if not plan.topic or not plan.constraints.is_empty():
            continue
        reading = judge.read(plan.topic)
        if reading.described:
            continue
        gold, allowed = set(q.gold_ids), set(q.allowed_ids)
        y = np.array([1 if p in gold else (-1 if p in allowed else 0) for p in scanner.index.ids])
        if len(reading.facets) > 1:
            stack, shared = judge.facet_inputs(plan.topic, reading.facets)
            out.append(Row(q, reading.facets, stack, shared, y))
        else:
            facet = reading.facets[0] if reading.facets else plan.topic
            out.append(Row(q, [facet], scanner.facet_features(facet), None, y))
    return out


# --- the two models ----------------------------------------------------------------------
Weights = tuple[np.ndarray, np.ndarray, float]  # per-facet weights, shared weights, bias


def fit_one(train: list[Row], l2: float) -> Weights:
    xs, ys = [], []
    for row in train:
        pool = row.pool()
        keep = row.y[pool] >= 0
        xs.append(row.x[pool][keep])
        ys.append(row.y[pool][keep])
    w, b = fit_logistic(np.vstack(xs), np.concatenate(ys).astype(float), l2)
    return w, np.zeros(0), b


def fit_several(train: list[Row], l2: float, steps: int = 3000, rate: float = 0.05) -> Weights:
    """Product of per-facet logistic presences, fitted by Adam on the log-likelihood."""
    data = []
    for row in train:
        pool = row.pool()
        keep = pool[row.y[pool] >= 0]
        assert row.shared is not None
        data.append((row.x[:, keep, :], row.shared[keep], row.y[keep].astype(float)))
    n_facet, n_shared = data[0][0].shape[2], data[0][1].shape[1]
    theta = np.zeros(n_facet + n_shared + 1)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for step in range(1, steps + 1):
        grad = l2 * np.concatenate([theta[:-1], [0.0]])
        for stack, shared, y in data:
            z = stack @ theta[:n_facet] + (shared @ theta[n_facet:-1] + theta[-1])[None, :]
            s = 1.0 / (1.0 + np.exp(-z))
            p = np.exp(np.log(np.clip(s, 1e-12, 1.0)).sum(axis=0))
            coef = -(y - (1 - y) * p / np.clip(1 - p, 1e-12, None))
            dz = coef[None, :] * (1 - s)
            grad[:n_facet] += np.einsum("fn,fnk->k", dz, stack)
            grad[n_facet:-1] += dz.sum(axis=0) @ shared
            grad[-1] += dz.sum()
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        theta -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return theta[:n_facet], theta[n_facet:-1], float(theta[-1])


def predict(row: Row, weights: Weights) -> np.ndarray:
    w, shared_w, b = weights
    if not row.several:
        return 1.0 / (1.0 + np.exp(-(row.x @ w + b)))
    assert row.shared is not None
    z = row.x @ w + (row.shared @ shared_w + b)[None, :]
    return np.exp(-np.logaddexp(0.0, -z).sum(axis=0))


# --- scoring -----------------------------------------------------------------------------
def set_scores(p: np.ndarray, y: np.ndarray, threshold: float) -> tuple[float, float, float]:
    predicted, gold, allowed = p >= threshold, y == 1, y == -1
    hits = int((predicted & gold).sum())
    wrong = int((predicted & ~gold & ~allowed).sum())
    if not gold.any():  # an empty intersection: right only when nothing is claimed
        right = float(wrong == 0)
        return right, right, right
    recall = hits / int(gold.sum())
    precision = hits / (hits + wrong) if hits + wrong else 0.0
    f1 = 2 * recall * precision / (recall + precision) if hits else 0.0
    return recall, precision, f1


def count_within(p: np.ndarray, y: np.ndarray, threshold: float) -> float | None:
    gold = int((y == 1).sum())
    if gold == 0:
        return None
    return float(abs(int((p >= threshold).sum()) - gold) <= 0.25 * gold)


def _report(label: str, held: list[tuple[Row, np.ndarray]], member: float, clear: float) -> str:
    scores = np.array([set_scores(p, r.y, member) for r, p in held])
    counts = [c for r, p in held if (c := count_within(p, r.y, clear)) is not None]
    return (
        f"  {label:10s} n={len(held):3d}  recall {scores[:, 0].mean():.3f}  precision "
        f"{scores[:, 1].mean():.3f}  F1 {scores[:, 2].mean():.3f}  counts within ±25% "
        f"{np.mean(counts) if counts else float('nan'):.3f}"
    )


def _thresholds(held: list[tuple[Row, np.ndarray]]) -> tuple[float, float]:
    member = max(MEMBERS, key=lambda t: np.mean([set_scores(p, r.y, t)[2] for r, p in held]))
    clear = max(
        [t for t in CLEARS if t >= member] or [member],
        key=lambda t: np.mean(
            [c for r, p in held if (c := count_within(p, r.y, t)) is not None] or [0.0]
        ),
    )
    return member, clear


def calibrate(found: list[Row], several: bool, l2: float) -> list[str]:
    fit = fit_several if several else fit_one
    held = []
    for k, row in enumerate(found):
        weights = fit(found[:k] + found[k + 1 :], l2)
        held.append((row, predict(row, weights)))
    member, clear = _thresholds(held)
    title = "several facets" if several else "one facet"
    lines = [f"{title}: {len(found)} questions, leave-one-question-out"]
    for t in MEMBERS:  # the trade-off, for choosing another threshold knowingly
        scores = np.array([set_scores(p, r.y, t) for r, p in held])
        lines.append(
            f"  member >= {t:.2f}: recall {scores[:, 0].mean():.3f} precision "
            f"{scores[:, 1].mean():.3f} F1 {scores[:, 2].mean():.3f}"
        )
    lines.append(f"at member {member} (best F1) and clearly {clear} (best counts):")
    for category in sorted({r.question.category for r in found}):
        part = [(r, p) for r, p in held if r.question.category == category]
        lines.append(_report(category, part, member, clear))
    lines.append(_report("all", held, member, clear))
    w, shared, b = fit(found, l2)
    prefix = "FACET_" if several else ""
    lines.append(f"{prefix}WEIGHTS = {tuple(round(float(v), 3) for v in w)}")
    if several:
        lines.append(f"FACET_SHARED = {tuple(round(float(v), 3) for v in shared)}")
    lines += [f"{prefix}BIAS = {round(b, 3)}", f"{prefix}MEMBER = {member}"]
    lines.append(f"{prefix}CLEAR = {clear}")
    return lines


def calibrate_sets(settings: Settings, path: Path, l2: float = 1.0) -> str:
    found = rows(settings, path)
    one = [r for r in found if not r.several]
    several = [r for r in found if r.several]
    lines = [*calibrate(one, False, l2), ""]
    lines += calibrate(several, True, l2)
    lines.append("paste into rag/sets/topics.py (one facet) and rag/sets/judgement.py (several)")
    return "\n".join(lines)
