"""The checks every question goes through, whichever way it came in (Python, CLI, API, UI).

Each failure is an `InputError` whose message starts with the field it is about.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from rag.errors import InputError
from rag.settings import RETRIEVAL_MODES, InputLimits
from rag.text import clean_text
from rag.types import ChatMessage, Filters

TOP_K_RANGE = (1, 50)


def checked_question(
    question: str, limits: InputLimits, top_k: int | None = None, mode: str | None = None
) -> str:
    """The question cleaned of control characters and folded spaces, or an InputError."""
    question = clean_text(question or "")
    if not question:
        raise InputError("question: empty")
    if not any(unicodedata.category(ch) != "Cf" and not ch.isspace() for ch in question):
        raise InputError("question: only invisible characters (zero-width spaces or joiners)")
    if len(question) > limits.max_question_chars:
        raise InputError(
            f"question: {len(question):,} characters (limit {limits.max_question_chars:,})"
        )
    low, high = TOP_K_RANGE
    if top_k is not None and not low <= top_k <= high:
        raise InputError(f"top_k: {top_k} is outside {low}..{high}")
    if mode is not None and mode not in RETRIEVAL_MODES:
        raise InputError(f"mode: '{mode}' is not one of {', '.join(RETRIEVAL_MODES)}")
    return question


def checked_history(
    history: list[ChatMessage] | list[dict[str, str]] | None, limits: InputLimits
) -> list[ChatMessage]:
    messages = [
        m if isinstance(m, ChatMessage) else ChatMessage.model_validate(m) for m in history or []
    ]
    if len(messages) > limits.max_history_turns:
        raise InputError(f"history: {len(messages)} messages (limit {limits.max_history_turns})")
    return messages


def checked_filters(filters: Filters | dict[str, Any] | None) -> Filters | None:
    return Filters(**filters) if isinstance(filters, dict) else filters
