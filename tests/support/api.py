"""Serving an app for API tests: real uvicorn on a free 127.0.0.1 port, in a thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from eval.bench.procs import free_port


@contextmanager
def serve(app: Any, lifespan: str = "off") -> Iterator[str]:
    """Run `app` under uvicorn until the block ends; yields its base URL.

    `lifespan="on"` for apps that start work in startup events (Gradio starts its queue).
    """
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan)
    )
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
