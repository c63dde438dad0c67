"""The UI's widget values turned into assistant options.

Gradio bounds its widgets, but the browser's queue requests can be hand-made: whatever
arrives here is checked, and anything unusable becomes an `InputError` the chat shows.
"""

from __future__ import annotations

import math

from rag.errors import InputError
from rag.text import unpaired_surrogate
from rag.types import Filters


def make_filters(
    statuses: list[str] | None, author: str | None, title: str | None
) -> Filters | None:
    filters = Filters(
        status=list(statuses) if statuses else None,
        author=(author or "").strip() or None,
        title=(title or "").strip() or None,
        paper_ids=None,
    )
    return None if filters.is_empty() else filters


def whole_top_k(value: object) -> int | None:
    """The slider's value as an int. Gradio bounds it, but a hand-made request to the queue
    can send NaN, infinity or a fraction, which `int()` would crash on or silently round."""
    if value is None or value == "":
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise InputError(f"top_k: must be a whole number from 1 to 50, not {str(value)[:20]}")
    return int(value)


def check_question_text(question: str) -> None:
    found = unpaired_surrogate(question)
    if found is not None:
        raise InputError(f"question: holds an unpaired surrogate (\\u{found[1]:04x}), not text")
