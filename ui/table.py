"""The rows of a set answer as a sortable, paged HTML table, built by hand like `ui.render`.

Pure functions only: the panel's behaviour (Gradio state, events, export files) lives in
`ui.set_panel`. Gradio strips scripts from `gr.HTML`, so sorting and paging happen on the
server and this module re-renders one page at a time.

Every cell is corpus text (titles with `$…$` math, author names, evidence sentences, the
cells of a comparison) and is escaped; titles link only to http(s) URLs (`render.safe_url`).
`gr.HTML` runs no KaTeX, so the cells show their LaTeX as Unicode (`render.readable_html`).

The score column says what the number is for the kind of set: a topic set's membership
probability with the answer's own word for the row ("clearly", "touches", as in "51
clearly, 11 more touch on it"; "closest" for a paper ranked but not counted), a
similar-papers list's closeness; catalogue sets have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rag.types import Aggregate, AggregatePaper
from ui.render import authors_html, esc, readable_html, status_badge, title_link

PAGE_SIZE = 25
SORT_KEYS = ("n", "title", "status", "score")
SORT_LABELS = {
    "n": "n (answer order)",
    "title": "Title",
    "status": "Status",
    "score": "Membership / similarity",
}
TOPIC_KINDS = frozenset({"list", "count", "compare"})  # scored by the topic scan
# The score column's heading and its hover text, by the kind of set.
SCORE_HEADINGS = {
    "similar": ("Similarity", "How close the abstract is to the named paper's, 0-1."),
    "metadata": ("Score", "None: a catalogue list is exact."),
    "topic": (
        "Membership",
        "Estimated chance (0-1) it is about the topic: clearly, touches on it (possibly, for "
        "a topic of several facets), or only among the closest papers (not counted).",
    ),
}
ASCENDING, DESCENDING = "ascending", "descending"
PANEL_HEADING = "Papers in the last set answer"
# Conference order, not the alphabet: "oral" before "poster" before "spotlight" means little.
STATUS_ORDER = {"oral": 0, "spotlight": 1, "poster": 2}
KIND_LABELS = {"metadata": "catalogue query", "compare": "comparison", "similar": "similar papers"}

CSS = """
.rag-set-summary { margin: 0 0 .4em 0; font-size: .92em; }
.rag-set-notes { margin: .2em 0 .4em 1.2em; font-size: .85em;
  color: var(--body-text-color-subdued); }
.rag-set-table { border-collapse: collapse; width: 100%; font-size: .88em; }
.rag-set-table th, .rag-set-table td { border-bottom: 1px solid var(--border-color-primary);
  padding: .3em .45em; text-align: left; vertical-align: top; }
.rag-set-table th { white-space: nowrap; }
.rag-set-table th.rag-sorted { color: var(--color-accent); }
.rag-set-table td.rag-set-n, .rag-set-table td.rag-set-score { white-space: nowrap;
  text-align: right; }
.rag-set-table td.rag-set-title { min-width: 16em; }
.rag-set-empty { color: var(--body-text-color-subdued); font-style: italic; }
"""


def _status_rank(row: AggregatePaper) -> tuple[int, str] | None:
    status = row.status.strip().lower()
    return (STATUS_ORDER.get(status, len(STATUS_ORDER)), status) if status else None


_SORT_VALUES: dict[str, Callable[[AggregatePaper], Any]] = {
    "n": lambda row: row.n,
    "title": lambda row: row.title.strip().casefold() or None,
    "status": _status_rank,
    "score": lambda row: row.score,
}


def sort_rows(
    rows: list[AggregatePaper], key: str, descending: bool = False
) -> list[AggregatePaper]:
    """The rows ordered by `key` (one of SORT_KEYS; unknown keys sort by n).

    Ties keep the answer's own order (n ascending) in both directions, and rows without a
    value (no score, no status) go last in both directions: a blank is not "smallest".
    """
    value = _SORT_VALUES.get(key, _SORT_VALUES["n"])
    by_n = sorted(rows, key=lambda row: row.n)
    present = [row for row in by_n if value(row) is not None]
    missing = [row for row in by_n if value(row) is None]
    # Python's sort is stable with reverse=True too, so equal values stay in n order.
    return sorted(present, key=value, reverse=descending) + missing


def page_count(total: int, page_size: int = PAGE_SIZE) -> int:
    return max(1, -(-total // max(1, page_size)))


def clamp_page(page: int, total: int, page_size: int = PAGE_SIZE) -> int:
    """A 0-based page index inside [0, pages - 1]."""
    return max(0, min(int(page), page_count(total, page_size) - 1))


def page_label(page: int, total: int, page_size: int = PAGE_SIZE) -> str:
    """ "page X of Y · N papers" (X 1-based)."""
    if total == 0:
        return "no papers"
    noun = "paper" if total == 1 else "papers"
    shown = clamp_page(page, total, page_size) + 1
    return f"page {shown} of {page_count(total, page_size)} · {total} {noun}"


def _header(key: str | None, label: str, sort_key: str, descending: bool, hint: str = "") -> str:
    """A column heading; a sortable one carries its key as a class (`rag-key-title`), which
    the page's script turns into a sort when it is clicked."""
    title = f' title="{esc(hint)}"' if hint else ""
    classes = [f"rag-key-{key}"] if key is not None else []
    aria = ""
    arrow = ""
    if key is not None and key == sort_key:
        classes.append("rag-sorted")
        arrow, direction = ("▼", "descending") if descending else ("▲", "ascending")
        aria = f' aria-sort="{direction}"'
        arrow = f" {arrow}"
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    return f"<th{attrs}{aria}{title}>{esc(label)}{arrow}</th>"


def _score_heading(kind: str) -> tuple[str, str]:
    return SCORE_HEADINGS.get(kind, SCORE_HEADINGS["topic"])


def score_cell(row: AggregatePaper, kind: str) -> str:
    """The rounded value, with the answer's word for a topic set's row."""
    if row.score is None:
        return ""
    if kind not in TOPIC_KINDS or row.membership not in _MEMBERSHIP_WORDS:
        return f"{row.score:.2f}"
    return f"{row.score:.2f} · {_MEMBERSHIP_WORDS[row.membership]}"


_MEMBERSHIP_WORDS = {
    "clearly": "clearly",
    "touches": "touches on it",
    "possibly": "possibly",
    "closest": "closest",
}


def _row_html(row: AggregatePaper, columns: list[str], kind: str, scored: bool) -> str:
    cells = "".join(
        f'<td class="rag-set-cell">{readable_html(row.cells.get(column, ""))}</td>'
        for column in columns
    )
    score = f'<td class="rag-set-score">{esc(score_cell(row, kind))}</td>' if scored else ""
    return (
        f'<tr data-paper="{esc(row.paper_id)}"><td class="rag-set-n">{row.n}</td>'
        f'<td class="rag-set-title">{title_link(row.title, row.url, typeset=False)}</td>'
        f'<td class="rag-set-authors">{authors_html(row.authors)}</td>'
        f'<td class="rag-set-status">{status_badge(row.status).strip()}</td>'
        f'<td class="rag-set-why">{readable_html(row.why)}</td>{score}{cells}</tr>'
    )


def aggregate_table_html(
    rows: list[AggregatePaper],
    columns: list[str] | None = None,
    page: int = 0,
    page_size: int = PAGE_SIZE,
    sort_key: str = "n",
    descending: bool = False,
    kind: str = "list",
) -> str:
    """One page of the sorted rows as a table; `columns` adds a comparison's cells, `kind`
    (the aggregate's) says what the score column holds. Rows with no score at all (an exact
    catalogue list, named papers) have no score column. The table scrolls sideways inside
    its own box on a narrow screen."""
    if not rows:
        return '<div class="rag-set-empty">No papers in the last answer.</div>'
    columns = list(columns or [])
    page = clamp_page(page, len(rows), page_size)
    shown = sort_rows(rows, sort_key, descending)[page * page_size : (page + 1) * page_size]
    scored = any(row.score is not None for row in rows)
    score_label, score_hint = _score_heading(kind)
    fixed: list[tuple[str | None, str, str]] = [
        ("n", "n", ""),
        ("title", "Title", ""),
        (None, "Authors", ""),
        ("status", "Status", ""),
        (None, "Why it is in the set", ""),
    ]
    if scored:
        fixed.append(("score", score_label, score_hint))
    heads = [_header(key, label, sort_key, descending, hint) for key, label, hint in fixed]
    heads += [_header(None, column, sort_key, descending) for column in columns]
    body = "".join(_row_html(row, columns, kind, scored) for row in shown)
    return (
        f'<div class="rag-set-scroll"><table class="rag-set-table"><thead><tr>'
        f"{''.join(heads)}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _count_label(aggregate: Aggregate, shown: int) -> str:
    """ "12 papers", "13 clearly, 21 touch on it", or "10 closest, no count claimed"."""
    if aggregate.count is None:
        return f"{shown} closest {'paper' if shown == 1 else 'papers'}, no count claimed"
    noun = "paper" if aggregate.count == 1 else "papers"
    if aggregate.touching:
        label = f"{aggregate.count} {noun} clearly, {aggregate.touching} more touch on it"
        listed = aggregate.count + aggregate.touching
    else:
        label, listed = f"{aggregate.count} {noun}", aggregate.count
    return label + (f", {shown} listed" if shown != listed else "")


def summary_html(aggregate: Aggregate) -> str:
    """What the set is: its size, whether it is exact, and the answer's notes."""
    shown = len(aggregate.papers)
    if aggregate.exact:
        how = "exact, from the catalogue"
    elif aggregate.kind == "similar":
        how = "ranked by how close each abstract is (similarity 0–1)"
    else:
        how = "judged from the abstracts (membership: estimated chance 0–1 it is about the topic)"
    count = _count_label(aggregate, shown)
    notes = "".join(f"<li>{readable_html(note)}</li>" for note in aggregate.notes)
    return (
        f'<div class="rag-set-summary"><strong>{esc(PANEL_HEADING)}</strong> · '
        f"{esc(KIND_LABELS.get(aggregate.kind, aggregate.kind))} · {esc(count)} · {esc(how)}</div>"
        + (f'<ul class="rag-set-notes">{notes}</ul>' if notes else "")
    )
