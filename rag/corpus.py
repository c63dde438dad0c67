"""Load papers from JSONL, JSON arrays, CSV and the plain-text seed format.

Every bad record becomes a `LoadIssue` that names the file and line; callers decide
whether issues skip the record (default) or fail the run (`strict`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.text import clean_text, first_sentence
from rag.types import Paper

MAX_ABSTRACT_CHARS = 20_000
MAX_TITLE_CHARS = 1_000
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".txt": "seed"}
_CORE_FIELDS = {"id", "title", "authors", "abstract", "url", "status"}
_ID_ALIASES = ("id", "paper_id", "openreview_id")
_JSON_WS = re.compile(r"[ \t\n\r]*")
# Python's CSV default (131,072) would fail the whole file on one huge cell; the record
# size limit below rejects that record alone instead.
_CSV_FIELD_LIMIT = 64 * 1024 * 1024


class CorpusError(Exception):
    """A corpus cannot be used at all (missing file, unknown format, strict failure)."""


@dataclass(frozen=True)
class LoadIssue:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class LoadResult:
    papers: list[Paper] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)
    identical_duplicates: int = 0


class _RecordError(ValueError):
    pass


def _as_authors(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        sep = ";" if ";" in value else ","
        return [clean_text(a) for a in value.split(sep) if a.strip()]
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return [clean_text(a) for a in value if a.strip()]
    raise _RecordError(
        f"'authors' must be a list of strings or a string, not {type(value).__name__}"
    )


def _as_text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _RecordError(f"'{key}' must be a string, not {type(value).__name__}")
    return clean_text(value)


def _stable_id(abstract: str) -> str:
    return "h-" + hashlib.sha256(abstract.encode("utf-8")).hexdigest()[:12]


def record_to_paper(record: Any) -> Paper:
    """Validate one source record; raise `_RecordError` saying what is wrong."""
    if not isinstance(record, dict):
        raise _RecordError(f"expected an object, got {type(record).__name__}")
    abstract = _as_text(record, "abstract")
    if not abstract:
        raise _RecordError("missing or empty 'abstract'")
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise _RecordError(
            f"'abstract' is {len(abstract):,} characters (limit {MAX_ABSTRACT_CHARS:,})"
        )
    paper_id = ""
    for key in _ID_ALIASES:
        if record.get(key) not in (None, ""):
            raw = record[key]
            if not isinstance(raw, str | int) or isinstance(raw, bool):
                raise _RecordError(f"'{key}' must be a string")
            paper_id = clean_text(str(raw))
            break
    title = _as_text(record, "title")[:MAX_TITLE_CHARS] or first_sentence(abstract)
    extra = {k: v for k, v in record.items() if k not in _CORE_FIELDS and k not in _ID_ALIASES}
    return Paper(
        id=paper_id or _stable_id(abstract),
        title=title,
        authors=_as_authors(record.get("authors", record.get("author"))),
        abstract=abstract,
        url=_as_text(record, "url"),
        status=_as_text(record, "status"),
        extra=extra,
    )


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not valid UTF-8 (byte {exc.start})") from None


def _jsonl_records(path: Path) -> Iterator[tuple[int, Any | _RecordError]]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield number, _RecordError(f"not valid UTF-8 (byte {exc.start} of the line)")
                continue
            try:
                # strict=False: a raw tab or control byte inside a string is cleaned later.
                # Without the line break, an error at the end says "column N", not "line 2".
                yield number, json.loads(text.rstrip("\r\n"), strict=False)
            except json.JSONDecodeError as exc:
                yield number, _RecordError(f"malformed JSON: {exc.msg} (column {exc.colno})")


def _skip_ws(text: str, pos: int) -> int:
    match = _JSON_WS.match(text, pos)
    return match.end() if match else pos


def _array_elements(text: str, pos: int) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of the (already validated) array at `text[pos]`."""
    decoder = json.JSONDecoder(strict=False)
    line, counted = 1, 0
    pos = _skip_ws(text, pos + 1)
    while text[pos] != "]":
        value, end = decoder.raw_decode(text, pos)
        line += text.count("\n", counted, pos)
        counted = pos
        yield line, value
        pos = _skip_ws(text, end)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)


def _papers_array_start(text: str, pos: int) -> int:
    """Offset of the value of the (last) top-level "papers" key of the object at `pos`."""
    decoder = json.JSONDecoder(strict=False)
    found = -1
    pos = _skip_ws(text, pos + 1)
    while text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, pos) + 1)  # past ':'
        if key == "papers":
            found = pos
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return found


def _json_records(path: Path) -> Iterator[tuple[int, Any | _RecordError]]:
    text = _decode(path.read_bytes(), path)
    try:
        data = json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    start = _skip_ws(text, 0)
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        start = _papers_array_start(text, start)
    elif not isinstance(data, list):
        raise CorpusError(f"{path}:1: expected a JSON array of paper objects")
    # Walk the text again (it parsed, so this cannot fail) to know each record's line.
    yield from _array_elements(text, start)


def _csv_records(path: Path) -> Iterator[tuple[int, Any | _RecordError]]:
    text = _decode(path.read_bytes(), path)
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows, [])
    except csv.Error as exc:
        raise CorpusError(f"{path}:1: malformed CSV header: {exc}") from None
    if "abstract" not in header:
        raise CorpusError(f"{path}:1: CSV header must include an 'abstract' column")
    while True:
        # A quoted cell may span lines: a record starts on the line after the last one.
        start = rows.line_num + 1
        try:
            cells = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            raise CorpusError(f"{path}:{start}: malformed CSV: {exc}") from None
        if not cells:  # a blank line
            continue
        if len(cells) > len(header):
            yield start, _RecordError("more cells than header columns")
            continue
        yield start, {k: v for k, v in zip(header, cells, strict=False) if v != ""}


def _seed_records(path: Path) -> Iterator[tuple[int, Any | _RecordError]]:
    """Seed format: a header line, then one abstract per blank-line-separated paragraph."""
    lines = _decode(path.read_bytes(), path).splitlines()
    paragraph: list[str] = []
    start = 0
    for number, line in enumerate([*lines[1:], ""], start=2):
        if line.strip():
            if not paragraph:
                start = number
            paragraph.append(line.strip())
        elif paragraph:
            yield start, {"abstract": " ".join(paragraph)}
            paragraph = []


_READERS = {
    "jsonl": _jsonl_records,
    "json": _json_records,
    "csv": _csv_records,
    "seed": _seed_records,
}


def detect_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise CorpusError(f"{path}: unknown corpus format '{path.suffix}' (known: {known})")
    return fmt


def _check_file(path: Path) -> None:
    if not path.exists():
        raise CorpusError(f"{path}: no such file")
    if not path.is_file():
        raise CorpusError(f"{path}: not a regular file")
    if path.stat().st_size == 0:
        raise CorpusError(f"{path}: empty file")
    with path.open("rb") as handle:
        if b"\x00" in handle.read(8192):
            raise CorpusError(f"{path}: looks like a binary file (NUL bytes), not a corpus")


def load_corpus(paths: Iterable[Path], strict: bool = False) -> LoadResult:
    """Load and validate every file; duplicates across files are resolved by id."""
    result = LoadResult()
    seen: dict[str, tuple[Paper, str]] = {}
    for path in paths:
        path = Path(path)
        _check_file(path)
        reader = _READERS[detect_format(path)]
        found = 0
        for line, record in reader(path):
            found += 1
            try:
                if isinstance(record, _RecordError):
                    raise record
                paper = record_to_paper(record)
            except _RecordError as exc:
                result.issues.append(LoadIssue(str(path), line, str(exc)))
                continue
            where = f"{path}:{line}"
            if paper.id in seen:
                first, first_where = seen[paper.id]
                if first.content_hash() == paper.content_hash():
                    result.identical_duplicates += 1
                else:
                    result.issues.append(
                        LoadIssue(
                            str(path),
                            line,
                            f"duplicate id '{paper.id}' with different "
                            f"text (first at {first_where}); kept the first",
                        )
                    )
                continue
            seen[paper.id] = (paper, where)
            result.papers.append(paper)
        if found == 0:
            raise CorpusError(f"{path}: contains no records")
    if strict and result.issues:
        shown = "\n  ".join(str(i) for i in result.issues[:20])
        more = f"\n  … and {len(result.issues) - 20} more" if len(result.issues) > 20 else ""
        raise CorpusError(
            f"--strict: {len(result.issues)} bad record(s), nothing written:\n  {shown}{more}"
        )
    return result
