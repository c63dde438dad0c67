"""The one-screen summary of a load test's report (scripts/load_test.py)."""

from __future__ import annotations

from typing import Any


def summary(report: dict[str, Any]) -> str:
    lat, mem = report["latency"], report["memory"]
    lines = [
        f"load: {report['clients']} clients x {report['duration_s']:.0f} s against "
        f"{report['url']} (wall {report['wall_s']:.1f} s, seed {report['seed']})",
        f"requests {report['requests']:,}  errors {report['errors']}  "
        f"refused (429) {report['refused']:,}  "
        f"throughput {report['throughput_rps']:.2f} req/s",
    ]
    if lat:
        lines.append(
            f"latency  p50 {lat['p50_ms']:,.0f} ms  p95 {lat['p95_ms']:,.0f} ms  "
            f"p99 {lat['p99_ms']:,.0f} ms  max {lat['max_ms']:,.0f} ms"
        )
    for kind, k in report["by_kind"].items():
        if k.get("p50_ms") is not None:
            lines.append(
                f"  {kind:<12} {k['requests']:>6,} req  {k['errors']} err  "
                f"p50 {k['p50_ms']:,.0f}  p95 {k['p95_ms']:,.0f}  p99 {k['p99_ms']:,.0f} ms"
            )
    if mem.get("sampled"):
        verdict = "GROWTH FLAGGED" if mem["growth_flagged"] else "no growth flagged"
        lines.append(
            f"server RSS  start {mem['start_mb']:,.0f} MB  middle {mem['middle_mb']:,.0f}  "
            f"max {mem['max_mb']:,.0f}  end {mem['end_mb']:,.0f}  "
            f"(second half {mem['second_half_growth_mb']:+.0f} MB, allowed "
            f"{mem['allowed_growth_mb']:.0f}: {verdict})"
        )
        if mem["budget_mb"] is not None:
            over = "OVER" if mem["over_budget"] else "within"
            lines.append(
                f"server RSS max {mem['max_mb']:,.0f} MB: {over} the {mem['budget_mb']:,.0f} MB budget"
            )
    else:
        lines.append("server RSS  not sampled (no --pid, or not on this machine)")
    for example in report["error_examples"]:
        lines.append(f"  error: {example}")
    return "\n".join(lines)
