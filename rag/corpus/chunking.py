"""Sentence-aligned chunks that fit the embedding model's word-piece window.

all-MiniLM-L6-v2 silently truncates at 256 word-pieces and abstracts run to ~400, so an
abstract becomes several chunks; each chunk's embedded text starts with the title.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.text import split_sentences
from rag.types import Paper

TokenCounter = Callable[[list[str]], list[int]]


@dataclass(frozen=True)
class Chunk:
    id: str
    paper_id: str
    index: int
    text: str

    @staticmethod
    def make_id(paper_id: str, index: int) -> str:
        return f"{paper_id}::{index}"


def approximate_token_counts(texts: list[str]) -> list[int]:
    """Fallback when no tokenizer is at hand: ~1.4 word-pieces per word for ML prose."""
    return [int(len(t.split()) * 1.4) + 2 for t in texts]


def embed_text(title: str, text: str) -> str:
    return f"{title}\n{text}"


def chunk_paper(
    paper: Paper, max_tokens: int, overlap: int, count_tokens: TokenCounter
) -> list[Chunk]:
    """Greedy packing of whole sentences; a sentence longer than the budget stands alone."""
    return chunk_papers([paper], max_tokens, overlap, count_tokens)[0]


def chunk_papers(
    papers: Sequence[Paper], max_tokens: int, overlap: int, count_tokens: TokenCounter
) -> list[list[Chunk]]:
    """`chunk_paper` for each paper, with one tokenizer call for all their titles and
    sentences: each call wakes the Rust tokenizer's thread pool, which is slow while Chroma
    writes the previous slice on the other thread."""
    sentences = [split_sentences(p.abstract) or [p.abstract] for p in papers]
    counts = count_tokens(
        [text for p, s in zip(papers, sentences, strict=True) for text in (p.title, *s)]
    )
    out, start = [], 0
    for paper, paper_sentences in zip(papers, sentences, strict=True):
        end = start + 1 + len(paper_sentences)
        title_cost, *costs = counts[start:end]
        out.append(_pack(paper, paper_sentences, costs, max(16, max_tokens - title_cost), overlap))
        start = end
    return out


def _pack(
    paper: Paper, sentences: list[str], costs: list[int], budget: int, overlap: int
) -> list[Chunk]:
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for i, cost in enumerate(costs):
        if current and used + cost > budget:
            groups.append(current)
            # Carry the last `overlap` sentences over, unless they alone fill the budget.
            carried = current[-overlap:] if overlap else []
            while carried and sum(costs[j] for j in carried) + cost > budget:
                carried = carried[1:]
            current, used = list(carried), sum(costs[j] for j in carried)
        current.append(i)
        used += cost
    if current:
        groups.append(current)
    return [
        Chunk(
            id=Chunk.make_id(paper.id, n),
            paper_id=paper.id,
            index=n,
            text=" ".join(sentences[j] for j in group),
        )
        for n, group in enumerate(groups)
    ]
