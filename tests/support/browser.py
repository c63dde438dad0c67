"""The chat app in a real browser, shared by the browser test modules (registered as a
pytest plugin in tests/conftest.py): `python -m ui` started as a real server (`start_app`),
Debian chromium through Playwright (`browser`), one tab (`Chat`), and the servers more
than one module uses (`xss_server`: the fixture store plus hostile papers; `full_server`:
the bundled corpus)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from eval.bench.procs import free_port
from tests.support.paths import FIXTURE_CORPUS, ROOT
from tests.support.settings import make_settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
DONE_JS = (
    "n => document.querySelectorAll("
    "'#chat .rag-answer:not(.rag-streaming), #chat .rag-error').length > n"
)
XSS_SCRIPT = "<script>window.__xss=1</script>"
XSS_IMG = '<img src=x onerror="window.__xss=1">'
XSS_LINK = "[click](javascript:window.__xss=1)"
XSS_PAPERS = [
    {
        "id": "xssQuokka01",
        "title": f"Quokka Transformers {XSS_SCRIPT} for Marsupial Vocalization {XSS_IMG}",
        "authors": [f"Mallory {XSS_SCRIPT}", f"Eve {XSS_IMG}"],
        "abstract": (
            "Quokka transformers compress marsupial vocalizations into discrete acoustic "
            f"tokens {XSS_SCRIPT}. We record quokka calls on Rottnest Island and train a "
            f"quokka transformer {XSS_IMG} that compresses marsupial vocalizations ten times "
            f"better than codecs. See {XSS_LINK} for quokka audio."
        ),
        "url": "javascript:window.__xss=1",
        "status": "Oral",
    },
    {
        "id": "xssQuokka02",
        "title": f"Marsupial Vocalization Codecs {XSS_LINK}",
        "authors": ["Trudy Example"],
        "abstract": (
            f"Quokka vocalizations are compressed with marsupial vocalization codecs {XSS_LINK}. "
            f"Our quokka codec {XSS_IMG} halves the bitrate of marsupial vocalizations {XSS_SCRIPT}."
        ),
        "url": "https://openreview.net/forum?id=xssQuokka02",
        "status": "Poster",
    },
]
FULL_STORE = ROOT / "var"
FULL_CORPUS = ROOT / "data" / "icml2024.jsonl"


@dataclass
class AppServer:
    url: str
    data_dir: Path
    proc: subprocess.Popen[bytes]
    log: Path
    started: float
    ready_s: float
    first_answer_s: float | None = None
    answers_s: list[float] = field(default_factory=list)

    @property
    def feedback_path(self) -> Path:
        return self.data_dir / "feedback.jsonl"


def prepare_store(built: Path, target: Path, extra: list[dict[str, Any]], embed_model: Any) -> Path:
    """A copy of the built fixture store plus `extra` papers, ingested here, then copied
    again so the served directory is one no other process has open."""
    from rag.ingestion import ingest

    staging = target.with_name(target.name + "-staging")
    shutil.copytree(built, staging)
    extra_path = target.with_name(target.name + "-extra.jsonl")
    extra_path.write_text("".join(json.dumps(p) + "\n" for p in extra), encoding="utf-8")
    report = ingest(make_settings(staging), [extra_path], embed_model=embed_model)
    assert report.issues == [], report.issues
    shutil.copytree(staging, target)
    return extra_path


def start_app(
    data_dir: Path,
    corpus: list[Path],
    log: Path,
    settings: dict[str, str] | None = None,
    backend: str = "extractive",
) -> AppServer:
    """`python -m ui` on `data_dir`, with `settings` as RAG_* variables (the backend's)."""
    port = free_port()
    env = {
        **os.environ,
        "RAG_DATA_DIR": str(data_dir),
        "RAG_CORPUS_PATHS": ",".join(str(p) for p in corpus),
        "RAG_BACKEND": backend,
        "RAG_PORT": str(free_port()),  # the --port flag must win over the environment
        "PYTHONUNBUFFERED": "1",
        **{f"RAG_{name.upper()}": value for name, value in (settings or {}).items()},
    }
    started = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ui", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = started + 240
    while "ready in" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"python -m ui did not get ready:\n{log.read_text()}")
        time.sleep(0.1)
    ready_s = time.monotonic() - started
    output = log.read_text()
    assert f"chat UI at http://127.0.0.1:{port}/  ·  API at http://127.0.0.1:{port}/v1" in output
    assert re.search(rf"ready in [\d.]+s — [\d,]+ papers, [\d,]+ chunks, backend {backend}", output)
    return AppServer(f"http://127.0.0.1:{port}/", data_dir, proc, log, started, ready_s)


def start_on_copy(
    store: Path,
    root: Path,
    settings: dict[str, str] | None = None,
    backend: str = "extractive",
) -> AppServer:
    """`start_app` over a private copy of a built store (root/data): an embedded store is
    open in one process only."""
    shutil.copytree(store, root / "data")
    return start_app(root / "data", [FIXTURE_CORPUS], root / "server.log", settings, backend)


def download(page: Any, selector: str) -> tuple[str, str]:
    """(suggested file name, text) of the file a click on `selector` downloads."""
    with page.expect_download() as event:
        page.click(selector)
    file = event.value
    return file.suggested_filename, Path(file.path()).read_text(encoding="utf-8")


def stop_app(server: AppServer) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.proc.kill()


@pytest.fixture(scope="module")
def xss_server(
    built_store_dir: Path, embed_model: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    root = tmp_path_factory.mktemp("browser-xss")
    extra = prepare_store(built_store_dir, root / "data", XSS_PAPERS, embed_model)
    server = start_app(root / "data", [FIXTURE_CORPUS, extra], root / "server.log")
    yield server
    stop_app(server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def full_server(tmp_path_factory: pytest.TempPathFactory, embed_model: Any) -> Iterator[AppServer]:
    root = tmp_path_factory.mktemp("browser-sets")
    if (FULL_STORE / "chroma").is_dir():
        # A copy: the embedded Chroma store can be open in one process only.
        shutil.copytree(FULL_STORE, root / "data")
    else:  # a fresh clone (CI): the bundled corpus ingested for real (about a minute)
        from rag.ingestion import ingest

        ingest(make_settings(root / "data", corpus_paths=[FULL_CORPUS]), embed_model=embed_model)
    server = start_app(root / "data", [FULL_CORPUS], root / "server.log")
    yield server
    stop_app(server)


class Chat:
    """One browser tab on the app, with the dialogs it fired."""

    def __init__(self, browser: Any, server: AppServer) -> None:
        self.server = server
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.page.on("dialog", self._on_dialog)
        self.page.goto(server.url)
        # enabled once the stored conversation is restored
        self.page.wait_for_selector("#question textarea:enabled", timeout=60_000)

    def _on_dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def ask(self, question: str) -> Any:
        """Types the question, presses Enter, waits for the complete answer; returns it."""
        done = self.page.locator("#chat .rag-answer:not(.rag-streaming), #chat .rag-error").count()
        self.page.fill("#question textarea", question)
        started = time.monotonic()
        self.page.press("#question textarea", "Enter")
        self.page.wait_for_function(DONE_JS, arg=done, timeout=120_000)
        now = time.monotonic()
        self.server.answers_s.append(now - started)
        if self.server.first_answer_s is None:
            self.server.first_answer_s = now - self.server.started
        return self.page.locator("#chat .rag-answer:not(.rag-streaming), #chat .rag-error").last

    def close(self) -> None:
        self.context.close()
