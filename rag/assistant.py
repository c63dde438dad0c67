"""The public entry point: one object per process that answers, streams and retrieves.

A thin facade over the stages: it builds the collaborators once (embedding model, store,
LLM, answer writer), keeps the `Pipeline` of the current store state (rebuilt by
`reload()` after an ingest), checks every question, and rewrites follow-ups.
"""

from __future__ import annotations

import logging
import operator
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any, NamedTuple

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.answer.engine import CitedQueryEngine, Event
from rag.answer.evidence import EvidenceScorer
from rag.answer.followups import FollowUpRewriter
from rag.answer.inputs import checked_filters, checked_history, checked_question
from rag.answer.llm import build_llm
from rag.answer.synthesizer import build_synthesizer
from rag.answer.warmup import AnswerActivity, EvidenceWarmer, Warmup
from rag.answer.wording import says_how
from rag.catalogue.catalogue import Catalogue
from rag.catalogue.institutions import top_institutions
from rag.embedding.factory import build_embed_model
from rag.errors import AnswerError, EmptyStoreError
from rag.pipeline import Pipeline
from rag.plan.byline import BylineBeside, byline_asked, byline_beside, byline_of, who_asked
from rag.plan.turns import asked_of_them, followed_up
from rag.plan.within import two_sets
from rag.retrieval.retriever import PaperRetriever
from rag.routing import Route
from rag.sets import reported
from rag.sets.digest import digest
from rag.sets.institution_kinds import kinds_compared
from rag.sets.named import (
    StatusOfIt,
    StatusSaid,
    defined_asked,
    earlier_work,
    introducing,
    pinned,
    status_note,
    status_of_it,
    status_of_it_note,
    status_said,
    titled_in,
    without_owners,
)
from rag.settings import RetrievalMode, Settings
from rag.store.chroma import PaperStore
from rag.types import Answer, ChatMessage, Citation, Filters, Paper, QueryPlan, RetrievedPaper

log = logging.getLogger(__name__)
TYPED_TERSELY = 10  # a query this short is typed fast; its unknown words are slips


def _byline_plan(pipeline: Pipeline, question: str) -> QueryPlan | None:
    """The plan of a question about one named paper's byline or status; None otherwise.
    A name only an abstract writes ("RCGP") is asked of the paper introducing it."""
    plan = pipeline.planner.plan(question)
    if plan.like_paper and plan.written_by:
        return plan
    asked = byline_asked(question) or who_asked(question)
    paper = introducing(pipeline.catalogue, asked.name) if asked and asked.name else None
    if asked is None or paper is None:
        return None
    plan = pipeline.planner.plan(question.replace(asked.said, f"“{paper.title}”", 1))
    return plan if plan.like_paper == paper.id and plan.written_by else None


def _set_only(
    pipeline: Pipeline, question: str, filters: Filters | None, plan: QueryPlan | None = None
) -> Answer | None:
    """A set question's answer from the catalogue (its `plan` when already read); None
    where it would be the cited one."""
    plan = plan or pipeline.planner.plan(question)
    route = pipeline.route(plan, filters)
    return None if route.cited else pipeline.answer(route, question, question)


def _joined(question: str, standalone: str, answers: list[Answer]) -> Answer:
    """Set answers one after another as one answer, numbered on from each other."""
    texts: list[str] = []
    citations: list[Citation] = []
    for answer in answers:
        shift = len(citations)
        texts.append(_renumbered(answer.answer, partial(operator.add, shift)))
        citations += [c.model_copy(update={"n": c.n + shift}) for c in answer.citations]
    first = answers[0]
    return first.model_copy(
        update={
            "question": question,
            "standalone_question": standalone,
            "answer": "\n\n".join(texts),
            "citations": citations,
            "aggregate": None,  # two sets: each said in its text, neither the answer's
            "suggested_topics": [t for a in answers for t in a.suggested_topics],
        }
    )


def _renumbered(text: str, number: Callable[[int], int]) -> str:
    """The text with each citation marker [n] as `number(n)`."""
    return re.sub(r"\[(\d+)\]", lambda m: f"[{number(int(m.group(1)))}]", text)


def _final(events: Iterator[Event]) -> Answer:
    """The answer an event stream ends with (its deltas read through)."""
    answer = None
    for kind, payload in events:
        if kind == "answer" and isinstance(payload, Answer):
            answer = payload
    assert answer is not None, "an answer's events end with the answer"
    return answer


def _status_noted(answer: Answer, said: StatusSaid | None) -> str:
    """ "*Genie* was an oral …, not a spotlight [1].", cited as the answer cites the paper;
    "" where the question said no status or the right one."""
    note = status_note(said) if said is not None else ""
    if note and said is not None:
        cited = [c.n for c in answer.citations if c.paper_id == said.paper.id]
        note = f"{note[:-1]} [{cited[0]}]." if cited else note
    return note


def _of_it_noted(pipeline: Pipeline, answer: Answer, asked: StatusOfIt | None) -> str:
    """The status asked of the one paper a cited answer is from ("Yes: *X* was an oral …
    [1]."); "" for a set answer, an abstention or no status asked."""
    if asked is None or answer.aggregate is not None or answer.abstained or not answer.citations:
        return ""
    first = answer.citations[0]
    paper = pipeline.catalogue.papers.get(first.paper_id)
    return status_of_it_note(asked, paper, first.n) if paper is not None else ""


def _found_byline(
    pipeline: Pipeline, beside: BylineBeside, answer: Answer, filters: Filters | None
) -> Answer | None:
    """The byline of the paper a described paper's answer found (its first citation),
    asked of that paper by its title; None when the answer found none."""
    if answer.abstained or not answer.citations:
        return None
    first = answer.citations[0]
    question = byline_of(beside.byline, beside.said, first.title)
    plan = _byline_plan(pipeline, question)
    if plan is None or plan.like_paper != first.paper_id:
        return None
    return _set_only(pipeline, question, filters, plan)


def _cited_beside(answer: Answer, byline: Answer) -> str:
    """The byline answer's text, its citations renumbered into `answer`'s (a paper both
    cite keeps its number; another is added)."""
    numbers = {c.paper_id: c.n for c in answer.citations}
    renumbered: dict[int, int] = {}
    for c in byline.citations:
        if c.paper_id not in numbers:
            numbers[c.paper_id] = max(numbers.values(), default=0) + 1
            answer.citations.append(c.model_copy(update={"n": numbers[c.paper_id]}))
        renumbered[c.n] = numbers[c.paper_id]
    return _renumbered(byline.answer, lambda n: renumbered.get(n, n))


# the content part asks of other papers or names: "which other papers …", "how many …"
_ASKS_OTHERS = re.compile(
    r"\b(?:papers|works|studies|articles|others?|how\s+many|which\s+ones|any)\b", re.I
)


def _of_it(content: str, paper: Paper, headed: Callable[[str], Paper | None]) -> bool:
    """Whether a byline's content part asks only of the paper the byline named ("what is
    the conclusion?", "what is its ImageNet accuracy?"), not of others or of another paper
    the content names by its title's name ("… and what is Timer?")."""
    if _ASKS_OTHERS.search(content):
        return False
    title = paper.title.lower()
    names = re.findall(r"(?<![\w-])[\w-]*[A-Z][\w+-]*", content)[1:]  # the first word opens it
    return not any(
        n.lower() not in title and (other := headed(n)) is not None and other.id != paper.id
        for n in names
    )


def _whole(answer: Answer, started: float) -> Iterator[Event]:
    """An answer written at once (from the catalogue): its text as one delta, then it."""
    answer.timings_ms = {"total": round((time.perf_counter() - started) * 1000, 2)}
    yield ("delta", answer.answer)
    yield ("answer", answer)


class _Asked(NamedTuple):
    """One question as the answer's steps take it."""

    question: str
    messages: list[ChatMessage]
    top_k: int | None
    mode: RetrievalMode | None
    started: float  # when answering began (perf_counter)


class Assistant:
    """Answers questions over one store; safe to share between threads.

    assistant = Assistant.from_settings(Settings())
    answer = assistant.ask("What is GraphsGPT pretrained on?")
    """

    def __init__(self, settings: Settings, store: PaperStore, embed_model: BaseEmbedding) -> None:
        self.settings = settings
        self.store = store
        self.embed_model = embed_model
        self.llm = build_llm(settings)
        self.synthesizer = build_synthesizer(settings, self.llm)
        self.followups = FollowUpRewriter(self.llm)
        self.activity = AnswerActivity()
        self.warmup = Warmup(self.activity)
        self.pipeline: Pipeline | None = None
        # One rebuild at a time (the store watcher and a UI page load may both ask); the
        # pipeline in use is replaced only when the new one is complete.
        self._reload_lock = threading.Lock()
        self.reload()

    @classmethod
    def from_settings(cls, settings: Settings, store: PaperStore | None = None) -> Assistant:
        """The assistant the settings describe (store and embedding model built here)."""
        return cls(settings, store or PaperStore(settings), build_embed_model(settings))

    # --- the current store state -----------------------------------------------------
    def reload(self) -> bool:
        """Rebuild the pipeline if the store changed since the last load (after an ingest).

        Questions keep being answered by the current pipeline while the new one is built
        (catalogue, BM25 index): each takes the pipeline once, when it starts. The check is
        the store's generation (one small read; every committed ingest moves it), not a
        scan of every paper record, which grows with the store."""
        with self._reload_lock:
            generation = self.store.generation()
            if self.pipeline is not None and generation == self.pipeline.generation:
                return False
            pipeline = Pipeline.build(
                self.settings,
                self.store,
                self.embed_model,
                self.synthesizer,
                planner_llm=self.llm if self.settings.llm_planner else None,
                judge_llm=self.llm,
            )
            self.pipeline = pipeline  # one reference swap: atomic for readers
            self.warmup.restart(pipeline.scorer, pipeline.records.values())
            return True

    def _current(self) -> Pipeline:
        assert self.pipeline is not None  # built in __init__
        return self.pipeline

    @property
    def fingerprint(self) -> str:
        return self._current().fingerprint

    @property
    def papers(self) -> Mapping[str, Paper]:
        """Every complete paper of the store, by id (read from the index file as asked for)."""
        return self._current().records

    @property
    def catalogue(self) -> Catalogue:
        """The papers' author, institution, status and title look-ups."""
        return self._current().catalogue

    @property
    def retriever(self) -> PaperRetriever:
        return self._current().retriever

    @property
    def scorer(self) -> EvidenceScorer:
        return self._current().scorer

    @property
    def engine(self) -> CitedQueryEngine:
        return self._current().engine

    # --- warm-up and stats ------------------------------------------------------------
    def start_warmup(self) -> EvidenceWarmer:
        """Embed all abstract sentences in a background thread (rag.answer.warmup says why),
        and build the topic scan's index and the institutions' groups in another, so the
        first topic question or institution ranking does not wait for them."""
        pipeline = self._current()
        threading.Thread(target=_build_topic_index, args=(pipeline,), daemon=True).start()
        return self.warmup.start(self.scorer, self.papers.values())

    def stop_warmup(self) -> None:
        self.warmup.stop()

    @property
    def warmer(self) -> EvidenceWarmer | None:
        return self.warmup.warmer

    def stats(self) -> dict[str, Any]:
        """Papers, chunks, embedding model, store, backend and warm-up progress."""
        papers, chunks = self.store.counts()
        recorded = self.store.recorded_model()
        (_, generation), writing = self.store.commit_state()
        serving = self._current().generation
        return {
            "ingest": {
                "complete": not writing,
                "store_generation": generation,
                "serving_generation": serving[1] if serving else None,
                "note": (
                    "an ingest is writing or was interrupted: counts may be partial until "
                    "it finishes (re-run `rag ingest` to finish an interrupted one)"
                    if writing
                    else ""
                ),
            },
            "papers": papers,
            "chunks": chunks,
            "embedding_model": recorded[0] if recorded else self.settings.embed_model,
            "embedding_dim": recorded[1] if recorded else None,
            "store": self.settings.store_location(),
            "collection": self.settings.collection,
            "backend": self.synthesizer.name,
            "llm_model": self.synthesizer.model,
            "retrieval_mode": self.settings.retrieval_mode,
            "top_k": self.settings.top_k,
            "evidence_warmup": self.warmup.progress(),
        }

    # --- answering --------------------------------------------------------------------
    def _checked(self, question: str, top_k: int | None, mode: str | None) -> str:
        question = checked_question(question, self.settings.limits, top_k, mode)
        if not self.catalogue:
            raise EmptyStoreError(
                f"the store ({self.settings.store_location()}) holds no papers; run `rag ingest`"
            )
        return question

    def stream(
        self,
        question: str,
        history: list[ChatMessage] | list[dict[str, str]] | None = None,
        top_k: int | None = None,
        mode: RetrievalMode | None = None,
        filters: Filters | dict[str, Any] | None = None,
    ) -> Iterator[Event]:
        """Answer `question`, streaming: ("delta", text) events as the answer is written,
        then one ("answer", Answer). Follow-ups in `history` are rewritten into a
        standalone question first; `filters` restrict which papers may be used."""
        question = self._checked(question, top_k, mode)
        messages = checked_history(history, self.settings.limits)
        filters = checked_filters(filters)
        pipeline = self._current()
        with self.activity.answering():
            started = time.perf_counter()
            digested = digest(question, messages, pipeline.catalogue) if messages else None
            if digested is not None:  # "What are they about?": a line of each paper listed
                yield from _whole(digested, started)
                return
            if messages:  # "Which of them are orals?": the last set question, narrowed
                merged = followed_up(question, messages, pipeline.planner.plan, pipeline.catalogue)
                route = pipeline.route(merged.plan, filters) if merged is not None else None
                if merged is not None and route is not None and not route.cited:
                    yield from _whole(pipeline.answer(route, question, merged.standalone), started)
                    return
            # "Which of them reports the biggest speedup?": asked of the topic just listed
            superlative = (
                asked_of_them(question, messages, pipeline.planner.plan, pipeline.catalogue)
                if messages
                else None
            )
            standalone = superlative or self.followups.standalone(
                question,
                messages,
                lambda name: defined_asked(f"What is {name}?", pipeline.catalogue) is not None,
            )
            condense_ms = (time.perf_counter() - started) * 1000
            said = status_said(standalone, pipeline.catalogue)
            if said is not None:  # "the spotlight paper Genie": no set, a status to check
                standalone = said.question
            pair = two_sets(standalone, pipeline.catalogue.knows)
            both = [_set_only(pipeline, q, filters) for q in pair] if pair else []
            if both and all(both):  # "List the papers on A, then the ones on B": each
                yield from _whole(_joined(question, standalone, both), started)  # type: ignore[arg-type]
                return
            asked = _Asked(question, messages, top_k, mode, started)
            beside = byline_beside(
                standalone,
                lambda q: _byline_plan(pipeline, q),
                lambda q: pipeline.planner.plan(q).kind,
            )
            if beside is not None:  # "Who wrote Medusa, and what speedup does it report?"
                answer = self._beside(pipeline, asked, standalone, beside, filters)
                if answer is not None:
                    note = _status_noted(answer, said)
                    answer.answer = "\n\n".join(filter(None, [answer.answer, note]))
                    yield from _whole(answer, started)
                    return
            of_it = status_of_it(standalone) if said is None else None
            if of_it is not None:  # "…: what does it prove, and is it an oral?": the status
                # said of the paper the rest finds, else the question as asked
                found = _final(self._answered(pipeline, asked, of_it.question, filters))
                if found.abstained:  # "What is GaLore about? did it get a spotlight?"
                    yield from self._answered(pipeline, asked, of_it.asked, filters)
                    return
                note = _of_it_noted(pipeline, found, of_it)
                found.answer = "\n\n".join(filter(None, [found.answer, note]))
                yield from _whole(found, started)
                return
            for kind, payload in self._answered(pipeline, asked, standalone, filters):
                if kind == "answer" and isinstance(payload, Answer):
                    if messages:
                        payload.timings_ms["condense"] = round(condense_ms, 2)
                    note = _status_noted(payload, said)
                    if note:
                        payload.answer = f"{payload.answer}\n\n{note}"
                        yield ("delta", f"\n\n{note}")
                yield kind, payload  # type: ignore[misc]

    def _beside(
        self,
        pipeline: Pipeline,
        asked: _Asked,
        standalone: str,
        beside: BylineBeside,
        filters: Filters | None,
    ) -> Answer | None:
        """A byline part and a content part answered each from its source: the content
        from the abstract (the whole question where its part alone finds nothing), then
        the byline from the catalogue, cited as the content cites; None where the byline
        is no catalogue answer after all."""
        byline = None
        if beside.plan is not None:
            byline = _set_only(pipeline, beside.byline, filters, beside.plan)
            if byline is None:
                return None
            if not beside.content:  # "… and where are they from?": one byline says both
                return byline
        named = beside.plan.like_paper if beside.plan is not None else ""
        paper = pipeline.catalogue.papers.get(named) if named else None
        if (
            paper is not None
            and not (filters and filters.paper_ids)
            and _of_it(beside.content, paper, pipeline.catalogue.headed)
            and byline_asked(beside.content) is None  # a second byline part: the catalogue's
        ):
            # the byline named the paper: its content is asked of that paper, not another
            # ("Who wrote 'Is DPO Superior to PPO …?' and what is the conclusion?")
            given = filters.model_dump() if filters is not None else {}
            kept = Filters(**{**given, "paper_ids": [named]})
            content = beside.content
            if paper.title.lower() not in content.lower():
                # "What is the conclusion?": of that paper, named as its title says it
                content = f"{content.rstrip(' ?')} in “{paper.title}”?"
            answer = _final(self._answered(pipeline, asked, content, kept))
            if answer.abstained:
                answer = _final(self._answered(pipeline, asked, beside.content, filters))
        else:
            answer = _final(self._answered(pipeline, asked, beside.content, filters))
        if answer.abstained:  # the part alone finds nothing: the question as asked
            answer = _final(self._answered(pipeline, asked, standalone, filters))
        if beside.plan is None:  # a paper described: its byline, once the answer found it
            byline = _found_byline(pipeline, beside, answer, filters)
        if byline is not None:
            answer.answer = f"{answer.answer}\n\n{_cited_beside(answer, byline)}"
            answer.abstained = False  # the byline part is answered
        return answer

    def _answered(
        self, pipeline: Pipeline, asked: _Asked, standalone: str, filters: Filters | None
    ) -> Iterator[Event]:
        """The events of one answer: a set answer from the catalogue, or a cited one."""
        split = kinds_compared(standalone, pipeline.catalogue)
        if split is not None:  # "How many papers come from industry vs academia?"
            yield from _whole(split, asked.started)
            return
        top = reported.asked(standalone)
        figured = (
            reported.ranked(
                pipeline.catalogue, pipeline.judge, asked.question, standalone, top, filters
            )
            if top
            else None
        )
        if figured is not None:  # "Which paper reports the largest speedup?": ranked figures
            yield from _whole(figured, asked.started)
            return
        plan = pipeline.planner.plan(standalone)
        # "reinforcment lerning from human feedbak": read as the corpus writes it, where the
        # question as typed goes to the cited answer (a set's topic is spelled by the router)
        c = plan.constraints
        typed = plan.kind == "paper" or plan.topic or c.title_words or c.text_words
        fixes = self._respelled(pipeline, standalone) if typed else {}
        respelled = standalone
        for typed, word in fixes.items():
            respelled = re.sub(rf"\b{re.escape(typed)}\b", word, respelled)
        reread = pipeline.planner.plan(respelled) if fixes else plan
        if plan.kind != "paper" and reread.topic:
            fixes = {}  # a topic's slips are the router's to spell ("difusion modles")
        if fixes:  # "how many papers menton reinforcment lerning in the title": the title's
            standalone, plan = respelled, reread
            plan.constraints.read_as.update(fixes)  # a set answer says it
        route = pipeline.route(plan, filters)
        events = self._routed(pipeline, asked, standalone, plan, route)
        if not (fixes and route.cited):  # a set answer says the reading itself
            yield from events
            return
        read = "Read " + ", ".join(f"“{t}” as “{w}”" for t, w in fixes.items()) + "."
        said = False
        for kind, payload in events:
            if kind == "delta" and not said:
                payload, said = f"{read}\n\n{payload}", True
            elif kind == "answer" and isinstance(payload, Answer):
                payload.answer = f"{read}\n\n{payload.answer}"
            yield kind, payload  # type: ignore[misc]

    @staticmethod
    def _respelled(pipeline: Pipeline, question: str) -> dict[str, str]:
        """Slips in a question's words ("lerning", "Bayesain"), read as the corpus's; the topic
        scan is asked only where some word is written in no abstract."""
        doc_freq = pipeline.planner.parser.doc_freq
        if len(question.split()) > TYPED_TERSELY or doc_freq is None:
            return {}  # a sentence's rare words are English the abstracts do not use ("leaner")
        words = re.findall(r"(?<![\w'’-])[A-Za-z][a-z]{4,}(?![\w'’-])", question)
        if all(doc_freq(w.lower()) for w in words):
            return {}
        fixes = pipeline.judge().scanner.respelled(question)
        # "Bayesain": a capital's slip only into a word the abstracts write with one ("Brian"
        # is no "brain")
        catalogue = pipeline.catalogue
        return {
            typed: word
            for typed, word in fixes.items()
            if typed.islower()
            or (catalogue.written_capitalised(word) and not catalogue.name_word(typed))
        }

    def _routed(
        self, pipeline: Pipeline, asked: _Asked, standalone: str, plan: QueryPlan, route: Route
    ) -> Iterator[Event]:
        """A set answer from the catalogue, or the cited answer."""
        question, started = asked.question, asked.started
        if not route.cited:
            yield from _whole(pipeline.answer(route, question, standalone), started)
            return
        earlier = earlier_work(question, standalone, plan, pipeline.catalogue)
        if earlier is not None:  # "Which paper introduced Mamba?": none of these
            yield from _whole(earlier, started)
            return
        defined = defined_asked(standalone, pipeline.catalogue)
        if defined is not None and route.filters is not None:
            defined = defined if route.filters.accepts(defined) else None
        c = plan.constraints
        if (c.authors or c.affiliations) and route.filters is not None:
            # "What does the paper by Collin Burns on weak supervision find?": asked among
            # his papers, without his name (the filters keep to them)
            standalone = without_owners(standalone, c.authors, c.affiliations)
            among = pipeline.catalogue.matching(route.filters)
            if defined is None and len(among) == 1:  # "james zou's oral paper": that one
                defined = pipeline.catalogue.papers.get(next(iter(among)))
        keep = [defined.id] if defined else pinned(standalone, pipeline.catalogue, route.filters)
        fetch = bool(keep) and set(keep) <= set(titled_in(standalone, pipeline.catalogue))
        for kind, payload in pipeline.engine.events(
            question,
            standalone=standalone,
            history=asked.messages,
            top_k=asked.top_k,
            mode=asked.mode,
            filters=route.filters,
            keep=keep,
            defining=defined is not None,
            fetch_kept=fetch,
        ):
            if kind == "answer" and isinstance(payload, Answer):
                payload.plan = plan
            yield kind, payload  # type: ignore[misc]

    def ask(self, question: str, **options: Any) -> Answer:
        """The final `Answer` of `stream()` (same options): text with [n] markers, the
        citations it rests on, or an abstention with related papers."""
        final: Answer | None = None
        for kind, payload in self.stream(question, **options):
            if kind == "answer":
                final = payload  # type: ignore[assignment]
        if final is None:  # pragma: no cover - events always end with an answer
            raise AnswerError("no answer was produced")
        return final

    def answer_plan(self, plan: QueryPlan, question: str) -> Answer:
        """A set answer for a plan built by the caller (`rag papers --topic`), not parsed."""
        question = self._checked(question, None, None)
        with self.activity.answering():
            return self._current().answer_set(question, plan, question, None)

    def retrieve(
        self,
        question: str,
        top_k: int | None = None,
        mode: RetrievalMode | None = None,
        filters: Filters | dict[str, Any] | None = None,
    ) -> list[RetrievedPaper]:
        """The best papers for `question` with their matching chunks and scores (no answer)."""
        question = self._checked(question, top_k, mode)
        retriever = self.retriever
        with self.activity.answering():
            return retriever.retrieve(
                question,
                top_k or self.settings.top_k,
                mode or self.settings.retrieval_mode,
                checked_filters(filters),
            )


def _build_topic_index(pipeline: Pipeline) -> None:
    try:
        says_how("restate")  # the parts-of-speech lexicon (~0.2 s), read before a question is
        pipeline.topics()
        top_institutions(pipeline.catalogue, limit=1)  # the ~300 groups a ranking reads (~2 s)
    except Exception as exc:  # built again on the first topic question; never fatal here
        log.warning("building the topic index in the background failed: %s", exc)
