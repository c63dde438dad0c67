"""Keeps a serving process in step with a store other processes write.

Several `rag serve` replicas can share one Chroma server, and `rag ingest` can write to it
while they serve. Each replica's catalogue and BM25 index are built from the store state
it loaded, so a replica polls the store's generation (bumped once by each ingest that
commits a change; rag.store.chroma) and reloads when it moves. The poll is one small
request; syncing the changed papers into the lexical index and catalogue, and the rebuild,
happen only after an ingest, in this background thread, while questions go on being
answered from the old pipeline.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the watcher itself needs neither chromadb nor llama-index
    from rag.store.chroma import Generation, PaperStore

log = logging.getLogger(__name__)


class Reloadable(Protocol):
    store: PaperStore

    def reload(self) -> bool: ...


class StoreWatcher:
    """Polls `assistant.store`'s generation every `interval_s` and reloads on a change.

    watcher = StoreWatcher(assistant, 5.0).start()   # daemon thread; watcher.stop() ends it
    """

    def __init__(
        self,
        assistant: Reloadable,
        interval_s: float,
        on_reload: Callable[[Generation, float], None] | None = None,
    ) -> None:
        self.assistant = assistant
        self.interval_s = interval_s
        self.on_reload = on_reload
        # None: the first poll checks the fingerprint once, so an ingest that committed
        # between this process loading the store and the watcher starting is not missed.
        self.seen: Generation | None = None
        self.reloads = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """One poll: True if the store had changed and the assistant now serves the change."""
        current = self.assistant.store.generation()
        if current == self.seen:
            return False
        started = time.perf_counter()
        # A rebuild elsewhere (`rag ingest --rebuild`) replaced the collections this
        # process had open; the old ones are gone, so follow the new ones.
        self.assistant.store.follow(current)
        # The generation is read before the store: a commit landing in between shows as
        # a new generation at the next poll, and that reload then finds nothing to do.
        changed = self.assistant.reload()
        self.seen = current
        if changed:
            self.reloads += 1
            seconds = time.perf_counter() - started
            log.info("store generation %s: reloaded in %.1f s", current[1], seconds)
            if self.on_reload is not None:
                self.on_reload(current, seconds)
        return changed

    def run(self) -> None:
        failing = False
        while not self._stop.wait(self.interval_s):
            try:
                self.check()
            except Exception as exc:  # an outage: keep serving what we have, poll again
                # Said once per outage, not every few seconds on the operator's terminal.
                (log.debug if failing else log.warning)(
                    "checking the store for changes failed: %s", exc
                )
                failing = True
            else:
                failing = False

    def start(self) -> StoreWatcher:
        if self.interval_s > 0 and self._thread is None:
            self._thread = threading.Thread(target=self.run, name="store-watcher", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
