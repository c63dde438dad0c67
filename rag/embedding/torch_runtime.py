"""The local model through sentence-transformers/torch (`RAG_EMBED_RUNTIME=torch`).

Kept out of `rag.embedding.factory` so that importing `rag` does not import torch (a slow import)
when the default ONNX runtime is used.
"""

from __future__ import annotations

from llama_index.embeddings.huggingface import HuggingFaceEmbedding
from pydantic import PrivateAttr

from rag.embedding.lru import LRUCache, query_cache


class LocalEmbedding(HuggingFaceEmbedding):
    """sentence-transformers embeddings with a cache of query embeddings."""

    _query_cache: LRUCache[str, list[float]] = PrivateAttr(default_factory=query_cache)

    def clear_query_cache(self) -> None:
        self._query_cache.clear()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._query_cache.get_or_compute(query, super()._get_query_embedding)

    def count_tokens(self, texts: list[str]) -> list[int]:
        encoded = self._model.tokenizer(texts, add_special_tokens=True)["input_ids"]
        return [len(ids) for ids in encoded]

    @property
    def dimension(self) -> int:
        dim = self._model.get_embedding_dimension()
        return int(dim) if dim else len(self.get_query_embedding("dimension probe"))
