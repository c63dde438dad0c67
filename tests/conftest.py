"""Shared fixtures: an isolated environment, the real embedding model, real Chroma
(embedded in tmp dirs, and a real `chroma run` server), and the fixture corpus.

Helpers live in tests/support/ (imported as `tests.support.…`); only fixtures are here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.settings import make_settings

# The scripted OpenAI-protocol server and an assistant on it (llm_server, scripted_server,
# llm_assistant), for every test module that asks for them.
# The browser: chromium through Playwright, `python -m ui` servers (browser, xss_server,
# full_server).
pytest_plugins = ["tests.support.openai_stub", "tests.support.browser"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RAG_*/OpenAI variable or .env of the developer leaks into a test."""
    for key in list(os.environ):
        if key.startswith("RAG_") or key.startswith("OPENAI_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def embed_model() -> Any:
    """The real all-MiniLM-L6-v2, loaded once per test session."""
    from rag.embedding.factory import build_embed_model

    return build_embed_model(make_settings(Path("unused")))


@pytest.fixture(scope="session")
def built_store_dir(tmp_path_factory: pytest.TempPathFactory, embed_model: Any) -> Path:
    """The fixture corpus ingested once; tests copy it rather than re-embedding."""
    from rag.ingestion import ingest

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
    from rag.store.chroma import PaperStore

    settings = make_settings(built_store_dir, backend="extractive")
    return Assistant(settings, PaperStore(settings), embed_model)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real `chroma run` server on a free 127.0.0.1 port."""
    from eval.bench.procs import chroma_server

    path = tmp_path_factory.mktemp("chroma-server")
    with chroma_server(path / "db", path / "server.log") as server:
        yield server["host"], server["port"]


@pytest.fixture(scope="module")
def base_url(assistant: Any) -> Iterator[str]:
    """The API over the shared assistant, served by real uvicorn on a free port."""
    from rag.api.app import create_api
    from tests.support.api import serve

    with serve(create_api(assistant, assistant.settings)) as url:
        yield url


@pytest.fixture(scope="module")
def model_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 weights' folder."""
    from rag.embedding.factory import resolve_local_model_path

    return Path(resolve_local_model_path("all-MiniLM-L6-v2"))
