"""Faults, with real parts: `rag ingest` SIGKILLed ten times in a row, then re-run; a real
`chroma run` server stopped, killed and frozen under the serving app, then back.

The store ends complete (every paper once, no duplicate or orphan chunk, model recorded)
and answering; during an outage every way in says so (HTTP 503, a chat message) and the
same app process serves again once the server is back. Disk faults: test_disk_faults.py.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from eval.bench.procs import free_port, wait_http
from rag.assistant import Assistant
from rag.corpus.records import load_corpus
from rag.embedding.base import token_counter
from rag.ingestion import ingest, repair
from rag.store.chroma import PaperStore
from tests.support.answers import FEEDBACK_ALIGNMENT
from tests.support.api import serve
from tests.support.paths import FIXTURE_CORPUS
from tests.support.settings import make_settings
from tests.support.store_checks import assert_answers, assert_consistent, child_env
from tests.support.ui_http import UISession

FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"


# --- ingest killed ten times in a row -------------------------------------------------------
SLICE = 4  # papers per durable write in the killed runs: 38 slices for the fixture corpus
PAUSE_AFTER_CHUNKS_S = 0.3
# The driver lowers the slice size and announces each store write on stderr as it begins
# ("<write …>") and ends ("<wrote …>"), so a kill can be aimed at a write. Its only other
# change is a pause after each slice's chunks are written, before their paper records:
# that crash state (chunks without records) is then hit on purpose, not by luck.
KILL_DRIVER = f"""
import importlib, sys, time
importlib.import_module("rag.ingestion").PAPERS_PER_WRITE = int(sys.argv[2])
from rag.store.chroma import PaperStore

def announce(name, write):
    def wrapped(self, *args, **kwargs):
        sys.stderr.write(f"<write {{name}}>\\n")
        sys.stderr.flush()
        result = write(self, *args, **kwargs)
        sys.stderr.write(f"<wrote {{name}}>\\n")
        sys.stderr.flush()
        if name == "add_chunk_nodes":
            time.sleep({PAUSE_AFTER_CHUNKS_S})
        return result
    return wrapped

for name in ("delete_chunks_of", "add_chunk_nodes", "upsert_papers"):
    setattr(PaperStore, name, announce(name, getattr(PaperStore, name)))
from rag.cli import main
sys.exit(main(["ingest", sys.argv[1]]))
"""
# Where the "write" kills aim: while chunks are written, after they are (before the paper
# records), and while the records are written.
WRITE_MARKS = ("<write add_chunk_nodes>", "<wrote add_chunk_nodes>", "<write upsert_papers>")
PROGRESS = re.compile(r"(\d+)/(\d+)")


class KilledIngest:
    """`rag ingest` in a subprocess, with its stderr watched for progress and writes."""

    def __init__(self, corpus: Path, data_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", KILL_DRIVER, str(corpus), str(SLICE)],
            cwd=data_dir.parent,
            # Every run embeds, as a first ingest does: the machine-wide embedding cache
            # would otherwise make re-runs finish between two kills.
            env=child_env(data_dir, embed_cache="false"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.err = ""
        self.ticks = 0  # progress updates seen (the first is "0/N", before any embedding)
        self.marks: Counter[str] = Counter()  # write announcements seen
        self.changed = threading.Condition()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        assert self.proc.stderr is not None
        while chunk := os.read(self.proc.stderr.fileno(), 4096):
            with self.changed:
                self.err += chunk.decode(errors="replace")
                self.ticks = len(PROGRESS.findall(self.err))
                self.marks = Counter(re.findall(r"<wr[io]te \w+>", self.err))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def kill_when(self, ready: Any, delay: float, timeout: float = 180) -> int:
        """SIGKILL `delay` s after ready(self) holds (or let it end); -> return code."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not ready(self) and self.proc.poll() is None:
                assert time.monotonic() < deadline, self.err[-2000:]
                self.changed.wait(0.05)
        time.sleep(delay)
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        return self.proc.wait(timeout=60)


@pytest.mark.slow
def test_ten_sigkills_in_a_row_then_rerun(tmp_path: Path, embed_model: Any) -> None:
    papers = load_corpus([FIXTURE_CORPUS]).papers
    data_dir = tmp_path / "data"
    settings = make_settings(data_dir)
    seed = int(os.environ.get("KILL_LOOP_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    # Half the kills land while a slice is chunked and embedded (a random delay after a
    # progress tick), half at a store write (each kind of write at least once).
    targets = [*WRITE_MARKS, *rng.choices(WRITE_MARKS, k=2)]
    plans = ["embedding"] * 5 + targets
    rng.shuffle(plans)
    log: list[str] = []
    outcomes: Counter[str] = Counter()
    for round_, plan in enumerate(plans):
        run = KilledIngest(FIXTURE_CORPUS, data_dir)
        if plan == "embedding":
            ticks, delay = rng.randint(1, 2), rng.uniform(0.0, 0.8)
            rc = run.kill_when(lambda r, t=ticks: r.ticks >= t, delay)
            where = f"{delay:.2f}s after progress tick {ticks}"
        else:
            nth, delay = rng.randint(1, 2), rng.uniform(0.0, 0.02)
            rc = run.kill_when(lambda r, m=plan, n=nth: r.marks[m] >= n, delay)
            where = f"{delay * 1000:.0f}ms after {plan} #{nth}"
        # What the crash left, seen on a copy (the real store is repaired by the next run).
        snapshot = tmp_path / f"snapshot{round_}"
        shutil.copytree(data_dir, snapshot)
        snap = PaperStore(settings.model_copy(update={"data_dir": snapshot}))
        repaired = repair(snap)
        complete = set(snap.paper_hashes())
        assert_consistent(snap, [p for p in papers if p.id in complete], settings)
        shutil.rmtree(snapshot, ignore_errors=True)
        outcomes["killed" if rc == -signal.SIGKILL else f"exit {rc}"] += 1
        outcomes["left partial writes"] += repaired > 0
        log.append(
            f"round {round_}: killed {where}: rc {rc}, {len(complete)} complete, "
            f"{repaired} partial writes repaired"
        )
    summary = f"seed {seed} (rerun with KILL_LOOP_SEED={seed}):\n" + "\n".join(log)
    print("\n" + summary)
    assert outcomes["killed"] == 10, summary
    assert outcomes["left partial writes"] >= 1, "no kill landed inside a write\n" + summary

    done = subprocess.run(
        [sys.executable, "-m", "rag.cli", "ingest", str(FIXTURE_CORPUS)],
        cwd=tmp_path,
        env=child_env(data_dir),  # the plain command, embedding cache and all
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:] + summary
    assert done.stdout.startswith(f"papers {len(papers)} | chunks "), done.stdout
    store = PaperStore(settings)
    assert_consistent(store, papers, settings, token_counter(embed_model))
    again = ingest(settings, embed_model=embed_model, store=store)
    assert (again.embedded_chunks, again.repaired, again.unchanged) == (0, 0, len(papers))
    assistant = Assistant(settings.model_copy(update={"backend": "extractive"}), store, embed_model)
    assert_answers(assistant, FA_QUESTION, FEEDBACK_ALIGNMENT)


# --- the Chroma server lost and found while the app serves ---------------------------------
class ChromaProcess:
    """A `chroma run` on a fixed port and data directory that can be stopped and restarted."""

    def __init__(self, path: Path, port: int, log: Path) -> None:
        self.path, self.port, self.log = path, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = Path(sys.executable).parent / "chroma"
        command = [str(exe), "run", "--path", str(self.path), "--host", "127.0.0.1"]
        for attempt in range(3):  # the port can take a moment to be free after a kill
            with self.log.open("ab") as log:
                self.proc = subprocess.Popen(
                    [*command, "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT
                )
            try:
                wait_http(f"http://127.0.0.1:{self.port}/api/v2/heartbeat", 60, self.proc)
                return
            except RuntimeError:
                if attempt == 2:
                    raise AssertionError(self.log.read_text(errors="replace")[-3000:]) from None
                time.sleep(1)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        if sig in (signal.SIGTERM, signal.SIGKILL):
            self.proc.wait(timeout=30)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(timeout=30)


def _chat_body(stream: bool) -> dict[str, Any]:
    return {
        "model": "icml-rag",
        "stream": stream,
        "messages": [{"role": "user", "content": FA_QUESTION}],
    }


def _stream_citations(text: str) -> list[str]:
    chunks = [json.loads(x[6:]) for x in text.splitlines() if x.startswith("data: {")]
    assert text.rstrip().endswith("data: [DONE]") and chunks, text[-500:]
    assert not any("error" in c for c in chunks), text[-500:]
    return [c["paper_id"] for c in chunks[-1].get("citations", [])]


def outage_requests(http: httpx.Client, config: dict[str, Any], port: int) -> Counter[str]:
    """Every way in, while the store is away: each must say so, none may crash or leak."""
    seen: Counter[str] = Counter()
    calls = {
        "ask": lambda: http.post("/v1/ask", json={"question": FA_QUESTION}),
        "chat": lambda: http.post("/v1/chat/completions", json=_chat_body(False)),
        "chat-stream": lambda: http.post("/v1/chat/completions", json=_chat_body(True)),
        "retrieve": lambda: http.post("/v1/retrieve", json={"question": FA_QUESTION}),
        "stats": lambda: http.get("/v1/stats"),
    }
    for kind, call in calls.items():
        response = call()
        assert response.status_code == 503, (kind, response.status_code, response.text[:500])
        error = response.json()["error"]
        assert error["type"] == "service_unavailable", (kind, error)
        assert "try again" in error["message"], (kind, error)
        assert f":{port}" not in response.text and "Traceback" not in response.text, kind
        seen[kind] += 1
    health = http.get("/healthz")
    assert health.status_code == 503 and health.json()["ok"] is False
    seen["healthz"] += 1
    shown = UISession(http, config).ask(FA_QUESTION)
    assert "The paper store is unavailable" in shown and "try again" in shown, shown[:500]
    assert f":{port}" not in shown and "Traceback" not in shown, shown[:500]
    seen["ui"] += 1
    return seen


def served_requests(http: httpx.Client, config: dict[str, Any], papers: int) -> Counter[str]:
    seen: Counter[str] = Counter()
    ask = http.post("/v1/ask", json={"question": FA_QUESTION})
    assert ask.status_code == 200, ask.text[:500]
    assert FEEDBACK_ALIGNMENT in {c["paper_id"] for c in ask.json()["citations"]}
    chat = http.post("/v1/chat/completions", json=_chat_body(False))
    assert chat.status_code == 200, chat.text[:500]
    cited = chat.json()["choices"][0]["message"]["citations"]
    assert FEEDBACK_ALIGNMENT in {c["paper_id"] for c in cited}
    stream = http.post("/v1/chat/completions", json=_chat_body(True))
    assert stream.status_code == 200 and FEEDBACK_ALIGNMENT in _stream_citations(stream.text)
    found = http.post("/v1/retrieve", json={"question": FA_QUESTION})
    assert found.status_code == 200, found.text[:500]
    assert FEEDBACK_ALIGNMENT in {p["paper"]["id"] for p in found.json()["papers"]}
    stats = http.get("/v1/stats")
    assert stats.status_code == 200 and stats.json()["papers"] == papers
    assert http.get("/healthz").json()["ok"] is True
    shown = UISession(http, config).ask(FA_QUESTION)
    assert "Feedback Alignment" in shown and "unavailable" not in shown, shown[:500]
    seen.update(["ask", "chat", "chat-stream", "retrieve", "stats", "healthz", "ui"])
    return seen


@pytest.mark.slow
@pytest.mark.chroma_server
def test_chroma_server_outages_while_serving(
    tmp_path: Path, built_store_dir: Path, embed_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped (SIGTERM), killed (SIGKILL) and frozen (SIGSTOP): 503s and chat messages
    during each outage; served again after it, by the same app process."""
    from rag.api.app import create_api
    from rag.store import chroma as store_module
    from ui.layout import mount_ui

    # Each request to the frozen server waits this long before it counts as an outage.
    monkeypatch.setattr(store_module, "SERVER_TIMEOUT_S", 2.0)
    shutil.copytree(built_store_dir / "chroma", tmp_path / "db")  # a server reads this format
    papers = len(load_corpus([FIXTURE_CORPUS]).papers)
    port = free_port()
    chroma = ChromaProcess(tmp_path / "db", port, tmp_path / "chroma.log")
    chroma.start()
    tally: Counter[str] = Counter()
    try:
        settings = make_settings(
            tmp_path / "data", backend="extractive", chroma_host="127.0.0.1", chroma_port=port
        )
        assistant = Assistant(settings, PaperStore(settings), embed_model)
        app = mount_ui(create_api(assistant, settings), assistant, settings)
        with (
            serve(app, lifespan="on") as url,
            httpx.Client(base_url=url, timeout=120) as http,
        ):
            config = http.get("/config").json()
            tally.update(
                {f"before {k}": n for k, n in served_requests(http, config, papers).items()}
            )
            for fault, rounds in (("stop", 2), ("kill", 2), ("freeze", 1)):
                if fault == "freeze":
                    chroma.signal(signal.SIGSTOP)
                else:
                    chroma.signal(signal.SIGTERM if fault == "stop" else signal.SIGKILL)
                for _ in range(rounds):
                    seen = outage_requests(http, config, port)
                    tally.update({f"during {fault}": sum(seen.values())})
                if fault == "freeze":
                    chroma.signal(signal.SIGCONT)
                else:
                    chroma.start()  # same port, same data directory; the app is not touched
                for _ in range(2):
                    seen = served_requests(http, config, papers)
                    tally.update({f"after {fault}": sum(seen.values())})
    finally:
        chroma.close()
        print(f"\nrequests by phase: {dict(tally)}")
    assert tally["during stop"] == tally["during kill"] == 14 and tally["during freeze"] == 7
    assert tally["after stop"] == tally["after kill"] == tally["after freeze"] == 14
