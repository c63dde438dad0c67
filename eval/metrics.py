"""Per-question metric functions and their aggregation (mean + bootstrap interval).

Every per-question function returns None when the metric does not apply to that
question (an unanswerable question has no retrieval recall; an abstention has no
citations); aggregates skip None, so each metric is averaged over the questions it
applies to. Retrieval metrics are computed on paper ids after de-duplication: several
chunks of one paper are one result (llama-index's own NDCG/AP went above 1 on duplicate
ids, STYLE.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import numpy as np

from eval.bench.samples import percentile as nearest_rank
from rag.answer.citations import MARKER
from rag.text import normalise_for_match, split_sentences

RETRIEVAL_KEYS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10")
ANSWER_KEYS = (
    "citation_validity",
    "cited_precision",
    "cited_recall",
    "sentence_citation_rate",
    "key_fact_coverage",
    "abstention_accuracy",
    "false_abstention_rate",
    "false_gap_rate",
    "byline_coverage",
)
METRIC_KEYS = RETRIEVAL_KEYS + ANSWER_KEYS
LATENCY_KEYS = ("retrieve_p50", "retrieve_p95", "answer_p50", "answer_p95")
BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 20240


def dedupe(ids: Iterable[str]) -> list[str]:
    """Order-preserving unique ids: a paper counts once, at its best rank."""
    return list(dict.fromkeys(ids))


# --- retrieval --------------------------------------------------------------------
def recall_at(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float | None:
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(gold_set & set(dedupe(retrieved)[:k])) / len(gold_set)


def mrr_at(retrieved: Sequence[str], gold: Sequence[str], k: int = 10) -> float | None:
    gold_set = set(gold)
    if not gold_set:
        return None
    for rank, pid in enumerate(dedupe(retrieved)[:k], start=1):
        if pid in gold_set:
            return 1.0 / rank
    return 0.0


def ndcg_at(retrieved: Sequence[str], gold: Sequence[str], k: int = 10) -> float | None:
    """Binary relevance; the ideal ranking puts min(|gold|, k) relevant papers first."""
    gold_set = set(gold)
    if not gold_set:
        return None
    dcg = sum(
        1.0 / math.log2(rank + 1)
        for rank, pid in enumerate(dedupe(retrieved)[:k], start=1)
        if pid in gold_set
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold_set), k) + 1))
    return dcg / ideal


def retrieval_metrics(retrieved: Sequence[str], gold: Sequence[str]) -> dict[str, float | None]:
    return {
        "recall@1": recall_at(retrieved, gold, 1),
        "recall@5": recall_at(retrieved, gold, 5),
        "recall@10": recall_at(retrieved, gold, 10),
        "mrr@10": mrr_at(retrieved, gold, 10),
        "ndcg@10": ndcg_at(retrieved, gold, 10),
    }


# --- citations --------------------------------------------------------------------
def marker_numbers(text: str) -> list[int]:
    """Every number of every [n] / [1, 3] marker, repeats included (validity counts uses)."""
    out: list[int] = []
    for match in MARKER.finditer(text):
        out.extend(int(part) for part in re.split(r"\s*[,;]\s*", match.group(1)))
    return out


def citation_validity(text: str, cited: Iterable[int]) -> float | None:
    """Share of markers whose number is one of the numbered sources returned."""
    numbers = marker_numbers(text)
    if not numbers:
        return None
    valid = set(cited)
    return sum(1 for n in numbers if n in valid) / len(numbers)


def cited_precision(cited_ids: Sequence[str], gold: Sequence[str]) -> float | None:
    cited = set(cited_ids)
    if not cited or not gold:
        return None
    return len(cited & set(gold)) / len(cited)


def cited_recall(cited_ids: Sequence[str], gold: Sequence[str]) -> float | None:
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(set(cited_ids) & gold_set) / len(gold_set)


_TITLE_LABEL = re.compile(r"\*(?:[^*\\\n]|\\.)+\*:\s*")


def answer_sentences(text: str) -> list[tuple[str, bool]]:
    """(sentence, carries a citation) pairs.

    Citations are often written after the full stop ("… works. [1] Next …"), which the
    sentence splitter puts at the start of the next piece: such leading markers are
    credited to the sentence before them.
    """
    # "*Title*: " labels (the extractive answer's per-paper headings) are not sentences,
    # and a title ending in "?" would otherwise split into an uncited fragment.
    text = _TITLE_LABEL.sub(" ", text)
    out: list[tuple[str, bool]] = []
    for piece in split_sentences(text):
        lead = re.match(r"^(?:\s*" + MARKER.pattern + r")+", piece)
        if lead:
            if out:
                out[-1] = (out[-1][0], True)
            piece = piece[lead.end() :]
        if not re.search(r"\w", MARKER.sub("", piece)):
            continue  # a piece that is only markers or punctuation is not a sentence
        out.append((piece.strip(), bool(MARKER.search(piece))))
    return out


def sentence_citation_rate(text: str) -> float | None:
    sentences = answer_sentences(text)
    if not sentences:
        return None
    return sum(1 for _, cited in sentences if cited) / len(sentences)


# --- content ----------------------------------------------------------------------
_LATEX_SYMBOLS = {r"\times": "×", r"\%": "%", r"\sim": "~", r"\approx": "≈", r"\pm": "±"}
_LATEX_COMMAND = re.compile(r"\\(?:mathbf|mathrm|mathcal|mathit|text|textbf|textit|emph|bf|it|rm)")
_TIMES = re.compile(r"(\d)\s*\$?\s*(?:×|x\b)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def normalise_fact(text: str) -> str:
    """rag.text.normalise_for_match after undoing LaTeX and number formatting.

    "$100$M" and "100M", "10,632" and "10632", "$5\\times$", "5×" and "5x" compare equal.
    """
    for symbol, plain in _LATEX_SYMBOLS.items():
        text = text.replace(symbol, plain)
    text = _LATEX_COMMAND.sub("", text)
    # "5×", "5 $\times$" and "5x" are one number, and "2.16" is stated by "2.16×".
    text = _TIMES.sub(r"\1 x", text)
    text = text.replace("$", "").replace("{", "").replace("}", "")
    text = _THOUSANDS.sub("", text)
    return normalise_for_match(text)


def fact_present(fact: str, answer: str) -> bool:
    needle = normalise_fact(fact)
    if not needle:
        return False
    # Whole-token match: "5" must not be found inside "50".
    return f" {needle} " in f" {normalise_fact(answer)} "


def missing_facts(facts: Sequence[str], answer: str) -> list[str]:
    return [f for f in facts if not fact_present(f, answer)]


def key_fact_coverage(facts: Sequence[str], answer: str) -> float | None:
    if not facts:
        return None
    return 1.0 - len(missing_facts(facts, answer)) / len(facts)


# --- aggregation ------------------------------------------------------------------
def mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else None


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """Nearest-rank percentile of the values present (None when there are none)."""
    kept = [float(v) for v in values if v is not None]
    return nearest_rank(kept, q) if kept else None


def bootstrap_ci(
    values: Sequence[float | None],
    statistic: str = "mean",
    q: float = 50.0,
    groups: Sequence[str] | None = None,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> list[float] | None:
    """95% percentile-bootstrap interval of the mean (or the q-th percentile).

    With `groups`, whole groups are resampled (a cluster bootstrap): several queries
    about one paper are not independent evidence.
    """
    labels: Sequence[object] = groups if groups is not None else range(len(values))
    by_group: dict[object, list[float]] = {}
    for v, g in zip(values, labels, strict=True):
        if v is not None:
            by_group.setdefault(g, []).append(float(v))
    if not by_group:
        return None
    rng = np.random.default_rng(seed)
    clusters = [np.asarray(vs) for vs in by_group.values()]
    stats = np.empty(samples)
    for i in range(samples):
        picked = rng.integers(0, len(clusters), size=len(clusters))
        sample = np.concatenate([clusters[j] for j in picked])
        stats[i] = np.mean(sample) if statistic == "mean" else nearest_rank(list(sample), q)
    return [float(np.percentile(stats, 2.5)), float(np.percentile(stats, 97.5))]


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def aggregate(
    rows: Sequence[dict[str, object]], keys: Sequence[str] = METRIC_KEYS
) -> dict[str, object]:
    """One summary block: each metric's mean, latency percentiles, and their ci95.

    `rows` are per-question records with "metrics" (METRIC_KEYS) and "latency_ms"
    ({"retrieve", "answer"}) dicts.
    """
    block: dict[str, object] = {}
    ci: dict[str, object] = {}
    for key in keys:
        values = [row["metrics"].get(key) for row in rows]  # type: ignore[attr-defined]
        block[key] = _round(mean(values), 4)
        interval = bootstrap_ci(values)
        ci[key] = [round(x, 4) for x in interval] if interval else None
    latency: dict[str, float | None] = {}
    latency_ci: dict[str, list[float] | None] = {}
    for key in LATENCY_KEYS:
        stage, pct = key.split("_p")
        values = [row["latency_ms"].get(stage) for row in rows]  # type: ignore[attr-defined]
        latency[key] = _round(percentile(values, float(pct)), 1)
        interval = bootstrap_ci(values, statistic="percentile", q=float(pct))
        latency_ci[key] = [round(x, 1) for x in interval] if interval else None
    block["latency_ms"] = latency
    ci["latency_ms"] = latency_ci
    block["ci95"] = ci
    return block


def score_question(
    *,
    gold: Sequence[str],
    answerable: bool,
    key_facts: Sequence[str],
    retrieved: Sequence[str],
    answer: str | None,
    abstained: bool | None,
    cited: Sequence[tuple[int, str]] | None,
    gaps: bool = False,
    byline_facts: Sequence[str] = (),
) -> dict[str, float | None]:
    """All METRIC_KEYS for one question; `answer is None` means a retrieval-only config.

    Key-fact coverage counts an abstention on an answerable question as 0: it measures
    what the reader got, so abstaining more cannot raise it. `gaps`: the answer says what
    the abstract does not state or mention. On a question that cannot be answered as asked
    that is handled (counted with abstentions); on an answerable one it is a false gap.
    `byline_facts`: what a byline part asks (names, a count, a status), which the answer
    must write (`byline_coverage`).
    """
    scores: dict[str, float | None] = dict.fromkeys(METRIC_KEYS)
    if answerable:
        scores.update(retrieval_metrics(retrieved, gold))
    if answer is None or abstained is None:
        return scores
    cited = list(cited or [])
    if not abstained:
        scores["citation_validity"] = citation_validity(answer, [n for n, _ in cited])
        scores["sentence_citation_rate"] = sentence_citation_rate(answer)
        if answerable:
            scores["cited_precision"] = cited_precision([p for _, p in cited], gold)
            scores["cited_recall"] = cited_recall([p for _, p in cited], gold)
    if byline_facts:  # "Who wrote X, and …?": the catalogue's part of the answer
        said = " ".join(answer.casefold().split())
        scores["byline_coverage"] = sum(f.casefold() in said for f in byline_facts) / len(
            byline_facts
        )
    if answerable:
        coverage = key_fact_coverage(key_facts, answer)
        scores["key_fact_coverage"] = 0.0 if abstained and coverage is not None else coverage
        scores["false_abstention_rate"] = 1.0 if abstained else 0.0
        scores["false_gap_rate"] = 1.0 if gaps and not abstained else 0.0
    else:
        scores["abstention_accuracy"] = 1.0 if abstained or gaps else 0.0
    return scores
