"""BENCHMARKS.md's replicas section (eval.bench.replicas' results), beside eval.bench.report."""

from __future__ import annotations

from typing import Any

from eval.bench.tables import dig, fmt, measured_line, note_lines, table

PCT, PCT_MS = ("p50", "p95", "max"), ["p50 ms", "p95 ms", "max ms"]
COUNTS = ("requests", "ok", "errors", "rate_limited_429", "failed_over")


def replicas_lines(section: dict[str, Any]) -> list[str]:
    fresh, load, rss = section["freshness"], section["kill_under_load"], section["rss_mb"]
    names = list(section["ready_s"])
    rounds = [
        [i + 1, r["paper_id"], r["ingest_wall_s"], r.get("committed_after_s")]
        + [
            f"{fmt(r['exit_to_answer_s'].get(n), 2)} / {fmt(dig(r, 'commit_to_answer_s', n), 2)}"
            for n in names
        ]
        for i, r in enumerate(fresh["rounds"])
    ]
    phases = [
        [label, *(load[key][k] for k in COUNTS), *(load[key]["latency_ms"].get(k) for k in PCT)]
        for key, label in (("before_kill", "before the kill"), ("after_kill", "after the kill"))
    ]
    total = load["total"]
    return [
        "## 6. Replicas",
        "",
        f"{section['replicas']} `rag serve` replicas on one `chroma run` server (refresh "
        f"every {fmt(section['refresh_seconds'])} s, the default), ready after "
        + ", ".join(f"{n} {fmt(s)} s" for n, s in section["ready_s"].items())
        + f". **Targets: every replica answers from a new paper ≤ {fmt(fresh['target_s'])} s "
        "after `rag ingest` commits (and so after it exits); 0 errors when a replica is "
        "SIGKILLed under load.**",
        "",
        f"Freshness, s to the paper retrieved: from the ingest's exit max "
        f"{fmt(fresh['max_s'], 2)}, median {fmt(fresh['median_s'], 2)}; from its commit max "
        f"{fmt(fresh.get('max_from_commit_s'), 2)}"
        + (f", **{fresh['missed']} never seen**." if fresh["missed"] else "."),
        "",
        *table(
            ["round", "new paper", "ingest wall s", "commit after s"]
            + [f"{n}: from exit / commit, s" for n in names],
            rounds,
        ),
        f"Kill under load: {load['clients']} client threads for {fmt(load['seconds'])} s, "
        f"replica {load['killed']} SIGKILLed at {fmt(load['killed_at_s'], 2)} s: "
        f"{total['errors']} error(s), {total['rate_limited_429']} 429(s) in "
        f"{total['requests']} requests.",
        "",
        *table(["started", "requests", "2xx", "errors", "429", "failed over", *PCT_MS], phases),
        f"Resident memory at the end, MB: server {fmt(rss.get('server'))}, "
        + ", ".join(f"replica {n} {fmt(rss.get(n))}" for n in names)
        + f" ({load['killed']}: before its kill). Papers after: "
        f"{fmt(section.get('papers_after'))}.",
        "",
        measured_line(section),
        "",
        *note_lines(section),
    ]
