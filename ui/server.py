"""What `rag serve` (= `python -m ui`) runs: the chat UI at "/" and the HTTP API under /v1,
in one uvicorn server on settings.host:settings.port (flags override)."""

from __future__ import annotations

import os

# Before gradio and huggingface are imported: no telemetry, no model downloads at runtime.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import asyncio
import logging
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

from rag.errors import EXIT_OK, EXIT_USAGE
from rag.logs import setup_logging

STARTED = time.perf_counter()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag serve", description=__doc__)
    parser.add_argument("--host", help="address to bind (default: RAG_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to bind (default: RAG_PORT or 7860)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output")
    return parser


def _display_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"  # IPv6 literal
    return f"http://{shown}:{port}/"


def _banner(assistant: Any, settings: Any, port: int) -> None:
    stats = assistant.stats()
    url = _display_url(settings.host, port)
    print(f"icml-rag: chat UI at {url}  ·  API at {url}v1", flush=True)
    print(
        f"icml-rag: ready in {time.perf_counter() - STARTED:.1f}s — "
        f"{stats['papers']:,} papers, {stats['chunks']:,} chunks, backend {stats['backend']}",
        flush=True,
    )


def _watch_store(assistant: Any, settings: Any) -> None:
    """Follow ingests by other processes into the same store (docs/decisions.md: replicas)."""
    from rag.refresh import StoreWatcher

    def reloaded(generation: tuple[str, int], seconds: float) -> None:
        papers = len(assistant.papers)
        print(
            f"icml-rag: store generation {generation[1]}: reloaded in {seconds:.1f}s — "
            f"{papers:,} papers",
            flush=True,
        )

    StoreWatcher(assistant, settings.refresh_seconds, on_reload=reloaded).start()


HEADER_LIMIT_BYTES = 32_768
HEADER_TIMEOUT_S = 10.0  # from a connection (or the end of its last response) to its headers


def _timed_h11() -> type:
    """uvicorn's h11 protocol with a deadline for a request's headers: uvicorn times out an
    idle kept-alive connection, not one that trickles its request line and headers."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _headers_late(self) -> None:
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the headers are in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's headers get the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol


def _serve(app: Any, assistant: Any, settings: Any, verbose: bool) -> None:
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.should_exit:  # binding failed; uvicorn has said why
                return
            port = settings.port
            if self.servers and self.servers[0].sockets:
                port = int(self.servers[0].sockets[0].getsockname()[1])  # real port if 0
            _banner(assistant, settings, port)
            if settings.warm_evidence:  # after "ready": it must not delay the first answer
                assistant.start_warmup()
            _watch_store(assistant, settings)

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="debug" if verbose else "warning",
        log_config=None,  # uvicorn's lines go through the root logger's escaping formatter
        # uvicorn would take X-Forwarded-For from any local connection by default; whether
        # that header is believed is RAG_TRUST_PROXY's call alone (rag.api.admission).
        proxy_headers=False,
        timeout_graceful_shutdown=5,
        # h11, not httptools: it bounds headers that arrive slowly (the edge guard refuses
        # big ones that arrive at once), answers an HTTP/1.0 client without chunks, and
        # here drops a connection whose headers take over HEADER_TIMEOUT_S.
        http=_timed_h11(),
        h11_max_incomplete_event_size=HEADER_LIMIT_BYTES,
        timeout_keep_alive=5,
    )
    Server(config).run()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING
    # Escaped control characters; each handler filters too (bm25s logs at DEBUG).
    setup_logging(level, "%(asctime)s %(levelname)s %(name)s: %(message)s")
    from pydantic import ValidationError

    from rag.settings import Settings

    overrides: dict[str, Any] = {
        k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        print(f"rag serve: invalid setting: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"icml-rag: starting on {_display_url(settings.host, settings.port)} "
        f"(store: {settings.store_location()}) …",
        flush=True,
    )
    from rag.api.app import create_api
    from rag.assistant import Assistant
    from rag.errors import RagError
    from ui.layout import mount_ui

    try:
        assistant = Assistant.from_settings(settings)
    except RagError as exc:
        print(f"rag serve: error: {exc}", file=sys.stderr)
        return exc.exit_code
    app = create_api(assistant, settings)
    mount_ui(app, assistant, settings)
    _serve(app, assistant, settings, args.verbose)
    return EXIT_OK
