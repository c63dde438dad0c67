"""A deterministic embedding for the pure-logic unit tier (no model, no download).

Each content term (stemmed, stopwords dropped: rag.text.content_terms) lands in one of
`dim` buckets by a stable hash; the vector is the normalised bucket counts. Texts that
share words are close and texts that share none are orthogonal (up to collisions), so
ranking by cosine means something, unlike llama-index's MockEmbedding (a constant vector).
"""

from __future__ import annotations

import hashlib

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.text import content_terms

DIM = 512


def bag_of_words(text: str, dim: int = DIM) -> list[float]:
    vector = np.zeros(dim, dtype=np.float32)
    for term in content_terms(text):
        bucket = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=4).digest(), "big")
        vector[bucket % dim] += 1.0
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm else vector).tolist()


class HashingEmbedding(BaseEmbedding):
    calls: int = 0  # texts embedded, to check what caches save

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def _get_query_embedding(self, query: str) -> list[float]:
        return bag_of_words(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return bag_of_words(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        self.calls += 1
        return bag_of_words(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self.calls += len(texts)
        return [bag_of_words(t) for t in texts]
