"""Latency of `POST /v1/chat/completions` (non-streaming), measured from the client side.

Sends N sequential requests (distinct questions from eval/datasets/dev.jsonl, so the
query-embedding cache does not flatter the numbers) after a few warm-up requests, and prints
median / p95 / min / max, and splits each wait into the server's answer time (its
`Server-Timing` header) and the rest (HTTP, validation, JSON). No load: one request at a time.

    # a running server (e.g. `rag serve`):
    python scripts/api_latency.py --url http://127.0.0.1:7860 [--api-key KEY]
    # in-process over an existing store (extractive backend):
    python scripts/api_latency.py --data-dir var
    # in-process over the test fixture corpus, ingested into a temporary directory:
    python scripts/api_latency.py --fixture
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from eval.bench.samples import percentile

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "eval" / "datasets" / "dev.jsonl"
FIXTURE_CORPUS = ROOT / "tests" / "fixtures" / "corpus.jsonl"


def load_questions(path: Path, n: int) -> list[str]:
    questions: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            question = json.loads(line)["question"]
            if question not in questions:
                questions.append(question)
    if not questions:
        raise SystemExit(f"no questions in {path}")
    # Cycle if the file holds fewer than n (repeats then hit the query-embedding cache).
    return [questions[i % len(questions)] for i in range(n)]


@contextmanager
def in_process_server(data_dir: Path, ingest_from: Path | None) -> Iterator[str]:
    import uvicorn

    from rag.api.app import create_api
    from rag.assistant import Assistant
    from rag.settings import Settings

    # RAG_* variables still apply (embedding runtime, store); the backend is fixed.
    overrides: dict[str, Any] = {"data_dir": data_dir, "backend": "extractive"}
    settings = Settings(**overrides)
    if ingest_from is not None:
        from rag.ingestion import ingest

        report = ingest(settings, [ingest_from])
        print(f"ingested {ingest_from.name}: {report}", file=sys.stderr)
    app = create_api(Assistant.from_settings(settings), settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SystemExit("the in-process server failed to start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def measure(url: str, questions: list[str], warmup: int, api_key: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    timings: list[float] = []
    answering: list[float] = []  # the server's own answer time (Server-Timing header)
    abstained = 0
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        for i, question in enumerate(questions[:warmup] + questions):
            body = {"model": "icml-rag", "messages": [{"role": "user", "content": question}]}
            started = time.perf_counter()
            response = client.post("/v1/chat/completions", json=body)
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            if i >= warmup:
                timings.append(elapsed)
                answering.append(_server_ms(response.headers.get("server-timing", "")))
                abstained += bool(response.json()["choices"][0]["message"]["abstained"])
    return {
        "url": url,
        "requests": len(timings),
        "warmup": warmup,
        "abstained": abstained,
        "median_ms": round(statistics.median(timings), 1),
        "p95_ms": round(percentile(timings, 95), 1),
        "min_ms": round(min(timings), 1),
        "max_ms": round(max(timings), 1),
        "mean_ms": round(statistics.fmean(timings), 1),
        "answer_median_ms": round(statistics.median(answering), 1),
        "overhead_median_ms": round(
            statistics.median(t - a for t, a in zip(timings, answering, strict=True)), 1
        ),
    }


def _server_ms(header: str) -> float:
    # "answer;dur=12.3"; a server without the header counts as 0 (all overhead).
    for part in header.split(";"):
        if part.strip().startswith("dur="):
            return float(part.strip()[4:])
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="base URL of a running server")
    target.add_argument("--data-dir", type=Path, help="serve this store in-process")
    target.add_argument(
        "--fixture", action="store_true", help="ingest the test fixture corpus into a temp dir"
    )
    parser.add_argument("-n", type=int, default=50, help="measured requests (default 50)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured first requests")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="JSONL with `question`")
    parser.add_argument("--api-key", default=os.environ.get("RAG_API_KEY"))
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    questions = load_questions(args.questions, args.n)
    if args.url:
        result = measure(args.url.rstrip("/"), questions, args.warmup, args.api_key)
    elif args.data_dir:
        with in_process_server(args.data_dir, None) as url:
            result = measure(url, questions, args.warmup, None)
    else:
        with (
            tempfile.TemporaryDirectory() as tmp,
            in_process_server(Path(tmp), FIXTURE_CORPUS) as url,
        ):
            result = measure(url, questions, args.warmup, None)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['requests']} sequential non-stream chat completions "
            f"({result['abstained']} abstained) against {result['url']}: "
            f"median {result['median_ms']} ms, p95 {result['p95_ms']} ms "
            f"(min {result['min_ms']}, max {result['max_ms']}, mean {result['mean_ms']}); "
            f"server answer time median {result['answer_median_ms']} ms, "
            f"HTTP/serialisation overhead median {result['overhead_median_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
