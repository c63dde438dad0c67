"""Faults, with real parts: `rag ingest` SIGKILLed ten times in a row, a real `chroma run`
server stopped, killed and frozen under the serving app, and writes refused by the kernel
(a full disk, a file-size limit, a read-only data directory) under ingest and feedback.

Every case ends the same way: the error was clear (HTTP 503, a chat message, `rag: error:`
naming the path), and the store holds exactly what it held before, or everything once
re-run — nothing lost, nothing doubled.
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
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from answer_support import FEEDBACK_ALIGNMENT
from api_support import serve
from conftest import FIXTURE_CORPUS, ROOT, free_port, make_settings, wait_http
from store_checks import (
    StoreState,
    assert_answers,
    assert_consistent,
    papers_not_in,
    store_state,
)
from ui_http import UISession

from rag.assistant import Assistant
from rag.backends import token_counter
from rag.corpus import load_corpus
from rag.ingest import ingest, repair
from rag.settings import Settings
from rag.store import PaperStore

FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
BUNDLED = ROOT / "data" / "icml2024.jsonl"
FEEDBACK_PY = ROOT / "rag" / "feedback.py"


def child_env(data_dir: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    env.update(RAG_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.update({f"RAG_{name.upper()}": value for name, value in settings.items()})
    return env


# --- ingest killed ten times in a row -------------------------------------------------------
SLICE = 4  # papers per durable write in the killed runs: 38 slices for the fixture corpus
PAUSE_AFTER_CHUNKS_S = 0.3
# The driver lowers the slice size and announces each store write on stderr as it begins
# ("<write …>") and ends ("<wrote …>"), so a kill can be aimed at a write. Its only other
# change is a pause after each slice's chunks are written, before their paper records:
# that crash state (chunks without records) is then hit on purpose, not by luck.
KILL_DRIVER = f"""
import importlib, sys, time
importlib.import_module("rag.ingest").PAPERS_PER_WRITE = int(sys.argv[2])
from rag.store import PaperStore

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
    from rag import store as store_module
    from rag.api import create_api
    from ui.app import mount_ui

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


# --- a full disk and a read-only data directory under ingest --------------------------------
FSIZE_DRIVER = """
import resource, signal, sys
# Past the limit a write fails with EFBIG instead of the process being killed by SIGXFSZ.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from rag.cli import main
sys.exit(main(["ingest", *sys.argv[2:]]))
"""
# Root ignores permission bits; without CAP_DAC_OVERRIDE it obeys them like anyone else.
READ_ONLY_DRIVER = """
import ctypes, os, sys
if os.geteuid() == 0:
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3
    assert libc.capget(ctypes.byref(header), data) == 0, ctypes.get_errno()
    keep = ~((1 << 1) | (1 << 2)) & 0xFFFFFFFF  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[0], field, getattr(data[0], field) & keep)
    assert libc.capset(ctypes.byref(header), data) == 0, ctypes.get_errno()
try:
    open(os.path.join(os.environ["RAG_DATA_DIR"], "probe"), "w")
    sys.exit(99)  # still writable: the test could not set up its fault
except PermissionError:
    pass
from rag.cli import main
sys.exit(main(["ingest", *sys.argv[1:]]))
"""


@contextmanager
def small_tmpfs(path: Path, size_bytes: int) -> Iterator[Path]:
    """A tmpfs of `size_bytes` at `path`, or a skip where mounting is not permitted."""
    path.mkdir(parents=True)
    if shutil.which("mount") is None:
        pytest.skip("no mount command; the RLIMIT_FSIZE case covers a full disk")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); RLIMIT_FSIZE covers it")
    try:
        yield path
    finally:
        # Lazy: this process may still hold the store's files open (Chroma caches clients).
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill_disk(directory: Path, leave_bytes: int) -> Path:
    """Write a ballast file until the filesystem is full, then free `leave_bytes` of it."""
    ballast = directory / "ballast"
    with ballast.open("wb") as handle:
        block = b"\0" * 65536
        try:
            while True:
                handle.write(block)
                handle.flush()
        except OSError:
            pass
    size = ballast.stat().st_size
    os.truncate(ballast, max(0, size - leave_bytes))
    return ballast


def run_ingest(command: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *command],
        cwd=data_dir.parent,
        env=child_env(data_dir),
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_clear_store_error(done: subprocess.CompletedProcess[str], path: Path, says: str) -> None:
    """`rag: error: cannot …` naming the store's path and the reason; no traceback."""
    assert done.returncode == 1, (done.returncode, done.stderr[-3000:])
    found = re.findall(r"rag: error: [^\r\n]*", done.stderr)  # the progress bar shares stderr
    assert found and found[-1].startswith("rag: error: cannot "), done.stderr[-3000:]
    message = found[-1]
    assert str(path) in message and says in message, message
    assert "Traceback" not in done.stderr
    print(f"\n{message}")


def assert_untouched_then_recovers(
    settings: Settings, before: StoreState, extra: Path, embed_model: Any
) -> None:
    """The failed ingest left every stored paper as it was (and answering works); a re-run
    removes what the failure left half-written and adds the new papers."""
    store = PaperStore(settings)
    papers, chunks, fingerprint, model = store_state(store)
    assert (papers, fingerprint, model) == (before[0], before[2], before[3])
    # Chunks of new papers may have reached the store without their paper records; no
    # answer can cite them (their papers are unknown) and the next ingest removes them.
    half_written = chunks - before[1]
    assert half_written >= 0
    assistant = Assistant(settings.model_copy(update={"backend": "extractive"}), store, embed_model)
    assert_answers(assistant, FA_QUESTION, FEEDBACK_ALIGNMENT)
    report = ingest(settings, [extra], embed_model=embed_model, store=store)
    assert report.new == 12 and report.repaired == half_written, report
    print(f"untouched: {papers} papers; {half_written} half-written chunks removed by the re-run")
    everything = load_corpus([FIXTURE_CORPUS, extra]).papers
    assert_consistent(store, everything, settings)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mechanism", "free_bytes", "says"),
    [
        # No file may grow past the store's database as it is: the first insert fails (EFBIG,
        # which SQLite calls a disk I/O error; the message says what to check).
        ("file-size limit", 0, "the disk may be full"),
        # Too little room to even open the store (ENOSPC).
        ("full tmpfs", 8 << 10, "the disk is full"),
        # Room for Chroma's write log but not for applying it: the write half happens, and
        # every read fails the same way until space is freed.
        ("nearly full tmpfs", 128 << 10, "full"),
    ],
)
def test_disk_full_during_ingest(
    mechanism: str,
    free_bytes: int,
    says: str,
    tmp_path: Path,
    built_store_dir: Path,
    assistant: Any,
    embed_model: Any,
) -> None:
    before = store_state(assistant.store)  # the session's read-only copy of the same store
    extra = papers_not_in(BUNDLED, FIXTURE_CORPUS, tmp_path / "extra.jsonl", 12)
    with ExitStack() as stack:
        if mechanism == "file-size limit":
            data_dir = tmp_path / "data"
            shutil.copytree(built_store_dir, data_dir)
            limit = (data_dir / "chroma" / "chroma.sqlite3").stat().st_size
            done = run_ingest(["-c", FSIZE_DRIVER, str(limit), str(extra)], data_dir)
        else:
            size = sum(f.stat().st_size for f in built_store_dir.rglob("*") if f.is_file())
            mount = stack.enter_context(small_tmpfs(tmp_path / "mnt", size + (8 << 20)))
            data_dir = mount / "data"
            shutil.copytree(built_store_dir, data_dir)
            ballast = fill_disk(mount, free_bytes)
            done = run_ingest(["-m", "rag.cli", "ingest", str(extra)], data_dir)
            stats = run_ingest(["-m", "rag.cli", "stats"], data_dir)  # still full
            ballast.unlink()  # space again, for the checks and the re-run below
        settings = make_settings(data_dir)
        assert_clear_store_error(done, settings.chroma_path, says)
        if mechanism != "file-size limit":
            # Reading a store on a full disk: the same clear error, not a traceback.
            assert_clear_store_error(stats, settings.chroma_path, "full")
        assert_untouched_then_recovers(settings, before, extra, embed_model)


@pytest.mark.slow
def test_read_only_data_dir_on_ingest(
    tmp_path: Path, built_store_dir: Path, assistant: Any, embed_model: Any
) -> None:
    before = store_state(assistant.store)
    extra = papers_not_in(BUNDLED, FIXTURE_CORPUS, tmp_path / "extra.jsonl", 12)
    data_dir = tmp_path / "data"
    shutil.copytree(built_store_dir, data_dir)
    subprocess.run(["chmod", "-R", "a-w", str(data_dir)], check=True)
    try:
        done = run_ingest(["-c", READ_ONLY_DRIVER, str(extra)], data_dir)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(data_dir)], check=True)
    settings = make_settings(data_dir)
    assert_clear_store_error(done, settings.chroma_path, "read-only")
    assert_untouched_then_recovers(settings, before, extra, embed_model)


# --- a full disk under feedback -------------------------------------------------------------
FEEDBACK_DRIVER = """
import importlib.util, json, os, resource, signal, sys
spec = importlib.util.spec_from_file_location("feedback", sys.argv[1])
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)
path, headroom = sys.argv[2], int(sys.argv[3])
writer = fb.FeedbackWriter(path)
def record(tag, size):
    writer.record(question=tag, answer=tag * size, citations=[], backend="x", vote="up")
record("a", 10)
if headroom:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = os.path.getsize(path) + headroom
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
size_before = os.path.getsize(path)
try:
    record("b", 20_000)
    error = None
except fb.FeedbackError as exc:
    error = str(exc)
size_after = os.path.getsize(path)
record("c", 1)  # a small vote still fits: the writer keeps working
print(json.dumps({"error": error, "before": size_before, "after": size_after}))
"""


def write_feedback_until_full(path: Path, headroom: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", FEEDBACK_DRIVER, str(FEEDBACK_PY), str(path), str(headroom)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    result["kept"] = path.read_text(encoding="utf-8")
    return result


@pytest.mark.parametrize("mechanism", ["file-size limit", "full tmpfs"])
def test_disk_full_on_feedback(mechanism: str, tmp_path: Path) -> None:
    if mechanism == "file-size limit":
        path = tmp_path / "data" / "feedback.jsonl"
        result = write_feedback_until_full(path, headroom=400)
    else:
        with small_tmpfs(tmp_path / "mnt", 1 << 20) as mount:
            path = mount / "data" / "feedback.jsonl"
            path.parent.mkdir()
            path.touch()
            fill_disk(mount, 8192)  # two pages: the small records fit, a 20 kB one does not
            result = write_feedback_until_full(path, headroom=0)
    assert result["error"] is not None, "the 20 kB record was written: the disk was not full"
    assert str(path) in result["error"] and "full" in result["error"], result["error"]
    assert result["after"] == result["before"], "a partial line was left in the file"
    lines = result["kept"].splitlines()
    assert [json.loads(line)["question"] for line in lines] == ["a", "c"], result["kept"][:500]
