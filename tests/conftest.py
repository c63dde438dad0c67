"""Shared fixtures: an isolated environment, the real embedding model, real Chroma
(embedded in tmp dirs, and a real `chroma run` server), and the fixture corpus."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# 152 verbatim lines of data/icml2024.jsonl: the 19 seed papers, a 132-paper slice, and
# GraphsGPT (zxxSJAVQPc), the paper several answer tests ask about by name.
FIXTURE_CORPUS = FIXTURES / "corpus.jsonl"
SEED_FILE = FIXTURES / "seeds.txt"  # ../shared/seeds/000_635826d5ffaa2f6c.txt
ARTIFACTS = ROOT / "tests" / "artifacts"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, timeout: float = 60.0, proc: subprocess.Popen[Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before {url} answered")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f}s")


@contextmanager
def running_server(
    command: list[str], ready_url: str, log_path: Path, timeout: float = 60.0
) -> Iterator[subprocess.Popen[bytes]]:
    """A real server process, ready when `ready_url` answers; stopped (then killed) after.

    If it never gets ready, the error carries the tail of its log.
    """
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            wait_http(ready_url, timeout=timeout, proc=proc)
        except (RuntimeError, TimeoutError) as exc:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise AssertionError(f"{exc}\n{tail}") from exc
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RAG_*/OpenAI variable or .env of the developer leaks into a test."""
    for key in list(os.environ):
        if key.startswith("RAG_") or key.startswith("OPENAI_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)


def make_settings(data_dir: Path, **overrides: Any) -> Any:
    from rag.settings import Settings

    overrides.setdefault("corpus_paths", [FIXTURE_CORPUS])
    return Settings(_env_file=None, data_dir=data_dir, **overrides)


@pytest.fixture(scope="session")
def embed_model() -> Any:
    """The real all-MiniLM-L6-v2, loaded once per test session."""
    from rag.backends import build_embed_model

    return build_embed_model(make_settings(Path("unused")))


@pytest.fixture(scope="session")
def built_store_dir(tmp_path_factory: pytest.TempPathFactory, embed_model: Any) -> Path:
    """The fixture corpus ingested once; tests copy it rather than re-embedding."""
    from rag.ingest import ingest

    data_dir = tmp_path_factory.mktemp("store")
    ingest(make_settings(data_dir), embed_model=embed_model)
    return data_dir


@pytest.fixture
def store_copy(built_store_dir: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the built store (PersistentClient is one-process-only)."""
    target = tmp_path / "data"
    shutil.copytree(built_store_dir, target)
    return target


@pytest.fixture(scope="session")
def assistant(built_store_dir: Path, embed_model: Any) -> Any:
    """A read-only extractive assistant over the fixture corpus, shared by the session."""
    from rag.assistant import Assistant
    from rag.store import PaperStore

    settings = make_settings(built_store_dir, backend="extractive")
    return Assistant(settings, PaperStore(settings), embed_model)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real `chroma run` server on a free 127.0.0.1 port."""
    exe = Path(sys.executable).parent / "chroma"
    if not exe.exists():
        pytest.fail("the `chroma` CLI (from chromadb) is not installed in this environment")
    path = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    command = [
        str(exe),
        "run",
        "--path",
        str(path / "db"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    heartbeat = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    with running_server(command, heartbeat, path / "server.log"):
        yield "127.0.0.1", port
