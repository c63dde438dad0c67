"""Child side of the scale section: open an Assistant over a synthetic store, time queries.

The synthetic build writes Chroma directly, not through `rag ingest`, so the lexical
index is first synced here as an ingest would (timed: `lexical_sync_s`); then opening is
timed on its own (it opens the lexical index, whose file holds the catalogue). Each
retrieval runs with the query-embedding cache emptied, as in the latency section; warm-up questions are timed apart, not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psutil

from eval.bench.samples import summarise
from rag.settings import RETRIEVAL_MODES


def run_scale_queries(payload: dict[str, Any], process_started: float) -> dict[str, Any]:
    from eval.run import _cold_query_cache, build_settings
    from rag import Assistant

    settings = build_settings(**payload["settings"])
    bm25_cached = (settings.data_dir / "bm25").exists()
    sync_s = None
    from rag.lexical.index import open_index
    from rag.store.chroma import PaperStore

    t0 = time.perf_counter()
    open_index(settings, PaperStore(settings)).close()
    sync_s = round(time.perf_counter() - t0, 2)
    started = time.perf_counter()
    assistant = Assistant.from_settings(settings)
    open_s = time.perf_counter() - started
    rss_after_open = psutil.Process().memory_info().rss / 1024**2
    papers, chunks = assistant.store.counts()
    modes = payload.get("modes") or list(RETRIEVAL_MODES)
    first = _timed(assistant, payload["warmup"], modes, _cold_query_cache)
    samples = _timed(assistant, payload["questions"], modes, _cold_query_cache)
    return {
        "papers": papers,
        "chunks": chunks,
        "imports_s": round(started - process_started, 3),
        "open_s": round(open_s, 3),
        "lexical": "store",
        "lexical_sync_s": sync_s,
        "bm25_index_was_cached": bm25_cached,
        "rss_after_open_mb": round(rss_after_open, 1),
        "rss_after_queries_mb": round(psutil.Process().memory_info().rss / 1024**2, 1),
        "latency_ms": {m: summarise(v) for m, v in samples.items()},
        # the warm-up questions right after the open, timed the same way but not counted:
        # what the first questions of a restarted process meet (pages and caches cold)
        "warmup_latency_ms": {m: summarise(v) for m, v in first.items()},
    }


def _timed(
    assistant: Any, questions: list[str], modes: list[str], cold: Callable[[Any], object]
) -> dict[str, list[float]]:
    """Each question in each mode, its query embedding not cached: ms per mode."""
    samples: dict[str, list[float]] = {m: [] for m in modes}
    for question in questions:
        for mode in modes:
            cold(assistant.embed_model)
            t0 = time.perf_counter()
            assistant.retrieve(question, mode=mode)
            samples[mode].append((time.perf_counter() - t0) * 1000)
    return samples
