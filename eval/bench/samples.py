"""Summaries of timing samples: every raw sample is kept next to its percentiles."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest rank: the smallest sample with at least q% of the samples at or below it."""
    if not values:
        raise ValueError("percentile of no samples")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summarise(samples: Sequence[float], digits: int = 2) -> dict[str, Any]:
    """n, median, p50/p95/p99, min, max and the raw samples (rounded)."""
    values = [float(v) for v in samples]
    if not values:
        return {"n": 0, "samples": []}
    return {
        "n": len(values),
        "median": round(statistics.median(values), digits),
        "p50": round(percentile(values, 50), digits),
        "p95": round(percentile(values, 95), digits),
        "p99": round(percentile(values, 99), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
        "samples": [round(v, digits) for v in values],
    }


def median_of(records: Sequence[dict[str, Any]], key: str) -> float | None:
    """The median of one numeric field over repeated runs (None if no run has it)."""
    values = [float(r[key]) for r in records if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def ratio(ours: float | None, baseline: float | None, digits: int = 2) -> float | None:
    """baseline / ours for times (>1: we are faster); None when either is missing."""
    if ours is None or baseline is None or ours <= 0:
        return None
    return round(baseline / ours, digits)
