"""The wiring of the answer path over one state of the store, built as one object.

Everything here depends on which papers the store holds (the catalogue, the BM25 index,
the term statistics), so it is built together and swapped whole when an ingest changes
the store (`Assistant.reload`); a question in flight keeps the pipeline it started with.
"""

from __future__ import annotations

from dataclasses import dataclass

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.answer.engine import CitedQueryEngine
from rag.answer.evidence import EvidenceScorer, TermStats
from rag.answer.synthesizer import Synthesizer
from rag.errors import ModelMismatchError
from rag.retrieval.bm25 import BM25Index
from rag.retrieval.retriever import PaperRetriever
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.types import Paper


def check_store_model(settings: Settings, store: PaperStore) -> None:
    """Query vectors from another model (or numeric variant) would rank silently wrong."""
    recorded = store.recorded_model()
    if recorded is not None and recorded[0] != settings.embedding_id():
        raise ModelMismatchError(
            f"the store was built with {recorded[0]}, but this process embeds with "
            f"{settings.embedding_id()}; set RAG_EMBED_MODEL/RAG_EMBED_RUNTIME to match "
            "or run `rag ingest --rebuild`"
        )


@dataclass(frozen=True)
class Pipeline:
    fingerprint: str
    catalogue: dict[str, Paper]
    retriever: PaperRetriever
    scorer: EvidenceScorer
    engine: CitedQueryEngine

    @classmethod
    def build(
        cls,
        settings: Settings,
        store: PaperStore,
        embed_model: BaseEmbedding,
        synthesizer: Synthesizer,
        fingerprint: str,
    ) -> Pipeline:
        check_store_model(settings, store)
        # 1. the catalogue: every complete paper, by id
        catalogue = store.load_papers()
        # 2. the lexical index of this store state (read from disk, or built and saved)
        bm25 = BM25Index(store, settings, fingerprint)
        # 3. retrieval: dense over Chroma + BM25, fused per paper
        retriever = PaperRetriever(settings.retrieval, store, embed_model, catalogue, bm25)
        # 4. evidence: sentence scoring with the catalogue's term statistics
        scorer = EvidenceScorer(embed_model, TermStats(catalogue))
        # 5. the engine that writes, validates and abstains
        engine = CitedQueryEngine(
            retrieval=settings.retrieval,
            answering=settings.answering,
            retriever=retriever,
            scorer=scorer,
            synthesizer=synthesizer,
        )
        return cls(fingerprint, catalogue, retriever, scorer, engine)
