"""Typed, JSON-serialisable objects that cross module and process boundaries."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Paper(BaseModel):
    """One paper of a corpus: what is embedded, shown and cited."""

    id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    abstract: str
    url: str = ""
    status: str = ""
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Every other source field, kept as metadata."
    )

    def content_hash(self) -> str:
        """Changes whenever anything that is embedded or shown changes."""
        payload = json.dumps(
            [self.title, self.authors, self.abstract, self.url, self.status, self.extra],
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class Filters(BaseModel):
    """Restrictions on which papers may be retrieved. All given ones must hold."""

    model_config = ConfigDict(extra="forbid")

    status: list[str] | None = Field(
        None, description="Keep papers with one of these statuses (Oral, Spotlight, Poster)."
    )
    author: str | None = Field(None, description="Case-insensitive substring of any author name.")
    title: str | None = Field(None, description="Case-insensitive substring of the title.")
    paper_ids: list[str] | None = Field(None, description="Keep only these paper ids.")

    def is_empty(self) -> bool:
        return not (self.status or self.author or self.title or self.paper_ids)

    def accepts(self, paper: Paper) -> bool:
        if self.status and paper.status.lower() not in {s.lower() for s in self.status}:
            return False
        if self.author:
            needle = self.author.casefold()
            if not any(needle in name.casefold() for name in paper.authors):
                return False
        if self.title and self.title.casefold() not in paper.title.casefold():
            return False
        return not (self.paper_ids and paper.id not in set(self.paper_ids))


class MatchedChunk(BaseModel):
    chunk_id: str
    text: str
    score: float


class RetrievedPaper(BaseModel):
    """A paper with the chunks that matched the query and the scores behind its rank."""

    paper: Paper
    score: float = Field(description="Score used for ranking (fused score in hybrid mode).")
    dense_score: float | None = Field(None, description="Best chunk cosine similarity.")
    bm25_score: float | None = Field(None, description="Best chunk BM25 score.")
    dense_rank: int | None = None
    bm25_rank: int | None = None
    chunks: list[MatchedChunk] = Field(default_factory=list)


class Citation(BaseModel):
    """A numbered source that the answer actually cites."""

    n: int
    paper_id: str
    title: str
    authors: list[str]
    url: str
    status: str = ""
    snippet: str = Field(description="The sentence(s) of the abstract the citation rests on.")
    score: float


class Related(BaseModel):
    """A nearby paper shown with an abstention: related, not support."""

    paper_id: str
    title: str
    authors: list[str]
    url: str
    status: str = ""
    score: float


class Answer(BaseModel):
    """What every way in returns for one question (`rag ask --json`, `/v1/ask`): the answer
    text with [n] markers and the citations behind them, or an abstention (`abstained`,
    with `related` papers that are not support), plus the evidence and timings."""

    question: str
    standalone_question: str = Field(
        "", description="The question actually retrieved for (follow-ups are rewritten)."
    )
    answer: str
    abstained: bool
    backend: str
    model: str | None = None
    mode: str
    citations: list[Citation] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    confidence: float = Field(0.0, description="Evidence confidence used for abstention.")
    evidence: dict[str, float] = Field(
        default_factory=dict,
        description="Signals behind `confidence` (best_cosine, coverage, agreement).",
    )
    invalid_citations_removed: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)


class ChatMessage(BaseModel):
    role: Literal["user", "assistant", "system"]
    content: str
