"""Whether a sentence gives the number a question part asks for: a quantity within a few
words of the thing counted, or a count, gap, rate or gain in the forms abstracts write
them ("a three-stage protocol", "at a minimax optimal rate", "outperforms … by 40%")."""

from __future__ import annotations

import re
from functools import lru_cache

from rag.answer.question_parts import (
    CHANGE_WORDS,
    ENUMERATOR,
    EVALUATED,
    KIND_WORDS,
    MATH_QUANTITY,
    MULTIPLIERS,
    SENTENCE_WINDOW,
    TOKEN_EDGES,
    QuestionPart,
    is_number_word,
    is_quantity,
)
from rag.text import content_terms, stems_match

_TIME_UNITS = frozenset("seconds minutes hours days weeks months years".split())
_OUTPERFORMING = frozenset(content_terms("outperforms surpasses beats exceeds improves"))
# what a gain is over ("its margin over earlier methods"): no quantity of its own
_GAIN_OVER = frozenset(
    content_terms("earlier prior previous existing baseline competitor state-of-the-art sota")
)
_GAIN_WORDS = frozenset(content_terms("gain improvement boost speedup margin"))
# a gain as abstracts state it, after the word for it: "outperforms … by up to 14.3%"
_GAIN_STATED = re.compile(
    r"\b(?:outperform|surpass|beat|exceed|improv|gain|margin|boost)\w*\b[^.;]{0,60}?"
    r"\d[\d.,]*\s*(?:%|x\b|×|points\b|pp\b|times\b)",
    re.I,
)
_HOW_FAR = re.compile(r"\bhow\s+far\b[^?]*\bfrom\b", re.I)
_GAP_SAID = re.compile(
    r"\b(?:(?:nearly|almost|exactly|closely)\s+match\w*|match\w*\s+(?:the\s+)?(?:known\s+)?"
    r"(?:lower|upper)\s+bounds?|(?:is|are)\s+tight|minimax[- ]optimal|optimal\s+up\s+to)\b",
    re.I,
)
_HOW_FAST = re.compile(r"\bhow\s+(?:fast|quickly)\b[^?]*\bconverg", re.I)
_RATE = r"(?:(?:optimal|linear|sublinear|superlinear|exponential|geometric|polynomial|fast|faster)\s+rates?|\\?O\()"
_RATE_SAID = re.compile(rf"\bconverg\w*\b[^.;]*{_RATE}|{_RATE}[^.;]*\bconverg", re.I)


@lru_cache(maxsize=4096)
def read_tokens(
    sentence: str,
) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...], tuple[int, ...]]:
    """Each token's stems, where the quantities are and which of them are magnitudes;
    abstracts' sentences recur."""
    tokens = sentence.split()
    stems = tuple(tuple(content_terms(t)) for t in tokens)
    listed = [i for i, t in enumerate(tokens) if ENUMERATOR.fullmatch(t.strip(",;:."))]
    # "(1) … (4) …" numbers findings, not things; one "(5) seeds" is a count
    skipped = set(listed) if len(listed) >= 2 else set()
    numbers = tuple(i for i, tok in enumerate(tokens) if is_quantity(tok) and i not in skipped)
    magnitudes = [i for i in numbers if _magnitude(tokens, i)]
    # "an order of magnitude faster" says how much without a number
    magnitudes += [
        i for i, t in enumerate(tokens)
        if t.strip(TOKEN_EDGES).lower() == "magnitude" and i >= 2
        and tokens[i - 1].lower() == "of" and tokens[i - 2].lower() in ("order", "orders")
    ]  # fmt: skip
    return stems, numbers, tuple(sorted(magnitudes))


# "a logarithmic number of single-agent RL problems", "polynomially many samples": a count
# told by its growth ("a small number of" tells none)
_GROWTH_COUNT = re.compile(
    r"\b(?:(?:a|an)\s+(?:logarithmic|polylogarithmic|polynomial|constant|linear|exponential|"
    r"sublinear)\s+number\s+of|(?:logarithmically|polynomially|exponentially|linearly)\s+"
    r"many)\s+((?:[\w-]+\s+){0,3}[\w-]+)",
    re.I,
)


def _many_of(sentence: str, target: frozenset[str]) -> bool:
    return any(
        any(stems_match(t, target) for t in content_terms(m.group(1)))
        for m in _GROWTH_COUNT.finditer(sentence)
    )


_NO_COUNT = frozenset({"one", "single", "half"})  # "one-shot", "single-cell", "half-space"


def _counted_compound(sentence: str, target: frozenset[str]) -> bool:
    """ "how many stages": "a three-stage protocol", a count joined to what it counts."""
    for token in sentence.split():
        head, _, rest = token.strip(TOKEN_EDGES).lower().partition("-")
        counted = head.isdigit() or (is_number_word(head) and head not in _NO_COUNT)
        if (
            counted
            and rest[:1].isalpha()
            and any(stems_match(t, target) for t in content_terms(rest))
        ):
            return True
    return False


def _magnitude(tokens: list[str], i: int) -> bool:
    """A quantity that can say how much bigger: digits ("2.5x", "40%"), maths, "twice",
    or a number word with "times" or "-fold" ("three times"), not "three steps"."""
    token = tokens[i].strip(TOKEN_EDGES).lower()
    if re.fullmatch(r"(?:19|20)\d\d", token):
        return False  # "(FOCS 2012)": a year says no size
    if any(c.isdigit() for c in token) or MATH_QUANTITY.search(token) or token in MULTIPLIERS:
        return True
    after = tokens[i + 1].strip(TOKEN_EDGES).lower() if i + 1 < len(tokens) else ""
    before = " ".join(t.lower() for t in tokens[max(0, i - 2) : i])
    return (
        after in ("times", "fold", "orders", "order", "percent", "points", "percentage")
        or after in _TIME_UNITS  # "from four hours to two hours"
        or token.endswith("fold")
        or before in ("factor of", "by a")  # "by a factor of two", "by a third"
    )


def _has_number_near(
    sentence: str,
    terms: frozenset[str],
    window: int,
    magnitude: bool = False,
    asked: frozenset[str] = frozenset(),
) -> bool:
    """A quantity within `window` words of one of `terms` in `sentence`; "two types of
    agents" counts types, not agents. `magnitude`: only quantities that say how much.
    `asked`: the question's own quantities, which do not answer it."""
    stems, numbers, magnitudes = read_tokens(sentence)
    if magnitude:
        numbers = magnitudes
    tokens = sentence.split() if asked else []
    numbers = tuple(
        j
        for j in numbers
        if not (asked and tokens[j].strip(TOKEN_EDGES).lower() in asked)
        and not (
            j + 1 < len(stems)
            and set(stems[j + 1]) & KIND_WORDS
            and not any(stems_match(s, terms) for s in stems[j + 1])
        )
    )
    if not numbers:
        return False
    near = [i for i, words in enumerate(stems) if any(stems_match(s, terms) for s in words)]
    return any(abs(i - j) <= window for i in near for j in numbers)


@lru_cache(maxsize=1024)
def _quantities(question: str) -> frozenset[str]:
    """The formulas a question writes ("$O(e^{-ct})$"); a plain value ("is it 2.3x?") is
    one the abstract may confirm."""
    return frozenset(
        t.strip(TOKEN_EDGES).lower()
        for t in question.split()
        if is_quantity(t) and MATH_QUANTITY.search(t) and "\\times" not in t and "×" not in t
    )


def supplies_number(
    part: QuestionPart, sentence: str, question: str, about: frozenset[str]
) -> bool:
    """A number part: a quantity near the thing counted, or a count, gap, rate or gain in
    the forms abstracts write them."""
    if _baselines_figure_asked(part.text, sentence):
        return False
    if _CHOICES_LISTED.search(sentence):
        # "how many actions can each node choose between": "can choose to either `listen`,
        # `broadcast`, … or to `isolate`" counts them by naming them
        said = set(content_terms(sentence))
        if sum(any(stems_match(w, frozenset([f])) for w in said) for f in part.focus) >= 2:
            return True
    if not part.compared and (_counted_compound(sentence, about) or _many_of(sentence, about)):
        return True
    if (
        # "how far is that from the best known": "nearly matches upper bounds"
        (_HOW_FAR.search(part.text) and _GAP_SAID.search(sentence))
        # "how fast do the estimates converge": "at a minimax optimal rate"
        or (_HOW_FAST.search(part.text) and _RATE_SAID.search(sentence))
    ):
        return any(stems_match(w, part.focus) for w in content_terms(sentence))
    restated = _quantities(question)  # the question's own "$O(e^{-ct})$" does not answer it
    gain = part.target - _GAIN_OVER  # "how many baselines" asks no gain
    if gain and gain <= CHANGE_WORDS:
        # "how big was the best gain", "what margins does it post": "outperforms … by 40%";
        # near the part's own words, a test's nouns ("on 3 datasets") count no gain
        wide = part.window >= SENTENCE_WINDOW
        terms = part.target | CHANGE_WORDS | (EVALUATED if wide else _OUTPERFORMING)
        return _has_number_near(sentence, terms, part.window, part.compared, restated)
    if part.target & _GAIN_WORDS and _GAIN_STATED.search(sentence):
        return True  # "how large are its accuracy gains": "outperforms … by up to 14.3%"
    near = part.target if part.window >= SENTENCE_WINDOW else about
    return _has_number_near(sentence, near, part.window, part.compared, restated)


_CHOICES_LISTED = re.compile(
    r"\b(?:choose|chooses|select|selects|pick|picks)\s+(?:\w+\s+){0,2}?(?:either|one of|among|"
    r"between)\s+[^,.;]{1,40},\s+[^,.;]{1,40},(?:\s+[^,.;]{1,40},)*\s+(?:or|and)\b",
    re.I,
)


# "What accuracy did the neural-network baseline reach" against "QORA achieves 100%
# accuracy … than a neural-network baseline": the figure is the paper's, not the baseline's
_BASELINE_ASKED = re.compile(
    r"\b(?:did|does|do|was|were|is|are)\s+(?:the|its|their)\s+"
    r"(?:(?!(?:outperform\w*|beat\w*|surpass\w*|exceed\w*|improv\w*|over|than|compared|"
    r"against|achiev\w*|get|gets|gain\w*|the|a|an)\b)[\w-]+\s+){0,3}?"
    r"(?:baselines?|competitors?|competing\s+methods?)\b",
    re.I,
)
_COMPARED_WITH = re.compile(
    r"\b(?:than|over|compared\s+(?:to|with)|relative\s+to|against|versus|vs\.?|outperform\w*)\b",
    re.I,
)


def _baselines_figure_asked(part: str, sentence: str) -> bool:
    """The part asks a baseline's figure, and the sentence names baselines only as what its
    figure is compared with."""
    if not _BASELINE_ASKED.search(part):
        return False
    mentions = [m.start() for m in re.finditer(r"\bbaselines?\b|\bcompet\w+", sentence, re.I)]
    return bool(mentions) and all(
        _COMPARED_WITH.search(sentence[max(0, i - 60) : i]) for i in mentions
    )
