"""How many papers use each content word, kept beside the catalogue in the lexical index
file and written in the same commit as the papers' records (rag.lexical.index).

The answer stage weighs question words by these counts (rag.answer.evidence.TermStats) and
names rare words a paper never uses. Counting them at open would mean reading every
abstract; kept here, a count is one indexed row read when a question first uses the word.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

from rag.text import content_terms
from rag.types import Paper

SCHEMA = "create table if not exists paper_terms (term text primary key, df integer not null);"
# meta: which word extractor the counts were made with; a file with none (written before
# counts were kept) or another is counted afresh, so removals subtract what adds added.
# Bump with rag.text.content_terms.
FILLED_KEY = "paper_terms"
COUNTS_VERSION = "content_terms-1"
CACHED_WORDS = 50_000


def paper_words(paper: Paper) -> set[str]:
    """The distinct content words of the paper's title and abstract (what a count counts)."""
    return set(content_terms(f"{paper.title} {paper.abstract}"))


def update_counts(db: sqlite3.Connection, removed: Iterable[str], added: Iterable[Paper]) -> None:
    """Within the caller's transaction: `removed` records (their stored JSON) stop counting,
    `added` papers start to."""
    delta: Counter[str] = Counter()
    for record in removed:
        delta.subtract(paper_words(Paper.model_validate_json(record)))
    for paper in added:
        delta.update(paper_words(paper))
    db.executemany(
        "insert into paper_terms values (?, ?) on conflict(term) do update set df = df + excluded.df",
        [(term, n) for term, n in delta.items() if n],
    )
    fallen = [(term,) for term, n in delta.items() if n < 0]
    db.executemany("delete from paper_terms where term = ? and df <= 0", fallen)


def fill_counts(db: sqlite3.Connection) -> None:
    """Within the caller's transaction: the counts of every stored record, from nothing (one
    scan, once per index file written before the counts were kept)."""
    db.execute("delete from paper_terms")
    records = (row[0] for row in db.execute("select record from papers where record is not null"))
    update_counts(db, [], (Paper.model_validate_json(r) for r in records))


def count_reader(connect: Callable[[], sqlite3.Connection]) -> Callable[[str], int]:
    """A cached `word -> papers using it` over the file; `connect` gives this thread's
    connection. One reader per pipeline, so a reload starts with fresh counts."""

    @lru_cache(maxsize=CACHED_WORDS)  # thread-safe; two threads missing at once both read
    def paper_count(term: str) -> int:
        row = connect().execute("select df from paper_terms where term = ?", (term,)).fetchone()
        return 0 if row is None else int(row[0])

    return paper_count


def prefix_reader(connect: Callable[[], sqlite3.Connection]) -> Callable[[str], bool]:
    """A cached `stem -> whether a counted word starts with it` over the file (one indexed
    range read): "chemist" starts "chemistri"."""

    @lru_cache(maxsize=CACHED_WORDS)
    def prefixed(stem: str) -> bool:
        row = (
            connect()
            .execute(
                "select 1 from paper_terms where term >= ? and term < ? limit 1",
                (stem, stem + "\U0010ffff"),
            )
            .fetchone()
        )
        return row is not None

    return prefixed
