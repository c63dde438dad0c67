"""BM25 over all chunks, as a llama-index retriever over the store's lexical index.

`BM25Index` reads the lexical index that lives with the store (rag.lexical.index: on disk,
synced by paper, opened in milliseconds at any size).
"""

from __future__ import annotations

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle

from rag.lexical.index import LexicalIndex, open_index
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.store.nodes import node_from_record


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
