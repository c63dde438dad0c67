"""The bm25s index (RAG_LEXICAL=bm25s) on a store smaller than its k: no llama-index warning reaches the user."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from llama_index.core.schema import TextNode

from rag.retrieval.bm25s_index import BM25sIndex
from tests.support.settings import make_settings


class ThreeChunkStore:
    def load_chunk_nodes(self) -> list[TextNode]:
        return [
            TextNode(id_=f"c{i}", text=text, metadata={"paper_id": f"P{i}", "title": text})
            for i, text in enumerate(["graph transformers", "feedback alignment", "diffusion"])
        ]


def test_bm25_on_a_store_smaller_than_k_warns_nobody(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(tmp_path)
    with caplog.at_level(logging.WARNING):
        index = BM25sIndex(ThreeChunkStore(), settings, "f00d")  # type: ignore[arg-type]
        retriever = index.make_retriever(top_k=100, allowed=None)
        assert retriever is not None
        hits = retriever.retrieve("feedback alignment")
    assert [h.node.metadata["paper_id"] for h in hits] == ["P1"]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
