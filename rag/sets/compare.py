"""Comparison rows: for each paper, the abstract sentences that state its problem, its method
and its main finding, so papers can be read side by side ("compare the approaches of …").

Offline the cells are quoted, never paraphrased: each sentence is scored for each role by
the phrases abstracts use for it ("however, … remains", "we propose", "experiments show")
and by where it sits (problems come first, findings last), and the roles take distinct
sentences, best pair first. A role no sentence signals stays empty rather than filled
with a sentence that says something else.
"""

from __future__ import annotations

import re

from rag.answer.unicode_math import tex_quotes
from rag.text import split_sentences

COLUMNS = ("problem", "method", "finding")
CELL_LIMIT = 320  # characters; the full abstract is one click away

_CUES: dict[str, list[tuple[re.Pattern[str], float]]] = {
    "problem": [
        (re.compile(r"\b(however|yet|but|despite|although|while)\b", re.I), 1.0),
        (
            re.compile(
                r"\b(challeng\w*|problem\w*|limitation\w*|bottleneck\w*|issue\w*|"
                r"difficult\w*|hinder\w*|prohibitive\w*|costly|expensive|vulnerab\w*|"
                r"suffer\w*|struggl\w*|fail\w*|lack\w*|unclear|open question|"
                r"remains?|poorly understood|not well understood)\b",
                re.I,
            ),
            1.5,
        ),
        (re.compile(r"\b(existing|current|prior|previous|conventional|standard)\b", re.I), 0.5),
    ],
    "method": [
        (
            re.compile(
                r"\b(we|this paper|this work|in this paper,? we)\s+(propose|introduce|present|"
                r"develop|design|devise|formulate|put forward|offer|build|construct)\w*",
                re.I,
            ),
            3.0,
        ),
        (
            re.compile(
                r"\b(we|this paper|this work)\s+(study|investigate|explore|analy[sz]e|"
                r"consider|revisit|examine|leverage|use|adopt|reformulate|frame)\w*",
                re.I,
            ),
            1.5,
        ),
        (
            re.compile(
                r"\b(our|the proposed|a novel|a new|new)\s+(method|approach|framework|"
                r"algorithm|model|technique|architecture|scheme|objective|loss|benchmark)",
                re.I,
            ),
            1.5,
        ),
        (re.compile(r"\b(called|dubbed|named|termed)\b", re.I), 1.0),
        (re.compile(r"\b(by|via|through)\s+\w+ing\b", re.I), 0.5),
    ],
    "finding": [
        (
            re.compile(
                r"\b(we|results|experiments?|evaluations?|analys[ie]s)\s+(also\s+)?"
                r"(show|demonstrate|find|reveal|indicate|confirm|prove|observe|verify|"
                r"suggest|establish)\w*",
                re.I,
            ),
            3.0,
        ),
        (
            re.compile(
                r"\b(outperform\w*|surpass\w*|state[- ]of[- ]the[- ]art|sota|"
                r"significant(ly)?|improv\w*|achiev\w*|speed-?ups?|faster|reduc\w*|"
                r"guarantee\w*|competitive|superior|gains?|consistently|effective(ness)?|"
                r"bounds?|characteriz\w*|converge\w*)\b",
                re.I,
            ),
            1.0,
        ),
        (re.compile(r"\d+(\.\d+)?\s*(%|×|x\b|times)|\\times", re.I), 1.0),
        (
            re.compile(
                r"\b(extensive|empirical(ly)?|experiments?|benchmarks?|theoretical(ly)?)\b", re.I
            ),
            0.5,
        ),
    ],
}
_POSITION = {"problem": (1.0, -1.0), "method": (0.3, 0.0), "finding": (-0.5, 1.0)}
_MIN_SCORE = 1.0  # at least one real cue: position alone never fills a cell


def _score(role: str, sentence: str, position: float) -> float:
    cues = sum(weight for pattern, weight in _CUES[role] if pattern.search(sentence))
    if cues == 0:
        return 0.0
    early, late = _POSITION[role]
    return cues + early * (1.0 - position) + late * position


def plain_text(sentence: str) -> str:
    """An abstract's sentence as plain text: Markdown emphasis markers dropped ("**L**ow-rank"
    → "Low-rank") and TeX quotes as typographic ones (``extreme'' → “extreme”)."""
    return tex_quotes(_EMPHASIS.sub(lambda m: m.group(1) or m.group(2), sentence))


# `__` closes only before a non-word character: "window.__x = a.__y" is code, not emphasis.
_EMPHASIS = re.compile(r"(?<![\\\w])(?:\*\*([^*\n]{1,120}?)\*\*|__([^_\n]{1,120}?)__(?!\w))")


def _cell(sentence: str) -> str:
    sentence = plain_text(sentence)
    if len(sentence) <= CELL_LIMIT:
        return sentence
    return sentence[: CELL_LIMIT - 1].rsplit(" ", 1)[0] + "…"


def comparison_cells(abstract: str) -> dict[str, str]:
    """{problem, method, finding} → an abstract sentence each ("" where none says it)."""
    sentences = split_sentences(abstract)
    last = max(len(sentences) - 1, 1)
    pairs = sorted(
        ((_score(role, s, i / last), role, i) for i, s in enumerate(sentences) for role in COLUMNS),
        reverse=True,
    )
    cells: dict[str, str] = dict.fromkeys(COLUMNS, "")
    used: set[int] = set()
    for score, role, i in pairs:
        if score < _MIN_SCORE:
            break
        if cells[role] or i in used:
            continue
        cells[role] = _cell(sentences[i])
        used.add(i)
    return cells
