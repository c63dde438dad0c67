"""A set answer's rows as BibTeX (from the PMLR keys), CSV, or a plain-text table."""

from __future__ import annotations

import csv
import io

from rag.types import AggregatePaper

PROCEEDINGS = "Proceedings of the 41st International Conference on Machine Learning"
CSV_COLUMNS = (
    "n", "paper_id", "title", "authors", "status", "url", "pmlr_key", "membership", "score", "why",
)  # fmt: skip


def _bib_value(text: str) -> str:
    # Braces keep capitals and survive LaTeX; unbalanced braces from titles are escaped.
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def bibtex(rows: list[AggregatePaper]) -> str:
    entries = [bibtex_entry(r.paper_id, r.title, r.authors, r.url, r.pmlr_key) for r in rows]
    return "\n\n".join(entries) + ("\n" if entries else "")


def bibtex_entry(paper_id: str, title: str, authors: list[str], url: str, pmlr_key: str) -> str:
    """One paper's @InProceedings entry, keyed by its PMLR key (else its OpenReview id)."""
    fields = {
        "title": title,
        "author": " and ".join(authors),
        "booktitle": PROCEEDINGS,
        "year": "2024",
        "series": "Proceedings of Machine Learning Research",
        "volume": "235",
        "publisher": "PMLR",
        "url": f"https://proceedings.mlr.press/v235/{pmlr_key}.html" if pmlr_key else url,
    }
    body = ",\n".join(f"  {name} = {{{_bib_value(value)}}}" for name, value in fields.items())
    return f"@InProceedings{{{pmlr_key or paper_id},\n{body}\n}}"


def cell_columns(rows: list[AggregatePaper]) -> list[str]:
    """The comparison columns the rows carry (problem, method, finding), in first-seen order."""
    return list(dict.fromkeys(name for row in rows for name in row.cells))


def to_csv(rows: list[AggregatePaper]) -> str:
    """Every row, one line each; a comparison's cells as extra columns after `why`."""
    extra = cell_columns(rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *extra])
    for row in rows:
        score = "" if row.score is None else f"{row.score:.3f}"
        writer.writerow(
            [row.n, row.paper_id, row.title, "; ".join(row.authors), row.status, row.url,
             row.pmlr_key, row.membership, score, row.why,
             *(row.cells.get(name, "") for name in extra)]
        )  # fmt: skip
    return out.getvalue()


def table(rows: list[AggregatePaper], width: int = 100) -> str:
    """A fixed-width text table for terminals: n, status, title, first authors."""
    from rag.answer.references import short_authors

    lines = []
    for row in rows:
        status = (row.status or "")[:9]
        left = f"[{row.n}] {status:<9} {row.title}"
        authors = short_authors(row.authors, limit=2)
        room = max(20, width - len(authors) - 3)
        shown = left if len(left) <= room else left[: room - 1] + "…"
        lines.append(f"{shown:<{room}} — {authors}")
        lines += [f"      {name}: {text}" for name, text in row.cells.items() if text]
    return "\n".join(lines)
