"""The cited-answer query engine: retrieve ▶ weigh evidence ▶ write ▶ validate ▶ abstain.

A llama-index `CustomQueryEngine`, so it plugs into anything that takes a query engine
(`engine.query("…")` returns a `Response` whose metadata carries the typed `Answer`);
`events()` is the streaming form every interface uses.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Literal

from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from rag.answer.citations import StreamingMarkerFilter, cited_numbers, filter_stream
from rag.answer.evidence import EvidenceScorer
from rag.answer.prompts import ABSTAIN_TEXT, PREMISE_MARK
from rag.answer.scored import Evidence
from rag.answer.supplied import answer_supplies
from rag.answer.synthesizer import Synthesizer
from rag.retrieval.retriever import PaperRetriever
from rag.settings import AnswerSettings, RetrievalMode, RetrievalSettings
from rag.text import split_sentences
from rag.types import Answer, ChatMessage, Citation, Filters, Related, RetrievedPaper

RELATED_SHOWN = 3
_ABSTAIN_PATTERN = re.compile(
    r"(do not|don't|does not|doesn't|cannot|can't) answer this question", re.I
)

Event = tuple[Literal["delta"], str] | tuple[Literal["answer"], Answer]


def _related(sources: list[RetrievedPaper], evidence: Evidence) -> list[Related]:
    return [
        Related(
            paper_id=s.paper.id,
            title=s.paper.title,
            authors=s.paper.authors,
            url=s.paper.url,
            status=s.paper.status,
            score=round(s.score, 6),
            relevance=round(evidence.paper_confidence.get(n, 0.0), 3),
        )
        for n, s in enumerate(sources[:RELATED_SHOWN], start=1)
    ]


def _all_supplied(evidence: Evidence, sources: list[RetrievedPaper], keep: list[str]) -> bool:
    """The kept paper leads, and the check of its abstract found every part supplied."""
    gaps = evidence.gaps
    return (
        bool(sources)
        and sources[0].paper.id in keep
        and gaps is not None
        and bool(gaps.supplied)
        and not (gaps.missing or gaps.unmentioned or gaps.unwritten or gaps.contradiction)
    )


class CitedQueryEngine(CustomQueryEngine):
    """Retrieve ▶ weigh evidence ▶ write ▶ validate [n] ▶ abstain, as one query engine.

    `events()` streams ("delta", text) then ("answer", Answer); `answer()` returns the
    Answer; `query()` (llama-index) returns a `Response` carrying it in its metadata.
    """

    retrieval: RetrievalSettings
    answering: AnswerSettings
    retriever: PaperRetriever
    scorer: EvidenceScorer
    synthesizer: Synthesizer

    def custom_query(self, query_str: str) -> Response:
        answer = self.answer(query_str)
        nodes = [
            NodeWithScore(
                node=TextNode(text=c.snippet, metadata={"paper_id": c.paper_id, "n": c.n}),
                score=c.score,
            )
            for c in answer.citations
        ]
        return Response(
            answer.answer, source_nodes=nodes, metadata={"answer": answer.model_dump(mode="json")}
        )

    def answer(self, question: str, **options: Any) -> Answer:
        """The final Answer of `events()` (same options)."""
        final: Answer | None = None
        for kind, payload in self.events(question, **options):
            if kind == "answer":
                final = payload  # type: ignore[assignment]
        assert final is not None
        return final

    def events(
        self,
        question: str,
        *,
        standalone: str | None = None,
        history: list[ChatMessage] | None = None,
        top_k: int | None = None,
        mode: RetrievalMode | None = None,
        filters: Filters | None = None,
        keep: list[str] | None = None,
        defining: bool = False,
        fetch_kept: bool = False,
    ) -> Iterator[Event]:
        """Yield ("delta", text) while the answer is written, then ("answer", Answer).
        `keep`: the papers the question names, the only ones the answer may use;
        `defining`: the question asks only what the one paper kept is ("What is BASED?"),
        which its abstract answers however the retrieved set ranks it; `fetch_kept`: the
        papers kept are named by their titles' words ("the Long Is More paper") and lead
        the sources however the retrieved set ranks them."""
        started = time.perf_counter()
        query = standalone or question
        mode = mode or self.retrieval.mode
        k = top_k or self.retrieval.top_k
        sources = self.retriever.retrieve(query, k, mode, filters)
        defining = defining and bool(keep)
        if (defining or fetch_kept) and keep and not (sources and sources[0].paper.id in keep):
            # "What is BASED?": the word ranks other papers first; the named one leads
            own = self.retriever.retrieve(query, k, mode, Filters(status=None, paper_ids=keep))
            sources = own + [s for s in sources if s.paper.id not in keep]
        retrieved = time.perf_counter()
        evidence = self.scorer.score(query, sources)
        gate = evidence  # whether to answer at all: calibrated on the retrieved set
        # the named paper ranked first too: the question is asked of it ("Spider" the
        # segmentation paper is not the text-to-SQL benchmark asked about)
        if keep and sources and sources[0].paper.id in keep:
            kept = [s for s in sources if s.paper.id in keep]
            evidence = self.scorer.score(query, kept)
            checked = gate.gaps
            of = sources[checked.source - 1].paper.id if checked is not None else ""
            if checked is not None and of in keep:
                # the notes of the paper the retrieved set checked, as tuned: written from
                # that set (a name another retrieved paper writes is that paper's)
                at = [s.paper.id for s in kept].index(of)
                evidence.gaps = replace(checked, source=at + 1)
            sources = kept
        scored = time.perf_counter()
        base = self._answer_fields(question, query, mode, gate)
        unsure = not gate.specific or gate.confidence < self.answering.abstain_threshold
        # "What speedup does Vision Mamba report?": the paper named by its title, and its
        # abstract supplies every part asked, is answered however the retrieved set scores
        unsure = unsure and not (fetch_kept and _all_supplied(evidence, sources, keep or []))
        if not sources or (unsure and not defining):
            yield ("delta", ABSTAIN_TEXT)
            yield ("answer", self._abstention(base, sources, evidence, started, retrieved, scored))
            return

        marker_filter = StreamingMarkerFilter(len(sources))
        parts: list[str] = []
        for delta in filter_stream(
            self.synthesizer.stream(query, sources, evidence, history), marker_filter
        ):
            parts.append(delta)
            yield ("delta", delta)
        text = "".join(parts).strip()
        numbers = cited_numbers(text)
        if not numbers or _ABSTAIN_PATTERN.search(text):
            # An answer with no valid citation is never presented as an answer.
            answer = self._abstention(base, sources, evidence, started, retrieved, scored)
            answer.invalid_citations_removed = marker_filter.removed
            yield ("answer", answer)
            return
        timings = _timings(started, retrieved, scored)
        yield (
            "answer",
            Answer(
                **base,
                answer=text,
                abstained=False,
                citations=self._citations(numbers, marker_filter.cited, sources, evidence),
                invalid_citations_removed=marker_filter.removed,
                timings_ms=timings,
                **self._gaps(query, text, evidence),
            ),
        )

    def _gaps(self, query: str, text: str, evidence: Evidence) -> dict[str, Any]:
        """What was asked and not found: the extractive writer's check of the abstract,
        or, for an LLM's answer, the same check run on what it wrote."""
        gaps = evidence.gaps
        contradicted = [gaps.contradiction] if gaps and gaps.contradiction else []
        if self.synthesizer.name == "extractive":
            missing = gaps.descriptions if gaps else []
        else:
            missing = [p.describe() for p in answer_supplies(query, evidence.parts, text)]
            # the model read the premise against the abstract (prompt rule 7)
            contradicted += premise_corrections(text)
        return {
            "missing": missing,
            "not_mentioned": [*gaps.unmentioned, *gaps.unwritten] if gaps else [],
            "contradicted": contradicted,
        }

    def _answer_fields(
        self, question: str, query: str, mode: str, evidence: Evidence
    ) -> dict[str, Any]:
        """What every Answer of this question carries, answered or not."""
        return {
            "question": question,
            "standalone_question": query,
            "backend": self.synthesizer.name,
            "model": self.synthesizer.model,
            "mode": mode,
            "confidence": round(evidence.confidence, 4),
            "evidence": {
                "best_cosine": round(evidence.best_cosine, 4),
                "coverage": round(evidence.coverage, 4),
                "agreement": evidence.agreement,
            },
        }

    def _abstention(
        self,
        base: dict[str, Any],
        sources: list[RetrievedPaper],
        evidence: Evidence,
        *marks: float,
    ) -> Answer:
        return Answer(
            **base,
            answer=ABSTAIN_TEXT,
            abstained=True,
            related=_related(sources, evidence),
            timings_ms=_timings(*marks),
        )

    def _citations(
        self,
        numbers: list[int],
        cited: list[int],
        sources: list[RetrievedPaper],
        evidence: Evidence,
    ) -> list[Citation]:
        """One Citation per [n] in the text; `cited[n-1]` is the source [n] stands for."""
        chosen = self.synthesizer.snippets(evidence)
        citations = []
        for n in sorted(numbers):
            number = cited[n - 1]
            source = sources[number - 1]
            snippet = chosen.get(number) or [s.text for s in evidence.best_for(number, 1)]
            citations.append(
                Citation(
                    n=n,
                    paper_id=source.paper.id,
                    title=source.paper.title,
                    authors=source.paper.authors,
                    url=source.paper.url,
                    status=source.paper.status,
                    snippet=" ".join(snippet),
                    score=round(source.score, 6),
                    relevance=round(evidence.paper_confidence.get(number, 0.0), 3),
                    pmlr_key=str(source.paper.extra.get("pmlr_key") or ""),
                )
            )
        return citations


def _timings(started: float, retrieved: float, scored: float) -> dict[str, float]:
    now = time.perf_counter()
    return {
        "retrieve": round((retrieved - started) * 1000, 2),
        "evidence": round((scored - retrieved) * 1000, 2),
        "answer": round((now - scored) * 1000, 2),
        "total": round((now - started) * 1000, 2),
    }


# "**The abstract says otherwise**:", "• …", "1) …", "(…", "[1] …" before the mark
_PREMISE_LEAD = re.compile(r"^(?:[ \t*_>#•(-]|\d+[.)]|\[\d+\])*")
_PREMISE_SAID = re.compile(
    re.escape(PREMISE_MARK.rstrip(":")).replace(r"\ ", r"\s+") + r"[*_]*\s*:[*_]*\s*", re.I
)


def premise_corrections(text: str) -> list[str]:
    """What an LLM's answer says its paper states instead of the question's premise: each
    sentence it opens with PREMISE_MARK (emphasis and list marks around it allowed)."""
    said = []
    for line in text.splitlines():
        for sentence in split_sentences(line):
            lead = _PREMISE_LEAD.match(sentence)
            opened = _PREMISE_SAID.match(sentence, lead.end() if lead else 0)
            if opened and sentence[opened.end() :].strip():
                said.append(sentence[opened.end() :].strip())
    return said
