"""One writer at a time on an embedded store: `rag ingest` holds an exclusive lock on a
file beside the store while it writes, and a second ingest is refused with a message
naming the process that holds it. (A Chroma server serialises writes itself.)"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.errors import StoreError

LOCK_FILE = "ingest.lock"


class StoreBusyError(StoreError):
    """Another process is writing the store."""


@contextmanager
def writer_lock(data_dir: Path, command: str = "rag ingest") -> Iterator[None]:
    """Held for the whole write; released when the process ends, however it ends."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_FILE
    handle = path.open("a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise StoreBusyError(
                f"the store at {data_dir} is being written by {holder}; wait for it to "
                "finish (or stop it) and run this again"
            ) from None
        handle.seek(0)
        handle.truncate()
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"{command} (pid {os.getpid()}, since {started})\n")
        handle.flush()
        yield
    finally:
        handle.close()  # closing drops the lock
