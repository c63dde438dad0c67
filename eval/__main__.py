"""`python -m eval` (also `rag eval`): run, sets, scitldr, synth, calibrate, bench.

Each subcommand is one `_add_<name>(sub)` function that declares its options and sets
`func` to a handler taking the parsed args and returning an exit code; adding one is
adding such a function to SUBCOMMANDS. Heavy imports happen inside the handlers so
`--help` stays fast.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rag.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE
from rag.settings import BACKEND_NAMES, RETRIEVAL_MODES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SCITLDR = ROOT.parent / "shared" / "data" / "scitldr"


def _cmd_run(args: argparse.Namespace) -> int:
    from eval.report import format_table
    from eval.run import default_out_dir, parse_modes, run_eval, settings_from_args

    modes = parse_modes(args.compare) if args.compare else None
    settings = settings_from_args(args.backend)
    out_dir = args.out or default_out_dir()
    summary = run_eval(
        settings,
        args.questions,
        modes or [args.mode or settings.retrieval_mode],
        out_dir,
        top_k=args.top_k,
        baseline=not args.no_baseline,
    )
    print(format_table(summary))
    print(f"\nwrote {out_dir}/summary.json, results.jsonl, report.md, metrics.png, latency.png")
    return 0


def _add_run(sub: Any) -> None:
    p = sub.add_parser("run", help="evaluate retrieval and answers on a question file")
    p.add_argument("--questions", type=Path, required=True, help="question file (JSONL)")
    p.add_argument("--mode", choices=RETRIEVAL_MODES, help="retrieval mode")
    p.add_argument("--backend", choices=BACKEND_NAMES)
    p.add_argument("--top-k", type=int, help="sources given to the answer (default: settings)")
    p.add_argument("--out", type=Path, help="output directory (default eval/out/<timestamp>)")
    p.add_argument("--compare", help="comma-separated modes, e.g. dense,bm25,hybrid")
    p.add_argument("--no-baseline", action="store_true", help="skip the plain llama-index baseline")
    p.set_defaults(func=_cmd_run)


def _cmd_sets(args: argparse.Namespace) -> int:
    from eval.run import default_out_dir, settings_from_args
    from eval.sets import format_table, run_sets

    out_dir = args.out or default_out_dir()
    summary = run_sets(settings_from_args(args.backend), args.questions, out_dir, args.baseline_ref)
    print(format_table(summary))
    print(f"\nwrote {out_dir}/sets_summary.json, sets_results.jsonl")
    return 0


def _add_sets(sub: Any) -> None:
    p = sub.add_parser("sets", help="questions about the conference as a set (lists, counts, …)")
    p.add_argument("--questions", type=Path, required=True, help="set question file (JSONL)")
    p.add_argument("--backend", choices=BACKEND_NAMES)
    p.add_argument("--out", type=Path, help="output directory (default eval/out/<timestamp>)")
    p.add_argument(
        "--baseline-ref",
        help="also answer with the assistant of this git commit (config `previous`), "
        "run from a copy of it on the same store",
    )
    p.set_defaults(func=_cmd_sets)


def _cmd_scitldr(args: argparse.Namespace) -> int:
    from eval.run import parse_modes
    from eval.scitldr import run_scitldr

    run_scitldr(
        scitldr_dir=args.scitldr_dir,
        split=args.split,
        modes=parse_modes(args.modes),
        out_dir=args.out,
        data_dir=args.data_dir,
        collection=args.collection,
        baseline=not args.no_baseline,
    )
    return 0


def _add_scitldr(sub: Any) -> None:
    p = sub.add_parser("scitldr", help="known-item retrieval on SciTLDR (TLDR -> its paper)")
    p.add_argument(
        "--split", choices=["dev", "test"], default="dev", help="dev tunes; test is held out"
    )
    p.add_argument("--modes", default="dense,bm25,hybrid")
    p.add_argument(
        "--out", type=Path, help="output directory (default eval/out/scitldr-<split>-<timestamp>)"
    )
    p.add_argument("--scitldr-dir", type=Path, default=DEFAULT_SCITLDR)
    p.add_argument("--data-dir", type=Path, default=Path("var/scitldr"))
    p.add_argument("--collection", default="scitldr")
    p.add_argument("--no-baseline", action="store_true")
    p.set_defaults(func=_cmd_scitldr)


def _cmd_synth(args: argparse.Namespace) -> int:
    from eval.synth import synthesise

    written = synthesise(args.n, args.out, backend=args.backend, seed=args.seed)
    print(f"wrote {written} generated question(s) to {args.out} (review before use)")
    return 0


def _add_synth(sub: Any) -> None:
    p = sub.add_parser("synth", help="draft questions from sampled abstracts with the LLM")
    p.add_argument("--n", type=int, default=20, help="abstracts to sample")
    p.add_argument("--out", type=Path, default=ROOT / "eval" / "datasets" / "generated.jsonl")
    p.add_argument("--backend", choices=["auto", "openai", "openai-compatible"])
    p.add_argument("--seed", type=int, default=7)
    p.set_defaults(func=_cmd_synth)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from eval.calibrate import calibrate

    datasets = ROOT / "eval" / "datasets"
    paths = args.questions or [datasets / "dev.jsonl", datasets / "hard_dev.jsonl"]
    print(calibrate(paths, mode=args.mode, l2=args.l2, max_false=args.max_false_abstention))
    return 0


def _add_calibrate(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="fit the abstention model on a question file")
    p.add_argument(
        "--questions",
        type=Path,
        action="append",
        help="question file (repeat for several; default dev.jsonl and hard_dev.jsonl)",
    )
    p.add_argument("--mode", choices=RETRIEVAL_MODES, help="retrieval mode")
    p.add_argument("--l2", type=float, default=0.1, help="L2 penalty on the weights")
    p.add_argument(
        "--max-false-abstention",
        type=float,
        default=0.05,
        help="largest false-abstention rate the threshold may cost",
    )
    p.set_defaults(func=_cmd_calibrate)


def _cmd_calibrate_sets(args: argparse.Namespace) -> int:
    from eval.calibrate_sets import calibrate_sets
    from eval.run import settings_from_args

    print(calibrate_sets(settings_from_args("extractive"), args.questions, l2=args.l2))
    return 0


def _add_calibrate_sets(sub: Any) -> None:
    p = sub.add_parser("calibrate-sets", help="fit the topic-membership model on set questions")
    p.add_argument("--questions", type=Path, default=ROOT / "eval" / "datasets" / "sets_dev.jsonl")
    p.add_argument("--l2", type=float, default=1.0, help="L2 penalty on the weights")
    p.set_defaults(func=_cmd_calibrate_sets)


def _cmd_bench(args: argparse.Namespace) -> int:
    from eval.bench.cli import run_from_args

    return run_from_args(args)


def _add_bench(sub: Any) -> None:
    from eval.bench.cli import int_list, name_list  # light: no heavy imports

    p = sub.add_parser(
        "bench",
        help="benchmarks: ingest, query latency, scale, start-up, set answers (BENCHMARKS.md)",
    )
    p.add_argument("--corpus", type=Path, default=ROOT / "data" / "icml2024.jsonl")
    p.add_argument("--corpus-limit", type=int, help="only the first N records (JSONL corpus)")
    p.add_argument("--repeats", type=int, default=1, help="ingest runs per phase (medians)")
    p.add_argument("--queries", type=int, default=300, help="distinct questions timed")
    p.add_argument("--warmup", type=int, default=10, help="warm-up questions (not counted)")
    p.add_argument("--scales", type=int_list, default=[1, 10], help="store sizes, e.g. 1,10,100")
    p.add_argument(
        "--scale-backends", type=name_list, default=["embedded", "server"], help="embedded,server"
    )
    p.add_argument("--scale-queries", type=int, default=100, help="questions per store size")
    p.add_argument("--startup-repeats", type=int, default=3)
    p.add_argument(
        "--set-questions", type=int, help="set questions per kind (default: every dev + fixed)"
    )
    p.add_argument("--set-rounds", type=int, default=3, help="timed rounds of the set questions")
    p.add_argument("--ui-questions", type=int, default=20, help="questions timed in the browser")
    p.add_argument(
        "--ui-baseline-ref", default=None, help="the earlier UI to time beside ours (a commit)"
    )
    p.add_argument(
        "--sections",
        type=name_list,
        default=None,
        help="ingest,latency,scale,startup,sets,replicas,ui (all); "
        "e.g. --sections sets --store var --merge",
    )
    p.add_argument("--store", type=Path, help="a built data dir (copied) when ingest is not run")
    p.add_argument("--work", type=Path, help="keep the working stores here (default: a temp dir)")
    p.add_argument("--merge", action="store_true", help="keep earlier results of other sections")
    p.add_argument("--out", type=Path, help="results.json and scale.png (default bench/)")
    p.add_argument("--markdown", type=Path, help="the report (default BENCHMARKS.md)")
    p.add_argument("--scitldr-dir", type=Path, default=DEFAULT_SCITLDR)
    p.add_argument("--smoke", action="store_true", help="a seconds-long run on the fixture corpus")
    p.add_argument("--report-only", action="store_true", help="rewrite the report from results")
    p.set_defaults(func=_cmd_bench)


SUBCOMMANDS: list[Callable[[Any], None]] = [
    _add_run,
    _add_sets,
    _add_scitldr,
    _add_synth,
    _add_calibrate,
    _add_calibrate_sets,
    _add_bench,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eval", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    from pydantic import ValidationError

    from eval.questions import QuestionFileError
    from eval.run import UsageError
    from eval.synth import SynthError
    from rag.errors import RagError

    try:
        return int(args.func(args))
    except ValidationError as exc:
        print(f"eval: invalid setting: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (QuestionFileError, UsageError, SynthError) as exc:
        print(f"eval: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RagError as exc:
        print(f"eval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except FileNotFoundError as exc:
        print(f"eval: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\neval: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
