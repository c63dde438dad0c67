"""The public entry point: one object per process that answers, streams and retrieves."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rag.backends import build_embed_model, build_llm
from rag.chat import condense_llm, condense_rule
from rag.engine import CitedQueryEngine, Event
from rag.evidence import EvidenceScorer, TermStats
from rag.retrieve import BM25Index, PaperRetriever
from rag.settings import RetrievalMode, Settings
from rag.store import ModelMismatchError, PaperStore, StoreError
from rag.synthesis import AnswerError, ExtractiveSynthesizer, LLMSynthesizer
from rag.text import clean_text
from rag.types import Answer, ChatMessage, Filters, RetrievedPaper
from rag.warmup import EvidenceWarmer

log = logging.getLogger(__name__)
MODES = ("dense", "bm25", "hybrid")


class InputError(ValueError):
    """A question or option the assistant cannot take; the message says which and why."""


class EmptyStoreError(StoreError):
    pass


class Assistant:
    """Holds the embedding model, the store, the indexes and the engine; thread-safe reads."""

    def __init__(self, settings: Settings, store: PaperStore, embed_model: Any) -> None:
        self.settings = settings
        self.store = store
        self.embed_model = embed_model
        self.llm = build_llm(settings)
        if self.llm is None:
            self.synthesizer: Any = ExtractiveSynthesizer(settings.answer_max_sentences)
        else:
            self.synthesizer = LLMSynthesizer(
                self.llm, settings.resolved_backend(), settings.llm_model, settings.llm_max_retries
            )
        self._lock = threading.Lock()
        self._active = 0  # questions being answered now (the warm-up waits for 0)
        self.warmer: EvidenceWarmer | None = None
        self.fingerprint = ""
        self.reload()

    @classmethod
    def from_settings(cls, settings: Settings, store: PaperStore | None = None) -> Assistant:
        return cls(settings, store or PaperStore(settings), build_embed_model(settings))

    # --- state ----------------------------------------------------------------------
    def reload(self) -> bool:
        """Re-read the store if it changed since the last load (after an ingest)."""
        fingerprint = self.store.fingerprint()
        if fingerprint == self.fingerprint:
            return False
        recorded = self.store.recorded_model()
        if recorded is not None and recorded[0] != self.settings.embedding_id():
            # Query vectors from another model (or numeric variant) would rank silently wrong.
            raise ModelMismatchError(
                f"the store was built with {recorded[0]}, but this process embeds with "
                f"{self.settings.embedding_id()}; set RAG_EMBED_MODEL/RAG_EMBED_RUNTIME to match "
                "or run `rag ingest --rebuild`"
            )
        catalogue = self.store.load_papers()
        bm25 = BM25Index(self.store, self.settings, fingerprint)
        retriever = PaperRetriever(self.settings, self.store, self.embed_model, catalogue, bm25)
        scorer = EvidenceScorer(self.embed_model, TermStats(catalogue))
        engine = CitedQueryEngine(
            settings=self.settings, retriever=retriever, scorer=scorer, synthesizer=self.synthesizer
        )
        with self._lock:
            self.catalogue, self.retriever, self.engine = catalogue, retriever, engine
            self.scorer = scorer
            self.fingerprint = fingerprint
        if self.warmer is not None:  # the catalogue changed: warm the new one instead
            self.start_warmup()
        return True

    def start_warmup(self) -> EvidenceWarmer:
        """Embed all abstract sentences in a background thread (rag.warmup says why)."""
        if self.warmer is not None:
            self.warmer.stop()
        self.warmer = EvidenceWarmer(self.scorer, self.catalogue.values(), lambda: self._active > 0)
        self.warmer.start()
        return self.warmer

    def stop_warmup(self) -> None:
        if self.warmer is not None:
            self.warmer.stop()

    @contextmanager
    def _answering(self) -> Iterator[None]:
        with self._lock:
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1

    def stats(self) -> dict[str, Any]:
        papers, chunks = self.store.counts()
        recorded = self.store.recorded_model()
        return {
            "papers": papers,
            "chunks": chunks,
            "embedding_model": recorded[0] if recorded else self.settings.embed_model,
            "embedding_dim": recorded[1] if recorded else None,
            "store": self.settings.store_location(),
            "collection": self.settings.collection,
            "backend": self.synthesizer.name,
            "llm_model": self.synthesizer.model,
            "retrieval_mode": self.settings.retrieval_mode,
            "top_k": self.settings.top_k,
            "evidence_warmup": self.warmer.progress() if self.warmer else None,
        }

    # --- validation -----------------------------------------------------------------
    def _check(self, question: str, top_k: int | None, mode: str | None) -> str:
        question = clean_text(question or "")
        if not question:
            raise InputError("question: empty")
        if len(question) > self.settings.max_question_chars:
            raise InputError(
                f"question: {len(question):,} characters (limit {self.settings.max_question_chars:,})"
            )
        if top_k is not None and not 1 <= top_k <= 50:
            raise InputError(f"top_k: {top_k} is outside 1..50")
        if mode is not None and mode not in MODES:
            raise InputError(f"mode: '{mode}' is not one of {', '.join(MODES)}")
        if not self.catalogue:
            raise EmptyStoreError(
                f"the store ({self.settings.store_location()}) holds no papers; run `rag ingest`"
            )
        return question

    def _history(
        self, history: list[ChatMessage] | list[dict[str, str]] | None
    ) -> list[ChatMessage]:
        messages = [
            m if isinstance(m, ChatMessage) else ChatMessage.model_validate(m)
            for m in history or []
        ]
        if len(messages) > self.settings.max_history_turns:
            raise InputError(
                f"history: {len(messages)} messages (limit {self.settings.max_history_turns})"
            )
        return messages

    def standalone(self, question: str, history: list[ChatMessage]) -> str:
        if not history:
            return question
        if self.llm is not None:
            try:
                return condense_llm(question, history, self.llm)
            except (
                Exception
            ) as exc:  # the rule is a safe fallback; the answer step reports LLM trouble
                log.warning("condensing the follow-up with the LLM failed: %s", type(exc).__name__)
        return condense_rule(question, history)

    # --- answering ------------------------------------------------------------------
    def stream(
        self,
        question: str,
        history: list[ChatMessage] | list[dict[str, str]] | None = None,
        top_k: int | None = None,
        mode: RetrievalMode | None = None,
        filters: Filters | dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """("delta", text) events as the answer is written, then ("answer", Answer)."""
        question = self._check(question, top_k, mode)
        messages = self._history(history)
        if isinstance(filters, dict):
            filters = Filters(**filters)
        with self._answering():
            started = time.perf_counter()
            standalone = self.standalone(question, messages)
            condense_ms = (time.perf_counter() - started) * 1000
            engine = self.engine
            for kind, payload in engine.events(
                question,
                standalone=standalone,
                history=messages,
                top_k=top_k,
                mode=mode,
                filters=filters,
            ):
                if kind == "answer" and isinstance(payload, Answer) and messages:
                    payload.timings_ms["condense"] = round(condense_ms, 2)
                yield kind, payload  # type: ignore[misc]

    def ask(self, question: str, **options: Any) -> Answer:
        final: Answer | None = None
        for kind, payload in self.stream(question, **options):
            if kind == "answer":
                final = payload  # type: ignore[assignment]
        if final is None:  # pragma: no cover - events always end with an answer
            raise AnswerError("no answer was produced")
        return final

    def retrieve(
        self,
        question: str,
        top_k: int | None = None,
        mode: RetrievalMode | None = None,
        filters: Filters | dict[str, Any] | None = None,
    ) -> list[RetrievedPaper]:
        question = self._check(question, top_k, mode)
        if isinstance(filters, dict):
            filters = Filters(**filters)
        with self._answering():
            return self.retriever.retrieve(
                question,
                top_k or self.settings.top_k,
                mode or self.settings.retrieval_mode,
                filters,
            )
