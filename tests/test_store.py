"""PaperStore (rag/store.py) against real embedded Chroma in temporary directories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llama_index.core.vector_stores.types import VectorStoreQuery

import rag.store.chroma
from eval.bench.procs import free_port
from rag.corpus.records import load_corpus
from rag.errors import ModelMismatchError, StoreError
from rag.store.chroma import PaperStore
from rag.store.nodes import chunk_node
from rag.types import Paper
from tests.support.paths import FIXTURE_CORPUS
from tests.support.settings import make_settings

DIM = 4


def papers(n: int) -> list[Paper]:
    return load_corpus([FIXTURE_CORPUS]).papers[:n]


def nodes_for(paper: Paper, n_chunks: int = 2) -> list[Any]:
    out = []
    for i in range(n_chunks):
        node = chunk_node(f"{paper.id}::{i}", f"text {i}", paper, i, n_chunks, paper.content_hash())
        node.embedding = [1.0, float(i), 0.5, 0.25]
        out.append(node)
    return out


@pytest.fixture
def store(tmp_path: Path) -> PaperStore:
    return PaperStore(make_settings(tmp_path / "data"))


def test_paper_records_round_trip(store: PaperStore) -> None:
    sample = papers(3)
    store.upsert_papers([(p, 2) for p in sample])
    assert store.load_papers() == {p.id: p for p in sample}
    assert store.paper_hashes() == {p.id: (p.content_hash(), 2) for p in sample}
    # Extra metadata (lists, ints) survives the JSON-in-metadata encoding.
    assert store.load_papers()[sample[0].id].extra["icml_poster_id"] == 32979


def test_chunk_nodes_carry_citation_metadata(store: PaperStore) -> None:
    paper = papers(1)[0]
    store.add_chunk_nodes(nodes_for(paper, 3))
    records = store.chunk_records()
    assert sorted(r.id for r in records) == [f"{paper.id}::{i}" for i in range(3)]
    assert {(r.paper_id, r.paper_hash) for r in records} == {(paper.id, paper.content_hash())}
    node = next(n for n in store.load_chunk_nodes() if n.node_id == f"{paper.id}::1")
    assert node.metadata["title"] == paper.title
    assert node.metadata["authors"] == "; ".join(paper.authors)
    assert (node.metadata["chunk_index"], node.metadata["n_chunks"]) == (1, 3)
    # Only the title is embedded with the text; ids and hashes are not.
    from llama_index.core.schema import MetadataMode

    assert node.get_content(MetadataMode.EMBED) == f"{paper.title}\ntext 1"


def test_writes_and_deletes_are_batched_to_the_client_limit(
    store: PaperStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert store.max_batch == store.client.get_max_batch_size() > 1000
    store.max_batch = 3  # as if the server allowed only 3 records per call
    calls: list[int] = []
    original = store.papers.upsert

    def counting_upsert(**kwargs: Any) -> None:
        calls.append(len(kwargs["ids"]))
        original(**kwargs)

    monkeypatch.setattr(store.papers, "upsert", counting_upsert)
    sample = papers(10)
    store.add_chunk_nodes([node for p in sample for node in nodes_for(p, 2)])
    store.upsert_papers([(p, 2) for p in sample])
    assert calls == [3, 3, 3, 1]
    assert store.counts() == (10, 20)
    # Reads page through everything, whatever the page size.
    monkeypatch.setattr(rag.store.chroma, "READ_PAGE", 7)
    assert len(store.load_papers()) == 10 and len(store.chunk_records()) == 20
    store.delete_chunks_of([p.id for p in sample[:7]])
    store.delete_papers([p.id for p in sample[:7]])
    assert store.counts() == (3, 6)
    store.delete_chunks([f"{sample[8].id}::0", f"{sample[8].id}::1", "no-such-id::0"])
    assert store.counts() == (3, 4)


def test_model_is_recorded_and_checked(store: PaperStore) -> None:
    assert store.recorded_model() is None
    store.check_model("model-a", DIM)  # empty store: anything goes
    store.record_model("model-a", DIM)
    assert store.recorded_model() == ("model-a", DIM)
    # Recording drops the `hnsw:space` metadata key but keeps the cosine space itself.
    reopened = PaperStore(store.settings)
    assert reopened.chunks.configuration["hnsw"]["space"] == "cosine"
    reopened.chunks.add(ids=["v"], embeddings=[[1.0, 0.0, 0.0, 0.0]])
    hits = reopened.chunks.query(query_embeddings=[[3.0, 0.0, 0.0, 0.0]], n_results=1)
    assert hits["distances"][0][0] == pytest.approx(0.0, abs=1e-6)  # l2 would say 4
    store.check_model("model-a", DIM)
    with pytest.raises(ModelMismatchError, match=r"built with model-a \(dim 4\).*--rebuild"):
        store.check_model("model-b", DIM)
    with pytest.raises(ModelMismatchError, match="--rebuild"):
        store.check_model("model-a", 768)
    # The record survives reopening the store.
    reopened = PaperStore(store.settings)
    assert reopened.recorded_model() == ("model-a", DIM)


def test_chunks_without_a_recorded_model_are_refused(store: PaperStore) -> None:
    store.add_chunk_nodes(nodes_for(papers(1)[0]))
    with pytest.raises(ModelMismatchError, match="no recorded embedding model"):
        store.check_model("model-a", DIM)


def test_fingerprint_follows_the_complete_papers(store: PaperStore) -> None:
    empty = store.fingerprint()
    a, b = papers(2)
    store.upsert_papers([(a, 2), (b, 2)])
    both = store.fingerprint()
    assert both != empty and store.fingerprint() == both
    changed = a.model_copy(update={"abstract": a.abstract + " More."})
    store.upsert_papers([(changed, 2)])
    assert store.fingerprint() not in (both, empty)
    store.record_model("m", DIM)
    assert PaperStore(store.settings).fingerprint() == store.fingerprint()


def test_drop_empties_both_collections(store: PaperStore) -> None:
    paper = papers(1)[0]
    store.record_model("m", DIM)
    store.add_chunk_nodes(nodes_for(paper))
    store.upsert_papers([(paper, 2)])
    store.drop()
    assert store.counts() == (0, 0) and store.recorded_model() is None
    store.add_chunk_nodes(nodes_for(paper))  # usable right away
    assert store.counts() == (0, 2)


def test_collections_are_separate_per_name(tmp_path: Path) -> None:
    one = PaperStore(make_settings(tmp_path, collection="one"))
    two = PaperStore(make_settings(tmp_path, collection="two"), client=one.client)
    one.upsert_papers([(papers(1)[0], 1)])
    assert one.counts() == (1, 0) and two.counts() == (0, 0)
    names = {c.name for c in one.client.list_collections()}
    assert names == {"one", "one_papers", "two", "two_papers"}


def test_unreachable_server_is_a_store_error(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, chroma_host="127.0.0.1", chroma_port=free_port())
    with pytest.raises(StoreError, match=r"chroma server http://127\.0\.0\.1:\d+"):
        PaperStore(settings)


# --- a Chroma server: the generation replicas poll, writes that outlast timeouts ---------


@pytest.fixture
def server_settings(chroma_server: tuple[str, int], tmp_path: Path, request: Any) -> Any:
    host, port = chroma_server
    name = f"store-{request.node.name}"[:50].replace("_", "-").strip("-")
    return make_settings(tmp_path / "data", chroma_host=host, chroma_port=port, collection=name)


@pytest.mark.chroma_server
def test_the_generation_moves_once_per_commit_and_is_read_afresh(server_settings: Any) -> None:
    writer, replica = PaperStore(server_settings), PaperStore(server_settings)  # two clients
    start = replica.generation()
    assert start[1] == 0
    writer.mark_writing(True)
    writer.upsert_papers([(papers(1)[0], 1)])
    assert replica.generation() == start  # nothing committed yet: replicas keep their view
    writer.mark_writing(False)
    first = replica.generation()
    assert first == (start[0], 1)
    # A writer that opened the store before that commit still moves it on, never back.
    late = PaperStore(server_settings)
    writer.mark_writing(True)
    writer.mark_writing(False)
    late.mark_writing(True)
    late.mark_writing(False)
    assert replica.generation() == (start[0], 3)


@pytest.mark.chroma_server
def test_a_rebuild_elsewhere_is_followed(server_settings: Any) -> None:
    writer, replica = PaperStore(server_settings), PaperStore(server_settings)
    assert replica.vector_store is replica.vector_store  # built once, over the old collection
    seen = replica.generation()
    writer.drop()  # `rag ingest --rebuild` in another process: new collections
    writer.upsert_papers([(papers(1)[0], 1)])
    moved = replica.generation()
    assert moved[0] != seen[0]
    assert replica.follow(moved) and not replica.follow(moved)
    assert replica.counts() == (1, 0)
    # llama-index's view follows too (built on first use, then kept): a query through it
    # reads the new collection, not the deleted one
    writer.add_chunk_nodes(nodes_for(papers(1)[0]))
    found = replica.vector_store.query(
        VectorStoreQuery(query_embedding=[1.0, 0.0, 0.5, 0.25], similarity_top_k=1)
    )
    assert found.ids == [f"{papers(1)[0].id}::0"]


@pytest.mark.chroma_server
def test_server_writes_are_batched_below_the_server_limit(server_settings: Any) -> None:
    store = PaperStore(server_settings)
    assert store.max_batch == server_settings.store_write_batch < store.client.get_max_batch_size()
    embedded = PaperStore(make_settings(server_settings.data_dir))
    assert embedded.max_batch == embedded.client.get_max_batch_size()


@pytest.mark.chroma_server
def test_server_write_timeouts_are_retried_then_reported(
    server_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    store = PaperStore(server_settings)
    slept: list[float] = []
    store.policy.sleep = slept.append
    store.max_batch = 4
    real = store.chunks.upsert
    faults = {"left": 2}

    def times_out_after_writing(**kwargs: Any) -> None:
        real(**kwargs)  # the server finishes the write; the client stops waiting
        if faults["left"]:
            faults["left"] -= 1
            raise httpx.ReadTimeout("timed out")

    monkeypatch.setattr(store.chunks, "upsert", times_out_after_writing)
    sample = papers(5)
    store.add_chunk_nodes([node for p in sample for node in nodes_for(p, 2)])
    # 4 then 2 timed out (written all the same); 1 at a time until 8 in a row, then 2.
    assert store.counts() == (0, 10) and slept == [1.0, 2.0] and store.max_batch == 2
    ids = sorted(store.chunks.get(include=[])["ids"])
    assert ids == sorted(f"{p.id}::{i}" for p in sample for i in range(2))  # no duplicates

    faults["left"] = 99
    with pytest.raises(StoreError, match="re-running `rag ingest` finishes the rest"):
        store.add_chunk_nodes(nodes_for(papers(6)[5], 2))
    assert len(slept) == 2 + server_settings.store_write_retries


def test_following_the_generation_it_opened_reopens_nothing(store_copy: Path) -> None:
    from rag.store.chroma import PaperStore
    from tests.support.settings import make_settings

    store = PaperStore(make_settings(store_copy))
    client, opened = store.client, store.generation()
    assert store.follow(opened) is False and store.client is client  # the watcher's first poll
    assert store.follow((opened[0], opened[1] + 1)) is True  # another process committed
    assert store.client is not client  # embedded: a client that loads the store afresh
