"""Questions about the catalogue as numbers: "What fraction of ICML 2024 papers were
orals?", "How many distinct authors published?", "What is the average number of authors
per paper?", "How many institutions had papers?". Each is read as the count question of
the same papers ("How many papers were orals?"), whose plan selects them, and the statistic
asked of that selection.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

Statistic = Literal["", "share", "authors", "authors_per_paper", "institutions"]

_VENUE = r"(?:(?:at\s+|in\s+|from\s+)?(?:the\s+)?icml(?:\s*(?:20)?24)?\s+)?"
_SET = r"(?:accepted\s+)?(?P<set>papers|orals|spotlights|posters|publications|works)"
# "What fraction of ICML 2024 papers were orals?", "what % of the orals had a Google author"
_SHARE = re.compile(
    r"^\s*(?:what|which)\s+(?:is\s+the\s+)?(?:fraction|percentage|proportion|share|percent|"
    rf"ratio|part|%)\s+of\s+(?:all\s+)?(?:the\s+)?{_VENUE}{_SET}\b"
    r"|^\s*how\s+(?:big|large)\s+(?:a|is\s+the)\s+(?:fraction|share|proportion)\s+of\s+"
    rf"(?:all\s+)?(?:the\s+)?{_VENUE}{_SET.replace('set', 'set2')}\b",
    re.I,
)
# "How many distinct authors published …?", "the number of unique authors"
_AUTHORS = re.compile(
    r"^\s*(?:how\s+many|what\s+(?:is|was)\s+the\s+(?:total\s+)?number\s+of)\s+(?:distinct|unique|"
    r"different|individual|separate)\s+(?:authors|researchers|people|co-?authors|names)\b"
    r"|^\s*how\s+many\s+(?:authors|researchers|people)\s+(?:in\s+total|altogether|overall)\b",
    re.I,
)
# "the average number of authors per paper", "How many authors does a typical paper have?"
_PER_PAPER = re.compile(
    r"^\s*(?:what\s+(?:is|was|'s)\s+the\s+|what['’]s\s+the\s+)?(?:average|mean|median|typical|"
    r"usual)\s+(?:number\s+of\s+)?(?:authors|co-?authors|author\s+count|team\s+size)\s+"
    r"(?:per|on\s+an?|for\s+an?|of\s+an?)\s+(?:icml\s+2024\s+)?(?:paper|publication|work)\b"
    r"|^\s*how\s+many\s+(?:authors|co-?authors)\s+(?:does|did|do)\s+(?:an?\s+)?(?:typical|average|"
    r"usual)\s+(?:icml\s+2024\s+)?(?:paper|publication)s?\s+have\b"
    r"|^\s*on\s+average,?\s+how\s+many\s+authors\s+(?:does|did|do)\s+(?:an?\s+)?(?:icml\s+2024\s+)?"
    r"(?:paper|publication)s?\s+have\b",
    re.I,
)
# "How many institutions had papers?", "How many universities are represented?"
_INSTITUTIONS = re.compile(
    r"^\s*(?:how\s+many|what\s+(?:is|was)\s+the\s+(?:total\s+)?number\s+of)\s+(?:distinct\s+|"
    r"unique\s+|different\s+)?(?:institutions|universities|affiliations|organi[sz]ations|"
    r"companies|labs)(?=\s+(?:had|have|got|published|are|were|appear|contributed|is|in\s+total)\b)",
    re.I,
)


class StatisticAsked(NamedTuple):
    statistic: Statistic
    share_of: list[str]  # "share": the statuses of the papers it is a share of (all: [])
    asked: str  # the count question of the same papers


def statistic_asked(question: str) -> StatisticAsked | None:
    """The statistic `question` asks, if any, and the count question of its papers."""
    share = _SHARE.match(question)
    if share:
        said = (share.group("set") or share.group("set2")).lower()
        statuses = [said[:-1].capitalize()] if said in ("orals", "spotlights", "posters") else []
        return StatisticAsked("share", statuses, f"How many {said}" + question[share.end() :])
    for pattern, statistic in (
        (_AUTHORS, "authors"),
        (_PER_PAPER, "authors_per_paper"),
        (_INSTITUTIONS, "institutions"),
    ):
        found = pattern.match(question)
        if found:
            rest = question[found.end() :]
            return StatisticAsked(statistic, [], f"How many papers{rest}")  # type: ignore[arg-type]
    return None
