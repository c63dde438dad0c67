"""What every set answer shares: its rows, their citations, and the listed text."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.text import status_asked_after
from rag.types import Aggregate, AggregatePaper, Answer, Citation, Paper, QueryPlan

SHOWN_IN_TEXT = 10  # rows written into the answer text; the aggregate carries all

# "…, and which of them are orals?", "…, and how many are spotlights?": a status asked of
# the papers the first part asks for
_STATUS_OF_THEM = re.compile(
    r"\b(?:of|among)\s+(?:them|those|these)\b[^?]*?\b(?P<status>orals?|spotlights?|posters?)\b"
    r"|,?\s+and\s+(?:how\s+many|which)(?:\s+ones)?\s+(?:are|were)\s+(?:an?\s+)?"
    r"(?P<status2>orals?|spotlights?|posters?)\s*[?.!]*\s*$",
    re.I,
)


def status_of_them(question: str) -> str:
    """The status a question asks of the papers its first part asks for ("Oral"), or ""."""
    found = _STATUS_OF_THEM.search(status_asked_after(question))
    if found is None:
        return ""
    return (found.group("status") or found.group("status2")).rstrip("sS").capitalize()


def status_share(rows: Sequence[AggregatePaper], status: str) -> str:
    """ "Of the 12 papers below, 0 are orals.": the status asked, counted among the rows."""
    have = sum(1 for r in rows if r.status == status)
    word = f"{article(status.lower())} {status.lower()}" if have == 1 else f"{status.lower()}s"
    return (
        f"Of the {plural(len(rows), 'paper')} below, {have} {'is' if have == 1 else 'are'} {word}."
    )


def statuses_said(statuses: Sequence[str], plural: bool = False) -> str:
    """ "oral or spotlight", or with `plural` "orals or spotlights" (each word its plural)."""
    return " or ".join(f"{s.lower()}s" if plural else s.lower() for s in statuses)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def article(word: str) -> str:
    """ "an" before "oral", "a" before "poster"."""
    return "an" if word[:1] in "aeiou" else "a"


def set_answer(
    question: str,
    standalone: str,
    plan: QueryPlan,
    text: str,
    citations: list[Citation],
    aggregate: Aggregate | None,
    *,
    backend: str = "catalogue",
    mode: str = "metadata",
    abstained: bool = False,
) -> Answer:
    return Answer(
        question=question,
        standalone_question=standalone or question,
        answer=text,
        abstained=abstained,
        backend=backend,
        mode=mode,
        confidence=1.0,
        citations=citations,
        plan=plan,
        aggregate=aggregate,
    )


def row(n: int, paper: Paper, why: str) -> AggregatePaper:
    return AggregatePaper(
        n=n,
        paper_id=paper.id,
        title=paper.title,
        authors=paper.authors,
        url=paper.url,
        status=paper.status,
        pmlr_key=str(paper.extra.get("pmlr_key") or ""),
        why=why,
        score=None,
    )


def citation(row: AggregatePaper) -> Citation:
    return Citation(
        n=row.n,
        paper_id=row.paper_id,
        title=row.title,
        authors=row.authors,
        url=row.url,
        status=row.status,
        snippet=row.why,
        score=1.0,
        # A topic row's membership chance; a catalogue match or a named paper has none to show.
        relevance=round(row.score, 3) if row.score is not None else None,
        pmlr_key=row.pmlr_key,
    )


def listed_text(
    summary: str,
    rows: list[AggregatePaper],
    notes: list[str],
    detail: Callable[[AggregatePaper], str] | None = None,
) -> str:
    """The summary, the first rows ("- *T* (Oral) [1]"; `detail`: what the brackets say
    instead of the status) and the notes."""
    lines = [summary]
    shown = rows[:SHOWN_IN_TEXT]
    lines += [
        f"- *{plain(r.title)}*{f' ({detail(r)})' if detail else f' ({r.status})' if r.status else ''}"
        f" [{r.n}]"
        for r in shown
    ]
    if len(rows) > len(shown):
        lines.append(f"- … and {len(rows) - len(shown):,} more (every paper is in the full list)")
    if notes:
        lines.append("")
        lines += notes
    return "\n".join(lines)


def plain(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_")


def one_paper_answer(
    question: str, standalone: str, plan: QueryPlan, paper: Paper, text: str, why: str
) -> Answer:
    """A catalogue answer about one paper (its byline, its status), cited as [1]."""
    rows = [row(1, paper, why)]
    aggregate = Aggregate(kind="metadata", count=1, exact=True, papers=rows)
    return set_answer(question, standalone, plan, text, [citation(rows[0])], aggregate)
