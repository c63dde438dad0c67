"""The checks every question goes through, and the numbered references read back."""

from __future__ import annotations

import pytest

from rag.answer.inputs import checked_filters, checked_history, checked_question
from rag.errors import InputError
from rag.settings import InputLimits
from rag.types import ChatMessage, Filters

LIMITS = InputLimits(max_question_chars=40, max_history_turns=2)


def test_questions_are_cleaned() -> None:
    assert checked_question("  What\x00 is\n\nGraphsGPT? ", LIMITS) == "What is GraphsGPT?"


@pytest.mark.parametrize(
    ("question", "options", "field"),
    [
        ("   \x07 ", {}, "question: empty"),
        ("x" * 41, {}, "question: 41 characters (limit 40)"),
        ("ok", {"top_k": 0}, "top_k: 0 is outside 1..50"),
        ("ok", {"top_k": 51}, "top_k: 51 is outside 1..50"),
        ("ok", {"mode": "sparse"}, "mode: 'sparse' is not one of dense, bm25, hybrid"),
    ],
)
def test_bad_input_names_the_field(question: str, options: dict, field: str) -> None:
    with pytest.raises(InputError, match="^" + field.replace("(", r"\(").replace(")", r"\)")):
        checked_question(question, LIMITS, **options)


def test_history_takes_dicts_and_is_bounded() -> None:
    turns = [{"role": "user", "content": "a"}, ChatMessage(role="assistant", content="b")]
    assert [m.role for m in checked_history(turns, LIMITS)] == ["user", "assistant"]
    with pytest.raises(InputError, match="history: 3 messages"):
        checked_history([*turns, {"role": "user", "content": "c"}], LIMITS)


def test_filters_may_be_a_dict() -> None:
    assert checked_filters({"status": ["Oral"]}) == Filters(status=["Oral"])
    assert checked_filters(None) is None
