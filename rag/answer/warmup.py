"""Embed every abstract's sentences ahead of the questions that will need them.

Why: the evidence step of an answer scores each retrieved abstract's sentences against
the question, and embedding those ~45 sentences is most of an answer's latency when they
are new, and little when they are cached. The sentences do not depend on the question,
so a server embeds them all once in a background thread; the
persistent embedding cache (rag.embedding.cache) keeps them across restarts, so this
costs the model once per machine. The thread yields to questions: it embeds small
batches and waits while any answer is being computed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from rag.answer.evidence import EvidenceScorer
from rag.text import split_sentences
from rag.types import Paper

log = logging.getLogger(__name__)
BATCH = 16  # small: one batch is the longest a question can wait behind the warmer
IDLE_POLL_S = 0.05


class EvidenceWarmer:
    """One pass over the catalogue's sentences, in a daemon thread, yielding to `busy()`."""

    def __init__(
        self,
        scorer: EvidenceScorer,
        papers: Iterable[Paper],
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self.scorer = scorer
        self.busy = busy
        self.sentences = list(
            dict.fromkeys(s for paper in papers for s in split_sentences(paper.abstract))
        )
        self.done = 0
        self.seconds = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def finished(self) -> bool:
        return self.done >= len(self.sentences)

    def run(self) -> None:
        """Embed everything (blocking); returns early if stopped."""
        started = time.perf_counter()
        while not self.finished and not self._stop.is_set():
            if self.busy():
                self._stop.wait(IDLE_POLL_S)
                continue
            batch = self.sentences[self.done : self.done + BATCH]
            try:
                self.scorer.embed_sentences(batch)
            except Exception:  # a warm-up failure must never take the server down
                log.exception("evidence warm-up stopped after %d sentences", self.done)
                return
            self.done += len(batch)
        self.seconds = time.perf_counter() - started
        if self.finished:
            log.info("evidence warm-up: %d sentences in %.1f s", self.done, self.seconds)

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="evidence-warmup", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def progress(self) -> dict[str, int | bool]:
        return {"sentences": len(self.sentences), "embedded": self.done, "done": self.finished}


class AnswerActivity:
    """How many questions are being answered right now (the warm-up waits for none)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0

    @contextmanager
    def answering(self) -> Iterator[None]:
        with self._lock:
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1

    def busy(self) -> bool:
        return self._active > 0


class Warmup:
    """The warm-up of one process: started on request, restarted when the catalogue changes."""

    def __init__(self, activity: AnswerActivity) -> None:
        self.activity = activity
        self.warmer: EvidenceWarmer | None = None

    def start(self, scorer: EvidenceScorer, papers: Iterable[Paper]) -> EvidenceWarmer:
        self.stop()
        self.warmer = EvidenceWarmer(scorer, papers, self.activity.busy)
        self.warmer.start()
        return self.warmer

    def restart(self, scorer: EvidenceScorer, papers: Iterable[Paper]) -> None:
        """After a reload: warm the new catalogue if a warm-up was asked for before."""
        if self.warmer is not None:
            self.start(scorer, papers)

    def stop(self) -> None:
        if self.warmer is not None:
            self.warmer.stop()

    def progress(self) -> dict[str, int | bool] | None:
        return self.warmer.progress() if self.warmer is not None else None
