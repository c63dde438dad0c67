"""The wiring of the answer path over one state of the store, built as one object.

Everything here depends on which papers the store holds (the catalogue, the BM25 index,
the term statistics), so it is built together and swapped whole when an ingest changes
the store (`Assistant.reload`); a question in flight keeps the pipeline it started with.
Building it reads no whole collection of Chroma: the catalogue and the postings come from
the store's lexical index file, synced by the papers that changed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.answer.engine import CitedQueryEngine
from rag.answer.evidence import EvidenceScorer, TermStats
from rag.answer.synthesizer import Synthesizer
from rag.errors import ModelMismatchError
from rag.plan.llm_planner import QuestionPlanner
from rag.plan.parser import QuestionParser
from rag.retrieval.bm25 import BM25Index
from rag.retrieval.retriever import PaperRetriever
from rag.sets.metadata import MetadataAnswerer
from rag.sets.similar import SimilarPapers, similar_answer
from rag.sets.topical import topic_answer
from rag.sets.topics import CLEAR, TopicIndex, TopicScanner
from rag.settings import Settings
from rag.store.catalogue import Catalogue
from rag.store.chroma import Generation, PaperStore
from rag.store.lexical import open_index
from rag.store.paper_records import PaperRecords
from rag.types import Answer, Filters, QueryPlan

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from rag.retrieval.bm25s_index import BM25sIndex


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
    generation: Generation | None  # the store state it was built from (None: never synced)
    fingerprint: str  # a short key of that state (PaperStore.state_key)
    catalogue: PaperRecords
    metadata: Catalogue
    planner: QuestionPlanner
    sets: MetadataAnswerer
    retriever: PaperRetriever
    scorer: EvidenceScorer
    engine: CitedQueryEngine
    store: PaperStore
    embed_model: BaseEmbedding
    _lazy: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @classmethod
    def build(
        cls,
        settings: Settings,
        store: PaperStore,
        embed_model: BaseEmbedding,
        synthesizer: Synthesizer,
        planner_llm: LLM | None = None,
    ) -> Pipeline:
        check_store_model(settings, store)
        # 1. the index that lives with the store, brought in step with it (only papers
        #    changed since its last sync are read from Chroma; rag.store.lexical): one
        #    file holds both the BM25 postings and the paper records of one store state
        index = open_index(settings, store)
        generation = index.synced_generation()
        fingerprint = store.state_key(generation) if generation else "empty"
        # 2. the catalogue, read from that file as asked for (no Chroma scan, nothing read
        #    whole), with its metadata look-ups, and the parser and exact answers using them
        metadata = index.catalogue()
        catalogue = metadata.papers
        if settings.lexical == "store":
            bm25: BM25Index | BM25sIndex = BM25Index(store, settings, fingerprint, index)
            # the chunk -> paper map filters need, read beside the open, not in a question
            threading.Thread(target=index.warm_filters, name="warm-filters", daemon=True).start()
        else:  # the earlier in-memory index, for comparison; keyed by the same state
            from rag.retrieval.bm25s_index import BM25sIndex  # bm25s: only in this mode

            bm25 = BM25sIndex(store, settings, fingerprint)
        # 3. retrieval: dense over Chroma + BM25, fused per paper
        retriever = PaperRetriever(settings.retrieval, store, embed_model, metadata, bm25)
        # 4. evidence: sentence scoring with the catalogue's term statistics (counts kept
        #    in the same file, read per word: rag.store.paper_terms)
        scorer = EvidenceScorer(embed_model, TermStats(index.paper_counter(), len(catalogue)))
        # 5. the engine that writes, validates and abstains
        engine = CitedQueryEngine(
            retrieval=settings.retrieval,
            answering=settings.answering,
            retriever=retriever,
            scorer=scorer,
            synthesizer=synthesizer,
        )
        return cls(
            generation,
            fingerprint,
            catalogue,
            metadata,
            QuestionPlanner(QuestionParser(metadata), planner_llm),
            MetadataAnswerer(metadata),
            retriever,
            scorer,
            engine,
            store,
            embed_model,
        )

    def topics(self) -> TopicScanner:
        """The topic scanner, built on first use (it reads every chunk vector once)."""
        with self._lock:
            if "topics" not in self._lazy:
                vectors, papers = self.store.chunk_vectors()
                index = TopicIndex(self.catalogue, vectors, papers)
                self._lazy["topics"] = TopicScanner(index, self.embed_model)
            return self._lazy["topics"]  # type: ignore[no-any-return]

    def answer_set(
        self, question: str, plan: QueryPlan, standalone: str, given: Filters | None
    ) -> Answer:
        """A question about the conference as a set: exact from the catalogue (metadata)
        or by scanning every paper for the topic, within the question's constraints."""
        if plan.kind == "metadata" or plan.unresolved:  # a name to ask back about first
            return self.sets.answer(question, plan, standalone)
        allowed = self._allowed(plan, given)
        source = self.catalogue.get(plan.like_paper) if plan.kind == "similar" else None
        if source is not None:
            similar = SimilarPapers(self.topics().index)
            return similar_answer(question, plan, standalone, source, similar, allowed)
        return topic_answer(question, plan, standalone, self.topics(), allowed)

    def _allowed(self, plan: QueryPlan, given: Filters | None) -> set[str] | None:
        """The papers the question and the caller's filters leave (None: every paper)."""
        filters = self.filters_for(plan, given)
        if filters is None or filters.is_empty():
            return None
        return self.metadata.matching(filters)

    def takes_set_path(self, plan: QueryPlan, filters: Filters | None) -> bool:
        """Metadata, counts and comparisons always; papers like a paper the catalogue knows;
        a topic list when every word of the
        topic occurs in the catalogue and the scan finds at least one paper clearly about
        it (else the cited answer, which abstains where the abstracts say nothing)."""
        if plan.kind in ("metadata", "count", "compare") or plan.unresolved:
            return True
        if plan.kind == "similar":
            return plan.like_paper in self.catalogue
        if plan.kind != "list":
            return False
        scanner = self.topics()
        if scanner.unknown_words(plan.topic):
            return False
        members = scanner.members(plan.topic, self._allowed(plan, filters))
        return any(m.probability >= CLEAR for m in members)

    def filters_for(self, plan: QueryPlan, given: Filters | None) -> Filters | None:
        """The question's own constraints added to the caller's filters (both must hold)."""
        c = plan.constraints
        if not (c.authors or c.affiliations or c.statuses):
            return given
        ids: set[str] | None = None
        for name in c.authors:
            found = self.metadata.people_named(name)
            ids = found if ids is None else ids & found
        for typed in c.affiliations:
            found = set(self.metadata.match_institution(typed).papers)
            ids = found if ids is None else ids & found
        merged = (
            given.model_copy()
            if given is not None
            else Filters(status=None, author=None, title=None, paper_ids=None)
        )
        if ids is not None:
            merged.paper_ids = sorted(ids & set(merged.paper_ids) if merged.paper_ids else ids)
        if c.statuses and not merged.status:
            merged.status = list(c.statuses)
        return merged
