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

# the papers a share is of: "of ICML 2024's accepted papers", "Of all the oral talks"
_SET = re.compile(
    r"\b(?:all\s+)?(?:the\s+)?(?:icml\s*(?:20)?24(?:['’]s)?\s+)?(?:accepted\s+)?"
    r"(?P<set>papers|publications|works|titles|(?P<status>oral|spotlight|poster)(?:s|\s+(?:papers|"
    r"talks|presentations)))\b",
    re.I,
)
# "what fraction / percentage / proportion / share / % of …" (and their slips)
_SHARE_WORD = (
    r"(?:fraction|fraciton|fracion|percentage|percentge|percent|proportion|propotion|share|"
    r"ratio|%)"
)
_SHARE = re.compile(
    rf"\b(?:what|which)\s+(?:is\s+the\s+|['’]s\s+the\s+)?(?:{_SHARE_WORD}|part)(?:\s+of\b)?"
    rf"|\bhow\s+(?:big|large)\s+(?:a|is\s+the)\s+(?:fraction|share|proportion)(?:\s+of\b)?"
    # "Percentage of orals with a Google author", "share of ICML 2024 papers from X", "X's
    # share of the papers", "as a percentage of all papers"
    rf"|(?:^\s*|\b(?:the|a|its|their|['’]s)\s+|\bas\s+an?\s+){_SHARE_WORD}\s+of\b",
    re.I,
)
# "How many distinct authors …", "Number of unique authors across all orals"
_AUTHORS = re.compile(
    r"\b(?:how\s+many|(?:the\s+)?(?:total\s+)?number\s+of|count\s+of)\s+(?:distinct|unique|"
    r"different|individual|separate)\s+(?:authors|researchers|people|co-?authors|names|persons)\b"
    r"|^\s*how\s+many\s+(?:authors|researchers|people)\s+(?:in\s+total|altogether|overall)\b"
    # "How many people authored ICML 2024 papers?", "How many authors were there?", "the
    # total number of authors"
    r"|^\s*how\s+many\s+(?:people|researchers|scientists)\s+(?:authored|co-?authored|wrote|"
    r"published|contributed\s+to)\b"
    r"|^\s*how\s+many\s+(?:authors|researchers)\s+(?:were|are)\s+there\b"
    r"|\b(?:the\s+)?total\s+(?:number|count)\s+of\s+(?:authors|researchers)\b",
    re.I,
)
# "the average number of authors per paper", "the typical team size for a paper"
_PER_PAPER = re.compile(
    r"\b(?:average|avg|mean|median|typical|usual)\s+(?:number\s+of\s+)?(?:authors|co-?authors|"
    r"author\s+count|team\s+size|author\s+list\s+length)\s+(?:per|on\s+an?|for\s+an?|of\s+an?|"
    r"in\s+an?)\s+(?:icml\s*(?:20)?24\s+)?(?P<unit>paper|publication|work|oral|spotlight|poster)s?\b"
    r"|\bhow\s+many\s+(?:authors|co-?authors)\s+(?:does|did|do)\s+(?:an?\s+)?(?:typical|average|"
    r"usual)\s+(?:icml\s*(?:20)?24\s+)?(?P<unit2>paper|publication|oral|spotlight|poster)s?\s+have\b"
    r"|\bon\s+average,?\s+how\s+many\s+authors\s+(?:does|did|do)\s+(?:an?\s+)?(?:icml\s*(?:20)?24\s+)?"
    r"(?P<unit3>paper|publication|oral|spotlight|poster)s?\s+have\b"
    # "the average author count", "how big are author teams on average"
    r"|\b(?:average|avg|mean|median|typical)\s+(?:author\s+count|number\s+of\s+(?:co-?)?authors|team\s+"
    r"size|author\s+list\s+length|byline\s+length)\b"
    r"|\bhow\s+(?:big|large|long)\s+(?:are|were)\s+(?:the\s+)?(?:author\s+(?:teams|lists)|bylines|"
    r"teams)\s+(?:on\s+average|typically|usually)\b",
    re.I,
)
# "How many institutions had papers?", "How many universities are represented?"
_INSTITUTIONS = re.compile(
    r"\b(?:how\s+many|(?:the\s+)?(?:total\s+)?number\s+of)\s+(?:distinct\s+|unique\s+|different\s+)?"
    r"(?:institutions|universities|affiliations|organi[sz]ations|companies|labs)(?=\s+(?:had|have|"
    r"got|published|are|were|appear|contributed|is|in\s+total|represented|took\s+part|"
    r"participated|overall|altogether)\b|\s*[?.!]*\s*$)",
    re.I,
)


class StatisticAsked(NamedTuple):
    statistic: Statistic
    share_of: list[str]  # "share": the statuses of the papers it is a share of (all: [])
    asked: str  # the count question of the same papers


def statistic_asked(question: str) -> StatisticAsked | None:
    """The statistic `question` asks, if any, and the count question of its papers."""
    share = _SHARE.search(question)
    if share:
        after = question[share.end() :]
        of = _SET.match(after.lstrip()) if share.group(0).lower().endswith("of") else None
        # "Of all the ICML 2024 oral talks, what share included …": the set said before
        before = None if of else _SET.search(question[: share.start()])
        found = of or before
        if found is None:  # "what fraction of the data is labeled": no papers' share
            return None
        status = (found.group("status") or "").lower()
        rest = after.lstrip()[of.end() :] if of else after
        titles = found.group("set").lower() == "titles"  # "… titles contain the word X"
        noun = f"{status}s" if status else "titles" if titles else "papers"
        statuses = [status.capitalize()] if status else []
        # "Google's share of the papers": the papers from Google
        owner = _OWNER.search(question[: share.end()])
        rest = f"{rest} from {owner.group('who')}" if owner else rest
        return StatisticAsked("share", statuses, f"How many {noun} {_plain(rest)}")
    for pattern, statistic in (
        (_AUTHORS, "authors"),
        (_PER_PAPER, "authors_per_paper"),
        (_INSTITUTIONS, "institutions"),
    ):
        found = pattern.search(question)
        if found:
            unit = next((g for k, g in found.groupdict().items() if k.startswith("unit") and g), "")
            rest = question[found.end() :]
            among = _AMONG.match(rest)  # "… across all ICML 2024 orals"
            if among:
                unit, rest = among.group("status") or "", rest[among.end() :]
            unit = unit.lower()
            noun = f"{unit}s" if unit in ("oral", "spotlight", "poster") else "papers"
            asked = f"How many {noun} {_plain(rest)}"
            return StatisticAsked(statistic, [], asked)  # type: ignore[arg-type]
    return None


_OWNER = re.compile(
    rf"(?P<who>(?-i:[A-Z])[\w&.-]*(?:\s+(?:of\s+)?(?-i:[A-Z])[\w&.-]*)*)['’]s\s+{_SHARE_WORD}\s+of\b",
    re.I,
)
# "… across all ICML 2024 orals", "among the accepted papers": the papers counted over
_AMONG = re.compile(rf"\s*,?\s*(?:across|among|in|over|for|from|at)\s+{_SET.pattern}", re.I)
# what a statistic's question adds that is no constraint: "are represented", "in total",
# "had papers", ", like avg number of authors"
_FILLER = re.compile(
    r",\s*(?:like|i\s+mean|e\.g\.|say)\b.*$|\b(?:(?:are|were|is|was)\s+)?represented\b|\bin\s+total\b|"
    r"\baltogether\b|\boverall\b|\bhad\s+(?:at\s+least\s+one|any|a)\s+papers?\b|\bhad\s+papers\b|"
    r"\b(?:among|across|in|at|from)\s+(?:all\s+)?(?:the\s+)?(?:icml\s*(?:20)?24\s+)?(?:accepted\s+)?"
    r"papers\b",
    re.I,
)


def _plain(rest: str) -> str:
    """The rest of a statistic's question without what only frames it."""
    said = re.sub(r"\s+", " ", _FILLER.sub(" ", rest)).strip()
    return said if said.strip(" ?.!") else "?"
