"""The evidence warm-up: every abstract sentence embedded ahead of questions, waits while
questions are answered, survives a store reload, and answers then skip the model."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from rag.answer.warmup import EvidenceWarmer
from rag.assistant import Assistant
from rag.embedding.cache import CachedEmbedding, EmbeddingCache
from rag.store.chroma import PaperStore
from rag.text import split_sentences
from tests.support.settings import make_settings


def _assistant(data_dir: Path, embed_model: Any, cache_dir: Path) -> Assistant:
    # A private cache: the shared one already holds these sentences from other tests.
    model = CachedEmbedding(embed_model.inner, EmbeddingCache(cache_dir, "warmup"))
    settings = make_settings(data_dir, backend="extractive")
    return Assistant(settings, PaperStore(settings), model)


def test_warmup_embeds_every_sentence_then_answers_need_no_model(
    store_copy: Path, embed_model: Any, tmp_path: Path
) -> None:
    assistant = _assistant(store_copy, embed_model, tmp_path / "cache")
    expected = {s for p in assistant.papers.values() for s in split_sentences(p.abstract)}
    warmer = assistant.start_warmup()
    deadline = time.monotonic() + 300
    while not warmer.finished and time.monotonic() < deadline:
        time.sleep(0.2)
    assert warmer.progress() == {
        "sentences": len(expected),
        "embedded": len(expected),
        "done": True,
    }
    assert assistant.stats()["evidence_warmup"]["done"] is True
    cache = assistant.embed_model.cache
    assert len(cache) >= len(expected)
    misses = cache.misses
    assistant.scorer._cache.clear()  # not even the in-memory copy: the persistent one serves
    answer = assistant.ask("Why does feedback alignment work?")
    assert answer.citations and cache.misses == misses


def test_warmup_waits_while_a_question_is_answered(embed_model: Any, assistant: Any) -> None:
    papers = list(assistant.papers.values())[:5]
    busy = threading.Event()
    busy.set()
    warmer = EvidenceWarmer(assistant.scorer, papers, busy.is_set)
    warmer.start()
    time.sleep(0.5)
    assert warmer.done == 0  # held back the whole time a question was "in flight"
    busy.clear()
    warmer._thread.join(60)  # type: ignore[union-attr]
    assert warmer.finished and warmer.done == len(warmer.sentences) > 0


def test_stop_ends_the_thread_early(assistant: Any) -> None:
    warmer = EvidenceWarmer(assistant.scorer, assistant.papers.values(), lambda: True)
    warmer.start()
    warmer.stop(timeout=5)
    assert warmer._thread is not None and not warmer._thread.is_alive()
    assert not warmer.finished


def test_reload_restarts_the_warmup_on_the_new_catalogue(
    store_copy: Path, embed_model: Any, tmp_path: Path
) -> None:
    from rag.corpus.records import load_corpus
    from rag.ingestion import write_papers

    assistant = _assistant(store_copy, embed_model, tmp_path / "cache")
    first = assistant.start_warmup()
    extra = load_corpus([Path(__file__).parent.parent / "data" / "icml2024.jsonl"]).papers
    new = next(p for p in extra if p.id not in assistant.papers)
    first.stop()
    assistant.store.mark_writing(True)  # an ingest's write and its commit
    write_papers(assistant.store, [new], assistant.settings, embed_model)
    assistant.store.mark_writing(False)
    assert assistant.reload()
    second = assistant.warmer
    assert second is not None and second is not first
    assert set(split_sentences(new.abstract)) <= set(second.sentences)
    second.stop()


def test_warmup_reads_the_institutions_a_ranking_needs(
    store_copy: Path, embed_model: Any, tmp_path: Path
) -> None:
    # the first "Which universities had the most orals?" must not pay for reading them
    assistant = _assistant(store_copy, embed_model, tmp_path / "cache")
    assert not assistant.catalogue._groups
    warmer = assistant.start_warmup()
    deadline = time.monotonic() + 120
    while not assistant.catalogue._groups and time.monotonic() < deadline:
        time.sleep(0.2)
    warmer.stop()
    assert assistant.catalogue._groups
