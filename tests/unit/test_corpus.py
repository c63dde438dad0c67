"""Loaders (rag/corpus.py): every format, and every bad input reported by file and line."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.corpus.records import MAX_ABSTRACT_CHARS, load_corpus
from rag.errors import CorpusError
from rag.text import clean_text, first_sentence
from tests.support.paths import FIXTURE_CORPUS, SEED_FILE

ROOT = Path(__file__).resolve().parent.parent.parent


def rec(pid: str, abstract: str = "", **fields: Any) -> dict[str, Any]:
    return {
        "id": pid,
        "title": f"Title {pid}",
        "abstract": abstract or f"Abstract of {pid}. It has two sentences.",
        **fields,
    }


def jsonl(path: Path, *lines: Any) -> Path:
    """Write one line per item: dicts as JSON, str/bytes verbatim."""
    out = b""
    for line in lines:
        if isinstance(line, dict):
            line = json.dumps(line)
        out += (line if isinstance(line, bytes) else line.encode()) + b"\n"
    path.write_bytes(out)
    return path


def issue_texts(path: Path, strict: bool = False) -> list[str]:
    return [str(i) for i in load_corpus([path], strict=strict).issues]


# --- formats ----------------------------------------------------------------------------


def test_jsonl_keeps_core_fields_and_extra_metadata(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "c.jsonl",
        rec("a", authors=["Ada", "Bob"], url="https://x/a", status="Oral", track="main", n=3),
        rec("b", affiliations=["MIT"]),
    )
    result = load_corpus([path])
    assert result.issues == [] and result.identical_duplicates == 0
    a, b = result.papers
    assert (a.id, a.title, a.authors, a.url, a.status) == (
        "a",
        "Title a",
        ["Ada", "Bob"],
        "https://x/a",
        "Oral",
    )
    assert a.extra == {"track": "main", "n": 3}
    assert b.extra == {"affiliations": ["MIT"]}


def test_the_fixture_corpus_loads_completely() -> None:
    result = load_corpus([FIXTURE_CORPUS])
    assert len(result.papers) == 152 and result.issues == []
    assert len({p.id for p in result.papers}) == 152
    first = result.papers[0]
    assert first.id == "qklMNNub0H" and first.extra["icml_poster_id"] == 32979
    # openreview_id is an id alias, so it is not repeated in extra.
    assert "openreview_id" not in first.extra


def test_latex_and_html_are_kept_verbatim(tmp_path: Path) -> None:
    abstract = "We prove a $\\widetilde{O}(\\sqrt{T})$ bound. See <a href='x'>here</a> &amp; <br>."
    path = jsonl(tmp_path / "c.jsonl", rec("m", abstract, title="On $\\ell_1$ <i>norms</i>"))
    paper = load_corpus([path]).papers[0]
    assert paper.abstract == abstract
    assert paper.title == "On $\\ell_1$ <i>norms</i>"


@pytest.mark.parametrize("wrapped", [False, True])
def test_json_array_and_papers_object(tmp_path: Path, wrapped: bool) -> None:
    records = [rec("a", authors=["X"]), rec("b", venue="ICML")]
    data: Any = {"meta": {"papers": "not this one"}, "papers": records} if wrapped else records
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data, indent=2))
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["a", "b"]
    assert result.papers[1].extra == {"venue": "ICML"}


def test_json_issues_name_the_line_of_the_record(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        '{"source": "x",\n "papers": [\n'
        + json.dumps(rec("a"))
        + ",\n\n"
        + '  {"id": "b",\n   "title": "no abstract"},\n'
        + json.dumps(rec("c", title=["a", "list"]))
        + "\n]}\n"
    )
    assert issue_texts(path) == [
        f"{path}:5: missing or empty 'abstract'",
        f"{path}:7: 'title' must be a string, not list",
    ]


def test_csv_with_semicolon_authors_and_extra_columns(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "title", "authors", "abstract", "url", "venue"])
        writer.writerow(
            ["a", "T", "Ada Lovelace; Alan Turing", "Line one.\nLine two.", "u", "ICML"]
        )
        writer.writerow(["b", "U", "Solo Author", "Plain.", "", ""])
    a, b = load_corpus([path]).papers
    assert a.authors == ["Ada Lovelace", "Alan Turing"]
    assert a.abstract == "Line one. Line two."  # a quoted multi-line cell, whitespace folded
    assert a.extra == {"venue": "ICML"}
    assert (b.authors, b.url, b.extra) == (["Solo Author"], "", {})


def test_csv_issues_name_the_starting_line_of_the_record(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text(
        'id,title,abstract\n\na,T,"multi\nline\nabstract."\nb,U,\nc,V,ok,surplus\nd,W,fine\n'
    )
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["a", "d"]
    assert [str(i) for i in result.issues] == [
        f"{path}:6: missing or empty 'abstract'",
        f"{path}:7: more cells than header columns",
    ]


def test_seed_text_format() -> None:
    result = load_corpus([SEED_FILE])
    assert len(result.papers) == 19 and result.issues == []
    by_abstract = {
        json.loads(line)["abstract"]: json.loads(line)["id"]
        for line in FIXTURE_CORPUS.read_text().splitlines()
    }
    for paper in result.papers:
        # A content-hash id: the same abstract always gets the same id.
        expected = "h-" + hashlib.sha256(paper.abstract.encode()).hexdigest()[:12]
        assert paper.id == expected
        assert paper.title == first_sentence(paper.abstract)
        assert len(paper.title) <= 120 and paper.authors == [] and paper.url == ""
        # Every seed abstract is, verbatim, one of the fixture corpus papers.
        assert paper.abstract in by_abstract
    assert result.papers[3].title == (
        "The pretraining-finetuning paradigm has become the prevailing trend in modern deep learning."
    )
    again = load_corpus([SEED_FILE])
    assert [p.id for p in again.papers] == [p.id for p in result.papers]


def test_seed_issue_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("Header\n\nFirst paper.\nStill first.\n\n\n" + "x" * 20_001 + "\n")
    result = load_corpus([path])
    assert [p.abstract for p in result.papers] == ["First paper. Still first."]
    assert [str(i) for i in result.issues] == [
        f"{path}:7: 'abstract' is 20,001 characters (limit 20,000)"
    ]


def test_duplicates_across_files(tmp_path: Path) -> None:
    one = jsonl(tmp_path / "one.jsonl", rec("a"), rec("b"))
    two = jsonl(tmp_path / "two.jsonl", rec("a"), rec("b", "Changed text."), rec("c"))
    result = load_corpus([one, two])
    assert [p.id for p in result.papers] == ["a", "b", "c"]
    assert result.identical_duplicates == 1
    assert result.papers[1].abstract == rec("b")["abstract"]  # the first one is kept
    assert [str(i) for i in result.issues] == [
        f"{two}:2: duplicate id 'b' with different text (first at {one}:2); kept the first"
    ]


def test_papers_without_id_get_content_hash_ids(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "c.jsonl",
        {"abstract": "Same text."},
        {"abstract": "Same text."},
        {"paper_id": 17, "abstract": "Other."},
    )
    result = load_corpus([path])
    assert [p.id for p in result.papers] == [
        "h-" + hashlib.sha256(b"Same text.").hexdigest()[:12],
        "17",
    ]
    assert result.identical_duplicates == 1
    assert result.papers[0].title == "Same text."  # no title: the first sentence


# --- bad records: reported with file and line, skipped ---------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id": "x", "abstract": "unterminated', "malformed JSON: Unterminated string"),
        (b'{"id": "x", "title": "T"}', "missing or empty 'abstract'"),
        (b'{"id": "x", "abstract": "   "}', "missing or empty 'abstract'"),
        (b'{"id": "x", "abstract": null}', "missing or empty 'abstract'"),
        (b'{"id": "x", "abstract": "A.", "authors": 7}', "'authors' must be a list of strings"),
        (b'{"id": "x", "abstract": "A.", "authors": [1, 2]}', "'authors' must be a list"),
        (b'{"id": "x", "abstract": "A.", "title": ["T"]}', "'title' must be a string, not list"),
        (b'{"id": "x", "abstract": 3}', "'abstract' must be a string, not int"),
        (b'{"id": true, "abstract": "A."}', "'id' must be a string"),
        (b'{"id": {"a": 1}, "abstract": "A."}', "'id' must be a string"),
        (b'["not", "an", "object"]', "expected an object, got list"),
        (b'{"id": "x", "abstract": "caf\xe9 latin-1"}', "not valid UTF-8"),
    ],
)
def test_bad_jsonl_line_is_reported_and_skipped(tmp_path: Path, line: bytes, message: str) -> None:
    path = jsonl(tmp_path / "c.jsonl", rec("good1"), "", line, rec("good2"))
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["good1", "good2"]
    assert len(result.issues) == 1
    assert str(result.issues[0]).startswith(f"{path}:3: ")
    assert message in str(result.issues[0])


def test_huge_abstract_is_rejected_and_the_rest_loads(tmp_path: Path) -> None:
    huge = "word " * 1_000_000  # a 5 MB line
    path = jsonl(tmp_path / "c.jsonl", rec("a"), rec("huge", huge), rec("b"))
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["a", "b"]
    assert [str(i) for i in result.issues] == [
        f"{path}:2: 'abstract' is 4,999,999 characters (limit {MAX_ABSTRACT_CHARS:,})"
    ]


def test_huge_csv_cell_is_one_bad_record_not_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("id,abstract\nhuge," + "x" * 5_000_000 + "\nok,Fine.\n")
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["ok"]
    assert [str(i) for i in result.issues] == [
        f"{path}:2: 'abstract' is 5,000,000 characters (limit {MAX_ABSTRACT_CHARS:,})"
    ]


def test_control_characters_and_nul_inside_strings_are_cleaned(tmp_path: Path) -> None:
    escaped = json.dumps(rec("n", "Nul\u0000here.\u0007 Bell\x1b.", title="T\u0000itle"))
    raw_tab = b'{"id": "t", "abstract": "Raw\ttab and \x01 byte."}'  # invalid in strict JSON
    path = jsonl(tmp_path / "c.jsonl", escaped, raw_tab)
    result = load_corpus([path])
    assert result.issues == []
    n, t = result.papers
    assert (n.abstract, n.title) == ("Nul here. Bell .", "T itle")
    assert t.abstract == "Raw tab and byte."


def test_long_title_is_cut(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "c.jsonl", rec("a", title="t" * 5000))
    assert len(load_corpus([path]).papers[0].title) == 1000


def test_strict_fails_listing_every_issue(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "c.jsonl", rec("a"), "{broken", {"id": "b"})
    with pytest.raises(CorpusError) as info:
        load_corpus([path], strict=True)
    text = str(info.value)
    assert "2 bad record(s), nothing written" in text
    assert f"{path}:2: malformed JSON" in text and f"{path}:3: missing" in text


def test_strict_lists_at_most_twenty_issues(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "c.jsonl", rec("a"), *(["{"] * 25))
    with pytest.raises(CorpusError, match=r"25 bad record\(s\)[\s\S]*… and 5 more"):
        load_corpus([path], strict=True)


# --- files that cannot be used at all ----------------------------------------------------


def _expect_error(path: Path, *fragments: str) -> None:
    with pytest.raises(CorpusError) as info:
        load_corpus([path])
    for fragment in (str(path), *fragments):
        assert fragment in str(info.value)


def test_empty_and_blank_files(tmp_path: Path) -> None:
    for name in ("e.jsonl", "e.json", "e.csv", "e.txt"):
        (tmp_path / name).write_bytes(b"")
        _expect_error(tmp_path / name, "empty file")
    (tmp_path / "blank.jsonl").write_text("\n  \n\n")
    _expect_error(tmp_path / "blank.jsonl", "contains no records")
    (tmp_path / "header-only.txt").write_text("ICML 2024 Papers\n")
    _expect_error(tmp_path / "header-only.txt", "contains no records")
    (tmp_path / "header-only.csv").write_text("id,abstract\n")
    _expect_error(tmp_path / "header-only.csv", "contains no records")
    (tmp_path / "empty-array.json").write_text("[]")
    _expect_error(tmp_path / "empty-array.json", "contains no records")


@pytest.mark.parametrize(
    ("name", "data", "where"),
    [
        ("c.csv", b"id,abstract\na,fine\nb,caf\xe9\n", ":3: not valid UTF-8"),
        ("c.json", b'[\n{"id": "a", "abstract": "x"},\n{"id": "b", "abstract": "\xff"}]', ":3:"),
        ("s.txt", b"Header\n\nFine.\n\nBad \xfe here.\n", ":5: not valid UTF-8"),
    ],
)
def test_non_utf8_outside_jsonl_fails_the_file_naming_the_line(
    tmp_path: Path, name: str, data: bytes, where: str
) -> None:
    (tmp_path / name).write_bytes(data)
    _expect_error(tmp_path / name, where)


def test_malformed_json_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('[\n{"id": "a", "abstract": "x"},\n{"id": "b" "abstract": "y"}\n]')
    _expect_error(path, ":3: malformed JSON")
    path.write_text('{"not_papers": []}')
    _expect_error(path, ":1: expected a JSON array")


def test_csv_without_abstract_column(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("id,title,summary\na,T,text\n")
    _expect_error(path, ":1: CSV header must include an 'abstract' column")


def test_unknown_format_missing_file_directory_and_binary(tmp_path: Path) -> None:
    xml = tmp_path / "papers.xml"
    xml.write_text("<papers/>")
    _expect_error(xml, "unknown corpus format '.xml'", ".jsonl")
    _expect_error(tmp_path / "nope.jsonl", "no such file")
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    _expect_error(folder, "not a regular file")
    binary = tmp_path / "model.jsonl"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 4)
    _expect_error(binary, "binary file")


def test_one_unusable_file_fails_the_whole_load(tmp_path: Path) -> None:
    good = jsonl(tmp_path / "good.jsonl", rec("a"))
    with pytest.raises(CorpusError, match=r"missing\.jsonl: no such file"):
        load_corpus([good, tmp_path / "missing.jsonl"])


def test_the_bundled_corpus_loads_without_issues() -> None:
    result = load_corpus([ROOT / "data" / "icml2024.jsonl"])
    assert len(result.papers) == 2610 and result.issues == []
    assert result.identical_duplicates == 0
    assert {p.status for p in result.papers} == {"Poster", "Spotlight", "Oral"}


# --- every format carries the same records ----------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8", exclude_categories=["Cs", "Cc", "Zl", "Zp"], exclude_characters="\ufeff"
    ),
    min_size=1,
    max_size=40,
).filter(lambda t: t.strip() != "")
_NAME = _TEXT.filter(lambda t: ";" not in t and "," not in t)


@given(
    st.lists(
        st.tuples(_TEXT, _TEXT, st.lists(_NAME, max_size=3), _TEXT),
        min_size=1,
        max_size=5,
        unique_by=lambda r: clean_text(r[0]),
    )
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_jsonl_json_and_csv_load_the_same_papers(
    tmp_path: Path, rows: list[tuple[str, str, list[str], str]]
) -> None:
    records = [
        {"id": pid, "title": title, "authors": authors, "abstract": abstract}
        for pid, title, authors, abstract in rows
    ]
    as_jsonl = jsonl(tmp_path / "h.jsonl", *records)
    as_json = tmp_path / "h.json"
    as_json.write_text(json.dumps(records, indent=1, ensure_ascii=False), encoding="utf-8")
    as_csv = tmp_path / "h.csv"
    with as_csv.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "title", "authors", "abstract"])
        for r in records:
            writer.writerow([r["id"], r["title"], "; ".join(r["authors"]), r["abstract"]])
    expected = [
        (clean_text(pid), clean_text(title), [clean_text(a) for a in authors], clean_text(abstract))
        for pid, title, authors, abstract in rows
    ]
    for path in (as_jsonl, as_json, as_csv):
        result = load_corpus([path])
        assert result.issues == [], path
        got = [(p.id, p.title, p.authors, p.abstract) for p in result.papers]
        assert got == expected, path.suffix
