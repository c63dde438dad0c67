"""Follow-up questions offered under an answer: "Only orals", "Compare …", "Papers like …".

Each is written out as a standalone question (or the same question with a status filter),
so asking it needs no follow-up rewriting, and each is offered only when the answer gives
it something to work on: papers of other statuses, two or more papers named by a short
name that resolves back to them, a first paper to find neighbours of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rag.answer.followups import paper_name
from rag.answer.unicode_math import readable_math
from rag.types import Answer, Paper

COMPARED = 3  # papers a "Compare …" follow-up names
LABEL_CHARS = 60  # a button label longer than this is cut with an ellipsis


@dataclass(frozen=True)
class FollowUp:
    label: str  # the button's text
    question: str  # what the assistant is asked
    shown: str  # the question as the chat shows it
    statuses: list[str] | None = field(default=None)  # a status filter for this one question


@dataclass(frozen=True)
class _Cited:
    paper_id: str
    title: str
    status: str


def _papers(answer: Answer) -> list[_Cited]:
    """The answer's papers in its order: a set's members (its closest papers after them),
    else the papers it cites."""
    if answer.aggregate is not None:
        rows = sorted(answer.aggregate.papers, key=lambda r: r.membership == "closest")
        return [_Cited(r.paper_id, r.title, r.status) for r in rows]
    return [_Cited(c.paper_id, c.title, c.status) for c in answer.citations]


def _label(text: str) -> str:
    text = readable_math(text)  # a title's "$K$" as "K": a button shows no TeX
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def _name(paper: _Cited, named: Callable[[str], Paper | None]) -> str:
    """The short name a question can use for the paper ("FedLMT"), when it names this paper
    and no other; else ""."""
    name = paper_name(paper.title)
    if name == paper.title:
        return ""
    found = named(name)
    return name if found is not None and found.id == paper.paper_id else ""


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def follow_ups(
    answer: Answer,
    question: str,
    statuses: list[str] | None,
    named: Callable[[str], Paper | None],
) -> list[FollowUp]:
    """The follow-ups worth offering under `answer` to `question` (asked with `statuses`
    ticked); `named` resolves a paper's name to the one paper it names (or None)."""
    papers = _papers(answer)
    if answer.abstained or not papers:
        return []
    kind = answer.aggregate.kind if answer.aggregate is not None else "cited"
    offered: list[FollowUp] = []
    status_words = {p.status.strip().lower() for p in papers}
    some_oral = "oral" in status_words or answer.aggregate is None
    if not statuses and some_oral and status_words - {"oral"}:
        shown = f"{question} (orals only)"
        offered.append(FollowUp("Only orals", question, shown, ["Oral"]))
    if kind not in ("compare", "similar"):
        names = [n for n in (_name(p, named) for p in papers[: COMPARED * 3]) if n][:COMPARED]
        if len(names) >= 2:
            ask = f"Compare {_joined(names)}"
            offered.append(FollowUp(_label(ask), ask, ask))
    if kind != "similar":
        first = papers[0]
        ask = f"Which papers are similar to {_name(first, named) or first.title}?"
        offered.append(FollowUp(_label(f"Papers like {paper_name(first.title)}"), ask, ask))
    return offered
