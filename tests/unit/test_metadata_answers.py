"""Exact answers from the catalogue: counts, full cited lists, ambiguity said, empties plain."""

from __future__ import annotations

import pytest

from rag.answer.citations import cited_numbers
from rag.plan.parser import QuestionParser
from rag.sets.metadata import MetadataAnswerer
from tests.unit.test_catalogue import CATALOGUE

PARSER = QuestionParser(CATALOGUE)
ANSWERER = MetadataAnswerer(CATALOGUE)


def ask(question: str):  # type: ignore[no-untyped-def]
    plan = PARSER.plan(question)
    return ANSWERER.answer(question, plan)


def test_author_list_is_exact_and_every_paper_is_cited() -> None:
    answer = ask("Which ICML 2024 papers did Masashi Sugiyama co-author?")
    assert answer.aggregate is not None and answer.aggregate.exact
    assert answer.aggregate.count == 2
    assert {p.paper_id for p in answer.aggregate.papers} == {"p1", "p2"}
    assert answer.aggregate.papers[0].paper_id == "p1"  # orals first
    assert cited_numbers(answer.answer) == [1, 2] and [c.n for c in answer.citations] == [1, 2]
    assert answer.answer.startswith("2 ICML 2024 papers list Masashi Sugiyama as an author")
    assert answer.plan is not None and answer.plan.kind == "metadata"


def test_ambiguous_names_are_asked_about_not_guessed() -> None:
    answer = ask("Which papers did M. Sugiyama co-author?")
    assert answer.aggregate is None and answer.citations == []
    assert "Masashi Sugiyama (2 papers); Mahito Sugiyama (1 paper)" in answer.answer


def test_unknown_names_say_so_and_offer_the_closest() -> None:
    answer = ask("Which ICML 2024 papers did Masashi Sugiyamma co-author?")
    assert answer.aggregate is not None and answer.aggregate.count == 0
    assert "No ICML 2024 paper lists an author named “Masashi Sugiyamma”" in answer.answer
    assert "Masashi Sugiyama" in answer.answer and not answer.abstained


def test_institutions_say_what_was_counted_and_what_was_not() -> None:
    answer = ask("How many papers have at least one author at MIT?")
    assert answer.aggregate is not None and answer.aggregate.count == 1
    assert any("MIT-IBM Watson AI Lab" in note for note in answer.aggregate.notes)


def test_an_empty_combination_is_said_plainly() -> None:
    answer = ask("Which oral papers have an author affiliated with EPFL?")
    assert answer.aggregate is not None and answer.aggregate.count == 0
    assert answer.answer.startswith("No ICML 2024 oral paper lists an author from EPFL.")
    assert answer.related == [] and not answer.abstained


def test_long_lists_are_cut_in_the_text_but_whole_in_the_aggregate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("rag.sets.answer_rows.SHOWN_IN_TEXT", 3)
    answer = ask("How many poster papers are there?")
    assert answer.aggregate is not None and answer.aggregate.count == 9
    assert len(answer.citations) == len(answer.aggregate.papers) == 9
    assert cited_numbers(answer.answer) == [1, 2, 3]
    assert "… and 6 more" in answer.answer


def test_co_authors_must_all_be_on_the_paper() -> None:
    answer = ask("Which papers did Masashi Sugiyama and Jianye Hao write together?")
    assert answer.aggregate is not None and [p.paper_id for p in answer.aggregate.papers] == ["p1"]
    assert "Masashi Sugiyama as an author and Jianye HAO as an author" in answer.answer
