"""The earlier in-memory lexical index, kept for comparison (`RAG_LEXICAL=bm25s`):
llama-index's `BM25Retriever` (bm25s) built from every chunk per store fingerprint,
persisted under `data_dir/bm25/<collection>-<fingerprint>`. It ranks the same tokens with
the same BM25 variant as the store's index (rag.retrieval.bm25), so their scores agree.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores.utils import metadata_dict_to_node

from rag.errors import StoreError

try:  # the `compare` extra: only this comparison mode uses them
    import bm25s
    from bm25s.stopwords import STOPWORDS_EN
    from llama_index.retrievers.bm25 import BM25Retriever
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise StoreError(
        f"RAG_LEXICAL=bm25s needs the comparison packages: pip install -e '.[compare]' ({exc})"
    ) from exc

from rag.retrieval.bm25 import bm25s_path
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.text import STOPWORDS

log = logging.getLogger(__name__)
# bm25s' English list has 33 words ("which", "what", "explain" are not among them); question
# phrasing then outweighs the topic words. Queries drop our fuller list as well.
QUERY_STOPWORDS = sorted(STOPWORDS | set(STOPWORDS_EN))


class StopwordBM25Retriever(BM25Retriever):
    """BM25Retriever that drops stopwords from the query as it did from the corpus.

    The stock retriever tokenizes queries without stopword removal, so "what", "the" and
    "of" add noise scores to every chunk containing them.
    """

    def _tokens(self, query: str, stopwords: list[str] | str) -> Any:
        return bm25s.tokenize(
            query,
            stopwords=stopwords,
            stemmer=self.stemmer if not self.skip_stemming else None,
            token_pattern=self.token_pattern,
            show_progress=False,
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        tokens = self._tokens(query_bundle.query_str, QUERY_STOPWORDS)
        if not tokens.ids or not tokens.ids[0]:
            # Nothing but question words ("a method"): fall back to the corpus's own list.
            tokens = self._tokens(query_bundle.query_str, "en")
        if not tokens.ids or not tokens.ids[0]:
            return []
        k = min(self.similarity_top_k, len(self.corpus))
        mask = np.array(self.corpus_weight_mask) if self.corpus_weight_mask else None
        indexes, scores = self.bm25.retrieve(tokens, k=k, show_progress=False, weight_mask=mask)
        out = []
        for idx, score in zip(indexes[0], scores[0], strict=True):
            if score <= 0:
                continue
            entry = idx if isinstance(idx, dict) else self.corpus[int(idx)]
            out.append(NodeWithScore(node=metadata_dict_to_node(entry), score=float(score)))
        return out


class BM25sIndex:
    """The bm25s index over all chunks, built once per store fingerprint and kept on disk."""

    def __init__(self, store: PaperStore, settings: Settings, fingerprint: str) -> None:
        path = bm25s_path(settings, fingerprint)
        retriever: BM25Retriever | None = None
        if path.exists():
            try:
                retriever = StopwordBM25Retriever.from_persist_dir(str(path), show_progress=False)
            except Exception as exc:  # a corrupt cache is rebuilt, never trusted
                log.warning("BM25 cache %s unreadable (%s); rebuilding", path, exc)
                retriever = None
        if retriever is None:
            nodes = store.load_chunk_nodes()
            if not nodes:
                self.retriever = None
                self.paper_ids: list[str] = []
                return
            # Clamped here: llama-index warns on the user's terminal when k exceeds the
            # number of chunks (a small store), though per-call retrievers clamp k anyway.
            retriever = StopwordBM25Retriever(
                nodes=list[BaseNode](nodes), similarity_top_k=min(50, len(nodes))
            )
            _persist(retriever, path)
        self.retriever = retriever
        self.paper_ids = [str(entry.get("paper_id", "")) for entry in retriever.corpus]

    def make_retriever(self, top_k: int, allowed: set[str] | None) -> BaseRetriever | None:
        """A per-call retriever over the shared index, limited to `allowed` papers."""
        if self.retriever is None:
            return None
        mask = None
        if allowed is not None:
            mask = [int(pid in allowed) for pid in self.paper_ids]
            if not any(mask):
                return None
        retriever = StopwordBM25Retriever(
            existing_bm25=self.retriever.bm25,
            similarity_top_k=min(top_k, len(self.paper_ids)),
            corpus_weight_mask=mask,
        )
        retriever.corpus = self.retriever.corpus  # bm25s keeps no corpus when built from nodes
        return retriever


def _persist(retriever: BM25Retriever, path: Path) -> None:
    root = path.parent
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        retriever.persist(str(tmp), show_progress=False)
        for old in root.iterdir():  # one cache per collection: drop stale fingerprints
            if old.name.startswith(path.name.rsplit("-", 1)[0] + "-") and old != tmp:
                shutil.rmtree(old, ignore_errors=True)
        tmp.rename(path)
    except OSError as exc:  # read-only data dir: serve from memory, say so once
        log.warning("cannot persist the BM25 index to %s: %s", path, exc)
