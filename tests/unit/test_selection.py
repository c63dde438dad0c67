"""The extractive writer's choice of sentences, its output, and what citations rest on."""

from __future__ import annotations

from rag.answer.citations import cited_numbers
from rag.answer.extractive import ExtractiveSynthesizer
from rag.answer.scored import Evidence, ScoredSentence
from rag.types import Paper, RetrievedPaper


def sentence(source: int, position: int, score: float, text: str = "") -> ScoredSentence:
    # score = 0.65 * cosine + 0.35 * lexical; equal parts make score == the given value
    # Own-voice text ("we find") gets the same contribution nudge everywhere.
    return ScoredSentence(source, position, text or f"We find s{source}.{position}", score, score)


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


def test_the_best_paper_may_give_several_sentences_others_one() -> None:
    ev = evidence(
        [
            sentence(1, 0, 0.9),
            sentence(1, 3, 0.8),
            sentence(1, 5, 0.75),
            sentence(1, 6, 0.5),  # under 0.7 of the paper's best
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


def test_a_contribution_outranks_a_background_sentence_scoring_a_little_higher() -> None:
    ev = evidence(
        [
            sentence(1, 0, 0.80, "Large models have been demonstrated on many tasks."),
            sentence(1, 4, 0.75, "We propose a new optimizer for language models."),
        ],
        {1: 1.0},
    )
    assert picked(ExtractiveSynthesizer(1).select(ev)) == [(1, 4)]


def test_each_part_of_a_two_part_question_gets_its_sentence() -> None:
    from rag.answer.question_parts import question_parts
    from rag.answer.supplied import check_abstract

    question = "How many tasks does WorkArena contain, and which platform are they built on?"
    texts = [
        "We propose WorkArena to measure web agents.",
        "It has 33 tasks.",
        "Agents show promise on it.",
        "The tasks run on the ServiceNow platform.",
    ]
    ev = evidence([sentence(1, i, 0.9 - 0.1 * i, t) for i, t in enumerate(texts)], {1: 1.0})
    ev.parts = question_parts(question)
    ev.gaps = check_abstract(question, ev.parts, " ".join(texts), "WorkArena", 1)
    chosen = picked(ExtractiveSynthesizer(2).select(ev))
    assert chosen == [(1, 1), (1, 3)]


def test_a_missing_detail_is_named_before_what_the_abstract_says() -> None:
    from rag.answer.question_parts import question_parts
    from rag.answer.supplied import check_abstract

    question = "How many GPUs trained Medusa's heads?"
    texts = ["We present Medusa, which adds decoding heads.", "Medusa-1 reaches 2.2x speedup."]
    ev = evidence([sentence(1, i, 0.9, t) for i, t in enumerate(texts)], {1: 1.0})
    ev.parts = question_parts(question)
    ev.gaps = check_abstract(question, ev.parts, " ".join(texts), "Medusa: heads", 1)
    papers = [RetrievedPaper(paper=Paper(id="p1", title="Medusa: heads", abstract=""), score=1.0)]
    text = "".join(ExtractiveSynthesizer(4).stream(question, papers, ev))
    assert text.startswith("The abstract of *Medusa: heads* does not state how many GPUs")
    assert "here is what it does say [1]." in text
    assert cited_numbers(text) == [1]


def test_the_sentences_are_chosen_once_for_the_text_and_its_snippets() -> None:
    ev = evidence([sentence(1, 0, 0.9, "A."), sentence(1, 2, 0.85, "B.")], {1: 1.0})
    paper = RetrievedPaper(paper=Paper(id="p", title="T", abstract="-"), score=1.0)
    writer = ExtractiveSynthesizer(4)
    calls = []
    choose = writer._choose
    writer._choose = lambda e: calls.append(1) or choose(e)  # type: ignore[method-assign]
    text = "".join(writer.stream("q", [paper], ev))
    assert writer.snippets(ev) == {1: ["A.", "B."]} and "A. [1] B. [1]" in text
    assert len(calls) == 1


def test_a_one_part_question_asking_a_name_quotes_the_sentence_that_gives_it() -> None:
    from dataclasses import replace as _replace

    from rag.answer.question_parts import question_parts
    from rag.answer.supplied import Gaps

    ev = evidence(
        [
            sentence(1, 0, 0.9, "We introduce a new architecture."),
            sentence(1, 3, 0.5, "A tandem of PaLM2-Bison and PaLM2-Gecko is 3% better."),
        ],
        {1: 1.0},
    )
    ev.parts = question_parts("Which LLM does it use?")
    ev.gaps = Gaps(source=1, missing=[], supplied={0: 3})
    assert picked(ExtractiveSynthesizer(1).select(ev)) == [(1, 3)]
    # no sentence gives it: the best sentence, as for any question
    ev2 = _replace(ev, gaps=Gaps(source=1, missing=[], supplied={}), selected=None)
    assert picked(ExtractiveSynthesizer(1).select(ev2)) == [(1, 0)]
