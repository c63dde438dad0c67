"""rag/feedback.py: the line shape, and whole lines under concurrent threads and processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rag.errors import FeedbackError
from rag.feedback import FeedbackWriter, make_record, read_feedback

ROOT = Path(__file__).resolve().parent.parent.parent
FEEDBACK_PY = ROOT / "rag" / "feedback.py"

# Loads rag/feedback.py by path: `import rag` costs ~15 s (llama-index, chromadb), which
# would dwarf what these child processes are here to do.
CHILD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("feedback", sys.argv[1])
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)
writer = fb.FeedbackWriter(sys.argv[2])
tag, count, size = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
for i in range(count):
    writer.record(question=f"{tag}-{i}", answer=tag * size, citations=[{"n": 1}],
                  backend="extractive", vote="up")
"""


def _record(question: str = "q", **overrides: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "question": question,
        "answer": "An answer [1].",
        "citations": [{"n": 1, "paper_id": "qklMNNub0H", "title": "T", "url": "https://x"}],
        "backend": "extractive",
        "vote": "up",
    }
    fields.update(overrides)
    return make_record(**fields)  # type: ignore[arg-type]


def test_record_shape_and_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "feedback.jsonl"
    writer = FeedbackWriter(path)
    when = datetime(2024, 7, 21, 12, 0, 0, tzinfo=UTC)
    written = writer.record(
        question="Was ist\nFeedback Alignment?",
        answer="Ein Satz [1].",
        citations=[{"n": 1, "paper_id": "qklMNNub0H"}],
        backend="extractive",
        vote="down",
        comment="  zu kurz — «bitte mehr»  ",
        timestamp=when,
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == written
    assert set(written) == {
        "timestamp",
        "question",
        "answer",
        "citations",
        "backend",
        "vote",
        "comment",
    }
    assert written["timestamp"] == "2024-07-21T12:00:00.000Z"
    assert written["comment"] == "zu kurz — «bitte mehr»"
    assert "«bitte mehr»" in lines[0]  # not \u-escaped: the file stays readable
    assert read_feedback(path) == [written]


def test_rejects_unknown_vote_and_clips_long_comments() -> None:
    with pytest.raises(ValueError, match="vote"):
        _record(vote="meh")
    assert len(_record(comment="x" * 50_000)["comment"]) == 2000  # type: ignore[arg-type]


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_feedback(tmp_path / "none.jsonl") == []


def test_threads_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "feedback.jsonl"
    writer = FeedbackWriter(path)
    threads_n, per_thread, size = 8, 60, 20_000  # 20 kB answers: far past any atomic size
    barrier = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def work(tag: str) -> None:
        try:
            barrier.wait()
            for i in range(per_thread):
                writer.append(_record(f"{tag}-{i}", answer=tag * size))
        except BaseException as exc:  # surfaced below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(chr(65 + t),)) for t in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    records = read_feedback(path)
    assert len(records) == threads_n * per_thread
    for r in records:
        tag = str(r["question"]).split("-")[0]
        assert r["answer"] == tag * size
    assert len({r["question"] for r in records}) == threads_n * per_thread


def test_processes_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "feedback.jsonl"
    procs_n, per_proc, size = 4, 150, 8_000  # 16 kB answers
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                str(FEEDBACK_PY),
                str(path),
                f"P{p}",
                str(per_proc),
                str(size),
            ]
        )
        for p in range(procs_n)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * procs_n
    records = read_feedback(path)
    assert len(records) == procs_n * per_proc
    for r in records:
        tag = str(r["question"]).split("-")[0]
        assert r["answer"] == tag * size
    assert len({r["question"] for r in records}) == procs_n * per_proc


def test_read_only_data_dir_gives_a_clear_error(tmp_path: Path) -> None:
    data_dir = tmp_path / "ro"
    data_dir.mkdir()
    data_dir.chmod(0o555)
    target = data_dir / "feedback.jsonl"
    if os.geteuid() != 0:
        with pytest.raises(FeedbackError, match=r"not writable.*RAG_DATA_DIR"):
            FeedbackWriter(target).record(
                question="q", answer="a", citations=[], backend="extractive", vote="up"
            )
        return
    # root ignores permission bits: a child process drops to `nobody` before writing (after
    # loading Python, which lives under root's home here).
    tmp_path.chmod(0o755)
    script = (
        "import importlib.util, os, sys\n"
        "spec = importlib.util.spec_from_file_location('feedback', sys.argv[1])\n"
        "fb = importlib.util.module_from_spec(spec); spec.loader.exec_module(fb)\n"
        "os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
        "try:\n"
        "    fb.FeedbackWriter(sys.argv[2]).record(question='q', answer='a', citations=[],\n"
        "                                           backend='extractive', vote='up')\n"
        "except fb.FeedbackError as exc:\n"
        "    print(exc); sys.exit(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(FEEDBACK_PY), str(target)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert "not writable" in done.stdout and "RAG_DATA_DIR" in done.stdout
    assert not target.exists()
