"""Institutions ranked by their papers ("Which universities had the most orals?").

The catalogue has no institution table, only affiliation strings as the papers wrote them.
Each frequent string is read as the institution it names and counted the way a question
naming it is counted (`Catalogue.match_institution`: its spellings merged, "Google
Research" under Google); a string already counted under a larger institution is not
listed again, and a company's labs named after it (Google DeepMind) are counted with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, NamedTuple

from rag.catalogue.kinds import (
    JOINT_LAB,
    PARENT_BODIES,
    PARENT_NAMES,
    SHARED_FIRST,
    InstitutionKind,
    kind_of,
)
from rag.catalogue.names import (
    ALIASES,
    COUNTRIES,
    GENERIC_WORDS,
    SEGMENT_SPLIT,
    acronym,
    fold,
)
from rag.text import STOPWORDS

if TYPE_CHECKING:
    from rag.catalogue.catalogue import Catalogue


CANDIDATES = 300  # the most frequent affiliation strings read as institutions


class InstitutionCount(NamedTuple):
    name: str  # its most frequent spelling, as the catalogue writes it
    papers: int
    spellings: tuple[str, ...]  # the affiliation strings counted for it, most papers first


def top_institutions(
    catalogue: Catalogue,
    within: set[str] | None = None,
    limit: int = 10,
    kind: InstitutionKind | Literal["public"] = "",
) -> list[InstitutionCount]:
    """The institutions with the most papers among `within` (every paper: None), ties
    kept at the cut; `kind`: only universities ("academic"), only companies, or only the
    public research bodies, neither ("public")."""
    papers_of: dict[str, set[str]] = {}
    for affiliation, paper in catalogue.affiliation_rows(within):
        papers_of.setdefault(affiliation, set()).add(paper)
    # ties by the string itself: the rows' order, and so their names, the same every run
    frequent = sorted(papers_of.items(), key=lambda item: (-len(item[1]), item[0]))[:CANDIDATES]
    rows: dict[str, tuple[list[str], set[str]]] = {}  # name -> (spellings, papers)
    owner: dict[str, str] = {}  # a counted string -> the row it is counted in
    for affiliation, _ in frequent:
        if affiliation in owner or not _names_something(affiliation):
            continue
        # "The Chinese University of Hong Kong" is read as its name without "The"
        said = _said_once(re.sub(r"^the\s+", "", affiliation, flags=re.I))
        match = catalogue.grouped(said)
        # "Mila - Quebec Artificial Intelligence Institute": the one-word name before the
        # dash is the institution, whose strings ("Mila", "Université de Montréal, Mila")
        # it has (not "University of Wisconsin - Madison", a campus of a system)
        head, _, tail = (part.strip() for part in said.partition(" - "))
        if tail and " " not in head and " " in tail and _names_something(head):
            wider = catalogue.grouped(head)
            if affiliation in dict(wider.variants) and len(wider.papers) > len(match.papers):
                match = wider
        spellings = [a for a, _ in match.variants] or [affiliation]
        papers: set[str] | frozenset[str] = match.papers
        if _body(said) and not _body(affiliation, university=True):
            # the Chinese Academy of Sciences is not its University's strings (a string naming
            # both is both's)
            spellings = [a for a in spellings if _body(a)] or spellings
            papers = catalogue.papers_listing(spellings)
        # "KAIST" after "Korea Advanced Institute …": a group whose own commonest
        # spelling is already a row's is that row, widened
        # (not when that spelling is a joint one whose row is another institution's: "Mila"
        # is no row of "Montreal Institute for Learning Algorithms, University of Montreal")
        same = owner.get(spellings[0])
        joint = len(_parts(spellings[0])) > 1
        same = None if joint and same not in spellings else same
        name = same or _same_name(rows, affiliation) or affiliation
        row = rows.setdefault(name, ([], set()))
        # a row named by one of these spellings, made first because its string came first
        # in a tie ("Computer Science Department, Stanford University"), is this row's (a
        # university is not a research body's: "University of Chinese Academy of Sciences")
        university = kind_of(name) == "academic"
        for earlier in {owner.get(a) for a in spellings} - {None, name}:
            if earlier and earlier in rows and earlier in spellings:
                if kind_of(earlier) == "academic" and not university:
                    continue
                if not _only_this(earlier, spellings):  # a joint string: two institutions
                    continue
                held, counted = rows.pop(earlier)
                _widen(row, held, counted)
                owner.update(dict.fromkeys(held, name))
        _widen(row, spellings, papers)
        for spelling in spellings:
            owner.setdefault(spelling, name)
        owner[affiliation] = name
    _companies_whole(rows, papers_of)
    _bodies_whole(rows, papers_of)
    found = [
        InstitutionCount(name, len(papers if within is None else papers & within), tuple(held))
        for name, (held, papers) in rows.items()
        if not kind or kind_of(name, held) == ("" if kind == "public" else kind)
    ]
    found.sort(key=lambda i: (-i.papers, i.name))
    if len(found) <= limit:
        return [i for i in found if i.papers]
    cut = found[limit - 1].papers
    return [i for i in found if i.papers >= cut and i.papers]


def _body(affiliation: str, university: bool = False) -> bool:
    """Does the string name a research organisation of institutes (the Chinese Academy of
    Sciences, …) other than as its university ("University of Chinese Academy of
    Sciences"); `university`: as its university only."""
    folded = fold(affiliation)
    named = list(PARENT_BODIES.finditer(folded))
    own = [m for m in named if not folded[: m.start()].endswith("university of ")]
    return bool(named) and not own if university else bool(own)


_COUNTRY = re.compile(rf"(?:{COUNTRIES})", re.I)


def _only_this(affiliation: str, spellings: list[str]) -> bool:
    """Does the string name only the institution these are spellings of? Each part is one
    of them, generic words ("Department of Computer Science") or a country; not
    "Montreal Institute for Learning Algorithms, University of Montreal" (Mila's too)."""
    spelled = set(spellings)
    return all(
        p in spelled or not _names_something(p) or _COUNTRY.fullmatch(p.strip())
        for p in _parts(affiliation)
    )


def _parts(affiliation: str) -> list[str]:
    """The string's parts ("Department of …", "University of Toronto"), empty ones left out."""
    return [p for p in SEGMENT_SPLIT.split(affiliation) if p.strip()]


def _said_once(affiliation: str) -> str:
    """A string that names one institution twice ("Technion, Technion", "Technion - Israel
    Institute of Technology, Technion") as that name, so it is grouped with its spellings."""
    parts = [p for p in re.split(r"\s*[,;]\s*", affiliation) if p.strip()]
    if len(parts) < 2:
        return affiliation
    short = min(parts, key=len)
    key = f" {fold(short)} "
    return short if all(key in f" {fold(p)} " for p in parts) and fold(short) else affiliation


def _companies_whole(
    rows: dict[str, tuple[list[str], set[str]]], papers_of: dict[str, set[str]]
) -> None:
    """A company's labs named after it counted with it ("Google DeepMind", "Google Brain"
    with Google): the catalogue's bare "Google" strings are DeepMind's and Research's
    people alike, so only the company is a boundary the strings support. Its labs too rare
    to be candidates ("Microsoft Research Cambridge") and those named like public bodies
    ("Amazon Development Center Germany") count with it as well."""
    parents: dict[str, str] = {}  # a company's first word or acronym -> its largest row
    for name in sorted(rows, key=lambda n: (-len(rows[n][1]), n)):
        spellings, papers = rows[name]
        first = fold(name).split()[0]
        parent = _parent(parents, first)
        # "MIT-IBM Watson AI Lab": a joint lab is the company's (the university's people
        # are listed with the university's own strings too)
        joint = JOINT_LAB.match(name)
        partner = _parent(parents, joint.group(1).lower()) if joint and not parent else None
        if partner:
            _widen(rows[partner], spellings, papers)
            del rows[name]
        # by its name alone: "IBM Research" is grouped with "MIT-IBM Watson AI Lab, IBM …"
        elif parent and kind_of(name) != "academic":
            _widen(rows[parent], spellings, papers)
            del rows[name]
        elif kind_of(name, spellings) == "company":
            # not a first word other names share ("International …", "National …")
            for key in (first if first not in SHARED_FIRST else "", acronym(name)):
                if key:
                    parents.setdefault(key, name)
    counted = {a for held, _ in rows.values() for a in held}
    for affiliation, papers in papers_of.items():
        words = fold(affiliation).split()
        parent = _parent(parents, words[0]) if words else None
        if parent and affiliation not in counted and kind_of(affiliation) != "academic":
            _widen(rows[parent], [affiliation], papers)


def _bodies_whole(
    rows: dict[str, tuple[list[str], set[str]]], papers_of: dict[str, set[str]]
) -> None:
    """Research organisations counted over their institutes, as one row each: the Chinese
    Academy of Sciences (not its University), the Max Planck Society, Helmholtz, A*STAR;
    their institutes too rare to be candidates count as well."""
    for name in sorted(rows, key=lambda n: (-len(rows[n][1]), n)):
        body = PARENT_BODIES.search(fold(name))
        if body is None or "universit" in fold(name):
            continue
        parent = PARENT_NAMES[body.lastgroup or ""]
        if parent != name:
            spellings, papers = rows.pop(name)
            _widen(rows.setdefault(parent, ([], set())), spellings, papers)
    counted = {a for held, _ in rows.values() for a in held}
    for affiliation, papers in papers_of.items():
        body = PARENT_BODIES.search(fold(affiliation))
        if body and affiliation not in counted and "universit" not in fold(affiliation):
            parent = PARENT_NAMES[body.lastgroup or ""]
            _widen(rows.setdefault(parent, ([], set())), [affiliation], papers)


# a company's brands and labs under names of their own, counted with it in a ranking (a
# question naming "TikTok" still asks for TikTok's strings alone)
_BRANDS = {
    "tiktok": "bytedance", "douyin": "bytedance", "taobao": "alibaba", "tmall": "alibaba",
    "damo": "alibaba", "wechat": "tencent",
}  # fmt: skip


def _parent(parents: dict[str, str], word: str) -> str | None:
    """The company row a string's first word names, directly or by another name of it
    ("AWS" for Amazon Web Services, "FAIR", "MSR", "TikTok" for ByteDance)."""
    names = [*ALIASES.get(word, ()), _BRANDS.get(word, "")]
    return parents.get(word) or next(
        (parents[n.split()[0]] for n in names if n and n.split()[0] in parents), None
    )


def _widen(
    row: tuple[list[str], set[str]], spellings: Iterable[str], papers: Iterable[str]
) -> None:
    """A row counts these spellings and papers too."""
    held, counted = row
    held += [a for a in spellings if a not in held]
    counted |= set(papers)


def _same_name(rows: dict[str, tuple[list[str], set[str]]], affiliation: str) -> str | None:
    """The row whose name this string writes apart from "The" and punctuation."""
    key = re.sub(r"^the ", "", fold(affiliation))
    return next((name for name in rows if re.sub(r"^the ", "", fold(name)) == key), None)


def _names_something(affiliation: str) -> bool:
    """Not only generic words ("Department of Computer Science", "Research")."""
    return any(w not in GENERIC_WORDS and w not in STOPWORDS for w in fold(affiliation).split())
