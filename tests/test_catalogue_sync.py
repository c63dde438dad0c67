"""The catalogue lives with the lexical index (rag.lexical.index): an Assistant opens and
reloads it from that file, synced by the papers that changed, never by scanning Chroma."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rag.assistant import Assistant
from rag.ingestion import ingest
from rag.store.chroma import PaperStore
from tests.support.answers import bundled_record, write_jsonl
from tests.support.paths import FIXTURE_CORPUS
from tests.support.settings import make_settings

S3GCL = "znKAWRZSF9"  # in the bundled corpus, not in the fixture one


def _no_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any read of a whole Chroma collection fails the test from here on."""

    def scan(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a whole-collection read of Chroma")

    for name in ("_pages", "paper_hashes", "load_papers", "fingerprint", "load_chunk_nodes"):
        monkeypatch.setattr(PaperStore, name, scan)


def test_ingest_and_prune_reach_the_catalogue_on_reload_without_a_chroma_scan(
    store_copy: Path, embed_model: Any, tmp_path: Path
) -> None:
    settings = make_settings(store_copy, backend="extractive")
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    assert S3GCL not in assistant.papers
    extra = write_jsonl(tmp_path / "s3gcl.jsonl", [bundled_record(S3GCL)])
    ingest(settings, [FIXTURE_CORPUS, extra], embed_model=embed_model, store=assistant.store)

    with pytest.MonkeyPatch.context() as patch:
        _no_scans(patch)
        assert assistant.reload() is True
        assert assistant.papers[S3GCL].title.startswith("S3GCL")
        assert assistant.retrieve("S3GCL spectral graph contrastive learning", mode="bm25")
        assert assistant.reload() is False  # same generation: nothing rebuilt
    # Exactly the store's paper records, every field (authors, extra) as Chroma keeps them.
    assert assistant.papers == assistant.store.load_papers()

    ingest(settings, [FIXTURE_CORPUS], prune=True, embed_model=embed_model, store=assistant.store)
    with pytest.MonkeyPatch.context() as patch:
        _no_scans(patch)
        assert assistant.reload() is True
        assert S3GCL not in assistant.papers
        assert S3GCL not in assistant.pipeline.catalogue.papers  # type: ignore[union-attr]
    assert assistant.papers == assistant.store.load_papers()


def test_a_fresh_process_opens_the_catalogue_from_the_index_file(
    store_copy: Path, embed_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(store_copy, backend="extractive")
    want = PaperStore(settings).load_papers()
    _no_scans(monkeypatch)  # the copy's index was synced by the ingest that built it
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    assert assistant.papers == want and len(want) > 0
    assert assistant.pipeline is not None
    assert assistant.pipeline.generation == assistant.store.generation()
