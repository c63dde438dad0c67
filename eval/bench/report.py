"""BENCHMARKS.md from bench/results.json: tables, the scale plot, targets, how to reproduce.

Generated, never edited by hand: `python -m eval bench --report-only` rewrites it from
the results file. Times are medians over repeats; ratios are baseline / ours (above 1:
ours is faster or smaller).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from eval.bench.plot import plot_scale
from eval.bench.report_replicas import replicas_lines
from eval.bench.samples import ratio
from eval.bench.tables import dig, fmt, measured_line, note_lines, table
from eval.bench.targets import target_rows
from rag.settings import RETRIEVAL_MODES

LATENCY_ROWS = (
    ("query_embedding", "query embedding alone (ours, ONNX; the floor)"),
    ("dense", "dense retrieval"),
    ("bm25", "bm25 retrieval"),
    ("hybrid", "hybrid retrieval (default)"),
    ("answer", "complete extractive answer (`Assistant.ask`), evidence warmed"),
    ("answer_first_sight", "complete extractive answer, before the evidence warm-up"),
    ("baseline_query_embedding", "baseline: query embedding alone (HuggingFaceEmbedding, torch)"),
    ("baseline", "baseline: default retriever (`VectorStoreIndex` → `as_retriever`)"),
)


def machine_lines(results: dict[str, Any]) -> list[str]:
    m = results.get("machine", {})
    packages = ", ".join(f"{k} {v}" for k, v in m.get("packages", {}).items() if v)
    return [
        f"- **Machine:** {m.get('cores')} cores, {m.get('cpu_model')}, {m.get('ram_gib')} GiB "
        f"RAM, no GPU; {m.get('platform')}; Python {m.get('python')}.",
        f"- **Versions:** {packages}.",
        f"- **Code:** commit `{m.get('git_commit')}`; embedding "
        f"`{results.get('settings', {}).get('embedding_id')}`, answers extractive.",
        f"- **Numbers are from {m.get('shared_machine_note', 'a shared machine')}.** "
        "Each section states the load average around it, and the machine and commit it was "
        "measured on (sections merged from other runs may differ from the lines above, "
        "which describe the latest run).",
        "",
    ]


def ingest_lines(section: dict[str, Any]) -> list[str]:
    ours, base = section["ours"], section["baseline"]
    ratios = section.get("ratios_baseline_over_ours", {})
    rows = []
    for key, label in (
        ("wall_s", "wall time, s (process: imports + model + ingest)"),
        ("ingest_s", "inside the ingest call, s"),
        ("imports_s", "imports, s"),
        ("peak_rss_mb", "peak resident memory, MB"),
        ("papers_per_s", "papers/s (over wall time)"),
        ("chunks_per_s", "chunks written/s (over wall time)"),
        ("papers", "papers"),
        ("embedded_chunks", "chunks written"),
    ):
        row: list[Any] = [label]
        for phase in ("cold", "warm"):
            o, b = ours[phase]["median"].get(key), base[phase]["median"].get(key)
            r = ratios.get(phase, {}).get(key)
            row += [o, b, f"{r:.2f}×" if r is not None else "–"]
        row.append(dig(ours, "cold_store_warm_cache", "median", key))
        every = dig(ours, "cold_embed_all", "median", key)
        r = ratios.get("cold_embed_all", {}).get(key)
        row += [every, f"{r:.2f}×" if r is not None else "–"]
        rows.append(row)
    header = [
        "median",
        "ours cold",
        "baseline cold",
        "ratio",
        "ours warm",
        "baseline warm",
        "ratio",
        "ours: empty store, embedding cache filled",
        "ours cold, every chunk embedded (no shipped vectors)",
        "ratio to baseline cold",
    ]
    return [
        "## 1. Ingest",
        "",
        f"Corpus `{section['corpus']}` ({fmt(section['papers_in_corpus'])} papers), "
        f"{section['repeats']} repeat(s) per phase; baseline = plain llama-index "
        "`VectorStoreIndex.from_documents` (default `SentenceSplitter`) into a "
        "`ChromaVectorStore`, same all-MiniLM-L6-v2 weights through `HuggingFaceEmbedding`.",
        "",
        *table(header, rows),
        *pair_lines(ours, base),
        measured_line(section),
        "",
        *note_lines(section),
    ]


def pair_lines(ours: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """Baseline cold / ours, wall time, repeat by repeat: the runs of one repeat follow each
    other within minutes, so these ratios drift less with the machine than the medians."""
    base_runs = base.get("cold", {}).get("runs", [])
    parts = []
    for phase, label in (("cold", "cold"), ("cold_embed_all", "every chunk embedded")):
        pairs = [
            ratio(o.get("wall_s"), b.get("wall_s"))
            for o, b in zip(ours.get(phase, {}).get("runs", []), base_runs, strict=False)
        ]
        shown = [f"{r:.2f}×" for r in pairs if r is not None]
        if len(shown) > 1:
            parts.append(f"{label} {', '.join(shown)}")
    if not parts:
        return []
    return [f"Repeat by repeat (baseline cold / ours, wall time): {'; '.join(parts)}.", ""]


def latency_lines(section: dict[str, Any]) -> list[str]:
    stats = section["latency_ms"]
    rows = [
        [label, stats[k]["p50"], stats[k]["p95"], stats[k]["p99"], stats[k]["n"]]
        for k, label in LATENCY_ROWS
        if k in stats
    ]
    stage_rows = [
        [f"{key}: {stage}", v["p50"], v["p95"], v["p99"]]
        for key, stages in section.get("answer_stages_ms", {}).items()
        for stage, v in stages.items()
        if v.get("n")
    ]
    ratio_rows = [
        [f"baseline / {k}", *(r.get(p) for p in ("p50", "p95", "p99"))]
        for k, r in section.get("ratios_baseline_over_ours", {}).items()
    ]
    sources = ", ".join(f"{n} from {s}" for s, n in section.get("question_sources", {}).items())
    lines = [
        "## 2. Query latency",
        "",
        f"{len(section['questions'])} distinct questions ({sources}); "
        f"{len(section['warmup_questions'])} warm-up questions excluded. Answers: mode "
        f"`{section['retrieval_mode_of_answers']}`, top_k {section['top_k']}, "
        f"{section['abstained']} of {len(section['questions'])} abstained. Evidence warm-up "
        f"between the passes: {fmt(dig(section, 'evidence_warmup', 'sentences'))} sentences "
        f"in {fmt(dig(section, 'evidence_warmup', 'seconds'))} s.",
        "",
        *table(["ms", "p50", "p95", "p99", "n"], rows),
        "Where the answer's time goes (`Answer.timings_ms`):",
        "",
        *table(["answer: stage, ms", "p50", "p95", "p99"], stage_rows),
    ]
    if ratio_rows:
        lines += ["Baseline retriever vs ours (ratio above 1: ours is faster):", ""]
        lines += table(["ratio", "p50", "p95", "p99"], ratio_rows)
    return [*lines, measured_line(section), "", *note_lines(section)]


def scale_lines(section: dict[str, Any], plot_rel: str | None) -> list[str]:
    rows = []
    for r in section.get("rows", []):
        lat = r["latency_ms"]
        rows.append(
            [
                r["backend"],
                f"{r['scale']}×",
                r["chunks"],
                r["papers"],
                f"{fmt(r['build_s'])} (reused)" if r.get("build_reused") else r["build_s"],
                r["open_s"],
                *(f"{lat[m]['p50']:.1f} / {lat[m]['p95']:.1f}" for m in RETRIEVAL_MODES),
                r["query_process_peak_rss_mb"],
                r.get("server_rss_mb"),
                r["disk_mb"],
            ]
        )
    src = section.get("source", {})
    header = [
        "store",
        "size",
        "chunks",
        "papers",
        "build s",
        "open s",
        "dense p50 / p95 ms",
        "bm25 p50 / p95 ms",
        "hybrid p50 / p95 ms",
        "app peak RSS MB",
        "server RSS MB",
        "disk MB",
    ]
    lines = [
        "## 3. Scale",
        "",
        f"Synthetic stores at N× the real store ({fmt(src.get('chunks'))} chunks, "
        f"{fmt(src.get('papers'))} papers); {section.get('questions')} questions per mode, "
        f"{section.get('warmup_questions')} warm-up excluded; "
        f"noise sigma {section.get('synthetic', {}).get('sigma')}.",
        "",
        *table(header, rows),
    ]
    notes = [
        f"- {r['backend']} {r['scale']}×: {r['build_note']}"
        for r in section.get("rows", [])
        if r.get("build_note")
    ] + _first_questions(section)
    lines += [*notes, ""] if notes else []
    if plot_rel:
        lines += [f"![Retrieval latency and memory against store size]({plot_rel})", ""]
    return [*lines, measured_line(section), "", *note_lines(section)]


def _first_questions(section: dict[str, Any]) -> list[str]:
    """The warm-up questions right after the open, timed but not in the table."""
    out = []
    for r in section.get("rows", []):
        first = r.get("warmup_latency_ms")
        if first:
            p95s = " / ".join(fmt(dig(first, m, "p95")) for m in RETRIEVAL_MODES)
            out.append(
                f"- {r['backend']} {r['scale']}×: the first {next(iter(first.values()))['n']} questions "
                f"right after the open (warm-up, not in the table), {'/'.join(RETRIEVAL_MODES)} "
                f"p95 {p95s} ms"
            )
    return out


def startup_lines(section: dict[str, Any]) -> list[str]:
    med = section["median"]
    rows = [
        ["launch → /healthz 200, s", med["healthz_s"]],
        ["launch → first /v1/ask answered, s", med["first_answer_s"]],
        ["first /v1/ask alone, ms", med["first_ask_ms"]],
        ["serving process RSS after the first answer, MB", med["rss_after_first_answer_mb"]],
    ]
    return [
        "## 4. Start-up",
        "",
        f"`{section['command']}` over the store built above; median of "
        f"{section['repeats']} start(s).",
        "",
        *table(["median", "value"], rows),
        measured_line(section),
        "",
        *note_lines(section),
    ]


def sets_lines(section: dict[str, Any]) -> list[str]:
    rows = []
    for kind, k in section.get("kinds", {}).items():
        lat = k["latency_ms"]
        rows.append(
            [
                kind,
                k["questions"],
                lat["n"],
                lat.get("p50"),
                lat.get("p95"),
                lat.get("max"),
                f"{k['plan_kind_matched']:.0%}",
                f"{k['set_path']:.0%}",
            ]
        )
    header = ["kind", "questions", "timed answers", "p50 ms", "p95 ms", "max ms"]
    header += ["plan.kind matched", "set path"]
    mismatched = [
        f"- {kind}: “{m['question']}” was planned as {m['plan_kind']}"
        for kind, k in section.get("kinds", {}).items()
        for m in k.get("mismatched", [])
    ]
    sources = "; ".join(
        f"{kind}: " + ", ".join(f"{n} {s}" for s, n in by.items())
        for kind, by in section.get("question_sources", {}).items()
    )
    return [
        "## 5. Set answers",
        "",
        f"`Assistant.ask` on questions about the conference as a set ({sources}); "
        f"{section['warmup_rounds']} warm-up round(s) excluded, then {section['rounds']} "
        f"timed round(s) of every question. Topic index build (first topic question): "
        f"{fmt(dig(section, 'topic_index_build_ms'))} ms, not in the samples. Assistant "
        f"open: {fmt(dig(section, 'assistant_open_ms'))} ms; evidence warm-up before the "
        f"questions: {fmt(dig(section, 'evidence_warmup', 'seconds'))} s.",
        "",
        *table(header, rows),
        *([*mismatched, ""] if mismatched else []),
        measured_line(section),
        "",
        *note_lines(section),
    ]


def ui_lines(section: dict[str, Any]) -> list[str]:
    rows = []
    for key, name in (
        ("first_ms", "Enter → first answer text, ms"),
        ("complete_ms", "Enter → finished answer, ms"),
    ):
        part = section[key]
        rows.append(
            [
                name,
                part["ours"].get("p50"),
                part["ours"].get("p95"),
                part["baseline"].get("p50"),
                part["baseline"].get("p95"),
                part["ratio_of_medians"],
                part["median_pair_ratio"],
            ]
        )
    header = ["in the browser", "ours p50", "ours p95", "before p50", "before p95"]
    header += ["ratio of medians", "median pair ratio"]
    errors = section.get("errors", {})
    return [
        "## 7. The chat page",
        "",
        f"{section['questions']} questions typed into the chat in Chromium, each asked of "
        f"this commit's UI and of the UI at `{section['baseline_ref']}` (errors: ours "
        f"{errors.get('ours', 0)}, before {errors.get('baseline', 0)}).",
        "",
        *table(header, rows),
        measured_line(section),
        "",
        *note_lines(section),
    ]


def reproduce_lines() -> list[str]:
    return [
        "## How to reproduce",
        "",
        "```bash",
        "make bench                      # = .venv/bin/python -m eval bench (bundled corpus)",
        "python -m eval bench --smoke --out /tmp/b --markdown /tmp/b/BENCHMARKS.md  # seconds",
        "# the 100× stores as a separate step, merged into the same results:",
        "python -m eval bench --work /tmp/bench-work            # keeps the built store",
        "python -m eval bench --sections scale --scales 100 --store /tmp/bench-work/ingest/ours --merge",
        "# the set answers alone over a built store, merged the same way:",
        "python -m eval bench --sections sets --store var --merge",
        "python -m eval bench --report-only                     # BENCHMARKS.md from results.json",
        "```",
        "",
        "Options: `--corpus FILE`, `--repeats N` (ingest), `--queries N`, `--scales 1,10,100`, "
        "`--scale-backends embedded,server`, "
        "`--sections ingest,latency,scale,startup,sets,replicas,ui`, `--ui-questions N`, "
        "`--set-questions N` (per kind), `--set-rounds N`; "
        "`python -m eval bench --help` lists them all. Raw samples of every measurement are "
        "in `bench/results.json`.",
        "",
    ]


def write_report(results: dict[str, Any], markdown: Path, plot: Path) -> None:
    rows = dig(results, "scale", "rows") or []
    plotted = plot_scale(rows, plot)
    plot_rel = os.path.relpath(plot, markdown.parent) if plotted else None
    lines = [
        "# Benchmarks",
        "",
        "Generated by `python -m eval bench` from `bench/results.json` (do not edit by hand). "
        "Times are medians; ratios are baseline / ours (above 1: ours is faster or smaller).",
        "",
        *machine_lines(results),
        "## Targets (issue 7; set answers; issue 15: scale and replicas)",
        "",
        "The targets are for the full bundled corpus on this machine.",
        "",
        *table(["target", "limit", "ours", "baseline", "ratio", "met"], target_rows(results)),
    ]
    if "ingest" in results:
        lines += ingest_lines(results["ingest"])
    if "latency" in results:
        lines += latency_lines(results["latency"])
    if "scale" in results:
        lines += scale_lines(results["scale"], plot_rel)
    if "startup" in results:
        lines += startup_lines(results["startup"])
    if "sets" in results:
        lines += sets_lines(results["sets"])
    if "replicas" in results:
        lines += replicas_lines(results["replicas"])
    if "ui" in results:
        lines += ui_lines(results["ui"])
    lines += reproduce_lines()
    markdown.parent.mkdir(parents=True, exist_ok=True)
    markdown.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
