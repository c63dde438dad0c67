"""What the papers just listed are about: "What are they about?" after a list of papers
answers with one line per paper, the sentence of its abstract that says what it does, cited
as the list numbered them, rather than reading the list's titles as a new topic; "list
their authors" gives each one's byline the same way.
"""

from __future__ import annotations

import re

from rag.answer.references import previous_references
from rag.catalogue.catalogue import Catalogue
from rag.plan.turns import asks_about_them, asks_their_authors
from rag.sets.answer_rows import citation, plain, row, set_answer
from rag.text import split_sentences
from rag.types import Aggregate, Answer, ChatMessage, QueryPlan

DIGESTED = 10  # papers a digest says a line of; the rest are counted
# the sentence that says what a paper does: "we propose …", "this paper studies …"
_DOES = re.compile(
    r"\b(?:we|this\s+(?:paper|work|study)|our\s+(?:paper|work))\b[^.]{0,80}?\b(?:propose|introduce|"
    r"present|develop|study|studies|show|shows|investigate|analy[sz]e|design|provide|establish|"
    r"address|tackle|formulate|derive|prove|demonstrate)",
    re.I,
)


def digest(question: str, history: list[ChatMessage], catalogue: Catalogue) -> Answer | None:
    """One line per paper the last answer listed, or None when the question asks no such
    thing or the last answer listed fewer than two papers the catalogue holds."""
    bylines = asks_their_authors(question)
    if not (bylines or asks_about_them(question)):
        return None
    references = previous_references(history)
    papers = []
    for n, title in sorted(references.items()):
        paper = catalogue.named_paper(title)
        if paper is not None and plain(paper.title).casefold() == plain(title).casefold():
            papers.append((n, paper))
    if len(papers) < 2:
        return None
    lines, rows = [], []
    for n, paper in papers[:DIGESTED]:
        sentences = split_sentences(paper.abstract) or [paper.abstract]
        does = next((s for s in sentences if _DOES.search(s)), sentences[0])
        said = ", ".join(paper.authors) if bylines else does  # "list their authors"
        lines.append(f"- *{plain(paper.title)}* [{n}]: {said}")
        rows.append(row(n, paper, does))
    more = len(papers) - DIGESTED
    lead = (
        f"The authors of each of the {len(papers)} papers listed:"
        if bylines
        else f"What each of the {len(papers)} papers listed does, in its abstract's words:"
    )
    tail = f"\n\n… and {more} more; ask about one by its number." if more > 0 else ""
    text = f"{lead}\n\n" + "\n".join(lines) + tail
    aggregate = Aggregate(kind="list", count=len(papers), exact=True, papers=rows)
    plan = QueryPlan(kind="paper")
    return set_answer(question, question, plan, text, [citation(r) for r in rows], aggregate)
