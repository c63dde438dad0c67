"""`python -m eval bench` options to a BenchConfig; --smoke and --report-only.

Kept light (no heavy imports at module level): eval/__main__ imports it to build --help.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eval.bench.run import BenchConfig

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURE_CORPUS = ROOT / "tests" / "fixtures" / "corpus.jsonl"
SMOKE = {
    "corpus_limit": 20,
    "repeats": 1,
    "queries": 4,
    "warmup": 1,
    "scales": [1, 2],
    "scale_backends": ["embedded"],  # the chroma server part is left to full runs
    "scale_queries": 2,
    "scale_warmup": 1,
    "startup_repeats": 1,
    "baseline_warm": False,  # the plain re-run is its cold run again; seconds saved
    "set_questions": 2,
    "set_rounds": 1,
    "replica_rounds": 1,
    "replica_load_s": 5.0,
    "ui_questions": 1,
}


def int_list(value: str) -> list[int]:
    try:
        numbers = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"'{value}' is not a list of integers like 1,10") from exc
    if not numbers or min(numbers) < 1:
        raise argparse.ArgumentTypeError(f"'{value}': give integers of at least 1")
    return numbers


def name_list(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one name")
    return names


def run_from_args(args: argparse.Namespace) -> int:
    import sys

    from eval.bench.procs import BenchError
    from eval.bench.run import Bench

    out = args.out or (
        Path(tempfile.gettempdir()) / "icml-rag-bench-smoke" if args.smoke else ROOT / "bench"
    )
    markdown = args.markdown or (out / "BENCHMARKS.md" if args.smoke else ROOT / "BENCHMARKS.md")
    if args.report_only:
        return _report_only(out, markdown)
    problem = _usage_problem(args)
    if problem:
        print(f"eval bench: {problem}", file=sys.stderr)
        return 2
    cfg = _config(args, out, markdown)
    if not cfg.corpus.exists():
        print(f"eval bench: --corpus {cfg.corpus} does not exist", file=sys.stderr)
        return 2
    try:
        Bench(cfg).run()
    except BenchError as exc:
        print(f"eval bench: error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out / 'results.json'}, {out / 'scale.png'} and {markdown}")
    return 0


def _report_only(out: Path, markdown: Path) -> int:
    """BENCHMARKS.md again from the last results.json (no measurement)."""
    import sys

    from eval.bench.report import write_report

    results_path = out / "results.json"
    if not results_path.exists():
        print(f"eval bench: no {results_path} to report from", file=sys.stderr)
        return 2
    write_report(json.loads(results_path.read_text()), markdown, out / "scale.png")
    print(f"wrote {markdown}")
    return 0


def _usage_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with option values argparse cannot check on its own, if anything."""
    bad = [b for b in args.scale_backends if b not in ("embedded", "server")]
    if bad:
        return f"--scale-backends: {', '.join(bad)} not in embedded,server"
    if args.ui_questions < 0:
        return "--ui-questions must be at least 0"
    if args.set_rounds < 1 or (args.set_questions is not None and args.set_questions < 1):
        return "--set-rounds and --set-questions must be at least 1"
    return None


def _config(args: argparse.Namespace, out: Path, markdown: Path) -> BenchConfig:
    """The run's configuration; --smoke shrinks every size (SMOKE) but an explicit limit."""
    from eval.bench.run import SECTIONS, BenchConfig

    smoke_corpus = args.smoke and args.corpus == ROOT / "data" / "icml2024.jsonl"
    cfg = BenchConfig(
        corpus=FIXTURE_CORPUS if smoke_corpus else args.corpus,
        out_dir=out,
        markdown=markdown,
        scitldr_dir=args.scitldr_dir,
        corpus_limit=args.corpus_limit,
        repeats=args.repeats,
        queries=args.queries,
        warmup=args.warmup,
        scales=args.scales,
        scale_backends=args.scale_backends,
        scale_queries=args.scale_queries,
        startup_repeats=args.startup_repeats,
        set_questions=args.set_questions,
        set_rounds=args.set_rounds,
        ui_questions=args.ui_questions,
        sections=args.sections or list(SECTIONS),
        store=args.store,
        work=args.work,
        merge=args.merge,
        smoke=args.smoke,
    )
    if args.ui_baseline_ref:
        cfg.ui_baseline_ref = args.ui_baseline_ref
    if args.smoke:
        for key, value in SMOKE.items():
            if key == "corpus_limit" and args.corpus_limit:
                continue
            setattr(cfg, key, value)
    return cfg
