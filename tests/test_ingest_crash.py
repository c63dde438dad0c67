"""`rag ingest` killed with SIGKILL mid-write, then re-run: the store ends complete.

The ingest runs as a real subprocess (the `rag` CLI, with PAPERS_PER_WRITE lowered so a
40-paper corpus takes ten durable slices). Its progress bar says when slices are on disk;
the test kills it at a random moment after that, snapshots the store, and checks that
repair() turns every snapshot into a consistent subset. A final ingest must complete it.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rag.corpus.records import load_corpus
from rag.embedding.base import token_counter
from rag.ingestion import ingest, repair
from rag.store.chroma import PaperStore
from tests.support.paths import FIXTURE_CORPUS
from tests.support.store_checks import assert_consistent, settings_for, tiny_corpus

PER_SLICE = 4
# The driver only slows the process down: a pause after each slice's chunks are written
# (before its paper records) makes the most interesting crash state likely, not rare.
DRIVER = f"""
import importlib, sys, time
importlib.import_module("rag.ingestion").PAPERS_PER_WRITE = {PER_SLICE}
from rag.store.chroma import PaperStore
add = PaperStore.add_chunk_nodes
def add_then_pause(self, nodes):
    add(self, nodes)
    time.sleep(0.2)
PaperStore.add_chunk_nodes = add_then_pause
from rag.cli import main
sys.exit(main(["ingest", sys.argv[1]]))
"""
PROGRESS = re.compile(rb"(\d+)/(\d+)")


def start_ingest(corpus: Path, data_dir: Path) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    env.update(RAG_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(corpus)],
        cwd=data_dir.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    state: dict[str, Any] = {"done": -1, "err": b"", "event": threading.Event()}

    def watch() -> None:
        assert proc.stderr is not None
        while chunk := os.read(proc.stderr.fileno(), 4096):
            state["err"] += chunk
            found = PROGRESS.findall(state["err"])
            if found:
                state["done"] = int(found[-1][0])
                state["event"].set()
        state["event"].set()

    threading.Thread(target=watch, daemon=True).start()
    return proc, state


def kill_after_progress(
    corpus: Path, data_dir: Path, min_done: int, delay: float
) -> tuple[int | None, int]:
    """Run ingest; SIGKILL `delay` s after its progress reaches `min_done`. -> (rc, done)."""
    proc, state = start_ingest(corpus, data_dir)
    deadline = time.monotonic() + 120
    while state["done"] < min_done and proc.poll() is None:
        assert time.monotonic() < deadline, state["err"][-2000:]
        state["event"].wait(0.05)
        state["event"].clear()
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode in (0, -signal.SIGKILL), state["err"].decode(errors="replace")
    return proc.returncode, state["done"]


@pytest.mark.slow
def test_sigkill_during_ingest_then_rerun(tmp_path: Path, embed_model: Any) -> None:
    corpus = tiny_corpus(FIXTURE_CORPUS, tmp_path / "forty.jsonl", 40, skip=30)
    papers = load_corpus([corpus]).papers
    data_dir = tmp_path / "data"
    settings = settings_for(data_dir, corpus)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    killed, present = 0, set[str]()
    # Kill points are chosen by progress, not by clock, so a fast machine cannot finish
    # first: round 0 dies around its first slice (no paper record of its own yet); later
    # rounds after a random number of durable slices, plus a jitter that lands anywhere
    # inside the next slice (embedding, deleting, adding chunks or writing records).
    for round_ in range(3):
        remaining = len(papers) - len(present)
        target = 0 if round_ == 0 else rng.randrange(1, max(2, remaining - 3 * PER_SLICE))
        jitter = rng.uniform(0.0, 0.4)
        rc, done = kill_after_progress(corpus, data_dir, target, jitter)
        killed += rc == -signal.SIGKILL
        snapshot = tmp_path / f"snapshot{round_}"
        shutil.copytree(data_dir, snapshot)
        snap = PaperStore(settings.model_copy(update={"data_dir": snapshot}))
        repaired = repair(snap)
        present = set(snap.paper_hashes())
        print(
            f"\nseed {seed} round {round_}: kill at progress >= {target} + {jitter:.2f}s, "
            f"rc {rc}, last progress {done}; complete papers {len(present)}, repaired {repaired}"
        )
        assert_consistent(snap, [p for p in papers if p.id in present], settings)
    assert killed >= 2, "the ingest finished before it could be killed (too fast?)"

    report = ingest(settings, embed_model=embed_model)
    assert report.papers == 40 and report.new + report.unchanged == 40
    store = PaperStore(settings)
    assert_consistent(store, papers, settings, token_counter(embed_model))
    again = ingest(settings, embed_model=embed_model, store=store)
    assert again.embedded_chunks == 0 and again.repaired == 0


def test_cli_subprocess_ingest(tmp_path: Path) -> None:
    """The installed `rag` entry point, end to end, as a user runs it."""
    corpus = tiny_corpus(FIXTURE_CORPUS, tmp_path / "three.jsonl", 3)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    env.update(RAG_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1")
    rag = Path(sys.executable).parent / "rag"
    run = subprocess.run(
        [str(rag), "ingest", str(corpus)], env=env, cwd=tmp_path, capture_output=True, timeout=300
    )
    assert run.returncode == 0, run.stderr.decode()
    out = run.stdout.decode().splitlines()
    assert len(out) == 1 and out[0].startswith("papers 3 | chunks ")
    assert "3/3" in run.stderr.decode()  # the progress bar goes to stderr
    assert PaperStore(settings_for(tmp_path / "data", corpus)).counts()[0] == 3
