"""Comparisons of the papers or methods a question names ("Compare SAMformer and Timer",
"compare the paper that … with MiniLLM"): each name resolved to the paper that introduces
it, each description to the paper that best fits it, and one comparison row per paper,
cited. A name that resolves to no paper is said, never replaced by a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rag.catalogue.catalogue import Catalogue
from rag.sets.answer_rows import citation, plain, row, set_answer
from rag.sets.compare import COLUMNS, comparison_cells
from rag.text import split_sentences
from rag.types import Aggregate, AggregatePaper, Answer, Paper, QueryPlan

_INTRODUCES = r"(?:propose|introduce|present|develop|design|call|dub|name|term|coin)\w*"
DESCRIBED_WORDS = 4  # a longer reference is a description of a paper, not its name


@dataclass
class NamedPaper:
    """One thing the question compares, and the paper it was resolved to (None: none)."""

    text: str
    paper: Paper | None
    how: str  # "named" | "described" | "" (unresolved)


Describe = Callable[[str], Paper | None]  # the paper that best fits a description


class NamedPapers:
    def __init__(self, catalogue: Catalogue, describe: Describe) -> None:
        self.catalogue = catalogue
        self.describe = describe

    def resolve(self, text: str) -> NamedPaper:
        named = self.catalogue.named_paper(text) or self._introducing(text)
        if named is not None:
            return NamedPaper(text, named, "named")
        if len(text.split()) >= DESCRIBED_WORDS:
            found = self.describe(text)
            if found is not None:
                return NamedPaper(text, found, "described")
        return NamedPaper(text, None, "")

    def _introducing(self, name: str) -> Paper | None:
        """Of the papers writing `name`, the one that introduces it: its title, or a
        sentence proposing it ("we propose X", "called X"), ahead of every other."""
        found = self.catalogue.papers_naming(name)
        if len(found) <= 1:
            return found[0] if found else None
        scored = sorted(((_introduces(p, name), p.id, p) for p in found), reverse=True)
        best, second = scored[0], scored[1]
        return best[2] if best[0] > second[0] else None


def _introduces(paper: Paper, name: str) -> float:
    word = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
    score = 3.0 if re.search(word, paper.title) else 0.0
    for sentence in split_sentences(paper.abstract):
        if re.search(word, sentence) and re.search(rf"\b{_INTRODUCES}\b", sentence, re.I):
            score += 2.0
            break
    return score + 0.1 * len(re.findall(word, paper.abstract))


def named_comparison(
    question: str, plan: QueryPlan, standalone: str, resolved: list[NamedPaper]
) -> Answer:
    """One row per resolved paper (in the question's order, each once), every cell quoted
    from its abstract; names that resolved to nothing are said first."""
    papers: list[tuple[NamedPaper, Paper]] = []
    for item in resolved:
        if item.paper is not None and all(item.paper.id != p.id for _, p in papers):
            papers.append((item, item.paper))
    rows = [_row(n, item, paper) for n, (item, paper) in enumerate(papers, start=1)]
    missing = [item.text for item in resolved if item.paper is None]
    lines = []
    if missing:
        names = " or ".join(f"“{m}”" for m in missing)
        lines.append(f"No ICML 2024 abstract names or fits {names}.")
    if rows:
        lines.append(
            f"{'Compared' if len(rows) > 1 else 'Found'} side by side — each paper's problem, "
            "method and main finding, quoted from its abstract:"
        )
        lines += [_line(r) for r in rows]
    aggregate = Aggregate(
        kind="compare", count=len(rows), exact=False, papers=rows, columns=list(COLUMNS)
    )
    return set_answer(
        question,
        standalone,
        plan,
        "\n".join(lines),
        [citation(r) for r in rows],
        aggregate,
        backend="comparison",
        mode="catalogue",
        abstained=not rows,
    )


def _row(n: int, item: NamedPaper, paper: Paper) -> AggregatePaper:
    how = "named" if item.how == "named" else "described"
    why = f"{how} in the question as “{item.text}”"
    cells = comparison_cells(paper.abstract)
    return row(n, paper, why).model_copy(update={"membership": "named", "cells": cells})


def _line(r: AggregatePaper) -> str:
    parts = [f"{name}: “{r.cells[name]}”" for name in COLUMNS if r.cells.get(name)]
    said = " ".join(parts) if parts else "its abstract states no problem, method or finding"
    return f"- *{plain(r.title)}* [{r.n}] — {said}"
