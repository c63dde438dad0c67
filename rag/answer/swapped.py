"""Roles swapped: the question gives the paper what its abstract gives earlier work, and
earlier work what the abstract gives the paper ("Why does DSM scale exponentially …, while
earlier approaches scale quadratically?" against "Unlike existing approaches, which …
scale exponentially …, … quadratic computational complexity")."""

from __future__ import annotations

import re

from rag.answer.claims import ASKING
from rag.answer.misstated import given_each_others
from rag.text import content_terms

_WORKS = (
    r"(?:works?|methods?|approach(?:es)?|models|studies|techniques|algorithms|baselines|art|"
    r"efforts|literature|ones|solutions|frameworks|analyses|designs)"
)
# Where a question turns to earlier work: "…, when earlier X could already …",
# "Compared with the approaches it improves on, …"
_JOIN = re.compile(
    r"[,;]?\s+(?=(?:whereas|while|when|but)\b)|"
    r"^\s*(?:compared\s+(?:with|to)|unlike|in\s+contrast\s+to)\b[^,]{3,80},\s*",
    re.I,
)


def _earlier_works(said: str) -> str:
    """ "earlier variational approaches", "prior work": the adjectives `said`, at most two
    words (no preposition: "a prior over models"), then a word for work."""
    return (
        rf"(?:{said})\s+(?:(?!(?:over|of|for|on|in|to|from|with|by|and)\b)[\w-]+\s+){{0,2}}?"
        rf"{_WORKS}"
    )


_EARLIER_ASKED = re.compile(
    r"\b(?:"
    + _earlier_works("earlier|previous|prior|existing|older|conventional|traditional|current")
    + r"|(?:it|they|which)\s+(?:improves?|builds?)\s+on|before\s+(?:it|them))\b",
    re.I,
)
# A clause of the abstract about earlier work: "Unlike existing approaches, which …",
# "A recent seminal work (InvLINT) demonstrates …", "… used in existing works".
# "previous policies", "the current task": earlier only when said of earlier work
_EARLIER_SAID = re.compile(
    r"\b(?:"
    + _earlier_works("existing|previous|prior|conventional|traditional|current|earlier|recent")
    + r"|unlike|(?:is|are|was|were)\s+(?:commonly|typically|usually))\b",
    re.I,
)
_COMPARED_TO = re.compile(
    r"\b(?:over|than|beyond|outperforms?|surpass(?:es)?|improves?\s+(?:on|upon)|"
    r"compared\s+(?:to|with)|(?:different|differs?)\s+from)\s+(?:the\s+)?"
    r"(?:[\w-]+\s+)?(?:existing|previous|prior|earlier|current)\b",
    re.I,
)
_OURS_SAID = re.compile(r"\b(?:we|our|us|this\s+(?:paper|work|study)|the\s+proposed)\b", re.I)
# Clauses of an abstract sentence; a relative or joined clause keeps its subject's side.
_CLAUSE = re.compile(
    r"[,;:]\s*|\s+(?=(?:while|whereas|than|unlike|instead\s+of|rather\s+than)\b)", re.I
)
_FRAME = (
    frozenset(
        content_terms("why how what does do can could only already still need needs use uses")
    )
    | ASKING
)
_NAME = re.compile(r"\b[A-Z][\w-]*[A-Z][\w-]*\b")  # "SANE", "Auto-Linear", "SP-GS"
SWAPPED_WORDS = 2  # words of the paper's side the abstract writes only of earlier work


def _sides(sentences: list[str], names: set[str]) -> tuple[set[str], set[str], dict[str, str]]:
    """Stems written in clauses about earlier work, stems written in the paper's own, and
    the sentence each earlier stem was read in."""
    earlier: set[str] = set()
    ours: set[str] = set()
    where: dict[str, str] = {}
    for sentence in sentences:
        side = ""
        for clause in _CLAUSE.split(sentence):
            words = set(content_terms(clause))
            mine = bool(
                _OURS_SAID.search(clause)
                or set(_NAME.findall(clause)) & names
                or _COMPARED_TO.search(clause)  # "its advantage over previous work is …"
            )
            if _EARLIER_SAID.search(clause) and not mine:
                side = "earlier"
            elif mine:
                side = "ours"
            if side == "earlier":
                earlier |= words
                for w in words:
                    where.setdefault(w, sentence)
            elif side == "ours":
                ours |= words
    return earlier, ours, where


def swapped_roles(question: str, sentences: list[str], title: str) -> str:
    """The abstract sentence writing of earlier work what the question says of the paper,
    when the question's earlier-work side is written of the paper; else ""."""
    opening = _JOIN.match(question)  # "Compared with the X it improves on, …"
    rest = question[opening.end() :] if opening else question
    clauses = [c for c in _JOIN.split(rest) if c.strip()] + ([opening[0]] if opening else [])
    asks_earlier = [bool(_EARLIER_ASKED.search(c)) for c in clauses]
    theirs = [c for c, e in zip(clauses, asks_earlier, strict=True) if e]
    mine = [c for c, e in zip(clauses, asks_earlier, strict=True) if not e]
    if not theirs or not mine:
        return ""
    # the paper's own names: ones a sentence of its own writes ("This paper introduces the
    # SANE approach"), not the earlier work's it names ("Current methods utilize NeRF")
    own = {
        n
        for n in _NAME.findall(" ".join(mine) + " " + title)
        if any(n in s and _OURS_SAID.search(s) for s in sentences)
    }
    named = {w for n in own for w in content_terms(n)} | set(content_terms(title))
    asked_mine = set(content_terms(" ".join(mine))) - _FRAME - named
    asked_theirs = set(content_terms(" ".join(theirs))) - _FRAME - named
    asked_theirs -= set(content_terms(" ".join(_EARLIER_ASKED.findall(" ".join(theirs)))))
    earlier, ours, where = _sides(sentences, own)
    given_away = sorted((asked_mine - asked_theirs) & earlier - ours)
    taken = (asked_theirs - asked_mine) & ours - earlier
    if len(given_away) >= SWAPPED_WORDS and taken:
        return where[given_away[0]]
    return ""


# "while RLHF incurs a constant error, DPO retains its decaying gap" and "A …, whereas B …"
_CONTRAST_LEAD = re.compile(r"\b(?:while|whereas)\b\s+([^,;]+),\s*([^;]+)", re.I)
_CONTRAST_JOIN = re.compile(r"([^,;]+?),?\s+\b(?:while|whereas)\b\s+([^,;]+)", re.I)
_DENIES = re.compile(r"\b(?:not|never|no|without|cannot|neither|nor)\b|n['’]t\b", re.I)
SUBJECT_WINDOW = 16  # words after a name in the question that say what it does


def swapped_subjects(question: str, sentences: list[str]) -> str:
    """The sentence contrasting two named things ("while RLHF incurs a constant additional
    error, DPO retains its asymptotically decaying gap") whose sides the question gives
    each other ("DPO is saddled with a fixed extra error …, while RLHF keeps …")."""
    for sentence in sentences:
        for pattern in (_CONTRAST_LEAD, _CONTRAST_JOIN):
            for m in pattern.finditer(sentence):
                if _crossed(question, m.group(1), m.group(2)):
                    return sentence
    return ""


def _crossed(question: str, first: str, second: str) -> bool:
    names_a, names_b = set(_NAME.findall(first)), set(_NAME.findall(second))
    a, b = names_a - names_b, names_b - names_a
    if len(a) != 1 or len(b) != 1:
        return False
    (name_a,), (name_b,) = a, b
    said_a = set(content_terms(first)) - _FRAME - set(content_terms(name_a))
    said_b = set(content_terms(second)) - _FRAME - set(content_terms(name_b))
    of_a, of_b = _said_after(question, name_a), _said_after(question, name_b)
    if of_a is None or of_b is None:
        return False
    return given_each_others(of_a, of_b, said_a, said_b)


def _said_after(question: str, name: str) -> set[str] | None:
    """The words the question says of a name: after it, up to another clause's name."""
    m = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", question)
    if m is None:
        return None
    around = " ".join(question[: m.start()].split()[-3:] + question[m.end() :].split()[:4])
    if _DENIES.search(around):
        return None  # "Why doesn't DPO need a critic": its side said the other way
    rest = re.split(r"\b(?:while|whereas)\b|[;?]", question[m.end() :], maxsplit=1)[0]
    return set(content_terms(" ".join(rest.split()[:SUBJECT_WINDOW]))) - _FRAME
