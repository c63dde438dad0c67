"""Reading corpus files: which files may be read, their format, and one reader per format.

Each reader yields `(line, record)` pairs, where a record that cannot be parsed is a
`RecordError` saying why; `rag.corpus` validates the rest. A file that cannot be used at all
is a `CorpusError` naming it (and the line, where there is one).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rag.errors import CorpusError
from rag.text import repeated_key

FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".txt": "seed"}
_JSON_WS = re.compile(r"[ \t\n\r]*")
# Python's CSV default (131,072) would fail the whole file on one huge cell; the record
# size limit in rag.corpus rejects that record alone instead.
_CSV_FIELD_LIMIT = 64 * 1024 * 1024


class RecordError(ValueError):
    """One record is unusable; the message says why (the caller adds file and line)."""


Record = tuple[int, Any | RecordError]


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not valid UTF-8 (byte {exc.start})") from None


class _CheckedJSON:
    """A JSON decoder that notes what strict JSON forbids (NaN and Infinity, a key twice in
    one object, where Python silently keeps the last) instead of raising, so that one bad
    record is reported and reading goes on with the next."""

    def __init__(self) -> None:
        self.problem = ""
        # strict=False: a raw tab or control byte inside a string is cleaned later.
        self._decoder = json.JSONDecoder(
            strict=False, object_pairs_hook=self._object, parse_constant=self._constant
        )

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs) and not self.problem:
            self.problem = f"key '{str(repeated_key(pairs))[:80]}' appears twice in one object"
        return obj

    def _constant(self, name: str) -> None:
        self.problem = self.problem or f"{name} is not a JSON value"

    def decode(self, text: str) -> Any:
        self.problem = ""
        return self._decoder.decode(text)

    def raw_decode(self, text: str, pos: int) -> tuple[Any, int]:
        self.problem = ""
        return self._decoder.raw_decode(text, pos)

    def verdict(self, value: Any) -> Any | RecordError:
        return RecordError(f"malformed JSON: {self.problem}") if self.problem else value


def _json_failure(exc: Exception) -> str:
    """What Python's json raises besides JSONDecodeError, said for a corpus author."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if "integer string conversion" in str(exc):
        return "a number has more than 4,300 digits"
    return str(exc)[:200]


def _jsonl_records(path: Path) -> Iterator[Record]:
    checked = _CheckedJSON()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield number, RecordError(f"not valid UTF-8 (byte {exc.start} of the line)")
                continue
            try:
                # Without the line break, an error at the end says "column N", not "line 2".
                value = checked.decode(text.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                value = RecordError(f"malformed JSON: {exc.msg} (column {exc.colno})")
            except (RecursionError, ValueError) as exc:
                value = RecordError(f"malformed JSON: {_json_failure(exc)}")
            yield number, checked.verdict(value)


def _skip_ws(text: str, pos: int) -> int:
    match = _JSON_WS.match(text, pos)
    return match.end() if match else pos


def _array_elements(text: str, pos: int) -> Iterator[Record]:
    """(line, value) of each element of the (already validated) array at `text[pos]`."""
    checked = _CheckedJSON()
    line, counted = 1, 0
    pos = _skip_ws(text, pos + 1)
    while text[pos] != "]":
        value, end = checked.raw_decode(text, pos)
        line += text.count("\n", counted, pos)
        counted = pos
        yield line, checked.verdict(value)
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


def _json_records(path: Path) -> Iterator[Record]:
    text = _decode(path.read_bytes(), path)
    try:
        data = json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:
        raise CorpusError(f"{path}: malformed JSON: {_json_failure(exc)}") from None
    start = _skip_ws(text, 0)
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        start = _papers_array_start(text, start)
    elif not isinstance(data, list):
        raise CorpusError(f"{path}:1: expected a JSON array of paper objects")
    # Walk the text again (it parsed, so this cannot fail) to know each record's line.
    yield from _array_elements(text, start)


def _csv_records(path: Path) -> Iterator[Record]:
    text = _decode(path.read_bytes(), path)
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    # strict: a quote that is never closed would otherwise swallow the rest of the file
    # into one cell, losing every record after it without a word.
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
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
            if "unexpected end of data" in str(exc):
                reason = "a quoted cell starts in this record and is never closed"
                raise CorpusError(f"{path}:{start}: malformed CSV: {reason}") from None
            raise CorpusError(f"{path}:{start}: malformed CSV: {exc}") from None
        if not cells:  # a blank line
            continue
        if len(cells) > len(header):
            yield start, RecordError("more cells than header columns")
            continue
        yield start, {k: v for k, v in zip(header, cells, strict=False) if v != ""}


def _seed_records(path: Path) -> Iterator[Record]:
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


Reader = Callable[[Path], Iterator[Record]]
_READERS: dict[str, Reader] = {
    "jsonl": _jsonl_records,
    "json": _json_records,
    "csv": _csv_records,
    "seed": _seed_records,
}


def detect_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        if not path.suffix:
            raise CorpusError(f"{path}: no file extension, so no known format (known: {known})")
        raise CorpusError(f"{path}: unknown corpus format '{path.suffix}' (known: {known})")
    return fmt


_WIDE_BOMS = [  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
]


def _wide_encoding(head: bytes) -> str | None:
    """UTF-16/32 text (what some Windows tools save) is not binary, and deserves saying so."""
    for bom, name in _WIDE_BOMS:
        if head.startswith(bom):
            return name
    # Without a byte-order mark, mostly-ASCII UTF-16 has a NUL in every other byte.
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if max(even, odd) > 0.4 * len(head) and min(even, odd) < 0.02 * len(head):
        return "UTF-16"
    return None


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory; name the corpus files in it"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a file"


def _check_file(path: Path) -> None:
    """Only non-empty regular text files are read: a pipe or /dev/zero would never end."""
    try:
        if not path.exists():
            if path.is_symlink():
                raise CorpusError(f"{path}: broken symbolic link (missing target, or a loop)")
            raise CorpusError(f"{path}: no such file")
        if not path.is_file():
            raise CorpusError(f"{path}: not a regular file ({_file_kind(path.stat().st_mode)})")
        if path.stat().st_size == 0:
            raise CorpusError(f"{path}: empty file")
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError as exc:
        raise CorpusError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    wide = _wide_encoding(head)
    if wide:
        raise CorpusError(f"{path}: {wide} text; save it as UTF-8 to load it")
    if b"\x00" in head:
        raise CorpusError(f"{path}: looks like a binary file (NUL bytes), not a corpus")


def read_records(path: Path) -> Iterator[Record]:
    """(line, record or RecordError) of every record of one corpus file."""
    _check_file(path)
    reader = _READERS[detect_format(path)]
    try:
        yield from reader(path)
    except OSError as exc:  # the file changed or failed under us (EIO, permissions)
        raise CorpusError(f"{path}: cannot be read: {exc.strerror or exc}") from None
