"""ui/table.py and ui/set_panel.py: the set answer's table sorted, paged and escaped, the
panel's state through answers, and its export files (no model, no store)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.sets.compare import plain_text
from rag.sets.exports import bibtex, to_csv
from rag.types import Aggregate, AggregatePaper, Answer
from tests.unit.test_ui_render import PAYLOADS, assert_only_our_markup, parse
from ui import table
from ui.app import new_state
from ui.set_panel import ExportFiles, SetPanel, table_state

TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "div", "a", "span", "ul", "li", "strong"}
TABLE_ATTRS = {"class", "href", "title", "target", "rel", "aria-sort", "data-paper"}
HOSTILE_IMG = "<img src=x onerror=alert(1)>"


def paper(n: int, **overrides: Any) -> AggregatePaper:
    fields: dict[str, Any] = {
        "n": n,
        "paper_id": f"p{n:03d}",
        "title": f"Paper {n:03d}",
        "authors": [f"Author {n}", "Second Author"],
        "url": f"https://openreview.net/forum?id=p{n:03d}",
        "status": "Poster",
        "pmlr_key": f"key{n}",
        "why": f"Sentence {n} shows it belongs.",
        "score": None,
    }
    fields.update(overrides)
    return AggregatePaper(**fields)


def aggregate(rows: list[AggregatePaper], **overrides: Any) -> Aggregate:
    fields: dict[str, Any] = {"kind": "list", "count": len(rows), "exact": False, "papers": rows}
    fields.update(overrides)
    return Aggregate(**fields)


def answer(agg: Aggregate | None) -> Answer:
    return Answer(
        question="q", answer="a", abstained=False, backend="b", mode="hybrid", aggregate=agg
    )


def assert_only_table_markup(html: str) -> Any:
    return assert_only_our_markup(html, TABLE_TAGS, TABLE_ATTRS, in_page_links=False)


def shown_numbers(html: str) -> list[int]:
    parsed = parse(html)
    cells = [a for t, a in parsed.tags if t == "tr" and "data-paper" in a]
    return [int(str(a["data-paper"])[1:]) for a in cells]


# --- sorting ---------------------------------------------------------------------------------
def test_sort_by_each_key_both_ways() -> None:
    rows = [
        paper(1, title="beta", status="Poster", score=0.5),
        paper(2, title="Alpha", status="Oral", score=0.9),
        paper(3, title="gamma", status="Spotlight", score=0.7),
    ]
    order = {
        (k, d): [r.n for r in table.sort_rows(rows, k, d)]
        for k in table.SORT_KEYS
        for d in (False, True)
    }
    assert order[("n", False)] == [1, 2, 3] and order[("n", True)] == [3, 2, 1]
    assert order[("title", False)] == [2, 1, 3]  # case-insensitive
    assert order[("title", True)] == [3, 1, 2]
    assert order[("status", False)] == [2, 3, 1]  # Oral, Spotlight, Poster
    assert order[("status", True)] == [1, 3, 2]
    assert order[("score", False)] == [1, 3, 2] and order[("score", True)] == [2, 3, 1]


def test_blanks_go_last_and_ties_keep_answer_order_both_ways() -> None:
    rows = [paper(4, score=None, status=""), paper(2, score=0.5), paper(3, score=0.5)]
    rows.append(paper(1, score=0.9, status="Oral"))
    assert [r.n for r in table.sort_rows(rows, "score", False)] == [2, 3, 1, 4]
    assert [r.n for r in table.sort_rows(rows, "score", True)] == [1, 2, 3, 4]
    assert [r.n for r in table.sort_rows(rows, "status", True)] == [2, 3, 1, 4]


def test_unknown_sort_key_sorts_by_n() -> None:
    rows = [paper(2), paper(1)]
    assert [r.n for r in table.sort_rows(rows, "<script>", False)] == [1, 2]


# --- paging ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("total", "pages"), [(0, 1), (1, 1), (25, 1), (26, 2), (50, 2), (62, 3), (1000, 40)]
)
def test_page_count(total: int, pages: int) -> None:
    assert table.page_count(total, 25) == pages


def test_pages_are_clamped_and_labelled() -> None:
    assert table.clamp_page(-3, 62) == 0
    assert table.clamp_page(99, 62) == 2
    assert table.page_label(1, 62) == "page 2 of 3 · 62 papers"
    assert table.page_label(99, 62) == "page 3 of 3 · 62 papers"
    assert table.page_label(0, 1) == "page 1 of 1 · 1 paper"
    assert table.page_label(0, 0) == "no papers"


def test_pages_cover_every_row_once() -> None:
    rows = [paper(n, score=n / 100) for n in range(1, 63)]
    seen: list[int] = []
    for page in range(table.page_count(len(rows))):
        html = table.aggregate_table_html(rows, [], page, 25, "score", True)
        seen += shown_numbers(html)
    assert seen == list(range(62, 0, -1))
    last = table.aggregate_table_html(rows, [], 2, 25)
    assert shown_numbers(last) == list(range(51, 63))
    assert shown_numbers(table.aggregate_table_html(rows, [], 7, 25)) == list(range(51, 63))


@given(st.integers(0, 80), st.integers(-5, 10), st.integers(1, 30))
def test_any_page_is_a_slice_of_the_rows(total: int, page: int, size: int) -> None:
    rows = [paper(n) for n in range(1, total + 1)]
    numbers = shown_numbers(table.aggregate_table_html(rows, [], page, size))
    assert len(numbers) <= size
    assert set(numbers) <= set(range(1, total + 1))
    assert (numbers != []) == (total > 0)


# --- cells and escaping ----------------------------------------------------------------------
def test_row_shows_every_cell() -> None:
    row = paper(
        7,
        authors=[f"A{i}" for i in range(6)],
        status="Spotlight",
        score=0.9312,
        membership="clearly",
    )
    row.cells = {"method": "Low-rank $W$ updates", "finding": "$2\\times$ faster"}
    html = table.aggregate_table_html([row], ["method", "finding"])
    parsed = assert_only_table_markup(html)
    heads = [a for t, a in parsed.tags if t == "th"]
    assert len(heads) == 8
    text = "".join(parsed.text)
    for needle in ["Paper 007", "A0, A1, A2 et al.", "Spotlight", "Sentence 7 shows"]:
        assert needle in text
    assert "0.93 · clearly" in text  # membership, in the answer's own word for it
    # gr.HTML runs no KaTeX: the cells' LaTeX is Unicode text, dollars gone
    assert "method" in text and "finding" in text and "2× faster" in text
    assert "Low-rank W updates" in text and "$" not in text
    link = next(a for t, a in parsed.tags if t == "a")
    assert link["href"] == "https://openreview.net/forum?id=p007" and link["target"] == "_blank"


def test_blank_score_and_status_cells() -> None:
    html = table.aggregate_table_html([paper(1, status="", score=None), paper(2, score=0.5)])
    assert '<td class="rag-set-score"></td>' in html
    assert '<td class="rag-set-status"></td>' in html


def test_no_score_column_when_no_row_has_a_score() -> None:
    # An exact catalogue list (or named papers): nothing to show there, not even a heading.
    html = table.aggregate_table_html([paper(1, score=None), paper(2, score=None)])
    assert "rag-set-score" not in html and "Membership" not in html and "Score" not in html


def test_sorted_column_is_marked() -> None:
    html = table.aggregate_table_html([paper(1, score=0.5)], [], sort_key="score", descending=True)
    parsed = parse(html)
    marked = [a for t, a in parsed.tags if t == "th" and a.get("aria-sort")]
    assert [(a["class"], a["aria-sort"]) for a in marked] == [
        ("rag-key-score rag-sorted", "descending")
    ]
    assert "Membership ▼" in "".join(parsed.text)
    assert "chance (0-1) it is about the topic" in str(marked[0]["title"])


@pytest.mark.parametrize(
    ("kind", "membership", "heading", "cell"),
    [("list", "touches", "Membership", "0.23 · touches on it"),
     ("count", "possibly", "Membership", "0.23 · possibly"),
     ("compare", "closest", "Membership", "0.23 · closest"),
     ("similar", "closest", "Similarity", "0.23"), ("metadata", "exact", "Score", "0.23")],
)  # fmt: skip
def test_score_column_says_what_its_number_is(
    kind: str, membership: str, heading: str, cell: str
) -> None:
    row = paper(1, score=0.234, membership=membership)
    html = table.aggregate_table_html([row], kind=kind)
    parsed = parse(html)
    heads = [text for text in parsed.text if text.startswith(heading)]
    assert heads, parsed.text
    assert f'<td class="rag-set-score">{cell}</td>' in html
    # sorting by the score column still sorts by the number
    rows = [paper(1, score=0.2), paper(2, score=0.9), paper(3, score=0.5)]
    ordered = table.aggregate_table_html(rows, sort_key="score", descending=True, kind=kind)
    assert shown_numbers(ordered) == [2, 3, 1]


@pytest.mark.parametrize("payload", [*PAYLOADS, HOSTILE_IMG, "**bold** _x_ `code` # head"])
def test_every_cell_is_escaped(payload: str) -> None:
    row = paper(
        1,
        paper_id=f"id{payload}",
        title=f"T {payload}",
        authors=[f"Mallory {payload}", payload],
        url="javascript:alert(1)",
        status=payload,
        why=f"Why {payload}",
        score=0.5,
        cells={payload: f"cell {payload}"},
    )
    html = table.aggregate_table_html([row], [payload, "missing"])
    parsed = assert_only_table_markup(html)
    text = "".join(parsed.text)
    # Emphasis markers in corpus text are dropped ("**L**ow-rank" → "Low-rank"), as written.
    plain = plain_text(payload)
    for shown in [f"T {plain}", f"Why {plain}", f"cell {plain}", payload]:
        assert shown in text, shown
    assert not any(t == "a" for t, _ in parsed.tags)  # the javascript: URL is not linked
    summary = table.summary_html(aggregate([row], notes=[payload], kind="compare"))
    assert plain in "".join(assert_only_table_markup(summary).text)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,x", "//evil.org/x", "https://ok.org/a b", ""]
)
def test_unsafe_urls_leave_the_title_unlinked(url: str) -> None:
    html = table.aggregate_table_html([paper(1, url=url)])
    assert "<a " not in html and "Paper 001" in html


def test_empty_table() -> None:
    html = table.aggregate_table_html([], [], 3, 25, "score", True)
    assert "No papers" in html and "<table" not in html


def test_summary_says_exact_or_judged() -> None:
    rows = [paper(1), paper(2)]
    exact = table.summary_html(aggregate(rows, exact=True, kind="metadata"))
    judged = table.summary_html(aggregate(rows, count=5))
    assert "exact, from the catalogue" in exact and "catalogue query" in exact
    assert "judged" in judged and "5 papers, 2 listed" in judged


# --- the panel's state and events ------------------------------------------------------------
def panel(tmp_path: Path, page_size: int = 25) -> SetPanel:
    return SetPanel(ExportFiles(tmp_path / "exports", keep=2), page_size=page_size)


def test_only_set_answers_with_papers_get_a_table() -> None:
    assert table_state(answer(None)) is None
    assert table_state(answer(aggregate([], ranking=[("A", 3)], kind="metadata"))) is None
    state = table_state(answer(aggregate([paper(1)])))
    assert state is not None and state["page"] == 0 and state["sort"] == "n"


def test_show_hides_the_panel_without_a_set(tmp_path: Path) -> None:
    column, summary, _, _, bib, csv_button, html, label, prev, nxt, _ = panel(tmp_path).show(
        new_state()
    )
    assert column["visible"] is False and summary == "" and label == "no papers"
    assert "No papers" in html
    assert bib["value"] is None and csv_button["value"] is None
    assert prev["interactive"] is False and nxt["interactive"] is False


def test_show_sort_and_page_through_a_set(tmp_path: Path) -> None:
    rows = [paper(n, score=round(1 - n / 100, 2)) for n in range(1, 63)]
    state = new_state()
    state["table"] = table_state(answer(aggregate(rows)))
    view = panel(tmp_path)
    shown = view.show(state)
    assert shown[0]["visible"] is True
    assert shown_numbers(shown[6]) == list(range(1, 26)) and shown[7] == "page 1 of 3 · 62 papers"
    assert shown[8]["interactive"] is False and shown[9]["interactive"] is True
    view.next(state)
    html, label, prev, nxt, _ = view.next(state)
    assert shown_numbers(html) == list(range(51, 63)) and label == "page 3 of 3 · 62 papers"
    assert prev["interactive"] is True and nxt["interactive"] is False
    assert shown_numbers(view.next(state)[0]) == list(range(51, 63))  # stays on the last page
    html, label, *_ = view.sort(state, "score", table.ASCENDING)
    assert shown_numbers(html) == list(range(62, 37, -1)) and label.startswith("page 1 of 3")
    assert shown_numbers(view.previous(state)[0]) == list(range(62, 37, -1))


def test_exports_hold_every_row_and_reuse_rag_exports(tmp_path: Path) -> None:
    rows = [paper(n, title=f"T{n} {HOSTILE_IMG}") for n in range(1, 63)]
    state = new_state()
    state["table"] = table_state(answer(aggregate(rows)))
    shown = panel(tmp_path).show(state)
    bib, csv_path = Path(shown[4]["value"]), Path(shown[5]["value"])
    assert bib.name == "icml2024-papers.bib" and csv_path.name == "icml2024-papers.csv"
    assert bib.read_text(encoding="utf-8") == bibtex(rows)
    assert csv_path.read_text(encoding="utf-8") == to_csv(rows)
    read = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert [r["paper_id"] for r in read] == [r.paper_id for r in rows]
    assert bib.read_text().count("@InProceedings{") == 62


def test_old_export_directories_are_removed(tmp_path: Path) -> None:
    exports = ExportFiles(tmp_path / "exports", keep=2)
    written = [exports.write([paper(1)]) for _ in range(4)]
    assert [Path(w["bib"]).exists() for w in written] == [False, False, True, True]


def test_plain_text_drops_emphasis_but_not_code() -> None:
    assert plain_text("**L**ow-rank **Q**uantization, a __bold__ word") == (
        "Low-rank Quantization, a bold word"
    )
    code = '<script>window.__xss=1</script><img onerror="window.__xss=1">'
    assert plain_text(code) == code  # `__` inside identifiers is not emphasis
