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
from rag.answer.evidence import EvidenceScorer
from rag.answer.synthesizer import Synthesizer
from rag.answer.term_stats import TermStats
from rag.catalogue.catalogue import Catalogue
from rag.catalogue.records import PaperRecords
from rag.errors import ModelMismatchError
from rag.lexical.index import open_index
from rag.plan.llm_planner import QuestionPlanner
from rag.plan.parser import QuestionParser
from rag.plan.within import first_asked
from rag.retrieval.bm25 import BM25Index
from rag.retrieval.retriever import PaperRetriever
from rag.routing import Route, Router
from rag.sets.answer_rows import plural, status_of_them, status_share, statuses_said
from rag.sets.judgement import TopicJudge
from rag.sets.metadata import MetadataAnswerer
from rag.sets.named import NamedPapers, named_comparison
from rag.sets.screening import LLMScreen, VerdictCache
from rag.sets.selection import counted_each
from rag.sets.similar import SimilarPapers, similar_answer
from rag.sets.topic_answers import topic_answer, topic_share
from rag.sets.topic_index import TopicIndex
from rag.sets.topics import TopicScanner
from rag.settings import Settings
from rag.store.chroma import Generation, PaperStore
from rag.types import Answer, Filters, Paper, QueryPlan, SuggestedTopic

if TYPE_CHECKING:
    from llama_index.core.llms import LLM


def _screen(settings: Settings, llm: LLM | None) -> LLMScreen | None:
    if llm is None or not settings.llm_judge or settings.llm_judge_papers == 0:
        return None
    cache = VerdictCache(settings.data_dir / "judgements.sqlite")
    return LLMScreen(llm, cache, settings.llm_model, settings.llm_judge_batch)


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
    records: PaperRecords  # every paper, by id
    catalogue: Catalogue  # who wrote what, from where, with what status; names
    planner: QuestionPlanner
    metadata_answers: MetadataAnswerer
    retriever: PaperRetriever
    scorer: EvidenceScorer
    engine: CitedQueryEngine
    store: PaperStore
    embed_model: BaseEmbedding
    screen: LLMScreen | None = None  # the LLM judge of topic membership, if configured
    screened: int = 0  # most papers it reads per question
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
        judge_llm: LLM | None = None,
    ) -> Pipeline:
        check_store_model(settings, store)
        # 1. the index that lives with the store, brought in step with it (only papers
        #    changed since its last sync are read from Chroma; rag.lexical.index): one
        #    file holds both the BM25 postings and the paper records of one store state
        index = open_index(settings, store)
        generation = index.synced_generation()
        fingerprint = store.state_key(generation) if generation else "empty"
        # 2. the catalogue, read from that file as asked for (no Chroma scan, nothing read
        #    whole), with its metadata look-ups, and the parser and exact answers using them
        metadata = index.catalogue()
        catalogue = metadata.papers
        bm25 = BM25Index(store, settings, fingerprint, index)
        # the chunk -> paper map filters need, read beside the open, not in a question
        threading.Thread(target=index.warm_filters, name="warm-filters", daemon=True).start()
        # 3. the catalogue's term statistics (counts kept in the same file, read per word:
        #    rag.catalogue.terms), for retrieval's rare names and the evidence
        stats = TermStats(
            index.paper_counter(),
            len(catalogue),
            index.prefix_finder(),
            # "In Patil, Du and Tibshirani's analysis": authors' family names are the catalogue's
            lambda word: (
                metadata.has_person(word)
                or (word[:1].isupper() and bool(metadata.family_named(word)))
                or metadata.knows_institution(word)
            ),
            lambda name: len(metadata.papers_naming(name)),
        )
        # 4. retrieval: dense over Chroma + BM25, fused per paper
        retriever = PaperRetriever(
            settings.retrieval, store, embed_model, metadata, bm25, stats.doc_freq
        )
        # 5. evidence: sentence scoring with those statistics
        scorer = EvidenceScorer(embed_model, stats)
        # 6. the engine that writes, validates and abstains
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
            QuestionPlanner(QuestionParser(metadata, stats.doc_freq), planner_llm),
            MetadataAnswerer(metadata),
            retriever,
            scorer,
            engine,
            store,
            embed_model,
            _screen(settings, judge_llm),
            settings.llm_judge_papers,
        )

    def topics(self) -> TopicScanner:
        """The topic scanner, built on first use (it reads every chunk vector once)."""
        with self._lock:
            if "topics" not in self._lazy:
                vectors, papers = self.store.chunk_vectors()
                index = TopicIndex(self.records, vectors, papers)
                self._lazy["topics"] = TopicScanner(index, self.embed_model)
            return self._lazy["topics"]  # type: ignore[no-any-return]

    def judge(self) -> TopicJudge:
        """The topic judge over the topic scan (built with it, on first use)."""
        scanner = self.topics()
        with self._lock:
            if "judge" not in self._lazy:
                self._lazy["judge"] = TopicJudge(scanner, self.screen, self.screened)
            return self._lazy["judge"]  # type: ignore[no-any-return]

    @property
    def router(self) -> Router:
        with self._lock:
            if "router" not in self._lazy:
                named = NamedPapers(self.catalogue, self._described_paper)
                self._lazy["router"] = Router(self.catalogue, self.judge, named)
            return self._lazy["router"]  # type: ignore[no-any-return]

    def route(self, plan: QueryPlan, filters: Filters | None) -> Route:
        """Which way the question is answered, with what the decision computed (rag.routing)."""
        return self.router.route(plan, filters)

    def _described_paper(self, description: str) -> Paper | None:
        found = self.retriever.retrieve(description, 1, "hybrid", None)
        return found[0].paper if found else None

    def answer(self, route: Route, question: str, standalone: str) -> Answer:
        """The answer of a route other than `paper` (the cited answer is the engine's)."""
        plan = route.plan
        if route.name == "metadata" and plan.not_about and route.judgement is not None:
            # "… not about robotics": every selected paper, less those judged about it
            about = {m.paper.id: m.clearly for m in route.judgement.members}
            return self.metadata_answers.answer(question, plan, standalone, route.allowed, about)
        if route.name == "metadata":
            answer = self.metadata_answers.answer(question, plan, standalone, route.allowed)
            status = status_of_them(standalone or question)
            aggregate = answer.aggregate
            if status and not plan.constraints.statuses and aggregate and aggregate.papers:
                # "How many papers mention BERT, and which are orals?": all, and how many are
                answer.answer = f"{status_share(aggregate.papers, status)}\n\n{answer.answer}"
            return answer
        if route.name == "similar" and route.like is not None:
            similar = SimilarPapers(self.topics().index)
            return similar_answer(question, plan, standalone, route.like, similar, route.allowed)
        if route.named is not None:
            return named_comparison(question, plan, standalone, route.named)
        assert route.judgement is not None, f"route {route.name} carries no judgement"
        suggestions = self.suggestions(route) if route.judgement.verdict == "described" else []
        within = ""
        if route.allowed is not None:  # the papers the topic was judged among, said
            filtered = route.given is not None and not route.given.is_empty()
            within = self.metadata_answers.selection_said(plan, len(route.allowed), filtered)
        if plan.not_about:  # "… not about robotics": those judged about it left out
            without = f"less those about “{plan.not_about}”"
            within = (
                f"{within}, {without}" if within else f"the papers not about “{plan.not_about}”"
            )
        answer = topic_answer(question, plan, standalone, route.judgement, within, suggestions)
        places = plan.constraints.any_of
        if len(places) > 1 and route.judgement.verdict != "described":
            # "which has more papers on RL, Oxford or Cambridge?": each one's papers about it
            clear = {m.paper.id for m in route.judgement.members if m.clearly}
            each = ", ".join(f"{p} {n}" for p, n in counted_each(self.catalogue, places, clear))
            said = f"Clearly about “{plan.topic}”: {each} (a paper may count for each)."
            answer.answer = f"{said}\n{answer.answer}"
        first = first_asked(standalone or question, self.catalogue.knows)
        if first and len(route.judgement.facets) > 1:
            # "How many papers are about X, and how many of them are about Y?": X's too
            n = self.judge().clearly(first, route.allowed)
            lead = f"{plural(n, 'ICML 2024 paper')} {'is' if n == 1 else 'are'} clearly about"
            answer.answer = f"{lead} “{first}”. Of them:\n\n{answer.answer}"
        if plan.statistic == "share" and route.judgement.verdict != "described":
            if route.allowed is not None and not plan.share_of and not plan.share_of_topic:
                # "What fraction of Meta's papers are about LLMs?": of the papers judged among
                whole = (len(route.allowed), within.removeprefix("the ").split(" ", 1)[-1], "")
                return topic_share(answer, route.judgement, *whole)
            return topic_share(answer, route.judgement, *self._share_whole(plan))
        return answer

    def _share_whole(self, plan: QueryPlan) -> tuple[int, str, str]:
        """What a topic's share is of: all papers, or those of `share_of`'s statuses, or
        (`share_of_topic`) the papers clearly about the topic among them; its words; and
        for the last, what the part of them is ("spotlights")."""
        statuses = plan.share_of
        base = self.catalogue.matching(Filters(status=statuses)) if statuses else None
        nouns = statuses_said(statuses, plural=True) or "papers"
        if plan.share_of_topic:
            whole = self.judge().judge(plan.topic, base).clearly
            part = [s for s in plan.constraints.statuses if s not in statuses]
            said = statuses_said(part) or "within the question's other conditions"
            return whole, f"ICML 2024 {nouns} clearly about “{plan.topic}”", said
        whole = len(self.catalogue) if base is None else len(base)
        return whole, f"ICML 2024 {nouns}", ""

    def suggestions(self, route: Route) -> list[SuggestedTopic]:
        """The named topics a described topic's judgement offers, each as the question
        that asks for it by name."""
        assert route.judgement is not None
        kind = "How many" if route.plan.kind == "count" else "Which"
        return [
            SuggestedTopic(
                topic=name, count=count, question=f"{kind} ICML 2024 papers are about {name}?"
            )
            for name, count in route.judgement.suggestions
        ]

    def answer_set(
        self, question: str, plan: QueryPlan, standalone: str, given: Filters | None
    ) -> Answer:
        """A set answer for a plan built by the caller (`rag papers --topic`): routed as a
        question with that plan would be, never to the cited answer."""
        route = self.route(plan, given)
        if route.cited:
            judgement = self.judge().judge(plan.topic, route.allowed)
            route = Route(plan.kind, plan, route.filters, route.allowed, judgement=judgement)
        return self.answer(route, question, standalone)
