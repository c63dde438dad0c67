"""Ingest (rag/ingestion.py) with the real model and real embedded Chroma, on tiny corpora."""

from __future__ import annotations

import importlib
import json
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rag.corpus.chunking import chunk_paper
from rag.corpus.records import load_corpus
from rag.embedding.base import token_counter
from rag.errors import CorpusError, ModelMismatchError
from rag.ingestion import ingest, repair
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.store.nodes import chunk_node
from rag.types import Paper
from tests.support.paths import FIXTURE_CORPUS
from tests.support.store_checks import (
    assert_consistent,
    chunk_ids_by_paper,
    settings_for,
    tiny_corpus,
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return tiny_corpus(FIXTURE_CORPUS, tmp_path / "tiny.jsonl", 6)


@pytest.fixture
def settings(tmp_path: Path, corpus: Path) -> Settings:
    return settings_for(tmp_path / "data", corpus)


def loaded(path: Path) -> list[Paper]:
    return load_corpus([path]).papers


def rewrite(path: Path, change: dict[str, dict[str, Any]], drop: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """Rewrite a JSONL corpus, updating fields of some records and dropping others."""
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["id"] in drop:
            continue
        record.update(change.get(record["id"], {}))
        out.append(json.dumps(record))
    path.write_text("\n".join(out) + "\n")


def test_first_ingest_stores_everything(settings: Settings, corpus: Path, embed_model: Any) -> None:
    progress: list[tuple[int, int]] = []
    report = ingest(
        settings, embed_model=embed_model, progress=lambda d, t: progress.append((d, t))
    )
    assert (report.papers, report.new, report.updated, report.unchanged) == (6, 6, 0, 0)
    assert report.chunks == report.embedded_chunks > 6
    assert report.skipped == 0 and report.issues == [] and report.repaired == 0
    assert progress[0] == (0, 6) and progress[-1] == (6, 6)
    store = PaperStore(settings)
    assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))
    summary = report.summary()
    assert summary.startswith("papers 6 | chunks ") and "\n" not in summary


def test_reingest_embeds_nothing(settings: Settings, corpus: Path, embed_model: Any) -> None:
    first = ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    before = store.fingerprint()
    again = ingest(settings, embed_model=embed_model, store=store)
    assert again.embedded_chunks == 0
    assert (again.new, again.updated, again.unchanged) == (0, 0, 6)
    assert (again.papers, again.chunks) == (first.papers, first.chunks)
    assert store.fingerprint() == before


def test_changed_abstract_is_reembedded_without_orphans(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    before = chunk_ids_by_paper(store)
    target = next(p for p in loaded(corpus) if len(before[p.id]) > 1)
    # One short sentence: the paper goes from several chunks to one.
    rewrite(corpus, {target.id: {"abstract": "A completely new and short abstract."}})
    report = ingest(settings, embed_model=embed_model, store=store)
    assert (report.new, report.updated, report.unchanged) == (0, 1, 5)
    assert report.embedded_chunks == 1
    assert chunk_ids_by_paper(store)[target.id] == [f"{target.id}::0"]
    got = store.chunks.get(ids=[f"{target.id}::0"], include=["documents"])
    assert got["documents"] == ["A completely new and short abstract."]
    assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))


def test_metadata_change_updates_the_record(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    target = loaded(corpus)[0]
    rewrite(corpus, {target.id: {"status": "Oral", "title": "A New Title"}})
    store = PaperStore(settings)
    report = ingest(settings, embed_model=embed_model, store=store)
    assert report.updated == 1
    assert store.load_papers()[target.id].title == "A New Title"
    chunk = store.chunks.get(ids=[f"{target.id}::0"], include=["metadatas"])
    assert chunk["metadatas"][0]["status"] == "Oral"
    assert_consistent(store, loaded(corpus), settings)


def test_prune_removes_papers_no_longer_in_sources(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    gone = {p.id for p in loaded(corpus)[:2]}
    rewrite(corpus, {}, drop=gone)
    store = PaperStore(settings)
    kept = ingest(settings, embed_model=embed_model, store=store)
    assert kept.pruned == 0 and kept.papers == 6  # without --prune, nothing is removed
    report = ingest(settings, embed_model=embed_model, store=store, prune=True)
    assert report.pruned == 2 and report.embedded_chunks == 0 and report.papers == 4
    assert not gone & set(chunk_ids_by_paper(store))
    assert_consistent(store, loaded(corpus), settings)


def test_prune_refuses_when_records_failed_to_load(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    before = (store.fingerprint(), store.counts())
    # The first paper's line is now broken: its id is unknown, so prune would delete it.
    lines = corpus.read_text().splitlines()
    corpus.write_text("\n".join([lines[0][:-5], *lines[1:]]) + "\n")
    with pytest.raises(CorpusError, match=rf"--prune needs a clean load.*{corpus}:1: malformed"):
        ingest(settings, embed_model=embed_model, store=store, prune=True)
    assert (store.fingerprint(), store.counts()) == before
    # Without --prune the broken record is only skipped.
    report = ingest(settings, embed_model=embed_model, store=store)
    assert report.skipped == 1 and report.papers == 6


def test_rebuild_starts_over(settings: Settings, tmp_path: Path, embed_model: Any) -> None:
    ingest(settings, embed_model=embed_model)
    other = tiny_corpus(FIXTURE_CORPUS, tmp_path / "other.jsonl", 3, skip=20)
    report = ingest(settings, [other], embed_model=embed_model, rebuild=True)
    assert (report.papers, report.new) == (3, 3)
    assert_consistent(PaperStore(settings), loaded(other), settings)


def test_sources_accumulate_across_runs(
    settings: Settings, corpus: Path, tmp_path: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    seeds = tiny_corpus(FIXTURE_CORPUS, tmp_path / "more.jsonl", 4, skip=4)  # 2 overlap
    report = ingest(settings, [seeds], embed_model=embed_model)
    assert (report.new, report.unchanged, report.papers) == (2, 2, 8)


def test_model_mismatch_is_refused(settings: Settings, corpus: Path, embed_model: Any) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    before = store.fingerprint()
    other = settings.model_copy(update={"embed_model": "some-other-model"})
    with pytest.raises(ModelMismatchError, match=r"--rebuild"):
        ingest(other, embed_model=embed_model, store=store)
    # int8 and float vectors of the same model are different spaces too.
    floats = settings.model_copy(update={"embed_runtime": "onnx"})
    with pytest.raises(ModelMismatchError, match=r"\+int8 \(dim 384\), not all-MiniLM-L6-v2 "):
        ingest(floats, embed_model=embed_model, store=store)
    assert store.fingerprint() == before
    # --rebuild is the way out.
    report = ingest(other, embed_model=embed_model, store=store, rebuild=True)
    assert report.new == 6 and store.recorded_model() == ("some-other-model+int8", 384)


def test_bad_records_are_skipped_and_counted(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    with corpus.open("a") as handle:
        handle.write('{"id": "broken", "abstract": \n{"id": "no-abstract"}\n')
    report = ingest(settings, embed_model=embed_model)
    assert report.skipped == 2 and report.papers == 6
    assert [str(i) for i in report.issues] == [
        f"{corpus}:7: malformed JSON: Expecting value (column 30)",
        f"{corpus}:8: missing or empty 'abstract'",
    ]
    assert "skipped 2" in report.summary()


def test_strict_writes_nothing(settings: Settings, corpus: Path, embed_model: Any) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    before = (store.fingerprint(), store.counts())
    rewrite(corpus, {loaded(corpus)[0].id: {"abstract": "Changed, so it would be rewritten."}})
    with corpus.open("a") as handle:
        handle.write('{"id": "bad", "abstract": 5}\n')
    with pytest.raises(CorpusError, match=rf"{corpus}:7: 'abstract' must be a string"):
        ingest(settings, embed_model=embed_model, store=store, strict=True)
    assert (store.fingerprint(), store.counts()) == before


def test_slices_and_small_batches_store_everything(
    settings: Settings, corpus: Path, embed_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `rag.ingestion` the attribute is the function (re-exported by rag/__init__); patch the module.
    monkeypatch.setattr(importlib.import_module("rag.ingestion"), "PAPERS_PER_WRITE", 4)
    store = PaperStore(settings)
    store.max_batch = 2  # every Chroma call sees at most 2 records
    progress: list[int] = []
    report = ingest(
        settings, embed_model=embed_model, store=store, progress=lambda d, t: progress.append(d)
    )
    assert progress == [0, 4, 6]
    assert report.papers == 6
    assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))


@pytest.mark.parametrize("failing", [0, 2])  # the first slice's write, or the last's
def test_a_slice_is_written_while_the_next_is_embedded_in_order_and_a_failed_write_stops(
    settings: Settings,
    corpus: Path,
    embed_model: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: int,
) -> None:
    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 2)  # 6 papers: 3 slices
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 1)  # each slice embedded on its own
    events: list[tuple[str, str, float]] = []
    threads: set[str] = set()
    real_embed = module._embed

    def slow_embed(nodes: list[Any], model: Any) -> None:
        events.append(("embedding", nodes[0].metadata["paper_id"], time.monotonic()))
        real_embed(nodes, model)
        time.sleep(0.3)
        events.append(("embedded", nodes[0].metadata["paper_id"], time.monotonic()))

    store = PaperStore(settings)
    real_upsert = store.upsert_papers

    def slow_upsert(papers: list[tuple[Paper, int]]) -> None:
        threads.add(threading.current_thread().name)
        events.append(("writing", papers[0][0].id, time.monotonic()))
        time.sleep(0.3)
        if papers[0][0].id == order[2 * failing]:
            raise OSError("disk full")
        real_upsert(papers)
        events.append(("written", papers[0][0].id, time.monotonic()))

    order = [p.id for p in loaded(corpus)]
    monkeypatch.setattr(module, "_embed", slow_embed)
    monkeypatch.setattr(store, "upsert_papers", slow_upsert)
    with pytest.raises(Exception, match="disk full"):
        ingest(settings, embed_model=embed_model, store=store)
    at = {(kind, pid): t for kind, pid, t in events}
    slices = [order[0], order[2], order[4]]
    if failing == 0:  # the second slice was embedded meanwhile; the third never starts
        assert [pid for k, pid, _ in events if k == "embedding"] == slices[:2]
        assert [pid for k, pid, _ in events if k == "writing"] == slices[:1]
        assert at[("embedding", order[2])] < at[("writing", order[0])] + 0.3
        assert PaperStore(settings).paper_hashes() == {}
        assert "failed too" not in caplog.text  # one failure, told once (as the error)
        return
    for kind in ("embedding", "writing"):  # each side in slice order
        assert [pid for k, pid, _ in events if k == kind] == slices
    for first in slices:  # a slice is written once it is embedded
        assert at[("writing", first)] > at[("embedded", first)]
    # the second slice was being embedded while the first was written: they overlapped
    assert at[("embedding", order[2])] < at[("written", order[0])]
    assert threads and threading.main_thread().name not in threads
    # what was written before the failure stays, complete; the failed slice is not recorded
    assert set(PaperStore(settings).paper_hashes()) == set(order[:4])


def test_a_write_failing_while_the_next_embed_fails_is_logged_not_lost(
    settings: Settings,
    embed_model: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 2)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 1)
    embedded: list[int] = []
    real_embed = module._embed

    def embed(nodes: list[Any], model: Any) -> None:
        embedded.append(len(nodes))
        if len(embedded) == 2:
            raise RuntimeError("model crashed")
        real_embed(nodes, model)

    def upsert(papers: list[tuple[Paper, int]]) -> None:
        time.sleep(0.2)  # still writing when the next slice's embed fails
        raise OSError("disk full")

    store = PaperStore(settings)
    monkeypatch.setattr(module, "_embed", embed)
    monkeypatch.setattr(store, "upsert_papers", upsert)
    stopped = pytest.raises(RuntimeError, match="model crashed")  # what stopped it
    with caplog.at_level("WARNING", logger="rag.ingestion"), stopped:
        ingest(settings, embed_model=embed_model, store=store)
    assert "failed too" in caplog.text and "disk full" in caplog.text  # and the other, told
    assert len(embedded) == 2


@pytest.mark.parametrize("failing", [None, 1, 4])  # none; mid-window; the last window
def test_a_window_of_slices_is_embedded_at_once_and_written_slice_by_slice(
    settings: Settings,
    corpus: Path,
    embed_model: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: int | None,
) -> None:
    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 1)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 3)  # 6 papers: 2 windows of 3 slices
    order = [p.id for p in loaded(corpus)]
    embeds: list[list[str]] = []
    writes: list[str] = []
    real_embed = module._embed

    def embed(nodes: list[Any], model: Any) -> None:
        embeds.append(list(dict.fromkeys(n.metadata["paper_id"] for n in nodes)))
        real_embed(nodes, model)

    store = PaperStore(settings)
    real_upsert = store.upsert_papers

    def upsert(papers: list[tuple[Paper, int]]) -> None:
        writes.append(papers[0][0].id)
        if failing is not None and papers[0][0].id == order[failing]:
            time.sleep(0.3)  # still failing while the next window is chunked and embedded
            raise OSError("disk full")
        real_upsert(papers)

    monkeypatch.setattr(module, "_embed", embed)
    monkeypatch.setattr(store, "upsert_papers", upsert)
    progress: list[int] = []
    if failing is None:
        ingest(
            settings, embed_model=embed_model, store=store, progress=lambda d, t: progress.append(d)
        )
        assert progress == [0, 1, 2, 3, 4, 5, 6]
    else:
        logged = caplog.at_level("WARNING", logger="rag.ingestion")
        with logged, pytest.raises(Exception, match="disk full"):
            ingest(settings, embed_model=embed_model, store=store)
        assert "failed too" not in caplog.text  # one failure, told once (as the error)
    # one model call per window, all of its papers in it (a failed write of the first
    # window is seen once the second is embedded: windows overlap the writes before them)
    assert embeds == [order[:3], order[3:]]
    if failing is None:
        assert writes == order
        assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))
        return
    # slices are written in order up to the failed one; those queued behind it are not
    assert writes == order[: failing + 1]
    assert set(PaperStore(settings).paper_hashes()) == set(order[:failing])


def test_a_write_that_failed_while_the_next_window_was_embedded_stops_it_there(
    settings: Settings, corpus: Path, embed_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window's slices are written while the next window is embedded; a failed write is
    raised once that embed returns, before a third window is chunked or embedded."""
    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 1)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 2)  # 6 papers: 3 windows of 2
    order = [p.id for p in loaded(corpus)]
    embeds: list[str] = []
    chunked: list[str] = []
    real_embed, real_chunk = module._embed, module._nodes_for

    def embed(nodes: list[Any], model: Any) -> None:
        embeds.append(nodes[0].metadata["paper_id"])
        real_embed(nodes, model)

    def chunking(papers: list[Paper], *args: Any) -> Any:
        chunked.append(papers[0].id)
        return real_chunk(papers, *args)

    def upsert(papers: list[tuple[Paper, int]]) -> None:
        raise OSError("disk full")

    store = PaperStore(settings)
    monkeypatch.setattr(module, "_embed", embed)
    monkeypatch.setattr(module, "_nodes_for", chunking)
    monkeypatch.setattr(store, "upsert_papers", upsert)
    with pytest.raises(Exception, match="disk full"):
        ingest(settings, embed_model=embed_model, store=store)
    assert embeds == [order[0], order[2]]  # the third window never reached the model
    assert chunked == order[:4]  # nor the chunker
    assert PaperStore(settings).paper_hashes() == {}


def test_a_failing_model_with_a_window_of_writes_queued_logs_the_write_that_failed_once(
    settings: Settings,
    embed_model: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 1)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 3)  # 6 papers: 2 windows of 3
    embeds: list[int] = []
    writes: list[str] = []
    real_embed = module._embed

    def embed(nodes: list[Any], model: Any) -> None:
        embeds.append(len(nodes))
        if len(embeds) == 2:
            raise RuntimeError("model crashed")
        real_embed(nodes, model)

    store = PaperStore(settings)
    real_upsert = store.upsert_papers

    def upsert(papers: list[tuple[Paper, int]]) -> None:
        writes.append(papers[0][0].id)
        if len(writes) == 2:
            time.sleep(0.3)  # still writing when the second window meets the model
            raise OSError("disk full")
        real_upsert(papers)

    monkeypatch.setattr(module, "_embed", embed)
    monkeypatch.setattr(store, "upsert_papers", upsert)
    logged = caplog.at_level("WARNING", logger="rag.ingestion")
    with logged, pytest.raises(RuntimeError, match="model crashed"):  # what stopped it
        ingest(settings, embed_model=embed_model, store=store)
    assert caplog.text.count("failed too") == 1 and "disk full" in caplog.text
    assert len(writes) == 2  # the third slice, queued behind the failure, was skipped
    assert set(PaperStore(settings).paper_hashes()) == {writes[0]}


# --- repair ---------------------------------------------------------------------------


def test_repair_of_a_hand_made_inconsistent_store(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    papers = loaded(corpus)
    complete_before = store.paper_hashes()
    a, b, c = papers[0], papers[1], papers[2]
    counter = token_counter(embed_model)

    # 1. Orphan chunks of a paper that has no record (an interrupted first write).
    stranger = Paper(id="stranger", title="S", abstract="Never finished. Really.")
    orphan = chunk_node("stranger::0", "Never finished.", stranger, 0, 1, stranger.content_hash())
    orphan.embedding = [0.1] * 384
    store.add_chunk_nodes([orphan])
    # 2. A record whose chunks went missing.
    store.delete_chunks([f"{a.id}::0"])
    # 3. New chunks written for a changed paper, its record still the old one.
    changed = b.model_copy(update={"abstract": "Changed abstract. Two sentences."})
    stale = [
        chunk_node(ch.id, ch.text, changed, ch.index, 1, changed.content_hash())
        for ch in chunk_paper(changed, 200, 1, counter)
    ]
    for node in stale:
        node.embedding = [0.2] * 384
    store.delete_chunks_of([b.id])
    store.add_chunk_nodes(stale)
    # 4. A record claiming more chunks than it has.
    store.upsert_papers([(c, complete_before[c.id][1] + 1)])

    touched = repair(store)
    assert touched == 1 + 1 + 1 + 1 + 1  # orphan chunk, stale chunk, 3 broken records
    records = store.paper_hashes()
    assert set(records) == {p.id for p in papers} - {a.id, b.id, c.id}
    assert not {"stranger", a.id, b.id, c.id} & set(chunk_ids_by_paper(store))
    assert_consistent(store, [p for p in papers if p.id in records], settings)
    assert repair(store) == 0  # a consistent store is left alone

    # The next ingest puts the removed papers back.
    report = ingest(settings, embed_model=embed_model, store=store)
    assert (report.new, report.unchanged, report.repaired) == (3, 3, 0)
    assert_consistent(store, papers, settings, counter)


def test_ingest_repairs_before_comparing(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    victim = loaded(corpus)[4]
    store.delete_chunks([f"{victim.id}::1"])
    report = ingest(settings, embed_model=embed_model, store=store)
    assert report.repaired == 1 and report.new == 1 and report.unchanged == 5
    assert_consistent(store, loaded(corpus), settings)


def test_an_interrupted_run_is_scanned_even_when_counts_agree(
    settings: Settings, corpus: Path, embed_model: Any
) -> None:
    """The cheap count check misses a chunk swapped for another of the same count; the
    in-progress flag left by a run that died mid-write forces the full scan."""
    ingest(settings, embed_model=embed_model)
    store = PaperStore(settings)
    a, b = loaded(corpus)[:2]
    assert not store.was_interrupted()
    # A chunk of `a` replaced by an orphan: same chunk count, so the counts agree.
    stranger = Paper(id="stranger", title="S", abstract="Never finished. Really.")
    orphan = chunk_node("stranger::0", "Never finished.", stranger, 0, 1, stranger.content_hash())
    orphan.embedding = [0.1] * 384
    store.delete_chunks([f"{a.id}::0"])
    store.add_chunk_nodes([orphan])

    quiet = ingest(settings, embed_model=embed_model, store=store)
    assert quiet.repaired == 0  # not flagged, counts agree: the scan is skipped

    store.mark_writing(True)  # what a SIGKILL between two slices leaves behind
    report = ingest(settings, embed_model=embed_model, store=store)
    assert report.repaired == 2 and report.new == 1  # orphan + a's broken record; a re-added
    assert not store.was_interrupted()
    assert_consistent(store, loaded(corpus), settings)
    assert b.id in store.paper_hashes()


def test_the_flag_is_set_while_writing(settings: Settings, embed_model: Any) -> None:
    seen: list[bool] = []
    store = PaperStore(settings)

    def progress(done: int, total: int) -> None:
        seen.append(store.was_interrupted())

    ingest(settings, embed_model=embed_model, store=store, progress=progress)
    assert seen and all(seen) and not store.was_interrupted()


# --- a real `chroma run` server ---------------------------------------------------------


@pytest.mark.chroma_server
def test_ingest_into_a_chroma_server(
    chroma_server: tuple[str, int], corpus: Path, tmp_path: Path, embed_model: Any
) -> None:
    host, port = chroma_server
    settings = settings_for(
        tmp_path / "data",
        corpus,
        chroma_host=host,
        chroma_port=port,
        collection="ingest-test",
    )
    first = ingest(settings, embed_model=embed_model)
    assert first.papers == 6 and first.embedded_chunks == first.chunks
    again = ingest(settings, embed_model=embed_model)
    assert again.embedded_chunks == 0 and again.unchanged == 6
    store = PaperStore(settings)
    assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))
    assert not (tmp_path / "data" / "chroma").exists()  # nothing embedded on disk


def test_an_ingest_of_several_windows_embeds_in_a_worker_process_with_the_same_vectors(
    settings: Settings,
    corpus: Path,
    embed_model: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The windows after the first go to the ONNX worker process (an embedded Chroma
    write holds the GIL, so in-process runs stopped for every write); the stored vectors
    are the ones this process's model gives, and the worker is gone after the ingest."""
    from rag.embedding import onnx_runtime
    from rag.embedding.cache import CachedEmbedding, EmbeddingCache
    from rag.embedding.onnx_worker import EncoderProcess

    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 1)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 2)  # 6 papers: 3 windows of 2
    monkeypatch.setattr(onnx_runtime, "BULK_TEXTS", 1)
    workers: list[EncoderProcess] = []
    real_init = EncoderProcess.__init__

    def started(self: EncoderProcess, *args: Any) -> None:
        real_init(self, *args)
        workers.append(self)

    monkeypatch.setattr(EncoderProcess, "__init__", started)
    onnx = embed_model.inner  # a cache of its own: every chunk reaches the model
    model = CachedEmbedding(onnx, EmbeddingCache(tmp_path / "vectors", "worker-test"))
    ingest(settings, embed_model=model)
    assert len(workers) == 1 and workers[0]._proc.returncode == 0
    store = PaperStore(settings)
    assert_consistent(store, loaded(corpus), settings, token_counter(embed_model))
    stored = store.chunks.get(include=["embeddings", "documents", "metadatas"])  # type: ignore[list-item]
    texts = [
        f"{m['title']}\n{d}" for d, m in zip(stored["documents"], stored["metadatas"], strict=True)
    ]
    # Chroma keeps a vector to within float32 rounding (cosine space: normalised again);
    # the worker's vectors equal this process's exactly (tests/test_onnx_embedding.py).
    vectors = np.asarray(stored["embeddings"], np.float32)
    assert np.allclose(vectors, onnx._encode(texts), rtol=0, atol=1e-6)


def test_the_lexical_index_fed_while_writing_equals_one_synced_from_the_store(
    settings: Settings, corpus: Path, embed_model: Any, tmp_path: Path
) -> None:
    """Ingest puts each written slice into the lexical index on the writer thread; the
    sync after the commit then reads nothing back. What it put there must be what a sync
    reads from Chroma: the same chunk rows, paper records, hashes and search results."""
    from rag.lexical import reads as lexical_reads
    from rag.lexical.index import LexicalIndex, index_dir

    read_back: list[int] = []
    real_chunks_of = lexical_reads.chunks_of

    def counting(*args: Any) -> Any:
        for batch in real_chunks_of(*args):
            read_back.append(len(batch))
            yield batch

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lexical_reads, "chunks_of", counting)
        ingest(settings, embed_model=embed_model)
    assert read_back == []  # nothing read back: every paper was fed while written
    store = PaperStore(settings)
    fed = LexicalIndex(index_dir(settings))
    synced = LexicalIndex(tmp_path / "synced")
    synced.sync(store)
    papers = loaded(corpus)
    chunk_ids = [c.id for c in store.chunk_records()]
    assert fed.chunk_rows(chunk_ids) == synced.chunk_rows(chunk_ids) != {}
    assert fed.paper_hashes() == synced.paper_hashes()
    assert [fed.papers()[p.id] for p in papers] == [synced.papers()[p.id] for p in papers]
    for query in ("feedback alignment", "graph transformers", papers[3].title):
        assert fed.search(query, 5) == synced.search(query, 5)
    assert fed.synced_generation() == store.generation()


def test_an_ingest_of_one_window_starts_no_worker_process(
    settings: Settings, embed_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No write overlaps the model in a single window: a worker would cost a process start
    for nothing."""
    from rag.embedding import onnx_runtime
    from rag.embedding.cache import CachedEmbedding, EmbeddingCache
    from rag.embedding.onnx_worker import EncoderProcess

    module = importlib.import_module("rag.ingestion")
    monkeypatch.setattr(module, "PAPERS_PER_WRITE", 1)
    monkeypatch.setattr(module, "SLICES_PER_EMBED", 6)  # 6 papers: one window
    monkeypatch.setattr(onnx_runtime, "BULK_TEXTS", 1)

    def no_worker(self: EncoderProcess, *args: Any) -> None:
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(EncoderProcess, "__init__", no_worker)
    model = CachedEmbedding(embed_model.inner, EmbeddingCache(tmp_path / "vectors", "one"))
    assert ingest(settings, embed_model=model).embedded_chunks > 0


def test_the_public_ingest_is_the_function_whatever_was_imported_first() -> None:
    import rag.ingestion  # a module of its own name must not shadow the function
    from rag import IngestReport, ingest

    assert ingest is rag.ingestion.ingest and callable(ingest)
    assert IngestReport is rag.ingestion.IngestReport
