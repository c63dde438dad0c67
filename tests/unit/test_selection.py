"""The extractive writer's choice of sentences, its output, and what citations rest on."""

from __future__ import annotations

from rag.answer.citations import cited_numbers
from rag.answer.evidence import Evidence, ScoredSentence
from rag.answer.extractive import ExtractiveSynthesizer
from rag.types import Paper, RetrievedPaper


def sentence(source: int, position: int, score: float, text: str = "") -> ScoredSentence:
    # score = 0.65 * cosine + 0.35 * lexical; equal parts make score == the given value
    return ScoredSentence(source, position, text or f"s{source}.{position}", score, score)


def evidence(sentences: list[ScoredSentence], relevance: dict[int, float]) -> Evidence:
    return Evidence(sentences=sentences, paper_relevance=relevance)


def picked(chosen: list[ScoredSentence]) -> list[tuple[int, int]]:
    return [(s.source, s.position) for s in chosen]


def test_papers_far_below_the_best_are_not_quoted() -> None:
    ev = evidence(
        [sentence(1, 0, 0.9), sentence(2, 0, 0.8), sentence(3, 0, 0.7)],
        {1: 1.0, 2: 0.9, 3: 0.5},
    )
    assert picked(ExtractiveSynthesizer(4).select(ev)) == [(1, 0), (2, 0)]


def test_the_best_paper_may_give_three_sentences_others_one() -> None:
    ev = evidence(
        [
            sentence(1, 0, 0.9),
            sentence(1, 3, 0.8),
            sentence(1, 5, 0.75),
            sentence(1, 6, 0.5),  # under 0.8 of the paper's best
            sentence(2, 0, 0.8),
            sentence(2, 1, 0.7),  # a second paper's second sentence needs 0.95 of its best
        ],
        {1: 1.0, 2: 0.95},
    )
    assert picked(ExtractiveSynthesizer(6).select(ev)) == [(1, 0), (1, 3), (1, 5), (2, 0)]


def test_over_budget_drops_the_weakest_but_not_a_papers_only_sentence() -> None:
    ev = evidence(
        [sentence(1, 0, 0.9), sentence(1, 1, 0.85), sentence(2, 0, 0.5)],
        {1: 1.0, 2: 0.9},
    )
    assert picked(ExtractiveSynthesizer(2).select(ev)) == [(1, 0), (2, 0)]


def test_stream_quotes_under_titles_and_cites_each_sentence() -> None:
    ev = evidence(
        [sentence(1, 0, 0.9, "First finding."), sentence(2, 0, 0.9, "Second finding.")],
        {1: 1.0, 2: 1.0},
    )
    papers = [
        RetrievedPaper(paper=Paper(id=f"p{n}", title=f"Title_{n}", abstract="-"), score=1.0)
        for n in (1, 2)
    ]
    text = "".join(ExtractiveSynthesizer(4).stream("q", papers, ev))
    assert text == "*Title\\_1*: First finding. [1]\n\n*Title\\_2*: Second finding. [2]"


def test_brackets_in_quoted_text_cannot_become_citations() -> None:
    ev = evidence([sentence(1, 0, 0.9, "Values in [0, 1] and a planted [7].")], {1: 1.0})
    paper = RetrievedPaper(paper=Paper(id="p", title="T", abstract="-"), score=1.0)
    text = "".join(ExtractiveSynthesizer(4).stream("q", [paper], ev))
    assert cited_numbers(text) == [1]
    assert "[\u20607]" in text  # still shown as written, behind an invisible word joiner


def test_snippets_are_the_quoted_sentences_per_source() -> None:
    ev = evidence(
        [sentence(1, 0, 0.9, "A."), sentence(1, 2, 0.85, "B."), sentence(2, 0, 0.1)],
        {1: 1.0, 2: 0.1},
    )
    assert ExtractiveSynthesizer(4).snippets(ev) == {1: ["A.", "B."]}
