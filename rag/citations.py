"""`[n]` markers: find them, drop the ones that name no source, and do it while streaming."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# One marker or a group written as [1, 3] / [1,3]: both are normalised to [1][3].
MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?])")
_DOUBLE_SPACE = re.compile(r"[ \t]{2,}")


def cited_numbers(text: str) -> list[int]:
    """Every number cited, in order of first appearance."""
    seen: list[int] = []
    for match in MARKER.finditer(text):
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            n = int(part)
            if n not in seen:
                seen.append(n)
    return seen


def validate_markers(text: str, n_sources: int) -> tuple[str, int]:
    """Remove markers outside 1..n_sources; return the cleaned text and how many went."""
    removed = 0

    def repl(match: re.Match[str]) -> str:
        nonlocal removed
        kept = []
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            if 1 <= int(part) <= n_sources:
                kept.append(f"[{int(part)}]")
            else:
                removed += 1
        return "".join(kept)

    cleaned = MARKER.sub(repl, text)
    if removed:
        cleaned = _DOUBLE_SPACE.sub(" ", _SPACE_BEFORE_PUNCT.sub(r"\1", cleaned))
    return cleaned, removed


class StreamingMarkerFilter:
    """Validates markers in a token stream: text after an open `[` is held back until the
    bracket closes (or clearly is not a marker), so an invented `[9]` never reaches the
    reader, even for a moment."""

    MAX_HOLD = 24

    def __init__(self, n_sources: int) -> None:
        self.n_sources = n_sources
        self.removed = 0
        self._held = ""

    def feed(self, delta: str) -> str:
        text = self._held + delta
        self._held = ""
        out = []
        while text:
            start = text.find("[")
            if start < 0:
                out.append(text)
                break
            out.append(text[:start])
            end = text.find("]", start)
            if end < 0:
                tail = text[start:]
                if len(tail) < self.MAX_HOLD and re.fullmatch(r"\[[\d\s,;]*", tail):
                    self._held = tail
                else:
                    out.append(tail)
                break
            piece = text[start : end + 1]
            if MARKER.fullmatch(piece):
                cleaned, removed = validate_markers(piece, self.n_sources)
                self.removed += removed
                out.append(cleaned)
            else:
                out.append(piece[0])
                text = text[start + 1 :]
                continue
            text = text[end + 1 :]
        return "".join(out)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held


def filter_stream(deltas: Iterable[str], marker_filter: StreamingMarkerFilter) -> Iterator[str]:
    for delta in deltas:
        out = marker_filter.feed(delta)
        if out:
            yield out
    tail = marker_filter.flush()
    if tail:
        yield tail
