"""The offline answer writer: the question's best abstract sentences, quoted and cited.

Deterministic: the same store and question give the same answer. Sentences are quoted as
written (no rewriting means nothing unsupported can slip in).
"""

from __future__ import annotations

from collections.abc import Iterator

from rag.answer.citations import MARKER
from rag.answer.evidence import Evidence, ScoredSentence
from rag.types import ChatMessage, RetrievedPaper

MIN_RELATIVE_SCORE = 0.8  # of the paper's best sentence score, for its further sentences
MIN_RELATIVE_PAPER = 0.85  # of the best paper's relevance, for a paper to be cited
MAX_PAPERS = 3
MAX_PER_SOURCE = 3


class ExtractiveSynthesizer:
    """Composes the answer from the most question-relevant abstract sentences: each
    paper's sentences follow its title, each ending with its [n]."""

    name = "extractive"
    model: str | None = None

    def __init__(self, max_sentences: int) -> None:
        self.max_sentences = max_sentences

    def select(self, evidence: Evidence) -> list[ScoredSentence]:
        """Papers that answer about as well as the best one, then their best sentences.

        The most relevant paper may give up to MAX_PER_SOURCE sentences (a question asks
        what it *finds*, and the finding is rarely the first sentence); others give one
        unless a second is nearly as good.
        """
        relevance = evidence.paper_relevance
        if not evidence.sentences or not relevance:
            return []
        best = max(relevance.values())
        papers = sorted(
            (n for n, r in relevance.items() if r >= best * MIN_RELATIVE_PAPER),
            key=lambda n: -relevance[n],
        )[:MAX_PAPERS]
        chosen: list[ScoredSentence] = []
        for rank, source in enumerate(papers):
            mine = sorted(
                (s for s in evidence.sentences if s.source == source),
                key=lambda s: (-s.score, s.position),
            )
            if not mine:
                continue
            chosen.append(mine[0])
            keep = MAX_PER_SOURCE if rank == 0 else 2
            floor = mine[0].score * (MIN_RELATIVE_SCORE if rank == 0 else 0.95)
            chosen += [s for s in mine[1:keep] if s.score >= floor]
        budget = self.max_sentences
        # Over budget: drop the weakest sentences, but never a paper's only sentence first.
        while len(chosen) > budget:
            counts = {s.source: sum(1 for c in chosen if c.source == s.source) for s in chosen}
            spare = [s for s in chosen if counts[s.source] > 1] or chosen
            chosen.remove(min(spare, key=lambda s: s.score))
        return sorted(chosen, key=lambda s: (s.source, s.position))

    def stream(
        self,
        question: str,
        sources: list[RetrievedPaper],
        evidence: Evidence,
        history: list[ChatMessage] | None = None,
    ) -> Iterator[str]:
        current = 0
        for sentence in self.select(evidence):
            if sentence.source != current:
                title = sources[sentence.source - 1].paper.title
                prefix = "\n\n" if current else ""
                yield f"{prefix}*{_md_plain(_quoted(title))}*: "
                current = sentence.source
            else:
                yield " "
            yield f"{_quoted(sentence.text)} [{sentence.source}]"

    def snippets(self, evidence: Evidence) -> dict[int, list[str]]:
        """The sentences quoted from each source: what its citation rests on."""
        chosen: dict[int, list[str]] = {}
        for sentence in self.select(evidence):
            chosen.setdefault(sentence.source, []).append(sentence.text)
        return chosen


def _md_plain(text: str) -> str:
    # Titles go inside *…*: keep their own asterisks/underscores from breaking emphasis.
    return text.replace("*", "\\*").replace("_", "\\_")


def _quoted(text: str) -> str:
    """Quoted text whose brackets cannot pass for citation markers.

    Abstracts hold intervals ("$[0,1]^d$") and may hold planted markers ("cite [7]"); quoted
    as is, the marker filter would turn them into citations of unrelated sources. A word
    joiner (invisible) after the bracket keeps the text as written on screen.
    """
    return MARKER.sub(lambda m: "[\u2060" + m.group(0)[1:], text)
