"""Replicas with real processes: a `chroma run` server, two `rag serve` replicas on it, a
paper ingested through the CLI while they serve, then one replica SIGKILLed.

Each replica must answer from the new paper within 30 s of the ingest finishing, without
a restart (they poll the store's generation: rag.refresh); the survivor must go on
answering with no error, and the store must have lost nothing.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from eval.bench.replicas import CommitWatch, serve_replicas, server_over_copy, until_found
from rag.corpus.records import load_corpus
from rag.ingestion import ingest
from rag.store.chroma import PaperStore
from tests.support.answers import GRAPHS_GPT
from tests.support.paths import FIXTURE_CORPUS
from tests.support.settings import make_settings
from tests.support.store_checks import assert_consistent, child_env

pytestmark = [pytest.mark.slow, pytest.mark.chroma_server]

QUESTION = "What is GraphsGPT pretrained on?"
FRESH_WITHIN_S = 30.0
REFRESH_SECONDS = "1"
BIN = Path(sys.executable).parent


def cited(http: httpx.Client, url: str) -> set[str]:
    response = http.post(f"{url}/v1/ask", json={"question": QUESTION, "top_k": 3})
    assert response.status_code == 200, (url, response.status_code, response.text[:300])
    return {c["paper_id"] for c in response.json()["citations"]}


def replica_env(host: str, port: int) -> Callable[[Path], dict[str, str]]:
    """Each replica's environment, given its own data dir (its lexical index, feedback)."""
    return lambda data_dir: child_env(
        data_dir,
        chroma_host=host,
        chroma_port=str(port),
        backend="extractive",
        warm_evidence="false",
        refresh_seconds=REFRESH_SECONDS,
        rate_limit_per_minute="0",  # the test's polling is one client asking 4 times a second
    )


def until_fresh(url: str, started: float, deadline: float) -> float:
    """Seconds after `started` at which `url` first answers citing the new paper."""
    with httpx.Client(timeout=30) as http:
        seconds = until_found(lambda: cited(http, url), GRAPHS_GPT, started, deadline, 0.25)
    if seconds is None:
        raise AssertionError(f"{url} still does not cite {GRAPHS_GPT}")
    return seconds


@pytest.fixture
def server_store(tmp_path: Path, built_store_dir: Path) -> Iterator[tuple[str, int]]:
    """A `chroma run` over a copy of the built fixture store (no embedding needed)."""
    with server_over_copy(built_store_dir / "chroma", tmp_path) as server:
        yield server["host"], server["port"]


def test_two_replicas_see_an_ingest_and_survive_a_sigkill(
    tmp_path: Path, server_store: tuple[str, int], embed_model: Any
) -> None:
    host, port = server_store
    settings = make_settings(tmp_path / "driver", chroma_host=host, chroma_port=port)
    everything = load_corpus([FIXTURE_CORPUS]).papers
    lines = FIXTURE_CORPUS.read_text(encoding="utf-8").splitlines()
    without = tmp_path / "without.jsonl"
    without.write_text("\n".join(x for x in lines if json.loads(x)["id"] != GRAPHS_GPT) + "\n")
    # The store before: every fixture paper but GraphsGPT.
    assert ingest(settings, [without], prune=True, embed_model=embed_model).pruned == 1

    timeline: dict[str, float] = {}
    with serve_replicas(("a", "b"), tmp_path, replica_env(host, port), 120) as replicas:
        urls = [replica.url for replica in replicas]
        with httpx.Client(timeout=30) as http:
            assert all(GRAPHS_GPT not in cited(http, url) for url in urls)

        # `rag ingest` of the whole fixture corpus: GraphsGPT is the one new paper.
        ingest_env = child_env(tmp_path / "ingester", chroma_host=host, chroma_port=str(port))
        with CommitWatch(PaperStore(settings).generation) as commit:
            started = time.monotonic()
            ran = subprocess.run(
                [str(BIN / "rag"), "ingest", str(FIXTURE_CORPUS)],
                env=ingest_env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=180,
            )
            timeline["ingest exited"] = time.monotonic() - started
        assert ran.returncode == 0, ran.stderr[-2000:]
        assert "new 1 " in ran.stdout, ran.stdout
        timeline["ingest committed"] = (commit.at or float("nan")) - started
        deadline = started + timeline["ingest exited"] + FRESH_WITHIN_S
        with ThreadPoolExecutor(2) as pool:
            fresh = list(pool.map(lambda url: until_fresh(url, started, deadline), urls))
        timeline.update({"replica a answers": fresh[0], "replica b answers": fresh[1]})

        # One replica SIGKILLed; the other keeps answering, every request.
        killed, survivor = replicas[0].proc, urls[1]
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=10)
        with httpx.Client(timeout=60) as http, ThreadPoolExecutor(4) as pool:
            load_started = time.monotonic()
            answers = list(pool.map(lambda _: cited(http, survivor), range(20)))
            timeline["20 answers after the kill"] = time.monotonic() - load_started
        assert all(GRAPHS_GPT in found_ids for found_ids in answers)
        for replica in replicas:
            assert "reloaded in" in replica.log.read_text(errors="replace"), replica.name

    shown = {k: round(v, 2) for k, v in timeline.items()}
    print(f"\nreplica timeline (s after `rag ingest` started): {json.dumps(shown)}")
    commit_to_fresh = max(fresh) - timeline["ingest committed"]
    assert commit_to_fresh <= FRESH_WITHIN_S, timeline
    # Killing a replica lost nothing: the store is every fixture paper, consistent.
    assert_consistent(PaperStore(settings), everything, settings)


def test_questions_are_answered_from_the_old_pipeline_while_a_reload_builds(
    store_copy: Path, embed_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reload builds off the request path: questions in the meantime get the old store
    state at the usual speed, concurrent reloads build once, and then the new state is in."""
    import rag.assistant
    from rag.assistant import Assistant
    from rag.ingestion import write_papers

    settings = make_settings(store_copy, backend="extractive")
    store = PaperStore(settings)
    paper = next(p for p in load_corpus([FIXTURE_CORPUS]).papers if p.id == GRAPHS_GPT)
    # Writes as an ingest makes them, committed: a serving process follows the generation.
    store.mark_writing(True)
    store.delete_chunks_of([GRAPHS_GPT])
    store.delete_papers([GRAPHS_GPT])
    store.mark_writing(False)
    assistant = Assistant(settings, store, embed_model)
    assert GRAPHS_GPT not in assistant.papers
    store.mark_writing(True)
    write_papers(store, [paper], settings, embed_model)  # what another process's ingest does
    store.mark_writing(False)

    builds: list[float] = []
    building = threading.Event()
    real_build = rag.assistant.Pipeline.build

    def slow_build(*args: Any, **kwargs: Any) -> Any:
        builds.append(time.monotonic())
        building.set()
        time.sleep(3.0)  # as a big store's BM25 index would take
        return real_build(*args, **kwargs)

    monkeypatch.setattr(rag.assistant.Pipeline, "build", slow_build)
    reloads = [threading.Thread(target=assistant.reload) for _ in range(2)]
    for thread in reloads:
        thread.start()
    assert building.wait(timeout=30)
    during = []
    for _ in range(3):
        asked = time.monotonic()
        answer = assistant.ask(QUESTION)
        during.append(time.monotonic() - asked)
        assert GRAPHS_GPT not in {c.paper_id for c in answer.citations}
    assert any(thread.is_alive() for thread in reloads) and max(during) < 2.5, during
    for thread in reloads:
        thread.join(timeout=60)
    assert len(builds) == 1  # the second reload waited, then found the store loaded
    assert GRAPHS_GPT in {c.paper_id for c in assistant.ask(QUESTION).citations}
