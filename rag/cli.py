"""`rag` command line: ingest, stats, ask, chat, serve, eval."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rag.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, InputError, RagError
from rag.logs import setup_logging
from rag.settings import BACKEND_NAMES, RETRIEVAL_MODES, Settings
from rag.text import unpaired_surrogate


def _add_answer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top-k", type=int, help="papers to retrieve (1..50)")
    parser.add_argument("--mode", choices=RETRIEVAL_MODES, help="retrieval mode")
    parser.add_argument("--backend", choices=BACKEND_NAMES, help="answer backend")
    parser.add_argument(
        "--status", action="append", help="keep papers with this status (repeatable)"
    )
    parser.add_argument("--author", help="keep papers with an author containing this text")
    parser.add_argument("--title", help="keep papers whose title contains this text")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="load, chunk, embed and store papers")
    p.add_argument("paths", nargs="*", type=Path, help="corpus files (default: the bundled corpus)")
    p.add_argument("--rebuild", action="store_true", help="drop the collection and start over")
    p.add_argument("--prune", action="store_true", help="remove papers not in the given sources")
    p.add_argument("--strict", action="store_true", help="fail on any bad record, writing nothing")
    p.add_argument("--if-empty", action="store_true", help="do nothing if the store has papers")

    sub.add_parser("stats", help="papers, chunks, embedding model, store")

    p = sub.add_parser(
        "papers", help="list papers by author, affiliation, status (exact) and topic (scanned)"
    )
    p.add_argument("--author", action="append", default=[], help="an author (repeatable: all)")
    p.add_argument("--affiliation", action="append", default=[], help="an institution")
    p.add_argument("--status", action="append", default=[], help="Oral, Spotlight or Poster")
    p.add_argument("--topic", help="papers about this topic (every abstract scanned)")
    p.add_argument("--format", choices=["table", "json", "bibtex", "csv"], default="table")

    p = sub.add_parser("ask", help="answer one question with citations")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the Answer as JSON")
    _add_answer_options(p)

    p = sub.add_parser("chat", help="interactive terminal chat with history")
    _add_answer_options(p)

    p = sub.add_parser("serve", help="serve the chat UI and the HTTP API")
    p.add_argument("--host")
    p.add_argument("--port", type=int)

    sub.add_parser("eval", help="evaluation harness (same as `python -m eval`)", add_help=False)
    return parser


def _settings_for(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    for name in ("backend", "host", "port"):
        if getattr(args, name, None) is not None:
            overrides[name] = getattr(args, name)
    return Settings(**overrides)


def _filters(args: argparse.Namespace) -> dict[str, Any] | None:
    found = {"status": args.status, "author": args.author, "title": args.title}
    found = {k: v for k, v in found.items() if v}
    return found or None


def _progress_bar() -> Any:
    from tqdm import tqdm

    bar: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="paper", desc="embedding", file=sys.stderr)
        if done != bar["bar"].n:  # creating the bar drew it already
            bar["bar"].n = done
            bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()

    return update


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from rag.ingestion import ingest
    from rag.store.chroma import PaperStore

    store = PaperStore(settings)
    if args.if_empty and store.counts()[0] > 0:
        print(f"store already holds {store.counts()[0]:,} papers; nothing to do")
        return 0
    report = ingest(
        settings,
        args.paths or None,
        rebuild=args.rebuild,
        prune=args.prune,
        strict=args.strict,
        store=store,
        progress=_progress_bar(),
    )
    for line in report.replacement_lines():
        print(line)
    for issue in report.issues[:50]:
        print(f"skipped {issue}", file=sys.stderr)
    if len(report.issues) > 50:
        print(f"… and {len(report.issues) - 50} more skipped records", file=sys.stderr)
    print(report.summary())
    return 0


def cmd_stats(settings: Settings) -> int:
    from rag.store.chroma import PaperStore

    store = PaperStore(settings)
    papers, chunks = store.counts()
    model = store.recorded_model()
    print(f"papers      {papers:,}")
    print(f"chunks      {chunks:,}")
    print(f"embedding   {model[0]} (dim {model[1]})" if model else "embedding   (none yet)")
    print(f"store       {settings.store_location()} / collection '{settings.collection}'")
    print(f"backend     {settings.resolved_backend()}")
    return 0


def cmd_papers(args: argparse.Namespace, settings: Settings) -> int:
    """`rag papers`: the catalogue's exact answer, in the format scripts want."""
    from rag.assistant import Assistant
    from rag.catalogue.catalogue import Catalogue
    from rag.plan.people import record_author
    from rag.sets.exports import bibtex, table, to_csv
    from rag.sets.metadata import MetadataAnswerer
    from rag.store.chroma import PaperStore
    from rag.types import PlanConstraints, QueryPlan, Unresolved

    if not (args.author or args.affiliation or args.status or args.topic):
        raise InputError("papers: give at least one of --author, --affiliation, --status, --topic")
    store = PaperStore(settings)
    # A topic needs the assistant (embeddings, the scan); its catalogue is the one read.
    assistant = Assistant.from_settings(settings, store) if args.topic else None
    catalogue = assistant.catalogue if assistant else Catalogue.of(store.load_papers().values())
    constraints = PlanConstraints(
        affiliations=args.affiliation, statuses=[s.capitalize() for s in args.status]
    )
    unresolved: list[Unresolved] = []
    for typed in args.author:
        record_author(typed, catalogue.match_author(typed), constraints, unresolved)
    if assistant is not None and not unresolved:
        plan = QueryPlan(kind="list", topic=args.topic.strip(), constraints=constraints)
        answer = assistant.answer_plan(plan, args.topic)
    else:
        plan = QueryPlan(kind="metadata", constraints=constraints, unresolved=unresolved)
        answer = MetadataAnswerer(catalogue).answer("rag papers", plan)
    rows = answer.aggregate.papers if answer.aggregate else []
    if args.format == "json":
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
    elif args.format == "bibtex":
        print(bibtex(rows), end="")
    elif args.format == "csv":
        print(to_csv(rows), end="")
    else:
        print(answer.answer.split("\n", 1)[0] if rows else answer.answer)
        if rows:
            print(table(_readable_rows(rows)))
    return 0 if rows or not unresolved else EXIT_USAGE


def _readable_rows(rows: list[Any]) -> list[Any]:
    """Set rows for the terminal table: titles, reasons and cells with LaTeX as Unicode."""
    from rag.answer.unicode_math import readable_math

    return [
        row.model_copy(
            update={
                "title": readable_math(row.title),
                "why": readable_math(row.why),
                "cells": {k: readable_math(v) for k, v in row.cells.items()},
            }
        )
        for row in rows
    ]


def shown_references(answer: Any) -> str:
    """The numbered references as `rag ask` prints them: LaTeX as Unicode, and each
    source's relevance label when one was estimated (the retrieval score never)."""
    from rag.answer.references import reference_lines
    from rag.answer.unicode_math import readable_math
    from rag.types import relevance_label

    lines = reference_lines(answer)  # citations first, then the related heading and papers
    sources = [*answer.citations, None, *answer.related] if answer.related else answer.citations
    for i, source in enumerate(sources):
        label = relevance_label(source.relevance) if source is not None else None
        if label:
            lines[i] += f"  ({label} relevance)"
    heading = "References:\n" if answer.citations else ""
    return readable_math(heading + "\n".join(lines)) if lines else ""


def shown_answer(answer: Any) -> str:
    """What `rag ask` prints for a cited answer or an abstention."""
    from rag.answer.unicode_math import readable_math

    references = shown_references(answer)
    return readable_math(answer.answer) + (f"\n\n{references}" if references else "")


def _print_answer(answer: Any, as_json: bool) -> None:
    if as_json:
        from rag.answer.unicode_math import plain_text

        # The `/v1/ask` shape: the Answer, plus the plain text shown where nothing typesets.
        shape = {**answer.model_dump(mode="json"), "plain_text": plain_text(answer)}
        print(json.dumps(shape, ensure_ascii=False, indent=2))
    elif answer.aggregate is not None and answer.aggregate.papers:
        from rag.answer.unicode_math import readable_math
        from rag.sets.exports import table

        print(readable_math(answer.answer.split("\n", 1)[0]))
        rows = answer.aggregate.papers
        members = [r for r in rows if r.membership != "closest"]
        closest = [r for r in rows if r.membership == "closest"]
        if members:
            print(table(_readable_rows(members)))
        if closest:
            if answer.aggregate.count is not None:  # a described topic's lead line says so
                print("The closest papers, ranked (not counted as members):")
            print(table(_readable_rows(closest)))
        for note in answer.aggregate.notes:
            print(readable_math(note))
        if answer.suggested_topics:
            offered = " · ".join(f"{s.topic} ({s.count:,} papers)" for s in answer.suggested_topics)
            print(f"Did you mean: {offered}?")
    else:
        print(shown_answer(answer))


def undecodable(text: str) -> str | None:
    """Why `text` is not UTF-8, or None. Python hands argv and stdin bytes that are not
    UTF-8 over as lone surrogates (PEP 383); one would be answered as a different question."""
    found = unpaired_surrogate(text)
    if found is None:
        return None
    at, code = found
    byte = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
    return f"not valid UTF-8 ({byte} at character {at}); check the terminal's encoding"


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from rag.assistant import Assistant

    problem = undecodable(args.question)
    if problem:
        raise InputError(f"question: {problem}")
    assistant = Assistant.from_settings(settings)
    answer = assistant.ask(args.question, top_k=args.top_k, mode=args.mode, filters=_filters(args))
    _print_answer(answer, args.json)
    return 0


def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    from rag.answer.references import answer_with_references
    from rag.answer.unicode_math import ReadableStream
    from rag.assistant import Assistant
    from rag.types import Answer, ChatMessage

    assistant = Assistant.from_settings(settings)
    history: list[ChatMessage] = []
    print(
        f"icml-rag chat ({assistant.synthesizer.name}). Empty line or Ctrl-D to quit; /clear resets."
    )
    while True:
        try:
            question = input("you> ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if not question:
            return 0
        if question == "/clear":
            history = []
            continue
        problem = undecodable(question)
        if problem:
            print(f"rag: that line is {problem}", file=sys.stderr)
            continue
        final = None
        readable = ReadableStream()  # deltas shown with their LaTeX as Unicode
        print("rag> ", end="", flush=True)
        for _kind, payload in assistant.stream(
            question,
            history=history[-settings.max_history_turns :],
            top_k=args.top_k,
            mode=args.mode,
            filters=_filters(args),
        ):
            if isinstance(payload, Answer):
                final = payload
            else:
                print(readable.feed(payload), end="", flush=True)
        if final is None:
            print()
        else:
            print(readable.rest(final.answer))
            print(shown_references(final), "\n")
            rendered = answer_with_references(final)  # the history keeps the abstracts' LaTeX
            history += [
                ChatMessage(role="user", content=question),
                ChatMessage(role="assistant", content=rendered),
            ]


def _exec_module(module: str, argv: Sequence[str]) -> int:
    # `rag` never imports ui/ or eval/: those entry points run as their own modules.
    os.execv(sys.executable, [sys.executable, "-m", module, *argv])
    return 0  # pragma: no cover


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:
        return _exec_module("eval", argv[1:])
    if argv[:1] == ["serve"]:
        return _exec_module("ui", argv[1:])
    args = build_parser().parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING
    setup_logging(level)
    try:
        settings = _settings_for(args)
        if args.command == "ingest":
            return cmd_ingest(args, settings)
        if args.command == "stats":
            return cmd_stats(settings)
        if args.command == "papers":
            return cmd_papers(args, settings)
        if args.command == "ask":
            return cmd_ask(args, settings)
        if args.command == "chat":
            return cmd_chat(args, settings)
    except ValidationError as exc:
        print(f"rag: invalid setting: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nrag: interrupted; re-run the same command to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RagError as exc:
        print(f"rag: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # `rag stats | head -2`: the reader left; stdout goes nowhere from here (Python
        # would report the failed flush at exit).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
