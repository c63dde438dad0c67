"""Comparison cells: each role gets the abstract's own sentence for it, distinct sentences,
and a role no sentence signals stays empty."""

from __future__ import annotations

import csv
import io

from rag.sets.compare import CELL_LIMIT, COLUMNS, comparison_cells
from rag.sets.exports import table, to_csv
from rag.types import AggregatePaper

ABSTRACT = (
    "Large language models are costly to serve. "
    "However, existing quantization methods struggle below four bits. "
    "We propose LatticeQ, a post-training method that rounds weights onto lattice codebooks. "
    "Experiments show that LatticeQ outperforms prior methods by 2.1 points at 2 bits."
)


def test_each_role_gets_its_own_sentence() -> None:
    cells = comparison_cells(ABSTRACT)
    assert list(cells) == list(COLUMNS)
    assert cells["problem"].startswith("However, existing quantization")
    assert cells["method"].startswith("We propose LatticeQ")
    assert cells["finding"].startswith("Experiments show")


def test_a_role_without_its_cue_stays_empty() -> None:
    cells = comparison_cells("We propose a sampler for graphs. It is written in Rust.")
    assert cells["method"] == "We propose a sampler for graphs."
    assert cells["finding"] == "" and cells["problem"] == ""


def test_one_sentence_fills_one_cell_only() -> None:
    cells = comparison_cells("We propose X and show that it outperforms Y.")
    assert sum(1 for text in cells.values() if text) == 1


def test_long_sentences_are_cut_at_a_word() -> None:
    cells = comparison_cells("We propose " + "a very long method " * 40 + ".")
    assert len(cells["method"]) <= CELL_LIMIT and cells["method"].endswith("…")


def test_empty_abstract_gives_empty_cells() -> None:
    assert comparison_cells("") == dict.fromkeys(COLUMNS, "")


def test_csv_and_table_carry_the_comparison_cells() -> None:
    row = AggregatePaper(
        n=1, paper_id="p1", title="LatticeQ", authors=["A. Author"], why="w",
        cells={"problem": "slow, \"costly\"", "method": "lattice", "finding": ""},
    )  # fmt: skip
    parsed = list(csv.DictReader(io.StringIO(to_csv([row]))))
    assert parsed[0]["problem"] == 'slow, "costly"' and parsed[0]["method"] == "lattice"
    assert "method: lattice" in table([row]) and "finding:" not in table([row])
