"""The targets table of BENCHMARKS.md: issue 7's, the set answers' and issue 15's limits
next to this run's figures (rendered by eval.bench.report)."""

from __future__ import annotations

import functools
from typing import Any

from eval.bench.tables import dig


def _set_p95(results: dict[str, Any], kind: str) -> float | None:
    p95 = dig(results, "sets", "kinds", kind, "latency_ms", "p95")
    return float(p95) if p95 is not None else None


def _scale_p95(results: dict[str, Any], backend: str, scale: int) -> float | None:
    for row in dig(results, "scale", "rows") or []:
        if row["backend"] == backend and row["scale"] == scale:
            return float(row["latency_ms"]["hybrid"]["p95"])
    return None


def _scale_cell(results: dict[str, Any], backend: str, scale: int, *path: str) -> Any:
    for row in dig(results, "scale", "rows") or []:
        if row["backend"] == backend and row["scale"] == scale:
            return dig(row, *path)
    return None


def scale_target_specs(results: dict[str, Any]) -> list[tuple[str, float, Any, Any]]:
    """Issue 15's targets at 100x, per store kind: (target, limit, ours, baseline)."""
    specs: list[tuple[str, float, Any, Any]] = []
    for backend in ("embedded", "server"):
        cell = functools.partial(_scale_cell, results, backend, 100)
        specs += [
            (f"100× open (Assistant.from_settings), {backend}, s", 10.0, cell("open_s"), None),
            (
                f"100× app peak resident memory, {backend}, MB",
                2048.0,
                cell("query_process_peak_rss_mb"),
                None,
            ),
            (f"100× hybrid p95, {backend}, ms", 60.0, cell("latency_ms", "hybrid", "p95"), None),
            (
                f"100× lexical (bm25) p95, {backend}, ms",
                20.0,
                cell("latency_ms", "bm25", "p95"),
                None,
            ),
        ]
    return specs


def target_rows(results: dict[str, Any]) -> list[list[Any]]:
    """Issue 7's, the set answers' and issue 15's targets with this run's figures:
    (target, limit, ours, baseline, ratio, met)."""
    rows = []
    for label, limit, ours, base in [*_service_specs(results), *scale_target_specs(results)]:
        r = round(base / ours, 2) if ours and base else None
        met = None if ours is None or limit is None else ("yes" if ours <= limit else "**no**")
        rows.append([label, limit, ours, base, f"{r:.2f}×" if r else "–", met or "not measured"])
    return rows


def _half(seconds: float | None) -> float | None:
    """Issue 15: cold ingest at least 2x the plain pipeline's speed, as a time limit."""
    return round(seconds / 2, 1) if seconds else None


def _service_specs(results: dict[str, Any]) -> list[tuple[str, float | None, Any, Any]]:
    """(target, limit, ours, baseline) for ingest, latency, serving, sets and replicas."""
    ing = results.get("ingest", {})
    lat = results.get("latency", {})
    start = results.get("startup", {})
    rep = results.get("replicas", {})
    fresh_s = dig(rep, "freshness", "max_from_commit_s")
    kill_errors = dig(rep, "kill_under_load", "total", "errors")
    specs: list[tuple[str, float | None, Any, Any]] = [
        (
            "cold ingest, s",
            45.0,
            dig(ing, "ours", "cold", "median", "wall_s"),
            dig(ing, "baseline", "cold", "median", "wall_s"),
        ),
        (
            "cold ingest, every chunk embedded (any corpus), s: half the plain pipeline's",
            _half(dig(ing, "baseline", "cold", "median", "wall_s")),
            dig(ing, "ours", "cold_embed_all", "median", "wall_s"),
            dig(ing, "baseline", "cold", "median", "wall_s"),
        ),
        (
            "warm re-ingest, s",
            5.0,
            dig(ing, "ours", "warm", "median", "wall_s"),
            dig(ing, "baseline", "warm", "median", "wall_s"),
        ),
        (
            "hybrid retrieval p95 at 1×, ms",
            40.0,
            dig(lat, "latency_ms", "hybrid", "p95"),
            dig(lat, "latency_ms", "baseline", "p95"),
        ),
        (
            "hybrid retrieval p95 at 100×, embedded, ms",
            150.0,
            _scale_p95(results, "embedded", 100),
            None,
        ),
        (
            "hybrid retrieval p95 at 100×, chroma server, ms",
            150.0,
            _scale_p95(results, "server", 100),
            None,
        ),
        (
            "complete extractive answer p95 at 1×, ms",
            150.0,
            dig(lat, "latency_ms", "answer", "p95"),
            None,
        ),
        ("`rag serve` ready (/healthz), s", 10.0, dig(start, "median", "healthz_s"), None),
        ("new paper answered by both replicas after its commit, s", 30.0, fresh_s, None),
        ("errors when a replica is SIGKILLed under load", 0, kill_errors, None),
        ("list answer p95, ms (set answers)", 500.0, _set_p95(results, "list"), None),
        ("count answer p95, ms (set answers)", 500.0, _set_p95(results, "count"), None),
        ("metadata answer p95, ms (set answers)", 50.0, _set_p95(results, "metadata"), None),
        (
            "serving process resident memory, MB",
            1.2 * 1024,
            dig(start, "median", "rss_after_first_answer_mb"),
            None,
        ),
    ]
    return specs
