"""`[n]` markers: validation, normalisation, and the streaming filter that must agree with
validation of the whole text however the stream is split."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rag.answer.citations import (
    MARKER,
    StreamingMarkerFilter,
    cited_numbers,
    filter_stream,
    renumber_markers,
    validate_markers,
)


def stream(text: str, cuts: list[int], n_sources: int) -> tuple[list[str], int]:
    """Feed `text` split at `cuts` through a fresh filter; return the deltas and removals."""
    bounds = [0, *sorted(set(cuts)), len(text)]
    deltas = [text[a:b] for a, b in itertools.pairwise(bounds)]
    marker_filter = StreamingMarkerFilter(n_sources)
    out = list(filter_stream(deltas, marker_filter))
    return out, marker_filter.removed


def invalid_numbers(text: str, n_sources: int) -> list[int]:
    return [n for n in cited_numbers(text) if not 1 <= n <= n_sources]


# --- validate_markers ------------------------------------------------------------------------
def test_invented_marker_is_removed_and_counted() -> None:
    text, removed = validate_markers("Graphs become words [1]. Molecules are sampled [9].", 3)
    assert text == "Graphs become words [1]. Molecules are sampled."
    assert removed == 1


def test_zero_and_out_of_range_numbers_are_removed_valid_ones_kept() -> None:
    text, removed = validate_markers("a [0] b [3] c [4] d [12]", 3)
    assert text == "a b [3] c d"
    assert removed == 3


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Both do [1, 3].", "Both do [1][3]."),
        ("Both do [1,3].", "Both do [1][3]."),
        ("Both do [1; 2 ; 3].", "Both do [1][2][3]."),
        ("Both do [2][1].", "Both do [2][1]."),
    ],
)
def test_groups_are_normalised_to_single_markers(raw: str, expected: str) -> None:
    assert validate_markers(raw, 3) == (expected, 0)


def test_group_keeps_its_valid_members_only() -> None:
    assert validate_markers("Shown in [1, 9, 3].", 3) == ("Shown in [1][3].", 1)
    assert validate_markers("Shown in [7, 9].", 3) == ("Shown in.", 2)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("It works [9].", "It works."),  # no space left before the full stop
        ("It works [9], mostly.", "It works, mostly."),
        ("It works [9] and scales [1].", "It works and scales [1]."),  # no double space
        ("It works[9] and scales.", "It works and scales."),
        ("It works [9][1].", "It works [1]."),
        ("It works [1] [9].", "It works [1]."),
        ("[9] Opening.", " Opening."),
    ],
)
def test_removal_leaves_tidy_text(raw: str, expected: str) -> None:
    assert validate_markers(raw, 3)[0] == expected


def test_text_without_markers_or_removals_is_untouched() -> None:
    text = "Spacing  stays as written , when nothing is removed [2].\n\nNew paragraph [1]."
    assert validate_markers(text, 2) == (text, 0)


@pytest.mark.parametrize("literal", ["[1000]", "[x]", "[ 1]", "[]", "a[b]c", "[1 2]"])
def test_brackets_that_are_not_markers_pass_through(literal: str) -> None:
    assert validate_markers(f"Text {literal} here.", 1) == (f"Text {literal} here.", 0)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("x [[9]9] y", "x 9] y"), ("x [1,[9]2] y", "x 2] y"), ("x [1, [9] 2]", "x  2]")],
)
def test_removal_never_creates_a_marker(raw: str, expected: str) -> None:
    # Joining "[1," and "2]" around a removed [9] would cite a source nobody cited.
    cleaned, removed = validate_markers(raw, 1)
    assert (cleaned, removed) == (expected, 1)
    assert cited_numbers(cleaned) == []


# --- cited_numbers ---------------------------------------------------------------------------
def test_cited_numbers_in_order_of_first_appearance() -> None:
    assert cited_numbers("B [3] then A [1, 3] and C [2][3] again [1]") == [3, 1, 2]
    assert cited_numbers("no citation here") == []


# --- StreamingMarkerFilter: examples ---------------------------------------------------------
def test_marker_split_across_deltas_is_assembled() -> None:
    out, removed = stream("It holds [1] and [9].", [9, 10, 11, 17, 18, 19], 3)
    assert "".join(out) == "It holds [1] and."
    assert removed == 1
    assert all("[9" not in d and "9]" not in d for d in out)


def test_invalid_marker_is_never_shown_even_partially() -> None:
    marker_filter = StreamingMarkerFilter(2)
    shown = [marker_filter.feed(d) for d in ["Claim ", "[", "9", "]", " next [", "2]", "."]]
    shown.append(marker_filter.flush())
    # [2] is the first source cited: the reader sees it as [1] (numbers by first use).
    assert "".join(shown) == "Claim next [1]."
    assert marker_filter.cited == [2]
    assert not any("9" in s for s in shown)
    assert marker_filter.removed == 1


def test_long_marker_group_is_held_until_it_closes() -> None:
    # A group longer than any fixed hold limit must still be validated, not leaked raw.
    text = "All of them [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]."
    out, removed = stream(text, list(range(len(text))), 3)
    assert "".join(out) == "All of them [1][2][3]."
    assert removed == 7


def test_unclosed_bracket_is_released_at_the_end() -> None:
    out, removed = stream("Cut short [1, 2", [10, 12], 3)
    assert "".join(out) == "Cut short [1, 2"
    assert removed == 0


# --- StreamingMarkerFilter: property ---------------------------------------------------------
_WORDS = st.sampled_from(["graph", "Words", "law", "FA", "x1", "100M", "é", "$K$"])
_SPACE = st.sampled_from([" ", "  ", "\t", "\n", "\n\n", " \n"])
_PUNCT = st.sampled_from([".", ",", ";", ":", "!", "?", ")", "(", "*"])
_NUMBER = st.integers(min_value=0, max_value=12).map(str) | st.sampled_from(["1000", "007"])
_SEPARATOR = st.sampled_from([",", ", ", " ,", ";", " ; ", ",\n"])


@st.composite
def _marker(draw: st.DrawFn) -> str:
    numbers = draw(st.lists(_NUMBER, min_size=1, max_size=12))
    body = numbers[0]
    for number in numbers[1:]:
        body += draw(_SEPARATOR) + number
    return f"[{body}]"


_BROKEN = st.sampled_from(
    ["[", "]", "[1", "1]", "9]", "[1,", "[12, ", "[]", "[a]", "[[2]", "[1 2]", "[ 3]"]
)
_PIECE = _WORDS | _SPACE | _PUNCT | _marker() | _BROKEN


@st.composite
def _split_text(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = "".join(draw(st.lists(_PIECE, max_size=40)))
    cuts = draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=len(text)))
    return text, cuts


@settings(max_examples=400, deadline=None, database=None)
@given(case=_split_text(), n_sources=st.integers(min_value=0, max_value=8))
@example(case=("See [1, 9] and [9].", [5, 6, 7, 8, 15, 16]), n_sources=3)
@example(case=("a [9][1]", [5, 6]), n_sources=3)
@example(case=("a [9] [9] b", [2, 5, 6, 9]), n_sources=3)
@example(case=("[[[2]1]", []), n_sources=0)  # removal made "[1]" of the brackets around it
@example(case=("[1,[[2]1]", []), n_sources=0)  # and the group "[1,1]" (a crash when streamed)
def test_streamed_output_equals_validation_of_the_whole_text(
    case: tuple[str, list[int]], n_sources: int
) -> None:
    text, cuts = case
    out, removed = stream(text, cuts, n_sources)
    expected, expected_removed = validate_markers(text, n_sources)
    assert "".join(out) == renumber_markers(expected, [])
    assert removed == expected_removed
    # What the reader sees at any moment never names a source that does not exist.
    shown = ""
    for delta in out:
        shown += delta
        assert invalid_numbers(shown, n_sources) == []


@settings(max_examples=200, deadline=None, database=None)
@given(case=_split_text(), n_sources=st.integers(min_value=1, max_value=8))
def test_validation_is_idempotent_and_leaves_only_valid_markers(
    case: tuple[str, list[int]], n_sources: int
) -> None:
    text, _ = case
    cleaned, _ = validate_markers(text, n_sources)
    assert validate_markers(cleaned, n_sources) == (cleaned, 0)
    for match in MARKER.finditer(cleaned):
        assert re.fullmatch(r"\[\d+\]", match.group(0)), "groups are normalised"
    assert invalid_numbers(cleaned, n_sources) == []


def test_citations_are_numbered_by_first_use_without_gaps() -> None:
    cited: list[int] = []
    text = renumber_markers("Optimizers [4]. Adam variants [1][4]. Schedules [5].", cited)
    assert text == "Optimizers [1]. Adam variants [2][1]. Schedules [3]."
    assert cited == [4, 1, 5]
    assert cited_numbers(text) == [1, 2, 3]
