"""Numbers an abstract gives otherwise: "three algorithms" against "two algorithms are
proposed", "a 2-approximation" against "a 4-approximate solution", "90% accuracy" against
"80.1% accuracy". Each check returns the sentence that says otherwise, or ""."""

from __future__ import annotations

import re
from collections.abc import Set

from rag.answer.claims import ASKING
from rag.text import NAME, NUMBER_WORDS, content_terms, stems_match

# "three algorithms", "two new algorithms": a count, at most one word between, and a plural
# noun; not "GPT-4 outputs", "Llama 2 models", "2.5 times" ("one" is too often a pronoun).
_COUNTED = re.compile(
    r"(?<![\w.,-])(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,3})"
    r"(?![\w.,-])\s+(?:([a-z][\w-]*)\s+)?([a-z][a-z-]+[^s\W]s)\b",
    re.I,
)
# "two hundred parameters" counts 200 of them
_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9}
_NAMED_NUMBER = re.compile(r"[A-Z][\w-]*\s+$")  # "Llama 2 models": a name's number
_NOT_COUNTED = frozenset({"times", "across", "this", "its", "was", "has", "as", "is", "orders"})


def _counts(text: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for m in _COUNTED.finditer(text):
        number, between, noun = m[1].lower(), (m[2] or "").lower(), m[3].lower()
        before = text[max(0, m.start() - 30) : m.start()]
        if noun in _NOT_COUNTED or (_NAMED_NUMBER.search(before) and before.strip()[-1:] != "."):
            continue
        value = int(number) if number.isdigit() else NUMBER_WORDS[number]
        value *= _SCALES.get(between, 1)
        found.setdefault(noun, set()).add(value)
    return found


def miscounted(question: str, sentences: list[str]) -> str:
    """A sentence giving another count of things the question counts, where the abstract
    never gives the question's count."""
    asked = _counts(question)
    if not asked:
        return ""
    given = [(_counts(s), s) for s in sentences]
    for noun, numbers in asked.items():
        stated = set().union(*(counts.get(noun, set()) for counts, _ in given))
        if stated and not stated & numbers:
            return next(s for counts, s in given if noun in counts)
    return ""


# A measured value: "93.2%", "3.5x", "$2\times$", "10 times"; its kind is its unit.
# "a 2-approximation" against "a 4-approximate solution", "4-bit" against "2-bit and 3-bit"
_NUMBERED = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)-([a-z]{3,})\b", re.I)


def misnumbered(question: str, sentences: list[str]) -> str:
    """The sentence giving a number-word compound of the question's another number, when
    no sentence gives the question's number with that word."""
    for asked in _NUMBERED.finditer(question):
        number, stem = asked.group(1), asked.group(2).lower()[:6]
        spelled = [w for w, n in NUMBER_WORDS.items() if str(n) == number]
        written = [rf"\b{w}-{stem}" for w in spelled] + [rf"(?<![\d.]){re.escape(number)}\s+{stem}"]
        if any(re.search(pattern, s, re.I) for pattern in written for s in sentences):
            continue  # "two-layer" for the asked "2-layer"; "1-5 digit" for "5-digit"
        others = ""
        for sentence in sentences:
            for said in _NUMBERED.finditer(sentence):
                if said.group(2).lower()[:6] != stem:
                    continue
                if said.group(1) == number:
                    return ""  # the abstract says the asked one too
                others = others or sentence
        if others:
            return others
    return ""


_MEASURED = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*"
    r"(?:(%|percent\b)|(x\b|×|\$?\\times\$?|-?fold\b|\s+times\b)|"
    # a unit of its own: "49 FPS", "12 ms", "3.5 bits"
    r"(fps|ms|milliseconds|seconds|hours|days|gb|tb|mb|bits|bpp|db)\b|"
    # a count at a scale: "100M molecules", "7B parameters", "1.5 million images"
    r"((?-i:[KMBT])(?![\w-])|thousand\b|million\b|billion\b|trillion\b))",
    re.I,
)
_SCALED = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
           "t": 1e12, "trillion": 1e12}  # fmt: skip
# words between a value and what it measures ("on hard datasets by more than 30%")
MEASURE_WINDOW = 5
MEASURE_TOLERANCE = 0.05  # "90%" and "89.7%" are one value, as people round
MEASURE_SHARED = 3  # content words the value's sentence shares with the question
FEWER_KEPT_AS_TIMES = 10  # "Nx fewer" from here on is compared as a multiple too


def _value_unit(m: re.Match[str]) -> tuple[float, str]:
    """A _MEASURED match's value and unit: "%", "x" (times, fold), a named unit ("ms"), or
    "n" for a count at a scale (100M is 1e8)."""
    value = float(m[1].replace(",", ""))
    if m[5]:
        return value * _SCALED[m[5].lower()], "n"
    return value, "%" if m[2] else m[4].lower() if m[4] else "x"


def _measures(text: str) -> list[tuple[float, str, frozenset[str]]]:
    """Each value with its unit ("%" or "x") and the content words beside it; a value in
    words ("in half", "a third", "twice") as the number it stands for."""
    found = []
    text = _TEX_NUMBER.sub(r"\1", text)  # "by more than $30$%"
    bare = _ASIDE.sub(" ", text)  # "on hard datasets (including NLP4LP, …) by more than 30%"
    if bare != text:
        found += [f for f in _measures(bare) if f not in found]
    for m in [*_MEASURED.finditer(text), *_SAID_MEASURE.finditer(text)]:
        before = re.findall(r"[\w-]+", text[: m.start()])[-MEASURE_WINDOW:]
        after = re.findall(r"[\w-]+", text[m.end() :])[:MEASURE_WINDOW]
        words = frozenset(content_terms(" ".join(before + after))) - ASKING
        if m.re is _SAID_MEASURE:
            value, unit = _SAID_VALUES[next(g for g in m.groups() if g).lower()]
        else:
            value, unit = _value_unit(m)
            if unit == "x" and value > 1 and _FEWER.match(text[m.end() :]):
                # "2x fewer" is 50% fewer; kept as a multiple too, where "180x" and "1800x"
                # fewer differ though 99.4% and 99.9% are one value as people round
                times = (value, "x", words)
                value, unit = round(100 * (1 - 1 / value), 1), "%"
                if times[0] >= FEWER_KEPT_AS_TIMES:
                    found.append(times)
        # the measured thing, not a name beside it ("MeZO's peak accuracy")
        names = {t for n in NAME.findall(" ".join(before + after)) for t in content_terms(n)}
        if (value, unit, words - names) not in found:
            found.append((value, unit, words - names))
    return found


_RANGE = re.compile(
    r"\bbetween\s+\S+\s+and\s+\S+|\d[\d.]*\s*(?:%|x|×)?\s*(?:–|-|—|to)\s*\d[\d.]*\s*(?:%|x|×)?",
    re.I,
)
_TEX_NUMBER = re.compile(r"\$([+-]?\d[\d.,]*)\$")  # "$+22$%": "+22%"
# "by more than 20%", "at least 3x": a bar a value clears, not the value itself
_BAR = re.compile(
    r"\b(?P<op>more\s+than|greater\s+than|over|above|beyond|exceeding|at\s+least|"
    r"less\s+than|fewer\s+than|under|below|at\s+most)\s+(?P<value>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>%|percent\b|x\b|×)",
    re.I,
)


_ABOVE = frozenset(
    {"more than", "greater than", "over", "above", "beyond", "exceeding", "at least"}
)


def _thresholds(question: str) -> dict[tuple[float, str], bool]:
    """The question's bars by (value, unit): whether a stated value must be above the bar
    (else below it)."""
    bars: dict[tuple[float, str], bool] = {}
    for m in _BAR.finditer(_TEX_NUMBER.sub(r"\1", question)):
        unit = "%" if m["unit"].lower() in ("%", "percent") else "x"
        bars[(float(m["value"]), unit)] = " ".join(m["op"].lower().split()) in _ABOVE
    return bars


_ASIDE = re.compile(r"\s*\([^()]{12,}\)")


_FEWER = re.compile(r"\$?\s*(?:reduction|fewer|less|lower|smaller|cheaper|decrease)\b", re.I)
# Values said in words: "cut … in half" is 50 % fewer, "twice as fast" is 2x.
_SAID_VALUES = {
    "half": (50.0, "%"),
    "a third": (33.3, "%"),
    "a quarter": (25.0, "%"),
    "a tenth": (10.0, "%"),
    "twice": (2.0, "x"),
    "double": (2.0, "x"),
    "triple": (3.0, "x"),
}
_SAID_MEASURE = re.compile(
    r"\b(?:in|by)\s+(half)\b|\bby\s+(a third|a quarter|a tenth)\b|\b(twice|double|triple)\s+"
    r"(?:as|the)\b|\b(a third|a quarter|a tenth)\s+of\b",
    re.I,
)


def misquoted(question: str, sentences: list[str]) -> str:
    """A sentence giving another value of what the question quotes ("Given that it reaches
    90% accuracy" against "reaches 80% accuracy"), where the abstract never gives the
    question's value."""
    asked = _measures(_RANGE.sub(" ", question))  # "in the 25–50% range?" asks, claims nothing
    if not asked:
        return ""
    given = [(_measures(s), s) for s in sentences]
    # a value's clause too: "reducing the backward-pass memory and computation cost by up
    # to 1,098×" measures memory, six words before it
    clauses = {s: _valued(s, at_and=False) for _, s in given}
    values = [v for measures, _ in given for v, _, _ in measures]
    topic = set(content_terms(question)) - ASKING
    bars = _thresholds(question)
    for value, unit, words in asked:
        if any(abs(v - value) <= MEASURE_TOLERANCE * max(v, value) for v in values):
            continue  # the question's value is the abstract's
        above = bars.get((value, unit))
        stated = [v for ms, _ in given for v, u, _ in ms if u == unit] if above is not None else []
        if any(v >= value if above else v <= value for v in stated):
            continue  # "by more than 20%?" is met by "22% improvement": a bar, not a value
        if unit == "%" and any(abs(v + value - 100) <= 1 for v in values):
            continue  # "a tenth of the cost" is "90% less": the other side of one split
        for measures, sentence in given:
            # the same measure ("accuracy" beside both) in a sentence on the same thing
            # a named unit ("FPS") says what is measured; "%" and "x" need a word beside
            # a count needs its noun beside both ("100M molecules" is no "7B parameters")
            same = any(
                u == unit and (words & w or unit not in ("%", "x", "n"))
                for _, u, w in [*measures, *clauses[sentence]]
            )
            said = frozenset(content_terms(sentence))
            needed = MEASURE_SHARED if unit in ("%", "x") else MEASURE_SHARED - 1
            if same and sum(stems_match(t, said) for t in topic) >= needed:
                return sentence
    return ""


SWAP_WINDOW = 8  # words each side of a value that say what it measures, within its clause
_CLAUSE_EDGE = re.compile(r"[,;:()?!]|\.\s|\s[–—-]\s")
_BRACKETED_VALUE = re.compile(r"\(([^()]*\d[^()]*)\)")
_BETWEEN_EDGE = re.compile(r"\s(?:and|while|whereas|but)\s", re.I)


def _valued(text: str, at_and: bool = True) -> list[tuple[float, str, frozenset[str]]]:
    """Each digit value with its unit and the words of its clause beside it, names kept
    ("MoCo v2 and BYOL up to 3.3%": the names say what was beaten); the words between two
    values are cut at a clause edge or at "and"/"while"/"but", the part before it going to
    the first value and the part after to the second (uncut, both take them); `at_and`
    False: not cut at "and" ("the memory and computation cost by 1,098× and 7.68×")."""
    text = _TEX_NUMBER.sub(r"\1", text)
    # "on predicting antibiotic prescription ($+22$% AUROC)": a value in brackets measures
    # what stands before them
    text = _BRACKETED_VALUE.sub(r" \1 ", text)
    spans = list(_MEASURED.finditer(text))
    found = []
    for k, m in enumerate(spans):
        start = spans[k - 1].end() if k else 0
        end = spans[k + 1].start() if k + 1 < len(spans) else len(text)
        before_text, after_text = text[start : m.start()], text[m.end() : end]
        before_text = _CLAUSE_EDGE.split(before_text)[-1]
        after_text = _CLAUSE_EDGE.split(after_text)[0]
        # "by 22% when predicting MRI orders and by 7.7% for antibiotics": between two
        # values, "and" ends one value's words and starts the other's
        if k and at_and:
            before_text = _BETWEEN_EDGE.split(before_text)[-1]
        if k + 1 < len(spans) and at_and:
            after_text = _BETWEEN_EDGE.split(after_text)[0]
        before = re.findall(r"[\w-]+", before_text)[-SWAP_WINDOW:]
        after = re.findall(r"[\w-]+", after_text)[:SWAP_WINDOW]
        words = frozenset(content_terms(" ".join(before + after))) - ASKING
        found.append((*_value_unit(m), words))
    return found


def given_each_others(
    a_asked: Set[str], b_asked: Set[str], a_said: Set[str], b_said: Set[str]
) -> bool:
    """Two things the question says of `a` and `b` (their words there) are what the
    abstract says of the other (its words at each): each asked side shares a word only
    the other's place writes and none only its own place writes. Words both places (or
    both asked sides) write ("AUROC … previous SOTA") tell neither apart."""
    a_own, b_own = a_said - b_said, b_said - a_said
    a_only, b_only = a_asked - b_asked, b_asked - a_asked
    if a_only & a_own or b_only & b_own:
        return False
    return bool(a_only & b_own and b_only & a_own)


def swapped_values(question: str, sentences: list[str]) -> str:
    """The sentence where two values the question gives are each said of the other's thing
    ("trims the KV-cache memory by up to 3.2%, at an accuracy deviation of 21.4%" against
    "reduce the memory … by up to 21.4% … with a maximum 3.2% deviation in accuracy")."""
    asked = _valued(question)
    if len(asked) < 2:
        return ""
    said = [(v, u, w, s) for s in sentences for v, u, w in _valued(s)]
    for i, (a, unit, a_words) in enumerate(asked):
        for b, other_unit, b_words in asked[i + 1 :]:
            if unit != other_unit or a == b:
                continue
            at_a = [(w, s) for v, u, w, s in said if u == unit and v == a]
            at_b = [(w, s) for v, u, w, s in said if u == unit and v == b]
            if len(at_a) != 1 or len(at_b) != 1:
                continue  # each value said once, so its place is unambiguous
            (a_said, sentence), (b_said, _) = at_a[0], at_b[0]
            if given_each_others(a_words, b_words, a_said, b_said):
                return sentence
    return ""


# "on 12 in-domain and 10 cross-domain datasets", "18 red teaming methods and 33 target
# LLMs": a bare count (no unit) and the words right after it, which say what it counts
_COUNT = re.compile(r"(?<![\w.,$])(\d{1,4})(?![\w.,%]|\s*(?:x\b|×|%|percent))")
COUNTED_WORDS = 3  # words after a count that say what it counts


def _counted(text: str) -> list[tuple[str, frozenset[str]]]:
    found = []
    for m in _COUNT.finditer(text):
        edge = _CLAUSE_EDGE.search(text, m.end())
        after = text[m.end() : edge.start() if edge else len(text)]
        after = re.split(r"\s(?:and|or|against|versus|vs\.?)\s|\d", after)[0]
        kept = after.split()[:COUNTED_WORDS]
        # "in-domain" and "cross-domain" are told apart by the whole word, not "domain"
        glued = {w.lower().strip(",.;:") for w in kept if "-" in w}
        words = (frozenset(content_terms(" ".join(kept))) | glued) - ASKING
        if words:
            found.append((m.group(1), words))
    return found


def swapped_counts(question: str, sentences: list[str]) -> str:
    """The sentence where two counts the question gives sit on each other's things ("33
    red-teaming methods against 18 target models" against "18 red teaming methods and 33
    target LLMs"; "10 in-domain and 12 cross-domain" against "12 in-domain and 10 …")."""
    asked = _counted(question)
    if len(asked) < 2:
        return ""
    for sentence in sentences:
        said: dict[str, list[frozenset[str]]] = {}
        for n, words in _counted(sentence):
            said.setdefault(n, []).append(words)
        for i, (a, a_words) in enumerate(asked):
            for b, b_words in asked[i + 1 :]:
                if a == b or len(said.get(a, [])) != 1 or len(said.get(b, [])) != 1:
                    continue
                (a_said,), (b_said,) = said[a], said[b]
                if given_each_others(a_words, b_words, a_said, b_said):
                    return sentence
    return ""
