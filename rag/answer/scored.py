"""The evidence an answer is written from: each retrieved abstract's sentences scored
against the question, and what the scorer concluded of the papers (rag.answer.evidence)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.answer.question_parts import QuestionPart
from rag.answer.supplied import Gaps

LEXICAL_WEIGHT = 0.35


@dataclass
class ScoredSentence:
    source: int  # 1-based number of the source it comes from
    position: int  # index of the sentence in its abstract
    text: str
    cosine: float
    lexical: float

    @property
    def score(self) -> float:
        return (1 - LEXICAL_WEIGHT) * self.cosine + LEXICAL_WEIGHT * self.lexical


@dataclass
class Evidence:
    sentences: list[ScoredSentence] = field(default_factory=list)
    # 1-based source number -> how well the paper as a whole answers (best sentence + terms)
    paper_relevance: dict[int, float] = field(default_factory=dict)
    best_cosine: float = 0.0
    coverage: float = 0.0
    agreement: float = 0.0
    confidence: float = 0.0
    specific: bool = True  # the question names something besides FRAME_TERMS
    # 1-based source number -> the confidence model applied to that paper alone (0-1)
    paper_confidence: dict[int, float] = field(default_factory=dict)
    parts: list[QuestionPart] = field(default_factory=list)
    gaps: Gaps | None = None
    # rare names a retrieved paper writes while the rest of the question fits another one
    misnamed: set[str] = field(default_factory=set)
    # The extractive answer's chosen sentences, kept so its citations' snippets reuse them
    # (rag.answer.extractive.ExtractiveSynthesizer.select).
    selected: list[ScoredSentence] | None = None

    def best_for(self, source: int, limit: int = 2) -> list[ScoredSentence]:
        mine = [s for s in self.sentences if s.source == source]
        return sorted(mine, key=lambda s: s.score, reverse=True)[:limit]
