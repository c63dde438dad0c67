"""Records to papers: validate each source record, resolve duplicates across files.

Every bad record becomes a `LoadIssue` that names the file and line; callers decide
whether issues skip the record (default) or fail the run (`strict`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.corpus.readers import RecordError, read_records
from rag.errors import CorpusError
from rag.text import clean_text, first_sentence, unpaired_surrogate
from rag.types import Paper

MAX_ABSTRACT_CHARS = 20_000
MAX_TITLE_CHARS = 1_000
# Generous bounds (the bundled corpus: ids of 10 characters, at most 71 authors, extra
# metadata under 2,500 characters) that keep one hostile record from bloating every chunk
# it is copied into.
MAX_ID_CHARS = 200
MAX_FIELD_CHARS = 2_000  # url, status
MAX_AUTHORS_CHARS = 20_000
MAX_EXTRA_CHARS = 20_000
_CORE_FIELDS = {"id", "title", "authors", "abstract", "url", "status"}
_ID_ALIASES = ("id", "paper_id", "openreview_id")


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


def _check_encodable(key: str, value: str) -> None:
    found = unpaired_surrogate(value)
    if found is not None:
        at, bad = found
        raise RecordError(f"'{key}' holds an unpaired surrogate (\\u{bad:04x}) at character {at}")


def _check_length(key: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise RecordError(f"'{key}' is {len(value):,} characters (limit {limit:,})")


def _as_authors(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        sep = ";" if ";" in value else ","
        names = value.split(sep)
    elif isinstance(value, list) and all(isinstance(a, str) for a in value):
        names = value
    else:
        raise RecordError(
            f"'authors' must be a list of strings or a string, not {type(value).__name__}"
        )
    for name in names:
        _check_encodable("authors", name)
    _check_length("authors", "".join(names), MAX_AUTHORS_CHARS)
    return [clean_text(a) for a in names if a.strip()]


def _as_text(record: dict[str, Any], key: str, limit: int | None = None) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RecordError(f"'{key}' must be a string, not {type(value).__name__}")
    _check_encodable(key, value)
    text = clean_text(value)
    if limit is not None:
        _check_length(key, text, limit)
    return text


def _stable_id(abstract: str) -> str:
    return "h-" + hashlib.sha256(abstract.encode("utf-8")).hexdigest()[:12]


def record_to_paper(record: Any) -> Paper:
    """Validate one source record; raise `RecordError` saying what is wrong."""
    if not isinstance(record, dict):
        raise RecordError(f"expected an object, got {type(record).__name__}")
    abstract = _as_text(record, "abstract")
    if not abstract:
        raise RecordError("missing or empty 'abstract'")
    _check_length("abstract", abstract, MAX_ABSTRACT_CHARS)
    paper_id = ""
    for key in _ID_ALIASES:
        if record.get(key) not in (None, ""):
            raw = record[key]
            if not isinstance(raw, str | int) or isinstance(raw, bool):
                raise RecordError(f"'{key}' must be a string")
            paper_id = _as_text({key: str(raw)}, key, MAX_ID_CHARS)
            break
    title = _as_text(record, "title")[:MAX_TITLE_CHARS] or first_sentence(abstract)
    extra = {k: v for k, v in record.items() if k not in _CORE_FIELDS and k not in _ID_ALIASES}
    extra_json = json.dumps(extra, ensure_ascii=False, default=str)
    _check_encodable("extra fields", extra_json)
    _check_length("extra fields", extra_json, MAX_EXTRA_CHARS)
    return Paper(
        id=paper_id or _stable_id(abstract),
        title=title,
        authors=_as_authors(record.get("authors", record.get("author"))),
        abstract=abstract,
        url=_as_text(record, "url", MAX_FIELD_CHARS),
        status=_as_text(record, "status", MAX_FIELD_CHARS),
        extra=extra,
    )


def load_corpus(paths: Iterable[Path], strict: bool = False) -> LoadResult:
    """Load and validate every file; duplicates across files are resolved by id."""
    result = LoadResult()
    seen: dict[str, tuple[Paper, str]] = {}
    for path in paths:
        path = Path(path)
        found, usable, issues_before = 0, 0, len(result.issues)
        for line, record in read_records(path):
            found += 1
            try:
                if isinstance(record, RecordError):
                    raise record
                paper = record_to_paper(record)
            except RecordError as exc:
                result.issues.append(LoadIssue(str(path), line, str(exc)))
                continue
            usable += 1
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
        if usable == 0:  # the wrong file, or the wrong format: not a run of skipped lines
            raise CorpusError(
                f"{path}: none of its {found:,} records is usable; the first: "
                f"{result.issues[issues_before]}"
            )
    if strict and result.issues:
        shown = "\n  ".join(str(i) for i in result.issues[:20])
        more = f"\n  … and {len(result.issues) - 20} more" if len(result.issues) > 20 else ""
        raise CorpusError(
            f"--strict: {len(result.issues)} bad record(s), nothing written:\n  {shown}{more}"
        )
    return result
