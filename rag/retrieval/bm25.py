"""BM25 over all chunks, as a llama-index retriever over the store's lexical index.

`BM25Index` (the default, `RAG_LEXICAL=store`) reads the lexical index that lives with the
store (rag.lexical.index: on disk, synced by paper, opened in milliseconds at any size).
The earlier in-memory bm25s index (`RAG_LEXICAL=bm25s`, kept for comparison) is in
rag.retrieval.bm25s_index, imported only in that mode, so other starts never import bm25s
and scipy.
"""

from __future__ import annotations

from pathlib import Path

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle

from rag.lexical.index import LexicalIndex, open_index
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.store.nodes import node_from_record


def bm25_index_path(settings: Settings, fingerprint: str) -> Path:
    """Where the lexical index of one store state lives: with the store's lexical index
    (the default), its folder, synced by `rag ingest`; with bm25s, one folder per state."""
    if settings.lexical == "store":
        from rag.lexical.index import index_dir

        return index_dir(settings)
    return bm25s_path(settings, fingerprint)


def bm25s_path(settings: Settings, fingerprint: str) -> Path:
    return settings.data_dir / "bm25" / f"{settings.collection}-{fingerprint}"


class LexicalRetriever(BaseRetriever):
    """One call's retriever over the store's lexical index, limited to `allowed` papers."""

    def __init__(self, index: LexicalIndex, top_k: int, allowed: set[str] | None) -> None:
        super().__init__(callback_manager=CallbackManager([]))
        self.index = index
        self.top_k = top_k
        self.allowed = allowed

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.index.search(query_bundle.query_str, self.top_k, self.allowed)
        return [
            NodeWithScore(node=node_from_record(h.chunk_id, h.text, h.meta), score=h.score)
            for h in hits
        ]


class BM25Index:
    """The store's lexical index, synced with the store when opened (rag.lexical.index)."""

    def __init__(
        self,
        store: PaperStore,
        settings: Settings,
        fingerprint: str,
        index: LexicalIndex | None = None,
    ) -> None:
        del fingerprint  # the index follows the store's generation, not a fingerprint
        # `index`: one already synced (the pipeline's, which its catalogue was read from).
        self.index = index if index is not None else open_index(settings, store)

    def make_retriever(self, top_k: int, allowed: set[str] | None) -> BaseRetriever | None:
        if allowed is not None and not allowed:
            return None
        return LexicalRetriever(self.index, top_k, allowed)
