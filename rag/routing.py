"""Which way a question is answered, decided once per question, in one place.

Named routes: `paper` (the cited answer from retrieved abstracts), `list`, `count` and
`compare` of a topic's papers (judged over the whole catalogue), `compare` of the papers
the question names, `metadata` (exact, from the catalogue) and `similar` (papers like a
named one). What the decision needed to compute — the question's constraints as filters,
the topic's reading and judged members, the named papers — travels with the route to the
answer, so nothing is computed twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from rag.catalogue.catalogue import Catalogue
from rag.sets.facets import TopicReading
from rag.sets.judgement import TopicJudge, TopicJudgement
from rag.sets.named import NamedPaper, NamedPapers
from rag.sets.selection import constrained
from rag.types import Filters, Paper, QueryPlan

RouteName = Literal["paper", "list", "count", "metadata", "compare", "similar"]


@dataclass
class Route:
    name: RouteName
    plan: QueryPlan
    filters: Filters | None  # the caller's filters with the question's own constraints
    allowed: set[str] | None = None  # the papers those filters leave (None: every paper)
    judgement: TopicJudgement | None = None  # list / count / compare of a topic
    named: list[NamedPaper] | None = None  # compare of named papers
    like: Paper | None = None  # similar
    given: Filters | None = None  # the caller's own filters, as passed

    @property
    def cited(self) -> bool:
        """Answered from retrieved abstracts (the engine), not from the catalogue."""
        return self.name == "paper"


class Router:
    """Decides the route of a question's plan (see the module doc)."""

    def __init__(
        self,
        catalogue: Catalogue,
        judge: Callable[[], TopicJudge],
        named: NamedPapers,
    ) -> None:
        self.catalogue = catalogue
        self.judge = judge
        self.named = named

    def route(self, plan: QueryPlan, given: Filters | None) -> Route:
        route = self._route(plan, given)
        route.given = given
        return route

    def _route(self, plan: QueryPlan, given: Filters | None) -> Route:
        filters = self.filters_for(plan, given)
        if plan.ranking and plan.topic and not plan.unresolved:
            # "Which researchers had the most papers on RL?": ranked among the papers
            # clearly about the topic
            judgement = self.judge().judge(plan.topic, self.allowed(given))
            clear = {m.paper.id for m in judgement.members if m.clearly}
            return Route("metadata", plan, filters, clear, judgement=judgement)
        if plan.not_about and not plan.unresolved and not plan.topic:
            # "Which of X's papers are not about robotics?": X's papers less those judged
            # about it (clearly or touching on it), which the answer names
            selected = self.allowed(filters)
            judgement = self.judge().judge(plan.not_about, selected)
            return Route("metadata", plan, filters, self.allowed(given), judgement=judgement)
        if plan.kind == "metadata" or plan.unresolved:
            return Route("metadata", plan, filters, self.allowed(given))
        if plan.kind == "compare" and plan.compared:
            named = [self.named.resolve(text) for text in plan.compared]
            if any(n.paper is not None for n in named):
                return Route("compare", plan, filters, named=named)
            return Route("paper", plan, filters)  # nothing named: the cited answer
        if plan.kind == "similar":
            like = self.catalogue.papers.get(plan.like_paper)
            if like is not None:
                return Route("similar", plan, filters, self.allowed(filters), like=like)
            return Route("paper", plan, filters)
        if plan.kind in ("list", "count", "compare") and plan.topic:
            return self._topic(plan, filters)
        return Route("paper", plan, filters)

    def _topic(self, plan: QueryPlan, filters: Filters | None) -> Route:
        judge = self.judge()
        self._spelled(plan, judge)
        reading = judge.read(plan.topic)
        if plan.source == "llm" and plan.facets:  # the model named the facets itself
            reading = TopicReading(list(plan.facets), described=False)
        if plan.kind == "list" and judge.absent_words(plan.topic, reading):
            return Route("paper", plan, filters)  # a word no abstract uses: cited, abstains
        plan.facets = list(reading.facets)
        allowed = self.allowed(filters)
        judgement = judge.judge(plan.topic, allowed, reading)
        if plan.not_about and judgement.members:
            # "RL papers that are not about robotics": less those judged about it at all
            members = {m.paper.id for m in judgement.members}
            about = {m.paper.id for m in judge.judge(plan.not_about, members).members}
            judgement = replace(
                judgement,
                members=[m for m in judgement.members if m.paper.id not in about],
                closest=[m for m in judgement.closest if m.paper.id not in about],
            )
        one_topic = len(reading.facets) <= 1 and judgement.verdict == "set"
        # asked among some papers ("which of X's papers …"): those papers ranked, said as such
        among = allowed is not None
        if plan.kind == "list" and one_topic and judgement.clearly == 0 and not among:
            return Route("paper", plan, filters)  # nothing clearly about it: the cited answer
        if (
            plan.kind == "list"
            and judgement.verdict == "described"
            and not judgement.suggestions
            and not among
        ):
            # described, and no named topic fits the description: maybe no paper is about
            # it at all; the cited answer says so when the abstracts do not answer
            return Route("paper", plan, filters)
        return Route(plan.kind, plan, filters, allowed, judgement=judgement)

    def _spelled(self, plan: QueryPlan, judge: TopicJudge) -> None:
        """A topic whose every unknown word is a misspelling of a corpus word ("protien
        design") read as spelled, the reading noted in `read_as` (the answer says it)."""
        scanner = judge.scanner
        # no abstract writes them as typed ("reinforcment" shares its stem with the word)
        unknown = [w for w in scanner.unknown_words(plan.topic, exact=True) if len(w) > 2]
        # a name typed with a capital ("Tamil", "Codex", "Imagen") is no slip, unless two of
        # its letters are swapped ("Bayesain")
        named = {m.group(0).lower() for m in re.finditer(r"\b\w*[A-Z]\w*\b", plan.topic)}
        fixes = {w: scanner.slip(w, swapped_only=w in named) for w in unknown}
        # no slip of a person's name ("papers by brian"), and a capital's slip only into a
        # word the abstracts write with one
        fixes |= {
            w: ""
            for w, fix in fixes.items()
            if fix
            and (
                self.catalogue.name_word(w)  # "papers by brian": a person's name
                or (w in named and not self.catalogue.written_capitalised(fix))
            )
        }
        # "Bayesian optimisation": the spelling the abstracts write, where they mostly do
        fixes |= scanner.americanised(plan.topic)
        if not fixes or not all(fixes.values()):
            return
        for typed, word in fixes.items():
            # "modles": the unknown word is read singular, its plural kept
            plan.topic = re.sub(rf"(?i)\b{re.escape(typed)}(e?s)?\b", rf"{word}\1", plan.topic)
            plan.constraints.read_as[typed] = word

    def allowed(self, filters: Filters | None) -> set[str] | None:
        """The papers the filters leave (None: every paper)."""
        if filters is None or filters.is_empty():
            return None
        return self.catalogue.matching(filters)

    def filters_for(self, plan: QueryPlan, given: Filters | None) -> Filters | None:
        """The question's own constraints added to the caller's filters (both must hold)."""
        c = plan.constraints
        if c.is_empty() and not c.excluded:
            return given
        merged = (
            given.model_copy()
            if given is not None
            else Filters(status=None, author=None, title=None, paper_ids=None)
        )
        # statuses go to the filters as they are; the rest to the papers they allow
        rest = c.model_copy(update={"statuses": []})
        if not rest.is_empty() or c.excluded:
            ids = constrained(self.catalogue, rest).ids
            merged.paper_ids = sorted(ids & set(merged.paper_ids) if merged.paper_ids else ids)
        if c.statuses and not merged.status:
            merged.status = list(c.statuses)
        return merged
