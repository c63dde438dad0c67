"""Load test of the HTTP API: N concurrent clients for D seconds against 127.0.0.1.

Each client loops until the time is up: it picks a question from eval/datasets/dev.jsonl
(seeded), sends it as `POST /v1/ask`, `POST /v1/chat/completions` or the same with
`stream: true` (the three in turn), checks that a complete answer came back and records the
latency. A 429 (admission control: rate limit or too many answers in flight) is a refusal,
not an error: the client waits the `Retry-After` it was given, as a polite client would,
and the refusals are counted apart. The server's resident memory (RSS) is sampled every
second. Reports errors (there should be none), p50/p95/p99 latency per kind, throughput, and RSS at the start, the middle,
the maximum and the end; growth over the second half of the run is flagged, since warm-up
(caches, first-time imports) is over by then and a leak keeps climbing.

    # start `python -m ui` (extractive backend) over a store, then load it:
    python scripts/load_test.py --serve --data-dir /tmp/me/var [--clients 20 --duration 60]
    # a server that is already running (give its pid to sample its memory):
    python scripts/load_test.py --url http://127.0.0.1:7860 --pid 12345

Prints a one-screen summary; `--json PATH` also writes every number as JSON. Exit status 1
if any request failed or memory growth was flagged, 2 if the server did not start.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from eval.bench.load_report import summary
from eval.bench.procs import free_port, running_server
from eval.bench.samples import percentile

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "eval" / "datasets" / "dev.jsonl"
KINDS = ("ask", "chat", "chat-stream")


@dataclass
class Result:
    kind: str
    started_s: float  # since the load began
    latency_ms: float
    error: str | None = None
    refused: bool = False  # a 429: counted apart, never as an error


class Refused(Exception):
    """The server said 429; `retry_after` seconds is when to come back."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"429, retry after {retry_after} s")
        self.retry_after = retry_after


def _refused(response: httpx.Response) -> None:
    if response.status_code == 429:
        try:
            wait = float(response.headers.get("retry-after", "1"))
        except ValueError:
            wait = 1.0
        raise Refused(wait)


@dataclass
class MemorySamples:
    pid: int | None
    t_s: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)


def load_questions(path: Path) -> list[str]:
    questions = [
        str(json.loads(line)["question"])
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if not questions:
        raise SystemExit(f"no questions in {path}")
    return list(dict.fromkeys(questions))


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


# --- one request ------------------------------------------------------------------------
def _check_stream(response: httpx.Response) -> str | None:
    finished, done = False, False
    for line in response.iter_lines():
        if not line.startswith("data: "):
            continue
        data = line[len("data: ") :]
        if data == "[DONE]":
            done = True
            continue
        chunk = json.loads(data)
        if "error" in chunk:
            return f"stream error event: {chunk['error'].get('message', '')[:200]}"
        for choice in chunk.get("choices", []):
            finished = finished or choice.get("finish_reason") == "stop"
    if not (finished and done):
        return "stream ended without finish_reason=stop and [DONE]"
    return None


def send(client: httpx.Client, kind: str, question: str) -> str | None:
    """One request; None if a complete answer came back, else what was wrong."""
    if kind == "ask":
        response = client.post("/v1/ask", json={"question": question})
        _refused(response)
        if response.status_code != 200:
            return f"HTTP {response.status_code}: {response.text[:200]}"
        body = response.json()
        return None if body.get("answer") and "citations" in body else "ask: no answer"
    payload: dict[str, Any] = {
        "model": "icml-rag",
        "messages": [{"role": "user", "content": question}],
    }
    if kind == "chat":
        response = client.post("/v1/chat/completions", json=payload)
        _refused(response)
        if response.status_code != 200:
            return f"HTTP {response.status_code}: {response.text[:200]}"
        choice = response.json()["choices"][0]
        ok = choice["message"].get("content") and choice.get("finish_reason") == "stop"
        return None if ok else "chat: no content or finish_reason"
    with client.stream("POST", "/v1/chat/completions", json={**payload, "stream": True}) as r:
        _refused(r)
        if r.status_code != 200:
            return f"HTTP {r.status_code}: {r.read().decode(errors='replace')[:200]}"
        return _check_stream(r)


def client_loop(
    url: str,
    client_id: int,
    questions: list[str],
    seed: int,
    t0: float,
    deadline: float,
    timeout: float,
    results: list[Result],
    lock: threading.Lock,
) -> None:
    rng = random.Random(seed * 1000 + client_id)
    mine: list[Result] = []
    with httpx.Client(base_url=url, timeout=timeout) as client:
        i = client_id  # clients start on different kinds, so all three run from the start
        while time.monotonic() < deadline:
            kind = KINDS[i % len(KINDS)]
            i += 1
            started = time.monotonic()
            refused: float | None = None  # a 429's Retry-After (0 included)
            try:
                error = send(client, kind, rng.choice(questions))
            except Refused as no:
                error, refused = None, no.retry_after
            except (httpx.HTTPError, ValueError, KeyError, IndexError) as exc:
                error = f"{type(exc).__name__}: {str(exc)[:200]}"
            ended = time.monotonic()
            was_refused = refused is not None
            mine.append(Result(kind, started - t0, (ended - started) * 1000, error, was_refused))
            if refused:
                time.sleep(max(0.0, min(refused, deadline - time.monotonic())))
    with lock:
        results.extend(mine)


def sample_memory(samples: MemorySamples, t0: float, stop: threading.Event) -> None:
    while samples.pid is not None and not stop.is_set():
        value = rss_mb(samples.pid)
        if value is not None:
            samples.t_s.append(round(time.monotonic() - t0, 2))
            samples.rss_mb.append(round(value, 1))
        stop.wait(1.0)


# --- the server -------------------------------------------------------------------------
@contextmanager
def served(data_dir: Path, log_path: Path, timeout: float) -> Iterator[tuple[str, int]]:
    """`python -m ui` (what `rag serve` runs) over data_dir, extractive; yields (url, pid)."""
    port = free_port()
    # Other RAG_* settings pass through (say RAG_WARM_EVIDENCE=false); no LLM key does.
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(
        RAG_DATA_DIR=str(data_dir),
        RAG_BACKEND="extractive",
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        GRADIO_ANALYTICS_ENABLED="False",
    )
    command = [sys.executable, "-m", "ui", "--host", "127.0.0.1", "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    with running_server(command, f"{url}/healthz", log_path, timeout, env, cwd=ROOT) as proc:
        yield url, proc.pid


# --- the run ----------------------------------------------------------------------------
def latency_stats(latencies: list[float]) -> dict[str, float]:
    if not latencies:
        return {}
    return {
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "mean_ms": round(statistics.fmean(latencies), 1),
        "max_ms": round(max(latencies), 1),
    }


def memory_report(
    samples: MemorySamples,
    duration: float,
    max_growth_mb: float,
    max_growth_pct: float,
    max_rss_mb: float | None = None,
) -> dict[str, Any]:
    if not samples.rss_mb:
        return {"sampled": False}
    values, times = samples.rss_mb, samples.t_s
    middle = next((v for t, v in zip(times, values, strict=True) if t >= duration / 2), values[-1])
    growth = values[-1] - middle
    allowed = max(max_growth_mb, middle * max_growth_pct / 100)
    return {
        "sampled": True,
        "samples": len(values),
        "start_mb": values[0],
        "middle_mb": middle,
        "max_mb": max(values),
        "end_mb": values[-1],
        "second_half_growth_mb": round(growth, 1),
        "allowed_growth_mb": round(allowed, 1),
        "growth_flagged": growth > allowed,
        "budget_mb": max_rss_mb,
        "over_budget": max_rss_mb is not None and max(values) > max_rss_mb,
        "t_s": times,
        "rss_mb": values,
    }


def _load(
    args: argparse.Namespace, url: str, pid: int | None, questions: list[str]
) -> tuple[list[Result], MemorySamples, float]:
    """The clients for `args.duration` seconds while the server's memory is sampled."""
    samples = MemorySamples(pid)
    results: list[Result] = []
    lock, stop = threading.Lock(), threading.Event()
    t0 = time.monotonic()
    deadline = t0 + args.duration
    sampler = threading.Thread(target=sample_memory, args=(samples, t0, stop), daemon=True)
    sampler.start()
    clients = [
        threading.Thread(
            target=client_loop,
            args=(url, c, questions, args.seed, t0, deadline, args.timeout, results, lock),
            daemon=True,
        )
        for c in range(args.clients)
    ]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    wall = time.monotonic() - t0  # the last requests finish after the deadline
    stop.set()
    sampler.join()
    final = rss_mb(pid) if pid is not None else None
    if final is not None:  # after the last request: the true end of the run
        samples.t_s.append(round(time.monotonic() - t0, 2))
        samples.rss_mb.append(round(final, 1))
    return results, samples, wall


def run(args: argparse.Namespace, url: str, pid: int | None) -> dict[str, Any]:
    questions = load_questions(args.questions)
    with httpx.Client(base_url=url, timeout=args.timeout) as warm:
        for i in range(args.warmup):  # first-request costs (BM25 load, Gradio) are not load
            error = send(warm, KINDS[i % len(KINDS)], questions[i % len(questions)])
            if error:
                raise RuntimeError(f"warm-up request failed: {error}")
    results, samples, wall = _load(args, url, pid, questions)
    ok = [r for r in results if r.error is None and not r.refused]
    errors = [r for r in results if r.error is not None]
    by_kind = {
        kind: {
            "requests": sum(1 for r in results if r.kind == kind),
            "errors": sum(1 for r in errors if r.kind == kind),
            "refused": sum(1 for r in results if r.refused and r.kind == kind),
            **latency_stats([r.latency_ms for r in ok if r.kind == kind]),
        }
        for kind in KINDS
    }
    return {
        "url": url,
        "clients": args.clients,
        "duration_s": args.duration,
        "wall_s": round(wall, 2),
        "seed": args.seed,
        "questions": len(questions),
        "requests": len(results),
        "errors": len(errors),
        "refused": sum(1 for r in results if r.refused),
        "error_examples": sorted({r.error or "" for r in errors})[:10],
        "throughput_rps": round(len(ok) / wall, 2) if wall else 0.0,
        "latency": latency_stats([r.latency_ms for r in ok]),
        "by_kind": by_kind,
        "memory": memory_report(
            samples, args.duration, args.max_growth_mb, args.max_growth_pct, args.max_rss_mb
        ),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="base URL of a running server (http://127.0.0.1:PORT)")
    target.add_argument("--serve", action="store_true", help="start `python -m ui` first")
    parser.add_argument("--data-dir", type=Path, help="RAG_DATA_DIR for --serve (a COPY)")
    parser.add_argument("--pid", type=int, help="server pid to sample RSS of (with --url)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--warmup", type=int, default=6, help="sequential requests first")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0, help="per request, seconds")
    parser.add_argument("--max-growth-mb", type=float, default=48.0)
    parser.add_argument("--max-growth-pct", type=float, default=5.0)
    parser.add_argument(
        "--max-rss-mb", type=float, help="fail if the server's RSS ever exceeds this (budget)"
    )
    parser.add_argument("--start-timeout", type=float, default=300.0)
    parser.add_argument("--server-log", type=Path, help="--serve: where the server logs go")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.clients < 1 or args.duration <= 0:
        raise SystemExit("--clients must be >= 1 and --duration > 0")
    try:
        if args.serve:
            if args.data_dir is None:
                raise SystemExit("--serve needs --data-dir (a copy of a built store)")
            log_path = args.server_log or Path(f"/tmp/load_test_server_{os.getpid()}.log")
            with served(args.data_dir, log_path, args.start_timeout) as (url, pid):
                report = run(args, url, pid)
        else:
            report = run(args, args.url.rstrip("/"), args.pid)
    except RuntimeError as exc:
        print(f"load_test: {exc}", file=sys.stderr)
        return 2
    print(summary(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    memory = report["memory"]
    if args.max_rss_mb is not None and not memory.get("sampled"):
        print("load_test: --max-rss-mb but the server's memory was not sampled", file=sys.stderr)
        return 1
    failed = report["errors"] > 0 or memory.get("growth_flagged") or memory.get("over_budget")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
