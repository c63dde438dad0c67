"""Papers like a named paper (`Catalogue.named_paper` finds it): every other paper ranked by
how close its abstract's vector is to the named paper's and by the rare phrases they share.
A ranking, not a set: the closest `SHOWN` papers, each with the sentence that shares the
most of the named paper's phrases.
"""

from __future__ import annotations

import math

import numpy as np

from rag.sets.answer_rows import citation, listed_text, plain, row, set_answer
from rag.sets.topic_index import TopicIndex
from rag.sets.topics import sentence_sharing
from rag.text import split_sentences
from rag.types import Aggregate, Answer, Paper, QueryPlan

SHOWN = 10
VECTOR_WEIGHT = 0.7  # the rest is shared-phrase overlap: vectors alone favour same-field papers
RARE_SHARE = 0.02  # a phrase in more than 2 % of abstracts says little about this paper


class SimilarPapers:
    def __init__(self, index: TopicIndex) -> None:
        self.index = index

    def ranked(self, source: Paper, allowed: set[str] | None) -> list[tuple[Paper, float, str]]:
        """The papers closest to `source` (never itself), best first, with why and score."""
        ix = self.index
        at = ix.ids.index(source.id)
        near = ix.means @ ix.means[at]
        rare = self._rare_phrases(at)
        overlap = np.array(
            [sum(w for p, w in rare.items() if p in phrases) for phrases in ix.doc_phrases]
        ) / (sum(rare.values()) or 1.0)
        score = VECTOR_WEIGHT * near + (1 - VECTOR_WEIGHT) * overlap
        out = []
        words = {w for phrase in rare for w in phrase}
        for i in np.argsort(-score):
            pid = ix.ids[int(i)]  # checked before its record is read (one read per paper)
            if pid == source.id or (allowed is not None and pid not in allowed):
                continue
            paper = ix.papers[pid]
            out.append((paper, round(float(score[i]), 3), sentence_sharing(paper, words)))
            if len(out) == SHOWN:
                break
        return out

    def _rare_phrases(self, at: int) -> dict[tuple[str, ...], float]:
        total = len(self.index.ids)
        return {
            phrase: math.log(total / self.index.df[phrase])
            for phrase in self.index.doc_phrases[at]
            if self.index.df[phrase] <= max(2, RARE_SHARE * total)
        }


def similar_answer(
    question: str,
    plan: QueryPlan,
    standalone: str,
    source: Paper,
    similar: SimilarPapers,
    allowed: set[str] | None,
) -> Answer:
    """The named paper as [1], then the closest papers as [2] … with their scores."""
    found = similar.ranked(source, allowed)
    rows = [
        row(n, paper, why).model_copy(update={"score": score})
        for n, (paper, score, why) in enumerate(found, start=2)
    ]
    named = citation(row(1, source, (split_sentences(source.abstract) or [source.abstract])[0]))
    summary = (
        f"The {len(rows)} ICML 2024 papers closest to *{plain(source.title)}* [1], by their "
        "abstracts' vectors and the rare phrases they share:"
        if rows
        else f"No other ICML 2024 paper is close to *{plain(source.title)}* [1]."
    )
    aggregate = Aggregate(kind="similar", count=len(rows), exact=False, papers=rows)
    return set_answer(
        question,
        standalone,
        plan,
        listed_text(summary, rows, []),
        [named, *(citation(r) for r in rows)],
        aggregate,
        backend="similarity",
        mode="catalogue",
    )
