"""Question analysis with an LLM: the model reads the question into a `PlanDraft` (llama-index
structured output), and the draft is checked against the catalogue before it becomes the
`QueryPlan` — names resolved the way the parser resolves them, a "similar" paper looked up,
a kind without what it needs refused. Any failure (no reply, bad JSON, an unusable draft)
falls back to the deterministic parser's plan, so a model can add understanding (a topic
described in other words, a name the span search misses) but never take an answer away.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from rag.plan.parser import QuestionParser
from rag.plan.people import record_author
from rag.types import PlanConstraints, PlanKind, QueryPlan, Unresolved

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

log = logging.getLogger(__name__)

PLAN_PROMPT = """You read questions about the papers of ICML 2024 into a query plan.

kind, one of:
- paper: asks what a paper (or papers) say, propose, find or use — answered from abstracts
- list: which papers are about a topic ("Which papers use diffusion for molecules?")
- count: how many papers are about a topic, or have an author, institution or status
- metadata: which papers have an author, institution or status, with no topic
  ("Which papers did Masashi Sugiyama co-author?"), or who has the most papers
- compare: compare or contrast the approaches of the papers on a topic
- similar: papers like one named paper (its title or its method's name in like_title)

topic: the research topic in the conference's own technical terms, without "papers",
"ICML 2024" or the question's frame; when the question describes a topic without naming it
("several hospitals train one model without pooling their data"), write its usual name
("federated learning"). Empty for metadata questions.
facets: the topics a paper must combine to count, each in the field's usual terms:
["adversarial robustness", "graph neural networks"] for "robustness of GNNs to attacks",
["diffusion models", "time series"] for "diffusion for time series"; one item for a
single topic.
compared: for compare, the papers or methods the question names, as written ("SAMformer",
"Timer"); empty when it compares the papers on a topic.
authors, affiliations: exactly as written in the question. statuses: Oral, Spotlight or
Poster when the question restricts to them. top_authors: true for "who has the most papers";
ranked_by: "first" or "last" when it ranks by papers as the first or last author.
by_author_count: "most" or "fewest" when it asks for the papers with the longest or shortest
author lists ("Which oral has the most authors?").
title_words: words every title must hold; any_title_words: words of which a title must hold
one ("'minimax' or 'benchmark' in the title"); not_title_words: words no title may hold.

Question: {question}
"""


class PlanDraft(BaseModel):
    """A model's reading of a question; checked against the catalogue before use."""

    kind: PlanKind
    topic: str = ""
    authors: list[str] = Field(default_factory=list)
    affiliations: list[str] = Field(default_factory=list)
    statuses: list[Literal["Oral", "Spotlight", "Poster"]] = Field(default_factory=list)
    like_title: str = ""
    top_authors: bool = False
    ranked_by: Literal["", "first", "last"] = ""
    by_author_count: Literal["", "most", "fewest"] = ""
    title_words: list[str] = Field(default_factory=list)
    any_title_words: list[str] = Field(default_factory=list)
    not_title_words: list[str] = Field(default_factory=list)
    facets: list[str] = Field(default_factory=list)
    compared: list[str] = Field(default_factory=list)


_RANKED_BY: dict[str, Literal["authors", "first_authors", "last_authors"]] = {
    "": "authors",
    "first": "first_authors",
    "last": "last_authors",
}


# What a draft can say. A parser's plan that read more (a statistic, a first author, a
# topic its papers must not be about, …) is kept whole: the draft could only lose it.
_DRAFTED = {"kind", "topic", "constraints", "ranking", "unresolved", "like_paper", "facets",
            "compared", "source", "unread"}  # fmt: skip
_DRAFTED_CONSTRAINTS = {"authors", "affiliations", "statuses", "title_words",
                        "any_title_words", "not_title_words", "read_as"}  # fmt: skip
_DRAFTED_RANKINGS = (None, "authors", "first_authors", "last_authors")
_DRAFTED_UNRESOLVED = ("author", "institution")


def read_by_catalogue(plan: QueryPlan) -> bool:
    """Whether the parser's plan reads something a model's draft has no field for: who
    wrote a named paper, institutions or papers ranked, a place in a ranking, a statistic,
    a first or last author, an excluded name, a field the catalogue does not record, …"""
    fields = plan.model_dump(exclude_defaults=True)
    return (
        bool(set(fields) - _DRAFTED)
        or bool(set(fields.get("constraints", {})) - _DRAFTED_CONSTRAINTS)
        or plan.ranking not in _DRAFTED_RANKINGS
        or any(u.kind not in _DRAFTED_UNRESOLVED for u in plan.unresolved)
    )


class UnusableDraft(ValueError):
    """The draft asks for something the plan cannot hold (a list without a topic, …)."""


class QuestionPlanner:
    """The LLM's plan when one is configured and its draft holds up; else the parser's."""

    def __init__(self, parser: QuestionParser, llm: LLM | None) -> None:
        self.parser = parser
        self.llm = llm

    def plan(self, question: str) -> QueryPlan:
        if self.llm is None:
            return self.parser.plan(question)
        parsed = self.parser.plan(question)
        if read_by_catalogue(parsed):  # "Who wrote BiLLM?", "Which universities had …"
            return parsed
        from llama_index.core.prompts import PromptTemplate

        try:
            draft = self.llm.structured_predict(
                PlanDraft, PromptTemplate(PLAN_PROMPT), question=question
            )
            return self.validated(draft)
        except Exception as exc:  # any model failure: the parser's plan answers instead
            log.info("LLM plan not used (%s: %s); parser plan instead", type(exc).__name__, exc)
            return parsed

    def validated(self, draft: PlanDraft) -> QueryPlan:
        """The draft as a plan, every name resolved in the catalogue."""
        catalogue = self.parser.catalogue
        constraints = PlanConstraints(
            statuses=list(dict.fromkeys(draft.statuses)),
            title_words=[w.strip() for w in draft.title_words if w.strip()],
            any_title_words=[w.strip() for w in draft.any_title_words if w.strip()],
            not_title_words=[w.strip() for w in draft.not_title_words if w.strip()],
        )
        unresolved: list[Unresolved] = []
        for name in dict.fromkeys(a.strip() for a in draft.authors if a.strip()):
            record_author(name, catalogue.match_author(name), constraints, unresolved)
        for place in dict.fromkeys(a.strip() for a in draft.affiliations if a.strip()):
            if catalogue.knows_institution(place):
                constraints.affiliations.append(place)
            else:
                unresolved.append(Unresolved(kind="institution", text=place))
        kind, topic, like = draft.kind, draft.topic.strip(), ""
        if kind == "similar":
            named = catalogue.named_paper(draft.like_title or topic)
            kind, like = ("similar", named.id) if named is not None else ("list", "")
            topic = draft.like_title or topic
        has_constraint = not constraints.is_empty() or bool(unresolved)
        compared = [c.strip() for c in draft.compared if c.strip()]
        if kind == "compare" and len(compared) >= 2:
            return QueryPlan(kind="compare", compared=compared, source="llm")
        if kind == "count" and not topic and has_constraint:
            kind = "metadata"
        if kind in ("list", "count", "compare") and not topic:
            raise UnusableDraft(f"a {kind} plan needs a topic")
        if draft.by_author_count:  # papers ranked by their bylines, among those asked of
            kind = "metadata"
        if kind == "metadata" and not (
            has_constraint or draft.top_authors or draft.by_author_count
        ):
            raise UnusableDraft("a metadata plan needs an author, institution or status")
        return QueryPlan(
            kind=kind,
            topic="" if kind in ("paper", "metadata") else topic,
            constraints=constraints,
            ranking=f"{draft.by_author_count}_authors"  # type: ignore[arg-type]
            if draft.by_author_count
            else _RANKED_BY[draft.ranked_by]
            if draft.top_authors and kind == "metadata"
            else None,
            unresolved=unresolved,
            like_paper=like,
            facets=[f.strip() for f in draft.facets if f.strip()] if topic else [],
            source="llm",
        )
