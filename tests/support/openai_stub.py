"""A scripted OpenAI-protocol chat-completions server on 127.0.0.1, for exact LLM replies.

Each test queues the replies it wants (`server.queue(Reply.text(...), Reply.error(500))`);
every POST to /v1/chat/completions takes the next one and is recorded, so tests can check
both what the client did (how many requests, what it sent) and how our code handled the
reply. It is a real HTTP/1.1 server (keep-alive, chunked SSE streams), so the real openai
client and llama-index run unmodified against it. An unexpected request (empty queue)
gets a 599 error and is counted in `server.unexpected`, so a test cannot pass by accident.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.settings import make_settings

ReplyKind = Literal["text", "error", "hang", "cut", "raw", "close", "computed"]


@dataclass
class Reply:
    kind: ReplyKind
    content: str = ""
    chunks: list[str] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    seconds: float = 0.0
    chunked: bool = True  # cut streams: chunked (a detectable cut) or close-delimited
    finish: bool = True  # streamed text: send finish_reason and [DONE]
    compute: Callable[[Recorded], str] | None = None  # computed: the reply from the request
    delay: float = 0.0  # streamed text: seconds between chunks (a slow model)

    @classmethod
    def text(
        cls,
        content: str,
        chunks: list[str] | None = None,
        *,
        finish: bool = True,
        delay: float = 0.0,
    ) -> Reply:
        """A normal answer: JSON for non-stream requests, SSE for stream requests (split
        into `chunks` if given, else one character group per word, `delay` s apart)."""
        if chunks is not None:
            assert "".join(chunks) == content, "chunks must add up to the content"
        chunks = chunks or _words(content)
        return cls("text", content=content, chunks=chunks, finish=finish, delay=delay)

    @classmethod
    def error(
        cls, status: int, message: str = "scripted failure", headers: dict[str, str] | None = None
    ) -> Reply:
        body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
        return cls("error", status=status, body=body, headers=headers or {})

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        """Accept the request and say nothing for `seconds` (or until the server stops)."""
        return cls("hang", seconds=seconds)

    @classmethod
    def cut(cls, chunks: list[str], *, chunked: bool = True) -> Reply:
        """Stream `chunks`, then drop the connection without finishing the stream."""
        return cls("cut", chunks=chunks, chunked=chunked)

    @classmethod
    def raw(cls, body: bytes, content_type: str = "application/json", status: int = 200) -> Reply:
        return cls("raw", body=body, status=status, headers={"Content-Type": content_type})

    @classmethod
    def computed(cls, compute: Callable[[Recorded], str]) -> Reply:
        """A non-streamed answer written from the request (`compute(recorded)`): for
        replies that depend on what the client sent, e.g. the papers of a screening."""
        return cls("computed", compute=compute)

    @classmethod
    def close(cls) -> Reply:
        """Close the connection without any response."""
        return cls("close")


def _words(text: str) -> list[str]:
    parts: list[str] = []
    for i, word in enumerate(text.split(" ")):
        parts.append(word if i == 0 else " " + word)
    return [p for p in parts if p] or [text]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))


class ScriptedLLMServer:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.unexpected = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        with self._lock:
            self.replies.clear()
            self.requests.clear()
            self.unexpected = 0

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def take(self, recorded: Recorded) -> Reply | None:
        with self._lock:
            self.requests.append(recorded)
            if self.replies:
                return self.replies.popleft()
            self.unexpected += 1
            return None

    @property
    def pending(self) -> int:
        return len(self.replies)

    def answer_requests(self) -> list[Recorded]:
        """The streamed requests (the answer step; condensing does not stream)."""
        return [r for r in self.requests if r.stream]


def _handler_for(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            recorded = Recorded(self.path, dict(self.headers), body, time.monotonic())
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            reply = server.take(recorded)
            if reply is None:
                self._json(599, {"error": {"message": "no scripted reply left"}})
                return
            getattr(self, f"_reply_{reply.kind}")(reply, recorded)

        # --- reply kinds ----------------------------------------------------------------
        def _reply_text(self, reply: Reply, recorded: Recorded) -> None:
            if not recorded.stream:
                self._json(200, _completion(reply.content))
                return
            self._start_sse(chunked=True)
            try:
                for event in _sse_events(reply.chunks, finish=reply.finish):
                    self._chunk(event)
                    if reply.delay and server.stopping.wait(reply.delay):
                        break
                self._chunk(b"")  # the terminating zero-length chunk
            except OSError:  # the client went away (a stopped answer)
                self.close_connection = True

        def _reply_computed(self, reply: Reply, recorded: Recorded) -> None:
            assert reply.compute is not None
            self._json(200, _completion(reply.compute(recorded)))

        def _reply_error(self, reply: Reply, recorded: Recorded) -> None:
            self._send(reply.status, reply.body, "application/json", reply.headers)

        def _reply_raw(self, reply: Reply, recorded: Recorded) -> None:
            content_type = reply.headers.get("Content-Type", "application/json")
            self._send(reply.status, reply.body, content_type, {})

        def _reply_hang(self, reply: Reply, recorded: Recorded) -> None:
            server.stopping.wait(reply.seconds)
            self.close_connection = True
            self._drop()

        def _reply_close(self, reply: Reply, recorded: Recorded) -> None:
            self.close_connection = True
            self._drop()

        def _reply_cut(self, reply: Reply, recorded: Recorded) -> None:
            self._start_sse(chunked=reply.chunked)
            for event in _sse_events(reply.chunks, finish=False):  # no finish, no [DONE]
                if reply.chunked:
                    self._chunk(event)
                else:
                    self.wfile.write(event)
                    self.wfile.flush()
            time.sleep(0.05)  # let the client read what was sent before the cut
            self.close_connection = True
            self._drop()

        # --- plumbing ---------------------------------------------------------------------
        def _drop(self) -> None:
            with contextlib.suppress(OSError):  # the client may have gone already
                self.connection.shutdown(socket.SHUT_RDWR)

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            self._send(status, json.dumps(payload).encode(), "application/json", {})

        def _send(
            self, status: int, body: bytes, content_type: str, headers: dict[str, str]
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def _start_sse(self, *, chunked: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.flush()

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _sse_events(chunks: list[str], *, finish: bool) -> list[bytes]:
    def event(delta: dict[str, Any], finish_reason: str | None) -> bytes:
        payload = {
            "id": "chatcmpl-stub",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "stub",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return f"data: {json.dumps(payload)}\n\n".encode()

    events = [
        event({"role": "assistant", "content": c} if i == 0 else {"content": c}, None)
        for i, c in enumerate(chunks)
    ]
    if finish:
        events.append(event({}, "stop"))
        events.append(b"data: [DONE]\n\n")
    return events


# --- fixtures (registered for every test module by tests/conftest.py: pytest_plugins) ---------
@pytest.fixture(scope="module")
def scripted_server() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def llm_server(scripted_server: ScriptedLLMServer) -> ScriptedLLMServer:
    """The module's server with an empty script and no recorded requests."""
    scripted_server.reset()
    return scripted_server


@pytest.fixture(scope="module")
def llm_assistant(
    built_store_dir: Path, embed_model: Any, scripted_server: ScriptedLLMServer
) -> Callable[..., Any]:
    """`llm_assistant(llm_max_retries=0, ...)`: an openai-compatible Assistant over the
    session store talking to the scripted server, one per distinct set of settings."""
    from rag.assistant import Assistant
    from rag.store.chroma import PaperStore

    made: dict[tuple[tuple[str, Any], ...], Any] = {}

    def make(**overrides: Any) -> Any:
        options = {
            "llm_base_url": scripted_server.base_url,
            "llm_timeout_s": 5.0,
            "llm_max_retries": 2,
            # Off unless a test turns them on: the answer-path tests script answer replies
            # only, and a planner's or judge's request would take the first of them.
            "llm_planner": False,
            "llm_judge": False,
            **overrides,
        }
        key = tuple(sorted(options.items()))
        if key not in made:
            settings = make_settings(
                built_store_dir,
                backend="openai-compatible",
                llm_model="stub",
                **options,
            )
            made[key] = Assistant(settings, PaperStore(settings), embed_model)
        return made[key]

    return make
