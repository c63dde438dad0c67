"""The "Papers in the last set answer" panel: its per-session state, its events, and the
BibTeX / CSV files it offers for download.

The chat's session state holds the last answer's table under "table" (`table_state`): the
Aggregate, the current sort and page, and the export files once written. A set answer
replaces it, any other answer (or a failure, or clearing the chat) sets it to None, and
the layout re-shows the panel after every answer (`SetPanel.show`). Sorting and paging
only change the sort/page fields and re-render one page (`ui.table`).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections import deque
from pathlib import Path
from typing import Any

import gradio as gr

from rag.sets.exports import bibtex, to_csv
from rag.types import AggregatePaper, Answer
from ui import table

EXPORT_STEM = "icml2024-papers"
Outputs = tuple[Any, ...]


def table_state(answer: Answer) -> dict[str, Any] | None:
    """The panel's state for a finished answer: None unless it is a set with papers."""
    aggregate = answer.aggregate
    if aggregate is None or not aggregate.papers:
        return None
    return {"aggregate": aggregate, "sort": "n", "descending": False, "page": 0, "files": None}


class ExportFiles:
    """Writes each set's BibTeX and CSV into a fresh directory under one temp root.

    Gradio copies a returned file into its own cache when it sends it to the browser, so
    only the newest `keep` directories are kept: a long-running server does not fill /tmp.
    """

    def __init__(self, root: Path | None = None, keep: int = 64) -> None:
        self._root = root
        self._keep = max(1, keep)
        self._written: deque[Path] = deque()
        self._lock = threading.Lock()

    def _directory(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="icml-rag-exports-"))
            # Its own temp root goes with the process (a clean exit; Gradio keeps copies).
            atexit.register(shutil.rmtree, self._root, True)
        self._root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="set-", dir=self._root))

    def write(self, rows: list[AggregatePaper]) -> dict[str, str]:
        """Every row, in the answer's order, as {"bib": path, "csv": path}."""
        return self.write_texts(
            {
                "bib": (f"{EXPORT_STEM}.bib", bibtex(rows)),
                "csv": (f"{EXPORT_STEM}.csv", to_csv(rows)),
            }
        )

    def write_texts(self, files: dict[str, tuple[str, str]]) -> dict[str, str]:
        """Writes {key: (file name, text)} into a fresh directory; returns {key: path}."""
        with self._lock:
            directory = self._directory()
            self._written.append(directory)
            while len(self._written) > self._keep:
                shutil.rmtree(self._written.popleft(), ignore_errors=True)
        paths = {}
        for key, (name, text) in files.items():
            path = directory / name
            path.write_text(text, encoding="utf-8")
            paths[key] = str(path)
        return paths


class SetPanel:
    """The panel's events. `show` returns every widget (see layout `SetWidgets.outputs`);
    `sort` and `turn` return only the page view (`SetWidgets.page_outputs`)."""

    def __init__(self, exports: ExportFiles | None = None, page_size: int = table.PAGE_SIZE):
        self.exports = exports or ExportFiles()
        self.page_size = page_size

    def _page(self, current: dict[str, Any] | None, state: dict[str, Any]) -> Outputs:
        if current is None:
            rows: list[AggregatePaper] = []
            columns: list[str] = []
            page, key, descending, kind = 0, "n", False, "list"
        else:
            rows, columns = current["aggregate"].papers, current["aggregate"].columns
            kind = current["aggregate"].kind
            page = table.clamp_page(current["page"], len(rows), self.page_size)
            key, descending = current["sort"], current["descending"]
            current["page"] = page
        pages = table.page_count(len(rows), self.page_size)
        return (
            table.aggregate_table_html(rows, columns, page, self.page_size, key, descending, kind),
            table.page_label(page, len(rows), self.page_size),
            gr.update(interactive=page > 0),
            gr.update(interactive=page < pages - 1),
            state,
        )

    def show(self, state: dict[str, Any] | None) -> Outputs:
        """After an answer or a clear: the new table from page 1, or the panel hidden."""
        state = state if state is not None else {}
        current = state.get("table")
        if current is not None and current["files"] is None:
            current["files"] = self.exports.write(current["aggregate"].papers)
        files = current["files"] if current is not None else {"bib": None, "csv": None}
        summary = table.summary_html(current["aggregate"]) if current is not None else ""
        # gr.update, not component constructors: a bare gr.Dropdown(value=…) warns that the
        # value is not among its (unset) choices, and a DownloadButton rewrites its path.
        return (
            gr.update(visible=current is not None),
            summary,
            gr.update(value=current["sort"] if current else "n"),
            gr.update(
                value=table.DESCENDING if current and current["descending"] else table.ASCENDING
            ),
            gr.update(value=files["bib"]),
            gr.update(value=files["csv"]),
            *self._page(current, state),
        )

    def sort(self, state: dict[str, Any] | None, key: str | None, direction: str | None) -> Outputs:
        """A new order starts again on the first page."""
        state = state if state is not None else {}
        current = state.get("table")
        if current is not None:
            current["sort"] = key if key in table.SORT_KEYS else "n"
            current["descending"] = direction == table.DESCENDING
            current["page"] = 0
        return self._page(current, state)

    def header_sort(self, state: dict[str, Any] | None, request: str | None) -> Outputs:
        """A click on a column header ("key:ascending|descending:…", written by the page's
        script): the dropdowns follow, then the page (`SetWidgets.header_outputs`)."""
        key, _, rest = (request or "").partition(":")
        direction = table.DESCENDING if rest.startswith(table.DESCENDING) else table.ASCENDING
        if key not in table.SORT_KEYS:
            return (gr.skip(), gr.skip(), *self._page((state or {}).get("table"), state or {}))
        return (gr.update(value=key), gr.update(value=direction), *self.sort(state, key, direction))

    def turn(self, state: dict[str, Any] | None, step: int) -> Outputs:
        state = state if state is not None else {}
        current = state.get("table")
        if current is not None:
            current["page"] = current["page"] + step
        return self._page(current, state)

    def previous(self, state: dict[str, Any] | None) -> Outputs:
        return self.turn(state, -1)

    def next(self, state: dict[str, Any] | None) -> Outputs:
        return self.turn(state, +1)
