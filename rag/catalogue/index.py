"""The catalogue's metadata tables: who wrote each paper, from where, its status and title.

Kept in the same SQLite file as the paper records (rag.lexical.index) and written in the
same commits, so a catalogue look-up ("papers by M. Sugiyama", "from MIT", "orals") reads
a few indexed rows instead of every record: building these maps in memory at each open
costs time and memory that grow with the store. The name rules stay in rag.catalogue.names;
these tables only file each paper under the keys they match on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from rag.catalogue.names import affiliations_of, fold, lookup_keys
from rag.types import Paper

PAPERS_TABLE = "create table if not exists papers (paper_id text primary key, hash text not null, record text);"
SCHEMA = """
create table if not exists paper_people (
    key text not null, family text not null, name text not null, paper_id text not null);
create index if not exists paper_people_key on paper_people (key);
create index if not exists paper_people_family on paper_people (family);
create index if not exists paper_people_paper on paper_people (paper_id);
create table if not exists paper_places (affiliation text not null, paper_id text not null);
create index if not exists paper_places_affiliation on paper_places (affiliation);
create index if not exists paper_places_paper on paper_places (paper_id);
create table if not exists place_keys (
    key text not null, affiliation text not null, primary key (key, affiliation)) without rowid;
create table if not exists paper_facts (
    paper_id text primary key, status text not null, status_key text not null,
    title text not null);
create index if not exists paper_facts_status on paper_facts (status_key);
create table if not exists paper_titles (
    paper_id text primary key, folded text not null, head text not null);
create index if not exists paper_titles_folded on paper_titles (folded);
create index if not exists paper_titles_head on paper_titles (head);
"""
PAPER_TABLES = ("paper_people", "paper_places", "paper_facts", "paper_titles")  # by paper_id
TABLES = (*PAPER_TABLES, "place_keys")
# meta: the name rules the tables were filed with (rag.catalogue.names); a file with none
# (written before they were kept) or another is filed afresh. Bump with fold/lookup_keys.
FILLED_KEY = "paper_index"
# 2: names that fold to nothing are kept (the author filter); 3: folded titles; 4: "ł" is "l".
INDEX_VERSION = "names-4"


def prepare(db: sqlite3.Connection) -> None:
    """The SQL functions look-ups use (filters match names and titles case-insensitively)."""
    db.create_function("casefold", 1, _casefold, deterministic=True)


def _casefold(text: str | None) -> str:
    return (text or "").casefold()


def add(db: sqlite3.Connection, papers: Iterable[Paper]) -> None:
    """Within the caller's transaction: file `papers` (the caller removed their old rows)."""
    people, places, facts, titles = [], [], [], []
    for paper in papers:
        for name in paper.authors:
            # A name in a script fold() drops (CJK, Cyrillic) is kept with an empty key:
            # the author filter matches it by substring; people look-ups never ask for "".
            key = fold(name)
            people.append((key, key.split()[-1] if key else "", name, paper.id))
        places += [(affiliation, paper.id) for affiliation in sorted(affiliations_of(paper))]
        facts.append((paper.id, paper.status, paper.status.casefold(), paper.title))
        # The title as names are compared, and its part before a colon ("BiLLM: ..."):
        # a paper named in a question is found by an indexed look-up, not a scan.
        head = fold(paper.title.split(":", 1)[0]) if ":" in paper.title else ""
        titles.append((paper.id, fold(paper.title), head))
    db.executemany("insert into paper_people values (?, ?, ?, ?)", people)
    db.executemany("insert into paper_places values (?, ?)", places)
    db.executemany(
        "insert or ignore into place_keys values (?, ?)",
        [(key, a) for a in {a for a, _ in places} for key in lookup_keys(a)],
    )
    db.executemany("insert or replace into paper_facts values (?, ?, ?, ?)", facts)
    db.executemany("insert or replace into paper_titles values (?, ?, ?)", titles)


def remove(db: sqlite3.Connection, paper_ids: list[str]) -> None:
    """Within the caller's transaction: forget `paper_ids` (at most 500: one statement each).
    An affiliation no paper has any more loses its look-up keys."""
    marks = ",".join("?" * len(paper_ids))
    where = f"paper_id in ({marks})"
    places = {
        str(r[0])
        for r in db.execute(f"select affiliation from paper_places where {where}", paper_ids)
    }
    for table in PAPER_TABLES:
        db.execute(f"delete from {table} where {where}", paper_ids)
    gone = sorted(places)
    for start in range(0, len(gone), 500):  # 500 papers may list thousands of affiliations
        part = gone[start : start + 500]
        db.execute(
            f"delete from place_keys where affiliation in ({','.join('?' * len(part))}) "
            "and affiliation not in (select affiliation from paper_places)",
            part,
        )


def fill(db: sqlite3.Connection) -> None:
    """Within the caller's transaction: every stored record filed afresh (once per file
    written before these tables were kept, or with other name rules). The tables are
    filled first and indexed after: quicker than updating the indexes row by row.
    One transaction from the first drop (sqlite's DDL is transactional; Python would
    otherwise run the drops in autocommit): a reader never sees the tables half filled."""
    if not db.in_transaction:
        db.execute("begin immediate")
    statements = [s.strip() for s in SCHEMA.split(";") if s.strip()]
    for table in TABLES:
        db.execute(f"drop table if exists {table}")
    for statement in statements:
        if statement.startswith("create table"):
            db.execute(statement)
    rows = db.execute("select record from papers where record is not null order by rowid")
    add(db, (Paper.model_validate_json(row[0]) for row in rows))
    for statement in statements:
        if statement.startswith("create index"):
            db.execute(statement)
