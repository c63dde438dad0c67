"""Question files (JSONL): load, validate with line-numbered errors, check gold ids.

One object per line: {"id", "question", "gold_ids": [...], "answerable": bool,
"category"?, "reference_answer"?, "key_facts"?: [str]}. Set questions (sets_*.jsonl) add
"kind" (list, count, metadata, compare), "gold_ids" as the complete set, "allowed_ids"
(borderline papers that count neither for nor against), "gold_count", "exact" and, for
rankings, "gold_ranking": [[name, count], …]; institution rankings "gold_institutions":
[[name, regex over folded affiliation strings, papers], …]; two-facet topics "facets", described topics
"topic_names" (the names that count as the right suggestion), comparisons of named papers
"names"; statistics "gold_value" (the number: a share in %, distinct author names, a mean
byline length) or "uncountable": true (no count may be claimed). Other fields are ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UNCATEGORISED = "uncategorised"


class QuestionFileError(ValueError):
    """The question file cannot be used; the message names the file, line and field."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold_ids: list[str]
    answerable: bool
    category: str = UNCATEGORISED
    reference_answer: str | None = None
    key_facts: list[str] = field(default_factory=list)
    kind: str = "paper"
    allowed_ids: list[str] = field(default_factory=list)
    gold_count: int | None = None
    exact: bool = False
    gold_ranking: list[tuple[str, int]] = field(default_factory=list)
    # institution rankings: (name, regex over folded affiliation strings, papers), in order
    gold_institutions: list[tuple[str, str, int]] = field(default_factory=list)
    facets: list[str] = field(default_factory=list)  # two-facet topics: what must both hold
    topic_names: list[str] = field(default_factory=list)  # described topics: its names
    names: list[str] = field(default_factory=list)  # comparisons: the things named
    # statistics: the number asked (a share in %, distinct names, a mean byline length)
    gold_value: float | None = None
    uncountable: bool = False  # statistics the catalogue cannot count: no count is claimed
    turns: list[str] = field(
        default_factory=list
    )  # a conversation's earlier questions, asked first
    # a byline asked beside the content: names, an author count, an institution, a status
    byline_facts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "allowed_ids": self.allowed_ids,
            "gold_count": self.gold_count,
            "exact": self.exact,
            "id": self.id,
            "question": self.question,
            "gold_ids": self.gold_ids,
            "answerable": self.answerable,
            "category": self.category,
            "reference_answer": self.reference_answer,
            "key_facts": self.key_facts,
        }


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _string_list(record: dict[str, Any], key: str, where: str) -> list[str]:
    value = record.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise QuestionFileError(f"{where}: '{key}' must be a list of strings, not {value!r}")
    return list(value)


def parse_question(record: Any, where: str) -> Question:
    if not isinstance(record, dict):
        raise QuestionFileError(f"{where}: expected a JSON object, got {_type_name(record)}")
    for key in ("id", "question", "gold_ids", "answerable"):
        if key not in record:
            raise QuestionFileError(f"{where}: missing field '{key}'")
    for key in ("id", "question"):
        if not isinstance(record[key], str) or not record[key].strip():
            raise QuestionFileError(
                f"{where}: '{key}' must be a non-empty string, not {_type_name(record[key])}"
            )
    if not isinstance(record["answerable"], bool):
        raise QuestionFileError(
            f"{where}: 'answerable' must be true or false, not {record['answerable']!r}"
        )
    gold = _string_list(record, "gold_ids", where)
    facts = _string_list(record, "key_facts", where)
    category = record.get("category")
    if category is not None and not isinstance(category, str):
        raise QuestionFileError(f"{where}: 'category' must be a string, not {_type_name(category)}")
    reference = record.get("reference_answer")
    if reference is not None and not isinstance(reference, str):
        raise QuestionFileError(
            f"{where}: 'reference_answer' must be a string, not {_type_name(reference)}"
        )
    # A set question may have an empty answer ("which papers did <absent name> write?").
    if record["answerable"] and not gold and "gold_count" not in record:
        raise QuestionFileError(f"{where}: answerable question with empty 'gold_ids'")
    gold_count = record.get("gold_count")
    if gold_count is not None and (not isinstance(gold_count, int) or gold_count < 0):
        raise QuestionFileError(f"{where}: 'gold_count' must be a whole number, not {gold_count!r}")
    ranking = record.get("gold_ranking") or []
    if not all(isinstance(r, list) and len(r) == 2 for r in ranking):
        raise QuestionFileError(f"{where}: 'gold_ranking' must be [[name, count], …]")
    places = record.get("gold_institutions") or []
    if not all(isinstance(r, list) and len(r) == 3 and isinstance(r[2], int) for r in places):
        raise QuestionFileError(f"{where}: 'gold_institutions' must be [[name, regex, count], …]")
    for _, pattern, _ in places:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise QuestionFileError(
                f"{where}: bad regex {pattern!r} in 'gold_institutions': {exc}"
            ) from None
    value = record.get("gold_value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise QuestionFileError(f"{where}: 'gold_value' must be a number, not {value!r}")
    return Question(
        gold_value=None if value is None else float(value),
        uncountable=bool(record.get("uncountable", False)),
        kind=str(record.get("kind") or "paper"),
        gold_institutions=[(str(n), str(r), int(c)) for n, r, c in places],
        allowed_ids=_string_list(record, "allowed_ids", where),
        gold_count=gold_count,
        exact=bool(record.get("exact", False)),
        gold_ranking=[(str(n), int(c)) for n, c in ranking],
        facets=_string_list(record, "facets", where),
        topic_names=_string_list(record, "topic_names", where),
        names=_string_list(record, "names", where),
        turns=_string_list(record, "turns", where),
        byline_facts=_string_list(record, "byline_facts", where),
        id=record["id"],
        question=record["question"].strip(),
        gold_ids=gold,
        answerable=record["answerable"],
        category=category or UNCATEGORISED,
        reference_answer=reference,
        key_facts=facts,
    )


def load_questions(path: Path) -> list[Question]:
    """All questions of a JSONL file; the first problem raises QuestionFileError."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise QuestionFileError(f"{path}: no such question file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"{path}: cannot read ({exc})") from exc
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: invalid JSON ({exc.msg})") from exc
        question = parse_question(record, where)
        if question.id in seen:
            raise QuestionFileError(
                f"{where}: duplicate id '{question.id}' (first on line {seen[question.id]})"
            )
        seen[question.id] = number
        questions.append(question)
    if not questions:
        raise QuestionFileError(f"{path}: no questions")
    return questions


def unknown_gold_ids(questions: Sequence[Question], catalogue: Collection[str]) -> list[str]:
    """Gold ids the store does not hold (sorted), which no system could retrieve."""
    return sorted({g for q in questions for g in q.gold_ids if g not in catalogue})


def write_questions(path: Path, records: Sequence[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
