"""Hardening with real parts: `rag serve` processes on a copy of the fixture store, raw
sockets where a client misbehaves, the CLI beside a running server.

Each test names the defect it guards against (issue 31): huge bodies before login,
guessing keys and passwords, anonymous requests spending a user's budget, Gradio's own
routes open without login, CORS for any localhost page, an ingest beside a running server
that dense search never saw, silent replacement of a stored paper, and the small ones.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from eval.bench.procs import free_port
from eval.bench.startup import serve_command
from rag.api.app import create_api
from rag.logs import SafeFormatter
from tests.support.answers import GRAPHS_GPT
from tests.support.api import serve
from tests.support.paths import FIXTURE_CORPUS, ROOT
from tests.support.settings import make_settings
from tests.support.store_checks import child_env, papers_not_in
from tests.support.ui_http import UISession

KEY = "hardening-key"
BIN = Path(sys.executable).parent
MB = 1024 * 1024


@dataclass
class Served:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    data_dir: Path


def start_serve(data_dir: Path, work: Path, **settings: str) -> Served:
    port = free_port()
    log = work / f"serve-{port}.log"
    env = child_env(data_dir, backend="extractive", warm_evidence="false", **settings)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            serve_command(port), stdout=out, stderr=subprocess.STDOUT, env=env, cwd=work
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(log.read_text(errors="replace")[-2000:])
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return Served(url, port, proc, log, data_dir)
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("rag serve did not start: " + log.read_text(errors="replace")[-2000:])


def stop(served: Served) -> None:
    served.proc.terminate()
    try:
        served.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        served.proc.kill()


@pytest.fixture
def guarded(store_copy: Path, tmp_path: Path) -> Iterator[Served]:
    """`rag serve` with a key (the UI asks for it), behind a trusted proxy: each test picks
    its client's address with X-Forwarded-For."""
    served = start_serve(store_copy, tmp_path, api_key=KEY, trust_proxy="true", refresh_seconds="2")
    try:
        yield served
    finally:
        stop(served)


def run_rag(
    data_dir: Path, cwd: Path, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The `rag` command on `data_dir`, as a user runs it beside the server."""
    return subprocess.run(
        [str(BIN / "rag"), *args],
        env=child_env(data_dir),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def raw_request(port: int, head: bytes, body_size: int = 0, chunk: int = MB) -> bytes:
    """Sends `head` and then `body_size` bytes (as far as the server lets it); returns what
    the server answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        sent = 0
        filler = b"x" * chunk
        try:
            while sent < body_size:
                sock.sendall(filler[: min(chunk, body_size - sent)])
                sent += chunk
        except OSError:
            pass  # the server answered and closed: what it said is what counts
        reply = b""
        try:
            while True:
                part = sock.recv(65536)
                if not part:
                    break
                reply += part
                if b"\r\n\r\n" in reply and len(reply) > 200:
                    break
        except OSError:
            pass
        return reply


def post_head(path: str, length: int, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n{extra}\r\n"
    ).encode()


# --- defect 1: bodies before login --------------------------------------------------------
def test_huge_unauthenticated_bodies_are_refused_before_they_are_read(guarded: Served) -> None:
    paths = ["/gradio_api/queue/join", "/gradio_api/reset", "/gradio_api/upload", "/v1/ask"]
    process = psutil.Process(guarded.proc.pid)
    before = process.memory_info().rss
    with ThreadPoolExecutor(8) as pool:
        replies = list(
            pool.map(
                lambda i: raw_request(guarded.port, post_head(paths[i % 4], 50 * MB), 50 * MB),
                range(8),
            )
        )
    grown = (process.memory_info().rss - before) / MB
    for reply in replies:
        assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
        assert b"larger than the" in reply
    print(f"\n8 x 50 MB unauthenticated bodies: the server grew by {grown:.1f} MB")
    assert grown < 50, f"the server grew by {grown:.0f} MB"


def test_an_undeclared_body_is_cut_at_the_limit_and_a_stalled_one_dropped(
    tmp_path: Path, assistant: Any
) -> None:
    from ui.layout import mount_ui

    settings = make_settings(tmp_path, backend="extractive", max_request_bytes=MB)
    app = mount_ui(create_api(assistant, settings), assistant, settings)

    def chunks() -> Iterator[bytes]:
        for _ in range(3):
            yield b"x" * MB  # no Content-Length: the edge counts what arrives

    with serve(app, lifespan="on") as url:
        reply = httpx.post(f"{url}/gradio_api/queue/join", content=chunks())
        assert reply.status_code == 413 and "1,048,576-byte limit" in reply.json()["detail"]


# --- defects 2 and 3: throttled guessing, admission after login ---------------------------
def test_failed_logins_throttle_only_that_address(guarded: Served) -> None:
    attacker, user = {"X-Forwarded-For": "10.0.0.1"}, {"X-Forwarded-For": "10.0.0.2"}
    statuses = []
    with httpx.Client(base_url=guarded.url, timeout=30) as client:
        for _ in range(20):
            wrong = {"username": "me", "password": "guess"}
            statuses.append(client.post("/login", data=wrong, headers=attacker).status_code)
        assert statuses[:10] == [400] * 10 and set(statuses[10:]) == {429}
        refused = client.post("/login", data={"username": "me", "password": "x"}, headers=attacker)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        # The same address with the key is not throttled (the API, and not guessing).
        good = {"Authorization": f"Bearer {KEY}", **attacker}
        asked = client.post("/v1/retrieve", json={"question": "GraphsGPT"}, headers=good)
        assert asked.status_code == 200
    # Another address logs in and asks in the UI as usual.
    with httpx.Client(base_url=guarded.url, timeout=60, headers=user) as client:
        login = client.post("/login", data={"username": "me", "password": KEY})
        assert login.status_code == 200
        assert "GraphsGPT" in UISession(client).ask("What is GraphsGPT pretrained on?")


def test_wrong_keys_are_throttled_and_good_keys_are_not(guarded: Served) -> None:
    address = {"X-Forwarded-For": "10.0.0.3"}
    codes = []
    with httpx.Client(base_url=guarded.url, timeout=30) as client:
        for i in range(15):
            wrong = {"Authorization": f"Bearer guess-{i}", **address}
            codes.append(client.get("/v1/stats", headers=wrong).status_code)
        assert codes[:10] == [401] * 10 and set(codes[10:]) == {429}
        good = {"Authorization": f"Bearer {KEY}", **address}
        assert client.get("/v1/stats", headers=good).status_code == 200
        # A good key's malformed requests are not guesses: they spend nothing of the budget.
        other = {"X-Forwarded-For": "10.0.0.4"}
        for _ in range(12):
            bad_body = client.post(
                "/v1/ask",
                content=b"{not json",
                headers={
                    "Authorization": f"Bearer {KEY}",
                    "Content-Type": "application/json",
                    **other,
                },
            )
            assert bad_body.status_code == 400
        guess = client.get("/v1/stats", headers={"Authorization": "Bearer nope", **other})
        assert guess.status_code == 401


def test_anonymous_requests_spend_nothing_of_a_users_budget(tmp_path: Path, assistant: Any) -> None:
    from ui.layout import mount_ui

    settings = make_settings(
        tmp_path,
        backend="extractive",
        api_key=KEY,
        trust_proxy=True,
        rate_limit_per_minute=1,
        rate_limit_burst=2,
    )
    app = mount_ui(create_api(assistant, settings), assistant, settings)
    shared = {"X-Forwarded-For": "10.0.0.9"}  # a proxy without RAG_TRUST_PROXY looks like this
    with (
        serve(app, lifespan="on") as url,
        httpx.Client(base_url=url, timeout=60, headers=shared) as client,
    ):
        for _ in range(20):
            assert client.post("/gradio_api/queue/join", json={}).status_code == 401
        assert client.post("/login", data={"username": "u", "password": KEY}).status_code == 200
        assert "GraphsGPT" in UISession(client).ask("What is GraphsGPT pretrained on?")


def test_a_busy_refusal_costs_no_token(tmp_path: Path, assistant: Any) -> None:
    settings = make_settings(
        tmp_path,
        backend="extractive",
        rate_limit_per_minute=1,
        rate_limit_burst=2,
        max_inflight_answers=1,
        inflight_wait_s=0,
    )
    app = create_api(assistant, settings)
    release = threading.Event()
    inner = assistant.ask

    def slow_ask(*args: Any, **kwargs: Any) -> Any:
        release.wait(10)
        return inner(*args, **kwargs)

    with serve(app) as url:
        assistant.ask = slow_ask
        try:
            with ThreadPoolExecutor(1) as pool:
                holder = pool.submit(
                    httpx.post, f"{url}/v1/ask", json={"question": "GraphsGPT?"}, timeout=30
                )
                time.sleep(0.5)
                # From the same address: refused as busy, which spends none of its budget...
                busy = httpx.post(f"{url}/v1/retrieve", json={"question": "GraphsGPT"})
                assert busy.status_code == 429 and "server busy" in busy.text
                release.set()
                assert holder.result().status_code == 200
        finally:
            assistant.ask = inner
        # ...so of its two tokens one is left (the first answer spent the other).
        assert httpx.post(f"{url}/v1/retrieve", json={"question": "GraphsGPT"}).status_code == 200
        limited = httpx.post(f"{url}/v1/retrieve", json={"question": "GraphsGPT"})
        assert limited.status_code == 429 and "rate limit" in limited.text


# --- defects 6 and 7: Gradio's own routes, CORS -------------------------------------------
def test_gradio_routes_need_the_login_and_take_no_uploads(guarded: Served) -> None:
    with httpx.Client(base_url=guarded.url, timeout=10) as client:
        for method, path in [
            ("POST", "/gradio_api/reset"),
            ("POST", "/gradio_api/cancel"),
            ("GET", "/gradio_api/heartbeat/abc"),
            ("GET", "/gradio_api/custom_component/a/b/c/d%0d%1b[31m"),
            ("GET", "/gradio_api/queue/data?session_hash=x"),
        ]:
            reply = client.request(method, path, json={} if method == "POST" else None)
            assert reply.status_code == 401, (path, reply.status_code, reply.text[:200])
        assert client.post("/login", data={"username": "u", "password": KEY}).status_code == 200
        upload = client.post("/gradio_api/upload", files={"files": ("a.txt", b"hello")})
        assert upload.status_code == 403 and "uploads" in upload.text
        reset = client.post("/gradio_api/reset", json={"session_hash": "x", "fn_index": 0})
        assert reset.status_code != 401  # logged in: Gradio's own answer
    assert "\x1b[31m" not in guarded.log.read_text(errors="replace")


def test_cors_only_for_the_configured_origins(guarded: Served) -> None:
    page = {"Origin": "http://localhost:9999"}
    reply = httpx.get(f"{guarded.url}/gradio_api/info", headers=page)
    assert "access-control-allow-origin" not in reply.headers
    assert "access-control-allow-credentials" not in reply.headers
    preflight = httpx.options(
        f"{guarded.url}/gradio_api/queue/join",
        headers={**page, "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers


def test_control_characters_are_escaped_in_log_lines() -> None:
    record = logging.LogRecord("x", logging.WARNING, "f", 1, "path %s", ("a\rb\x1b[31m",), None)
    line = SafeFormatter("%(message)s").format(record)
    assert line == "path a\\x0db\\x1b[31m"


# --- defects 4 and 5: ingest beside a running server, replaced papers ---------------------
def test_a_paper_ingested_beside_a_running_server_is_found_by_dense_search(
    store_copy: Path, tmp_path: Path
) -> None:
    refresh = 2.0
    served = start_serve(store_copy, tmp_path, refresh_seconds=str(refresh))
    try:
        new = papers_not_in(
            ROOT / "data" / "icml2024.jsonl", FIXTURE_CORPUS, tmp_path / "new.jsonl", 1
        )
        paper = json.loads(new.read_text().splitlines()[0])

        def dense_ids() -> set[str]:
            body = {"question": paper["title"], "mode": "dense", "top_k": 3}
            reply = httpx.post(f"{served.url}/v1/retrieve", json=body, timeout=30)
            assert reply.status_code == 200, reply.text[:300]
            return {p["paper"]["id"] for p in reply.json()["papers"]}

        assert paper["id"] not in dense_ids()
        ran = run_rag(store_copy, tmp_path, "ingest", str(new))
        assert ran.returncode == 0 and "new 1 " in ran.stdout, ran.stderr[-2000:]
        exited = time.monotonic()
        while paper["id"] not in dense_ids():
            assert time.monotonic() - exited < 2 * refresh, "dense search never saw it"
            time.sleep(0.1)
        print(f"\ndense search found it {time.monotonic() - exited:.1f} s after the ingest")
        stats = httpx.get(f"{served.url}/v1/stats").json()
        assert stats["ingest"]["complete"] is True and stats["ingest"]["note"] == ""
    finally:
        stop(served)


def test_a_second_ingest_is_refused_naming_the_first(store_copy: Path, tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from rag.store.lock import writer_lock\n"
            "with writer_lock(Path(sys.argv[1]), 'rag ingest big.jsonl'):\n"
            "    print('held', flush=True); time.sleep(60)",
            str(store_copy),
        ],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        ran = run_rag(store_copy, tmp_path, "ingest", str(FIXTURE_CORPUS), timeout=120)
        assert ran.returncode != 0
        assert f"rag ingest big.jsonl (pid {holder.pid}" in ran.stderr, ran.stderr
    finally:
        holder.kill()
        holder.wait()


def test_a_replaced_paper_is_named_and_strict_refuses_a_new_title(
    store_copy: Path, tmp_path: Path
) -> None:
    line = next(
        x for x in FIXTURE_CORPUS.read_text().splitlines() if json.loads(x)["id"] == GRAPHS_GPT
    )
    record = json.loads(line) | {"title": "Some Other Paper", "abstract": "An abstract. " * 5}
    wrong = tmp_path / "wrong-id.jsonl"
    wrong.write_text(json.dumps(record) + "\n")

    strict = run_rag(store_copy, tmp_path, "ingest", "--strict", str(wrong))
    assert strict.returncode == 2 and "another title" in strict.stderr
    assert f"{GRAPHS_GPT} 'A Graph is Worth $K$ Words" in strict.stderr
    loose = run_rag(store_copy, tmp_path, "ingest", str(wrong))
    assert loose.returncode == 0
    assert f"replaced {GRAPHS_GPT} 'A Graph is Worth $K$ Words" in loose.stdout
    assert "with a record titled 'Some Other Paper'" in loose.stdout


# --- defect 8: the small ones ---------------------------------------------------------------
def test_small_protocol_defects(guarded: Served) -> None:
    auth = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=guarded.url, timeout=60, headers=auth) as client:
        body = {"messages": [{"role": "user", "content": "What is GraphsGPT?"}], "n": 2}
        refused = client.post("/v1/chat/completions", json=body)
        assert refused.status_code == 422 and refused.json()["error"]["param"] == "n"
        nowhere = client.get("/v1/nothing-here")
        assert nowhere.status_code == 404 and nowhere.json()["error"]["code"] == "404"
        wrong = client.get("/v1/ask")
        assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
        assert "error" in wrong.json()
        invisible = client.post("/v1/ask", json={"question": "\u200b\u200d\ufeff"})
        assert invisible.status_code == 422 and invisible.json()["error"]["param"] == "question"
    # A 100 KB header, and 5,000 headers: refused by the server, not parsed.
    big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    assert raw_request(guarded.port, big).split(b" ")[1] == b"431"
    many = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 5000 + b"\r\n"
    assert raw_request(guarded.port, many).split(b" ")[1] == b"431"
    # An HTTP/1.0 client gets a body it can read (no chunked encoding).
    old = raw_request(guarded.port, b"GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n")
    assert old.startswith(b"HTTP/1.") and b" 200 " in old.split(b"\r\n")[0]
    assert b"transfer-encoding: chunked" not in old.lower()


def test_rag_stats_into_a_closed_pipe_ends_quietly(store_copy: Path, tmp_path: Path) -> None:
    ran = subprocess.run(
        f"'{BIN / 'rag'}' stats | head -1",
        shell=True,
        env=child_env(store_copy),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.stdout.startswith("papers") and "Traceback" not in ran.stderr, ran.stderr


def test_stats_say_when_an_ingest_is_incomplete(store_copy: Path, embed_model: Any) -> None:
    from fastapi.testclient import TestClient

    from rag.assistant import Assistant
    from rag.store.chroma import PaperStore

    settings = make_settings(store_copy, backend="extractive", warm_evidence=False)
    PaperStore(settings).mark_writing(True)  # as an ingest killed mid-write leaves it
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    stats = TestClient(create_api(assistant, settings)).get("/v1/stats").json()
    assert stats["ingest"]["complete"] is False
    assert "counts may be partial" in stats["ingest"]["note"]


def test_slow_headers_are_dropped_and_a_kept_alive_client_still_works(guarded: Served) -> None:
    from ui.server import HEADER_TIMEOUT_S

    trickling = []
    for _ in range(10):  # each sends half a request line, then nothing
        sock = socket.create_connection(("127.0.0.1", guarded.port), timeout=30)
        sock.sendall(b"GET /healthz HT")
        trickling.append(sock)
    # A well-behaved client meanwhile: two requests on one kept-alive connection.
    with httpx.Client(base_url=guarded.url, timeout=10) as client:
        assert client.get("/healthz").status_code == 200
        time.sleep(1)
        assert client.get("/healthz").status_code == 200
    started = time.monotonic()
    for sock in trickling:
        sock.settimeout(HEADER_TIMEOUT_S + 10)
        assert sock.recv(100) == b""  # closed by the server
        sock.close()
    assert time.monotonic() - started < HEADER_TIMEOUT_S + 10
