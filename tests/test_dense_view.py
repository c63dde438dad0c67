"""The dense view (rag.retrieval.dense) finds what llama-index's ChromaVectorStore finds,
the same hits, scores, texts and metadata, reading them from the lexical index, and from
Chroma for the hits that index does not hold (yet), over the real fixture store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llama_index.core.schema import MetadataMode
from llama_index.core.vector_stores.types import VectorStoreQuery, VectorStoreQueryResult
from llama_index.vector_stores.chroma import ChromaVectorStore

from rag.lexical.index import open_index
from rag.retrieval.dense import DenseView
from rag.store.chroma import PaperStore
from tests.support.settings import make_settings

QUESTIONS = [
    "What conservation law does feedback alignment find?",
    "How many molecules is GraphsGPT pretrained on?",
    "quantization of large language models",
]


def _search(view: Any, embed_model: Any, question: str) -> VectorStoreQueryResult:
    query = VectorStoreQuery(
        query_embedding=embed_model.get_query_embedding(question), similarity_top_k=12
    )
    return view.query(query)


def _described(result: VectorStoreQueryResult) -> list[tuple[Any, ...]]:
    assert result.nodes is not None and result.similarities is not None
    return [
        (
            node.node_id,
            node.get_content(metadata_mode=MetadataMode.NONE),
            node.get_content(metadata_mode=MetadataMode.EMBED),
            node.get_content(metadata_mode=MetadataMode.LLM),
            node.metadata,
            round(score, 6),
        )
        for node, score in zip(result.nodes, result.similarities, strict=True)
    ]


@pytest.mark.parametrize("held", ["all", "every other", "none", "no index"])
def test_the_view_finds_what_chromas_own_view_finds(
    store_copy: Path, embed_model: Any, held: str
) -> None:
    settings = make_settings(store_copy)
    store = PaperStore(settings)
    index = open_index(settings, store)
    asked: list[list[str]] = []

    def rows(ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        asked.append(ids)
        found = index.chunk_rows(ids)
        if held == "every other":  # the rest as if written by a process not committed yet
            return {cid: row for n, (cid, row) in enumerate(sorted(found.items())) if n % 2}
        return found if held == "all" else {}

    plain = ChromaVectorStore(chroma_collection=store.chunks)
    view = DenseView(store.chunks, None if held == "no index" else rows)
    for question in QUESTIONS:
        want = _described(_search(plain, embed_model, question))
        assert len(want) == 12
        assert _described(_search(view, embed_model, question)) == want
    assert len(asked) == (0 if held == "no index" else len(QUESTIONS))
    if held == "all":
        assert all(len(index.chunk_rows(ids)) == 12 for ids in asked)


def test_a_hit_deleted_between_the_search_and_the_read_is_left_out(
    store_copy: Path, embed_model: Any
) -> None:
    settings = make_settings(store_copy)
    store = PaperStore(settings)
    index = open_index(settings, store)
    plain = _search(ChromaVectorStore(chroma_collection=store.chunks), embed_model, QUESTIONS[0])
    assert plain.ids is not None
    gone = plain.ids[3]

    def rows(ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        store.chunks.delete(ids=[gone])  # between Chroma's answer and the rows' read
        return {cid: row for cid, row in index.chunk_rows(ids).items() if cid != gone}

    found = _search(DenseView(store.chunks, rows), embed_model, QUESTIONS[0])
    assert found.ids == [i for i in plain.ids if i != gone]
    assert found.similarities == [
        s for i, s in zip(plain.ids, plain.similarities or [], strict=True) if i != gone
    ]


def test_the_text_and_metadata_come_from_the_rows(store_copy: Path, embed_model: Any) -> None:
    settings = make_settings(store_copy)
    store = PaperStore(settings)
    index = open_index(settings, store)

    def rows(ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        return {
            cid: (f"ROW {text}", {**meta, "status": "FROM ROW"})
            for cid, (text, meta) in index.chunk_rows(ids).items()
        }

    found = _search(DenseView(store.chunks, rows), embed_model, QUESTIONS[0])
    assert found.nodes and len(found.nodes) == 12
    assert all(node.get_content().startswith("ROW ") for node in found.nodes)
    assert {node.metadata["status"] for node in found.nodes} == {"FROM ROW"}


def test_a_rebuild_cut_otherwise_reaches_the_rows(store_copy: Path, embed_model: Any) -> None:
    # chunk ids `paper::n` repeat across a --rebuild; with another chunk budget their texts
    # differ, and the paper hashes do not: the index must follow the new collection.
    from llama_index.vector_stores.chroma import ChromaVectorStore as Plain

    from rag.ingestion import ingest

    settings = make_settings(store_copy, chunk_max_tokens=64)
    before = PaperStore(settings).counts()[1]
    ingest(settings, rebuild=True, embed_model=embed_model)
    store = PaperStore(settings)
    assert store.counts()[1] > before
    index = open_index(settings, store)
    for question in QUESTIONS:
        want = _described(_search(Plain(chroma_collection=store.chunks), embed_model, question))
        assert (
            _described(_search(DenseView(store.chunks, index.chunk_rows), embed_model, question))
            == want
        )
