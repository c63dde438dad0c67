"""Load: scripts/load_test.py against `python -m ui` (20 clients, zero errors, memory that
levels off), and many votes posted at once through the UI's HTTP route (every feedback line
whole, parseable and accounted for)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from rag.feedback import MAX_COMMENT_CHARS, read_feedback
from tests.support.api import serve
from tests.support.paths import ROOT
from tests.support.settings import make_settings
from tests.support.ui_http import UISession

LOAD_TEST = ROOT / "scripts" / "load_test.py"


@pytest.mark.slow
def test_twenty_clients_for_ten_seconds(store_copy: Path, tmp_path: Path) -> None:
    report_path = tmp_path / "load.json"
    done = subprocess.run(
        [
            sys.executable,
            str(LOAD_TEST),
            "--serve",
            "--data-dir",
            str(store_copy),
            "--clients",
            "20",
            "--duration",
            "10",
            "--max-growth-mb",
            "64",
            "--max-growth-pct",
            "10",
            "--server-log",
            str(tmp_path / "server.log"),
            "--json",
            str(report_path),
        ],
        cwd=tmp_path,
        # Twenty clients on one address are one client to the rate limit; the in-flight
        # bound stays at its default, so its waits are part of what is measured.
        env={**os.environ, "RAG_RATE_LIMIT_PER_MINUTE": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    print("\n" + done.stdout)
    server_log = (tmp_path / "server.log").read_text(errors="replace")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:] + server_log[-2000:]
    report = json.loads(report_path.read_text())
    assert report["errors"] == 0 and report["requests"] >= 20, report["error_examples"]
    assert all(kind["requests"] > 0 for kind in report["by_kind"].values())
    memory = report["memory"]
    assert memory["sampled"] and memory["samples"] >= 8
    assert not memory["growth_flagged"], memory
    assert "Traceback" not in server_log, server_log[-3000:]


def test_concurrent_votes_over_http_keep_every_line(assistant: Any, tmp_path: Path) -> None:
    from rag.api.app import create_api
    from ui.layout import mount_ui

    settings = make_settings(tmp_path / "data", backend="extractive")  # feedback goes here
    app = mount_ui(create_api(assistant, settings), assistant, settings)
    sessions_n, threads_per_session, votes_per_thread = 6, 3, 20
    questions = [f"Why does feedback alignment work? (tab {s})" for s in range(sessions_n)]
    sent: list[tuple[str, str, str]] = []  # (question, vote, comment) of every vote
    errors: list[BaseException] = []
    lock = threading.Lock()
    with serve(app, lifespan="on") as url:
        config = httpx.get(f"{url}/config").json()
        clients = [httpx.Client(base_url=url, timeout=120) for _ in range(sessions_n)]
        sessions = [UISession(client, config) for client in clients]
        for session, question in zip(sessions, questions, strict=True):
            assert "rag-answer" in session.ask(question)
        start = threading.Barrier(sessions_n * threads_per_session)

        def vote(session_n: int, thread_n: int) -> None:
            session = sessions[session_n]
            try:
                with httpx.Client(base_url=url, timeout=120) as own:
                    session_view = UISession(own, config)
                    session_view.session_hash = session.session_hash  # same tab, own socket
                    start.wait()
                    for i in range(votes_per_thread):
                        liked = (True, False, None)[i % 3]
                        # Long, non-ASCII, quoted and multi-line comments: none may split
                        # or mix with another writer's line.
                        body = ('«ü» "q" 🙂\n' * (i * 17 % 180))[: MAX_COMMENT_CHARS - 40]
                        comment = f"s{session_n}-t{thread_n}-v{i} {body}".strip()
                        status = session_view.vote(1, liked, comment)
                        assert status.startswith("Feedback recorded"), status
                        with lock:
                            sent.append((questions[session_n], _vote(liked), comment))
            except BaseException as exc:  # surfaced below: a thread's failure fails the test
                errors.append(exc)

        threads = [
            threading.Thread(target=vote, args=(s, t))
            for s in range(sessions_n)
            for t in range(threads_per_session)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for client in clients:
            client.close()
    assert not errors, errors[:3]
    lines = settings.feedback_path.read_text(encoding="utf-8").splitlines()
    total = sessions_n * threads_per_session * votes_per_thread
    assert len(lines) == len(sent) == total
    records = [json.loads(line) for line in lines]  # every line parses on its own
    assert records == read_feedback(settings.feedback_path)
    written = sorted((r["question"], r["vote"], r["comment"]) for r in records)
    assert written == sorted(sent)  # each vote exactly once, none altered
    assert all(r["citations"] and r["backend"] == "extractive" for r in records)


def _vote(liked: bool | None) -> str:
    return "up" if liked is True else "down" if liked is False else "cleared"
