"""Industry against academia: "How many papers come from industry vs academia?" has no
one set to list; its answer is the papers split by the kinds of institution their
affiliations name (a company and a university, a company only, universities only, neither,
none listed), counted from the catalogue, each kind read by the institution's name.
"""

from __future__ import annotations

import re

from rag.catalogue.catalogue import Catalogue
from rag.sets.answer_rows import plural, set_answer, statuses_said
from rag.sets.selection import KINDS_READ
from rag.text import STATUS_WORD
from rag.types import Aggregate, Answer, QueryPlan

_INDUSTRY = r"(?:industry|industrial|compan(?:y|ies)|corporate)(?:\s+labs?)?"
_ACADEMIA = r"(?:academia|academic|universit(?:y|ies))(?:\s+labs?)?"
_VERSUS = re.compile(
    rf"\b(?:{_INDUSTRY}\s+(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+{_ACADEMIA}|"
    rf"{_ACADEMIA}\s+(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+{_INDUSTRY}|"
    # "the split between industry and academia", "industry or academia?"
    rf"(?:split|share|breakdown|balance|ratio)\s+(?:of\s+\w+\s+)?(?:between|of)\s+{_INDUSTRY}\s+and\s+"
    rf"{_ACADEMIA}|(?:from|by)\s+{_INDUSTRY}\s+or\s+(?:from\s+|by\s+)?{_ACADEMIA}\s*\??\s*$)",
    re.I,
)


def kinds_compared(question: str, catalogue: Catalogue) -> Answer | None:
    """The papers (of the statuses the question names) split by their institutions' kinds,
    where the question sets industry against academia; None otherwise."""
    if _VERSUS.search(question) is None:
        return None
    statuses = sorted({s.capitalize() for s in STATUS_WORD.findall(question)})
    kinds = catalogue.institution_kinds()
    ids = set(catalogue.papers)
    if statuses:
        ids &= catalogue.with_status(statuses)
    unlisted = catalogue.unaffiliated() & ids
    split = {"both": 0, "company": 0, "academic": 0, "neither": 0}
    for pid in ids - unlisted:
        held = kinds.get(pid, frozenset())
        key = "both" if len(held) == 2 else next(iter(held), "neither")
        split[key] += 1
    said = f"{statuses_said(statuses)} " if statuses else ""
    rows = [
        (split["both"], "a company and a university"),
        (split["company"], "companies and no university"),
        (split["academic"], "universities and no company"),
        (split["neither"], "neither (only public research bodies)"),
        (len(unlisted), "no affiliation"),
    ]
    lines = [
        f"The {plural(len(ids), f'ICML 2024 {said}paper')} by the institutions their authors list:",
        *(f"- {plural(n, 'paper')} {'lists' if n == 1 else 'list'} {what}" for n, what in rows),
        "",
        KINDS_READ,
    ]
    plan = QueryPlan(kind="metadata")
    aggregate = Aggregate(kind="metadata", count=None, exact=True, notes=[KINDS_READ])
    return set_answer(question, question, plan, "\n".join(lines), [], aggregate)
