"""Question files: the shipped sets load, bad files fail with line-numbered messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.__main__ import main
from eval.questions import QuestionFileError, load_questions, unknown_gold_ids

ROOT = Path(__file__).resolve().parent.parent.parent
GOOD = {"id": "q1", "question": "What is it?", "gold_ids": ["a"], "answerable": True}


def write(path: Path, *lines: object) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    return path


@pytest.mark.parametrize("name", ["dev.jsonl", "test.jsonl"])
def test_shipped_question_sets_load(name: str) -> None:
    questions = load_questions(ROOT / "eval" / "datasets" / name)
    assert len(questions) == {"dev.jsonl": 259, "test.jsonl": 79}[name]
    assert {q.category for q in questions} == {
        "paraphrase",
        "named",
        "numeric",
        "multi",
        "unanswerable",
        "coined-name",
        "byline-content",
        "plain-results",
        "plain-supplied",
        "plain-exists",
    }
    assert all(q.gold_ids == [] for q in questions if not q.answerable)
    # a byline asked beside the content: what the catalogue must say
    assert all(q.byline_facts for q in questions if q.category == "byline-content")


def test_extra_fields_are_ignored_and_defaults_apply(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", {**GOOD, "extra": 1}, "", {**GOOD, "id": "q2"})
    questions = load_questions(path)
    assert [q.id for q in questions] == ["q1", "q2"]
    assert questions[0].category == "uncategorised"
    assert questions[0].key_facts == []


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({k: v for k, v in GOOD.items() if k != "gold_ids"}, ":2: missing field 'gold_ids'"),
        ({**GOOD, "answerable": "yes"}, ":2: 'answerable' must be true or false"),
        ({**GOOD, "gold_ids": "a"}, ":2: 'gold_ids' must be a list of strings"),
        ({**GOOD, "key_facts": [1]}, ":2: 'key_facts' must be a list of strings"),
        ({**GOOD, "question": ""}, ":2: 'question' must be a non-empty string"),
        ({**GOOD, "category": 3}, ":2: 'category' must be a string"),
        ({**GOOD, "gold_ids": []}, ":2: answerable question with empty 'gold_ids'"),
        ({**GOOD, "id": "q0"} | {"id": "q1"}, ":2: duplicate id 'q1' (first on line 1)"),
        ("{not json", ":2: invalid JSON"),
        ("[1, 2]", ":2: expected a JSON object, got list"),
    ],
)
def test_bad_question_files_name_line_and_field(tmp_path: Path, bad: object, message: str) -> None:
    path = write(tmp_path / "q.jsonl", GOOD, bad)
    with pytest.raises(QuestionFileError) as info:
        load_questions(path)
    assert str(info.value).startswith(str(path))
    assert message in str(info.value)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="no such question file"):
        load_questions(tmp_path / "absent.jsonl")
    with pytest.raises(QuestionFileError, match="no questions"):
        load_questions(write(tmp_path / "empty.jsonl", ""))


def test_unknown_gold_ids_are_listed(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", GOOD, {**GOOD, "id": "q2", "gold_ids": ["zz", "a", "b"]})
    assert unknown_gold_ids(load_questions(path), {"a"}) == ["b", "zz"]


def test_cli_reports_a_bad_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "q.jsonl", {**GOOD, "answerable": 1})
    assert main(["run", "--questions", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1: 'answerable' must be true or false" in err
    assert "Traceback" not in err


def test_cli_rejects_unknown_compare_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--questions", "x.jsonl", "--compare", "dense,sparse"]) == 2
    assert "sparse" in capsys.readouterr().err


def test_a_conversations_earlier_questions_are_read_as_its_turns(tmp_path: Path) -> None:
    asked = {
        **GOOD,
        "turns": ["Which papers are about RL?"],
        "question": "Which of them are orals?",
    }
    (question,) = load_questions(write(tmp_path / "q.jsonl", asked))
    assert question.turns == ["Which papers are about RL?"]
    with pytest.raises(QuestionFileError, match="turns"):
        load_questions(write(tmp_path / "bad.jsonl", {**GOOD, "turns": "Which papers?"}))
