"""Writes refused by the kernel under ingest and feedback: a full disk (a small tmpfs where
mount is permitted), a file-size limit (RLIMIT_FSIZE, which works in any container) and a
read-only data directory (root made to obey permission bits by dropping CAP_DAC_OVERRIDE).

Each ends with a clear error that names the path and the reason, and the store as it was:
the same papers, still answering; a re-run once the fault is gone adds what was asked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from rag.assistant import Assistant
from rag.corpus.records import load_corpus
from rag.ingestion import ingest
from rag.settings import Settings
from rag.store.chroma import PaperStore
from tests.support.answers import FEEDBACK_ALIGNMENT
from tests.support.paths import FIXTURE_CORPUS, ROOT
from tests.support.settings import make_settings
from tests.support.store_checks import (
    StoreState,
    assert_answers,
    assert_consistent,
    child_env,
    papers_not_in,
    store_state,
)

FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
BUNDLED = ROOT / "data" / "icml2024.jsonl"
FEEDBACK_PY = ROOT / "rag" / "feedback.py"


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
