"""The paper catalogue with its metadata indexes: who wrote what, from where, with what status.

Built from the store's paper records (so it is in step with the store, embedded or on a
Chroma server) and answers metadata questions exactly: names are matched the way users
type them (case, accents, initials, missing middle names: "M. Sugiyama", "jose miguel
hernandez-lobato"), institutions by their words or their acronym ("Stanford" = "Stanford
University", "MIT" = "Massachusetts Institute of Technology"). A name that fits several
people is reported as several candidates, never silently merged or picked.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from rag.types import Paper

# Words that do not make an institution's name distinctive, and are left out of acronyms.
_ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "at", "de", "in", "&"})
_SEGMENT_SPLIT = re.compile(r"\s*(?:[,;()/]|\s-\s|\s–\s)\s*")
# Words an affiliation may add around an institution's name without naming another one
# ("Stanford" in "Computer Science Department, Stanford University"); any other word makes
# it a different institution that shares the name ("National Tsing Hua University" for
# "Tsinghua", "MIT-IBM Watson AI Lab" for "MIT"), which is reported, not counted.
GENERIC_WORDS = _GENERIC = frozenset(
    """university univ of the and department dept school college institute institution
    faculty center centre lab laboratory laboratories research inc ltd llc co corp corporation
    group division computer science sciences engineering electrical technology
    artificial intelligence ai data""".split()
)
_FOLD_WORD = re.compile(r"[a-z0-9]+")
# Other names of a few institutions that neither words nor an acronym connect.
ALIASES = {
    "epfl": ("swiss federal institute of technology lausanne", "ecole polytechnique federale"),
    "eth zurich": ("swiss federal institute of technology zurich", "ethz"),
    "mila": ("montreal institute for learning algorithms", "quebec ai institute"),
    "fair": ("facebook ai research", "meta ai"),
}


@lru_cache(maxsize=200_000)  # names repeat across papers: folding was most of the index build
def fold(text: str) -> str:
    """Lower case, accents dropped, punctuation as spaces: the form names are compared in."""
    if text.isascii():  # no accents to drop: the decomposition and filter change nothing
        return " ".join(_FOLD_WORD.findall(text.lower()))
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_FOLD_WORD.findall(plain.casefold()))


def acronym(name: str) -> str:
    """'Massachusetts Institute of Technology' → 'mit' (first letters, small words skipped)."""
    words = [w for w in fold(name).split() if w not in _ACRONYM_SKIP]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


@dataclass
class Person:
    """One author name as the catalogue spells it (spellings that fold alike are merged)."""

    name: str
    tokens: tuple[str, ...]
    papers: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class NameMatch:
    """What a name typed by a user resolved to: one person, several, or none (with the
    closest names the catalogue does hold)."""

    query: str
    people: tuple[Person, ...]
    suggestions: tuple[str, ...] = ()

    @property
    def unique(self) -> Person | None:
        return self.people[0] if len(self.people) == 1 else None


@dataclass(frozen=True)
class InstitutionMatch:
    """The affiliation strings an institution typed by a user stands for, with counts."""

    query: str
    variants: tuple[tuple[str, int], ...]  # (affiliation string, papers), most papers first
    papers: frozenset[str]
    suggestions: tuple[str, ...] = ()
    related: tuple[tuple[str, int], ...] = ()  # other institutions sharing the words


def _token_fits(typed: str, written: str) -> bool:
    return typed == written or (len(typed) == 1 and written.startswith(typed))


def _name_fits(typed: tuple[str, ...], written: tuple[str, ...]) -> bool:
    """Do the typed name's words fit the written name, in order? The family names must be
    equal; other words may be initials; the written name may have extra middle names and
    the typed one extra middle initials ("Michael I. Jordan" fits "Michael Jordan")."""
    if not typed or not written or typed[-1] != written[-1]:
        return False
    rest_typed, rest_written = list(typed[:-1]), list(written[:-1])
    if rest_typed and (not rest_written or not _token_fits(rest_typed[0], rest_written[0])):
        return False
    position = 1
    for word in rest_typed[1:]:
        while position < len(rest_written) and not _token_fits(word, rest_written[position]):
            position += 1
        if position < len(rest_written):
            position += 1
        elif len(word) > 1:  # a whole middle name the written name lacks
            return False
    return True


class Catalogue:
    """Every complete paper of the store by id, with author, institution and status indexes."""

    def __init__(self, papers: dict[str, Paper]) -> None:
        self.papers = papers
        self.people: dict[str, Person] = {}
        self._by_family: dict[str, list[Person]] = defaultdict(list)
        self.affiliations: dict[str, set[str]] = defaultdict(set)
        self.statuses: dict[str, set[str]] = defaultdict(set)
        for paper in papers.values():
            self._index(paper)
        # Affiliation strings by each folded word and by each part's acronym: a look-up
        # then reads the few strings that can match, not all of them.
        self._affiliation_keys: dict[str, set[str]] = defaultdict(set)
        for affiliation in self.affiliations:
            for part in [affiliation, *_SEGMENT_SPLIT.split(affiliation)]:
                for key in {*fold(part).split(), acronym(part)} - {""}:
                    self._affiliation_keys[key].add(affiliation)

    def _index(self, paper: Paper) -> None:
        for name in paper.authors:
            key = fold(name)
            if not key:
                continue
            person = self.people.get(key)
            if person is None:
                person = self.people[key] = Person(name, tuple(key.split()))
                self._by_family[person.tokens[-1]].append(person)
            person.papers.add(paper.id)
        for affiliation in affiliations_of(paper):
            self.affiliations[affiliation].add(paper.id)
        if paper.status:
            self.statuses[paper.status.casefold()].add(paper.id)

    def __len__(self) -> int:
        return len(self.papers)

    # --- authors -----------------------------------------------------------------------
    def match_author(self, typed: str, suggest: bool = True) -> NameMatch:
        """Everyone the typed name fits; with no one, the closest names (if `suggest`)."""
        key = fold(typed)
        if not key:
            return NameMatch(typed, ())
        exact = self.people.get(key)
        if exact is not None:
            return NameMatch(typed, (exact,))
        tokens = tuple(key.split())
        found = [p for p in self._by_family.get(tokens[-1], []) if _name_fits(tokens, p.tokens)]
        if not found and len(tokens) == 2:  # family name first ("Sugiyama Masashi")
            swapped = tokens[::-1]
            found = [
                p for p in self._by_family.get(swapped[-1], []) if _name_fits(swapped, p.tokens)
            ]
        found.sort(key=lambda p: (-len(p.papers), p.name))
        if found or not suggest:
            return NameMatch(typed, tuple(found))
        close = difflib.get_close_matches(key, list(self.people), n=5, cutoff=0.75)
        return NameMatch(typed, (), tuple(self.people[k].name for k in close))

    def people_named(self, name: str) -> set[str]:
        """The papers of the catalogue person spelt `name` (as `match_author` returns it)."""
        person = self.people.get(fold(name))
        return set(person.papers) if person else set()

    def knows_author(self, typed: str) -> bool:
        return bool(self.match_author(typed, suggest=False).people)

    # --- institutions ------------------------------------------------------------------
    def match_institution(self, typed: str) -> InstitutionMatch:
        """Affiliation strings naming the typed institution: its words as a phrase in one
        part of the string (with only generic words around them), its acronym, or a
        known other name. Parts that name another institution sharing the words are
        returned as `related`, with their counts, and not counted."""
        key = fold(typed)
        names = _spellings(key)
        counted: list[tuple[str, int]] = []
        related: list[tuple[str, int]] = []
        keys = {name.split()[0] for name in names if name}
        for affiliation in set().union(*(self._affiliation_keys.get(k, set()) for k in keys)):
            papers = self.affiliations[affiliation]
            verdict = _names_institution(affiliation, names)
            if verdict is not None:
                (counted if verdict else related).append((affiliation, len(papers)))
        counted.sort(key=lambda v: (-v[1], v[0]))
        related.sort(key=lambda v: (-v[1], v[0]))
        matched: set[str] = set()
        for affiliation, _ in counted:
            matched |= self.affiliations[affiliation]
        suggestions: tuple[str, ...] = ()
        if not counted:
            folded = {fold(a): a for a in self.affiliations}
            close = difflib.get_close_matches(key, list(folded), n=5, cutoff=0.7)
            suggestions = tuple(folded[c] for c in close)
        return InstitutionMatch(
            typed, tuple(counted), frozenset(matched), suggestions, tuple(related)
        )

    def knows_institution(self, typed: str) -> bool:
        key = fold(typed)
        names = _spellings(key)
        keys = {name.split()[0] for name in names if name}
        candidates = set().union(*(self._affiliation_keys.get(k, set()) for k in keys))
        return any(_names_institution(a, names) for a in candidates)

    # --- statuses ----------------------------------------------------------------------
    def with_status(self, statuses: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for status in statuses:
            out |= self.statuses.get(status.casefold(), set())
        return out

    def titled(self, words: str) -> set[str]:
        """Papers whose title holds `words` as a phrase (case, accents and plurals aside)."""
        key = fold(words)
        pattern = re.compile(rf"(?:^| ){re.escape(key)}s?(?: |$)")
        return {pid for pid, p in self.papers.items() if pattern.search(fold(p.title))}

    def named_paper(self, reference: str) -> Paper | None:
        """The one paper `reference` names: its full title, the name before its title's
        colon ("BiLLM"), the only title holding every word of it, or the only abstract that
        writes the name as typed ("we introduce GraphsGPT"). None when none or several do."""
        key = fold(reference.strip(" '\"“”‘’*"))
        if not key:
            return None
        rules: list[Callable[[Paper], bool]] = [
            lambda p: fold(p.title) == key,
            lambda p: ":" in p.title and fold(p.title.split(":", 1)[0]) == key,
            lambda p: set(key.split()) <= set(fold(p.title).split()),
        ]
        name = re.compile(rf"(?<![\w-]){re.escape(reference.strip())}(?![\w-])")
        rules.append(lambda p: bool(name.search(p.abstract)))
        for rule in rules:
            found = [p for p in self.papers.values() if rule(p)]
            if len(found) == 1:
                return found[0]
        return None

    def top_authors(self, within: set[str] | None = None, limit: int = 10) -> list[tuple[str, int]]:
        """Authors with the most papers (among `within`), ties kept at the cut."""
        counts = Counter(
            {
                p.name: len(p.papers if within is None else p.papers & within)
                for p in self.people.values()
            }
        )
        ranked = [(name, n) for name, n in counts.most_common() if n > 0]
        if len(ranked) <= limit:
            return ranked
        floor = ranked[limit - 1][1]
        return [(name, n) for name, n in ranked if n >= floor]


_NOUNS = ("university", "institute", "college")


def _spellings(key: str) -> tuple[str, ...]:
    """The typed name, its known other names, and its other word order: "Tokyo University"
    and "University of Tokyo" are one institution as users type it."""
    names = [key, *ALIASES.get(key, ())]
    words = key.split()
    if len(words) >= 2 and words[-1] in _NOUNS:
        names.append(f"{words[-1]} of {' '.join(words[:-1])}")
    elif len(words) >= 3 and words[0] in _NOUNS and words[1] == "of":
        names.append(f"{' '.join(words[2:])} {words[0]}")
    return tuple(dict.fromkeys(names))


def _names_institution(affiliation: str, names: tuple[str, ...]) -> bool | None:
    """True: a part of `affiliation` is one of `names`; False: a part contains a name but
    adds distinctive words (another institution); None: no part mentions any name."""
    verdict: bool | None = None
    own_words = {w for name in names for w in name.split()}  # "ETHZ - ETH Zurich" is one
    for part in [affiliation, *_SEGMENT_SPLIT.split(affiliation)]:
        words = fold(part).split()
        for name in names:
            typed = name.split()
            if len(typed) == 1 and acronym(part) == name:
                return True
            for start in range(len(words) - len(typed) + 1):
                if words[start : start + len(typed)] == typed:
                    after = words[start + len(typed) :]
                    extra = words[:start] + after
                    # "Nanjing University of Science and Technology" is not "Nanjing
                    # University": generic words after the noun make another name.
                    renamed = typed[-1] in _NOUNS and after[:1] == ["of"]
                    if not renamed and all(w in _GENERIC or w in own_words for w in extra):
                        return True
                    verdict = False
    return verdict


def affiliations_of(paper: Paper) -> set[str]:
    """The paper's distinct affiliation strings (the corpus keeps them as an extra field)."""
    raw = paper.extra.get("affiliations") or []
    if isinstance(raw, str):
        raw = [part for part in raw.split(";")]
    return {str(a).strip() for a in raw if str(a).strip()}
