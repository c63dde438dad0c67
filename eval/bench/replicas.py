"""Section 6: two `rag serve` replicas on one `chroma run` server, with real processes.

What tests/test_replicas.py checks, measured at the full store's size: how soon after a
`rag ingest` (another process) finishes each replica answers from the new paper, with the
default refresh interval users get; and what a client sees when one replica is SIGKILLed
under load, with a client-side failover that does what a load balancer does. The server
and replica helpers here are the ones the test uses too.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from eval.bench.procs import (
    BenchError,
    _tail,
    bench_env,
    chroma_server,
    free_port,
    rss_mb,
    stop,
    wait_http,
)
from eval.bench.replica_load import Replica, kill_under_load
from eval.bench.startup import serve_command
from rag.settings import Settings

FRESH_TARGET_S = 30.0  # an ingested paper answered by every replica within this
POLL_S = 0.2
NAMES = ("a", "b")
RAG = serve_command(0)[:-5]  # the `rag` CLI (its console script, else python -m rag.cli)


@contextmanager
def server_over_copy(chroma_dir: Path, work: Path) -> Iterator[dict[str, Any]]:
    """A `chroma run` persisting to a copy of a built store's chroma/ directory: the
    server reads what an embedded store wrote, so nothing is embedded again."""
    db = work / "server-db"
    shutil.rmtree(db, ignore_errors=True)
    shutil.copytree(chroma_dir, db)
    with chroma_server(db, work / "chroma.log") as server:
        yield server


@contextmanager
def serve_replicas(
    names: tuple[str, ...],
    work: Path,
    env_for: Callable[[Path], dict[str, str]],
    timeout_s: float = 180.0,
) -> Iterator[list[Replica]]:
    """`rag serve` per name on a free port, each with its own data dir (work/NAME: its
    lexical index and feedback; only the Chroma server is shared), all started before any
    is waited for; every one stopped after (a SIGKILLed one is simply reaped)."""
    replicas: list[Replica] = []
    try:
        started = time.monotonic()
        for name in names:
            data_dir = work / name
            data_dir.mkdir(parents=True, exist_ok=True)
            port = free_port()
            log = work / f"{name}.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    serve_command(port),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env_for(data_dir),
                    cwd=work,  # no .env of the developer's
                )
            replicas.append(Replica(name, proc, f"http://127.0.0.1:{port}", log))
        for replica in replicas:
            try:
                wait_http(f"{replica.url}/healthz", timeout_s, replica.proc)
            except BenchError as exc:
                raise BenchError(f"replica {replica.name}: {exc}\n{_tail(replica.log)}") from exc
            # the waits run one after another: a replica ready while an earlier one was
            # waited for gets that time, so its ready_s is an upper bound
            replica.ready_s = round(time.monotonic() - started, 2)
        yield replicas
    finally:
        for replica in replicas:
            stop(replica.proc)


def until_found(
    found: Callable[[], set[str]],
    paper_id: str,
    since: float,
    deadline: float,
    every_s: float,
    stop: threading.Event | None = None,
) -> float | None:
    """Seconds after `since` at which `found()` first includes `paper_id`; None by the
    deadline (or once `stop` is set)."""
    while time.monotonic() < deadline and not (stop and stop.is_set()):
        if paper_id in found():
            return time.monotonic() - since
        time.sleep(every_s)
    return None


def retrieved(http: httpx.Client, url: str, question: str) -> set[str]:
    response = http.post(f"{url}/v1/retrieve", json={"question": question, "top_k": 5})
    if response.status_code != 200:
        raise BenchError(f"{url}/v1/retrieve: {response.status_code} {response.text[:300]}")
    return {p["paper"]["id"] for p in response.json()["papers"]}


def probe_paper(round_no: int, token: str) -> dict[str, Any]:
    """A paper no store has: made-up words in its title and abstract, so a search for its
    title finds it first once a replica has it."""
    word = f"quorvexin{round_no}{token}"
    return {
        "id": f"bench-replica-{token}-{round_no}",
        "title": f"Replica freshness probe {round_no}: {word} lattices for {word} sampling",
        "authors": ["Bench Probe"],
        "abstract": (
            f"We introduce {word}, a made-up method used only to measure how soon a serving "
            f"replica answers from a newly ingested paper. {word} lattices are sampled by a "
            f"{word} chain. Nothing else in the corpus mentions {word}."
        ),
        "status": "Poster",
    }


class CommitWatch:
    """Timestamps (`at`, monotonic) the moment an ingest commits: the store's generation
    moves. The ingest commits before its process exits, so the watch outlives it a bit."""

    def __init__(self, generation: Callable[[], Any]) -> None:
        self.generation, self.seen = generation, generation()
        self.at: float | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._done.is_set():
            if self.generation() != self.seen:
                self.at = time.monotonic()
                return
            self._done.wait(0.1)

    def __enter__(self) -> CommitWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join(timeout=10)  # a commit polled late is still timed to 0.1 s
        self._done.set()


def fresh_round(
    replicas: list[Replica],
    env: dict[str, str],
    generation: Callable[[], Any],
    work: Path,
    round_no: int,
    token: str,
) -> dict[str, Any]:
    """`rag ingest` one new paper in a child process while every replica is polled until it
    retrieves the paper (at most FRESH_TARGET_S x 4 after the ingest's exit)."""
    paper = probe_paper(round_no, token)
    source = work / f"probe-{round_no}.jsonl"
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    started, stop = time.monotonic(), threading.Event()
    deadline = started + 600  # the ingest's own time limit; `stop` ends a failed round

    def poll(replica: Replica) -> float | None:
        # From the ingest's start: a replica may answer before the ingest process ends.
        with httpx.Client(timeout=30) as http:
            found = lambda: retrieved(http, replica.url, paper["title"])  # noqa: E731
            return until_found(found, paper["id"], started, deadline, POLL_S, stop)

    with ThreadPoolExecutor(len(replicas)) as pool, CommitWatch(generation) as commit:
        polls = [pool.submit(poll, r) for r in replicas]
        try:
            ran = subprocess.run(
                [*RAG, "ingest", str(source)], env=env, cwd=work, capture_output=True, text=True
            )
            exited = time.monotonic() - started
            (work / f"probe-{round_no}.log").write_text(ran.stdout + ran.stderr, "utf-8")
            if ran.returncode != 0 or "new 1 " not in ran.stdout:
                raise BenchError(
                    f"rag ingest {source.name}: {ran.returncode}\n{ran.stdout[-1500:]}"
                )
            stop_at = time.monotonic() + 4 * FRESH_TARGET_S
            while time.monotonic() < stop_at and not all(f.done() for f in polls):
                time.sleep(POLL_S)
        finally:
            stop.set()
        seconds = {r.name: f.result() for r, f in zip(replicas, polls, strict=True)}
    # Seconds from the ingest's start. It commits, then its process ends: a replica may
    # answer before the exit (a negative exit_to_answer_s).
    committed = None if commit.at is None else commit.at - started

    def since(t0: float | None) -> dict[str, float | None]:
        return {
            n: None if s is None or t0 is None else round(s - t0, 2) for n, s in seconds.items()
        }

    return {
        "paper_id": paper["id"],
        "ingest_wall_s": round(exited, 2),
        "committed_after_s": None if committed is None else round(committed, 2),
        "exit_to_answer_s": since(exited),
        "commit_to_answer_s": since(committed),
    }


def warm_up(replicas: list[Replica], questions: list[str]) -> None:
    """A replica's first answers load what answering needs (freshness polled retrieval
    only): a few untimed ones each, so the load measures serving, not a first answer."""
    for replica in replicas:
        for question in questions:
            httpx.post(f"{replica.url}/v1/ask", json={"question": question}, timeout=120)


def replica_env(settings: dict[str, Any], data_dir: Path, server: dict[str, Any]) -> dict[str, str]:
    """A `rag` child's environment: the bench's settings as RAG_* variables, its own data
    dir, the shared server."""
    values = {**settings, "data_dir": data_dir}
    values.update(chroma_host=server["host"], chroma_port=server["port"])
    return bench_env(**{f"RAG_{k.upper()}": str(v) for k, v in values.items()})


def _generation(
    settings: dict[str, Any], data_dir: Path, server: dict[str, Any]
) -> Callable[[], Any]:
    from eval.run import build_settings
    from rag.store.chroma import PaperStore

    on_server = {**settings, "chroma_host": server["host"], "chroma_port": server["port"]}
    return PaperStore(build_settings(**on_server, data_dir=data_dir)).generation


def reload_seconds(log: Path) -> list[float]:
    """What a replica logged for each reload (rag.refresh: "reloaded in X s")."""
    return [float(x) for x in re.findall(r"reloaded in ([0-9.]+) ?s", _tail(log, 10**7))]


def measure_replicas(
    settings: dict[str, Any],
    store_dir: Path,
    questions: list[str],
    rounds: int,
    clients: int,
    load_s: float,
    work: Path,
    log: Callable[[str], None],
) -> dict[str, Any]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # The load would exhaust one address's bucket in seconds: the rate limit is off here;
    # the in-flight bound stays at its default, and its 429s are counted apart from errors.
    served = {**settings, "rate_limit_per_minute": 0}
    token = f"{int(time.time()) % 100000}"
    with server_over_copy(store_dir / "chroma", work) as server:
        log("replicas: chroma run up; starting 2 rag serve replicas")
        with serve_replicas(
            NAMES, work, lambda d: replica_env(served, d, server), timeout_s=600
        ) as replicas:
            ready = {r.name: r.ready_s for r in replicas}
            log(f"replicas: ready after {ready} s")
            ingest_env = replica_env(settings, work / "ingester", server)
            generation = _generation(settings, work / "watcher", server)
            fresh = []
            for n in range(rounds):
                fresh.append(fresh_round(replicas, ingest_env, generation, work, n + 1, token))
                log(f"replicas: freshness round {n + 1}: {fresh[-1]['exit_to_answer_s']}")
            warm_up(replicas, questions[-2:])
            log(f"replicas: {clients} clients for {load_s:.0f} s, replica a SIGKILLed halfway")
            load = kill_under_load(replicas, questions, clients, load_s)
            log(
                f"replicas: errors {load['total']['errors']}, 429s {load['total']['rate_limited_429']}"
            )
            survivor = replicas[1]
            papers = httpx.get(f"{survivor.url}/healthz", timeout=30).json().get("papers")
            rss = {
                "server": rss_mb(server["pid"]),
                "a": load["killed_replica_rss_mb"],
                "b": rss_mb(survivor.proc.pid),
            }
        reloads = {r.name: reload_seconds(r.log) for r in replicas}
    return _body(fresh, load, ready, rss, reloads, papers)


def _body(
    fresh: list[dict[str, Any]],
    load: dict[str, Any],
    ready: dict[str, float],
    rss: dict[str, float],
    reloads: dict[str, list[float]],
    papers: int | None,
) -> dict[str, Any]:
    seconds = [s for r in fresh for s in r["exit_to_answer_s"].values()]
    measured = [s for s in seconds if s is not None]
    from_commit = [s for r in fresh for s in r["commit_to_answer_s"].values() if s is not None]
    complete = len(measured) == len(seconds) and measured
    return {
        "replicas": len(NAMES),
        "refresh_seconds": Settings.model_fields["refresh_seconds"].default,
        "ready_s": ready,
        "freshness": {
            "rounds": fresh,
            "max_s": max(measured) if complete else None,
            "median_s": round(statistics.median(measured), 2) if measured else None,
            "max_from_commit_s": max(from_commit) if complete and from_commit else None,
            "missed": len(seconds) - len(measured),
            "target_s": FRESH_TARGET_S,
        },
        "kill_under_load": load,
        "rss_mb": rss,
        "reload_s": reloads,
        "papers_after": papers,
        "notes": [
            "one `chroma run` persisting to a copy of the store's chroma/ directory; two "
            "`rag serve` replicas on it, each with its own empty data dir (its lexical index "
            "is synced from the server at start: ready_s, both started together)",
            "the replicas run with the default refresh interval (RAG_REFRESH_SECONDS 5) and "
            "RAG_RATE_LIMIT_PER_MINUTE=0: the load is 20 clients from one address, which one "
            "address's bucket would refuse; RAG_MAX_INFLIGHT_ANSWERS stays 8 (its 429s are "
            "counted apart from errors)",
            "freshness: `rag ingest` of a one-paper JSONL (made-up words in the title) in a "
            "new process; from its start, each replica is asked /v1/retrieve for the title "
            f"every {POLL_S} s until the paper is among the top 5. The ingest commits (the "
            "store's generation moves, polled every 0.1 s) before its process ends, so a "
            "replica may answer before the exit (a negative figure); the target is checked "
            "from the commit",
            "before the load, each replica answers 2 untimed questions (its first answers)",
            "kill under load: every client thread has keep-alive httpx connections to both "
            "replicas and sends /v1/ask round-robin, back to back; a connection error "
            "(refused, reset, closed mid-answer) is retried once on the other replica, as a "
            "load balancer retries an idempotent request; an error is no answer after that "
            "retry, or a non-2xx other than 429. Replica a is SIGKILLed halfway; requests "
            "are split by their start time; latency is of the 2xx answers, failover "
            "included",
            "RSS: the server and the survivor after the load; the killed replica just "
            "before its kill (psutil, with children)",
        ],
    }
