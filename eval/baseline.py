"""The reference every comparison includes: plain llama-index over the same Chroma store.

`VectorStoreIndex.from_vector_store(<the same ChromaVectorStore>, embed_model=<the same
model>).as_retriever(similarity_top_k=10)`: top-10 chunks, no BM25, no fusion, no
per-paper grouping. Its ranking is the chunks' paper ids in order; the metrics
de-duplicate them (so it may rank fewer than 10 distinct papers, which is the point).
"""

from __future__ import annotations

import time
from typing import Any

from llama_index.core import VectorStoreIndex

BASELINE_NAME = "baseline"
BASELINE_TOP_K = 10


class BaselineRetriever:
    def __init__(self, vector_store: Any, embed_model: Any, top_k: int = BASELINE_TOP_K) -> None:
        index = VectorStoreIndex.from_vector_store(vector_store, embed_model=embed_model)
        self.retriever = index.as_retriever(similarity_top_k=top_k)
        self.top_k = top_k

    def retrieve(self, question: str) -> tuple[list[str], float]:
        """(paper id of each retrieved chunk, in rank order; wall time in ms)."""
        started = time.perf_counter()
        nodes = self.retriever.retrieve(question)
        elapsed = (time.perf_counter() - started) * 1000
        return [str(n.node.metadata.get("paper_id", "")) for n in nodes], elapsed

    def describe(self) -> dict[str, Any]:
        return {
            "name": BASELINE_NAME,
            "kind": "baseline",
            "retriever": "llama-index VectorStoreIndex.from_vector_store(...).as_retriever",
            "similarity_top_k": self.top_k,
            "answers": None,
        }
