"""`[n]` markers: find them, drop the ones that name no source, and do it while streaming."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# One marker or a group written as [1, 3] / [1,3]: both are normalised to [1][3].
MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
_SPACED_MARKER = re.compile(r"([ \t]*)" + MARKER.pattern)
_ENDING_MARKER = re.compile(MARKER.pattern + r"\Z")
# What a marker still being written looks like: "[", "[1", "[1, 2", "[1 ;".
_PARTIAL = re.compile(r"\[(?:\d{1,3}(?:\s*[,;]\s*\d{1,3})*(?:\s*[,;]?\s*)?)?")
# After a removed marker, a space before it goes too if the clause ends or a space follows.
_CLAUSE_END = frozenset(".,;:!?)")


def _numbers(group: str) -> list[int]:
    return [int(part) for part in re.split(r"\s*[,;]\s*", group)]


def cited_numbers(text: str) -> list[int]:
    """Every number cited, in order of first appearance."""
    seen: list[int] = []
    for match in MARKER.finditer(text):
        for n in _numbers(match.group(1)):
            if n not in seen:
                seen.append(n)
    return seen


def _partial_start(text: str) -> int | None:
    """Where an unfinished marker at the end of `text` starts, if there is one."""
    start = text.rfind("[")
    return start if start >= 0 and _PARTIAL.fullmatch(text, start) else None


def validate_markers(text: str, n_sources: int) -> tuple[str, int]:
    """Remove markers outside 1..n_sources; return the cleaned text and how many went.

    Tidying is local to each removed marker ("works [9]." -> "works."), so validating a
    text piece by piece at the points StreamingMarkerFilter cuts gives the same result as
    validating it whole.
    """
    out: list[str] = []
    removed = 0
    pos = 0
    for match in _SPACED_MARKER.finditer(text):
        out.append(text[pos : match.start()])
        pos = match.end()
        numbers = _numbers(match.group(2))
        kept = [n for n in numbers if 1 <= n <= n_sources]
        removed += len(numbers) - len(kept)
        if kept:
            out.append(match.group(1) + "".join(f"[{n}]" for n in kept))
            continue
        following = text[pos : pos + 1]
        if following and not following.isspace() and following not in _CLAUSE_END:
            out.append(match.group(1))
        # "[1,[9]2]" must not become the marker "[1,2]": unfinished brackets just before
        # a removed marker go with it, so removal never creates a marker ("[[[9]1]" has
        # two: removing only the last made "[1]").
        joined = "".join(out)
        while (start := _partial_start(joined)) is not None:
            joined = joined[:start]
        out = [joined]
    out.append(text[pos:])
    return "".join(out), removed


class StreamingMarkerFilter:
    """Validates markers in a token stream: text that could still be (or touch) a marker
    is held back until the next delta settles it, so an invented `[9]` never reaches the
    reader, even for a moment, and the streamed text equals `validate_markers` of the
    whole text however the stream was split."""

    def __init__(self, n_sources: int) -> None:
        self.n_sources = n_sources
        self.removed = 0
        # Sources in the order the text first cites them: the reader sees [1], [2], [3] …
        # in that order, whichever sources they are; `cited[i]` is what [i+1] names.
        self.cited: list[int] = []
        self._held = ""

    def feed(self, delta: str) -> str:
        self._held += delta
        return self._release(_settled(self._held))

    def flush(self) -> str:
        return self._release(len(self._held))

    def _release(self, cut: int) -> str:
        ready, self._held = self._held[:cut], self._held[cut:]
        if not ready:
            return ""
        cleaned, removed = validate_markers(ready, self.n_sources)
        self.removed += removed
        return renumber_markers(cleaned, self.cited)


def renumber_markers(text: str, cited: list[int]) -> str:
    """Validated text with each source's [n] replaced by its order of first citation.

    `cited` holds the sources already numbered (earlier parts of a stream) and grows with
    the new ones, so numbering piece by piece equals numbering the whole.
    """

    def number(marker: re.Match[str]) -> str:
        source = int(marker.group(1))  # validated markers hold one number each
        if source not in cited:
            cited.append(source)
        return f"[{cited.index(source) + 1}]"

    return MARKER.sub(number, text)


def _settled(text: str) -> int:
    """Length of the longest prefix whose validation cannot change with more text."""
    cut = len(text)
    while True:
        prefix = text[:cut]
        start = _partial_start(prefix)
        if start is not None:  # an unfinished marker
            cut = start
            continue
        stripped = len(prefix.rstrip(" \t"))
        if stripped < cut:  # a space a removed marker may take with it
            cut = stripped
            continue
        following = text[cut : cut + 1]
        if not following or not (following.isspace() or following in _CLAUSE_END):
            ending = _ENDING_MARKER.search(prefix)
            if ending:  # a marker whose tidying depends on the next character
                cut = ending.start()
                continue
        return cut


def filter_stream(deltas: Iterable[str], marker_filter: StreamingMarkerFilter) -> Iterator[str]:
    for delta in deltas:
        out = marker_filter.feed(delta)
        if out:
            yield out
    tail = marker_filter.flush()
    if tail:
        yield tail
