"""The paper catalogue with its metadata indexes: who wrote what, from where, with what status.

Read from the store's index file (rag.catalogue.index: tables written with the paper
records, so it is in step with the store, embedded or on a Chroma server) and answers
metadata questions exactly: names are matched the way users type them (case, accents,
initials, missing middle names: "M. Sugiyama", "jose miguel hernandez-lobato"),
institutions by their words or their acronym ("Stanford" = "Stanford University", "MIT" =
"Massachusetts Institute of Technology"; rag.catalogue.names). A name that fits several people
is reported as several candidates, never silently merged or picked. Nothing is read at
construction: each look-up reads the few indexed rows it needs.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rag.catalogue import index as paper_index
from rag.catalogue.close_names import CloseNames
from rag.catalogue.kinds import PARENT_BODIES, SHARED_FIRST, kind_of
from rag.catalogue.names import (
    ALIASES,
    GENERIC_WORDS,
    GIVEN_VARIANTS,
    SEGMENT_SPLIT,
    acronym,
    acronym_named,
    fold,
    name_fits,
    names_institution,
    spellings,
)
from rag.catalogue.records import PaperRecords, rows_in
from rag.catalogue.title_words import phrase_pattern
from rag.text import neighbour_swaps, title_head
from rag.types import Filters, Paper


@dataclass
class Person:
    """One author name as the catalogue spells it (spellings that fold alike are merged,
    under the first one indexed)."""

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


# a part that names a body by its initials ("Urbana Champaign" spells "UC" but names none)
_BODY_NOUN = re.compile(
    r"\b(?:universit\w*|institut\w*|instituto|college|school|academy|polytechnic|lab\w*|"
    r"group|inc|center|centre|technolog\w*|corporation|company)\b",
    re.I,
)


_JOINING = frozenset({"of", "the", "and", "at", "in", "for"})


OPENING_WORDS = 3  # fewer words opening a title's name ("Long Is") start several others


def written_apart(key: str) -> str:
    """A folded name as a pattern that takes its parts with or without a space between
    letters and digits ("llama 2", "llama2"; "cifar 10", "cifar10"), and a version after
    a name ending in letters ("llama" in "llama2"), but never more letters ("gpt 4v")."""
    pattern, last = "", ""
    for part in re.findall(r"[a-z]+|\d+|[^a-z\d ]+| ", key):
        # a word and a number meet with or without a space; not "t 5" ("$t=5$") for "T5"
        word_then_number = len(last) >= 2 and last.isalpha() and part.isdigit()
        pattern += " ?" if part == " " else (" ?" if word_then_number else "") + re.escape(part)
        last = part
    return pattern + (r"(?:\d+)?" if key[-1:].isalpha() else "")


WORD_TOO = 3  # abstracts writing a capitals name in lower case: a word as well ("math")


class Catalogue:
    """Every complete paper of the store by id (`papers`), with author, institution, status
    and title look-ups over the index file `connect` opens (one connection per thread)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self.papers = PaperRecords(connect)
        self._people_read: dict[str, tuple[str, int]] | None = None
        self._close_people: CloseNames | None = None
        self._places_read: tuple[dict[str, str], CloseNames] | None = None
        self._place_words: tuple[set[str], CloseNames] | None = None
        self._groups: dict[str, InstitutionMatch] = {}
        self._vocabulary: set[str] | None = None
        self._folded_texts: list[tuple[str, str]] | None = None  # (id, title and abstract)
        self._heads: dict[str, list[str]] | None = None  # a title's opening name -> ids
        self._kinds: dict[str, frozenset[str]] | None = None  # paper -> its institution kinds

    @classmethod
    def of(cls, papers: Iterable[Paper]) -> Catalogue:
        """A catalogue of `papers` held in memory (the same tables, in an in-memory file),
        for one thread at a time (one connection: `rag papers`, tests)."""
        db = sqlite3.connect(":memory:", check_same_thread=False)
        paper_index.prepare(db)
        with db:
            db.executescript(paper_index.PAPERS_TABLE + paper_index.SCHEMA)
            listed = list(papers)
            db.executemany(
                "insert or replace into papers values (?, '', ?)",
                [(p.id, p.model_dump_json()) for p in listed],
            )
            paper_index.add(db, listed)
        return cls(lambda: db)

    def __len__(self) -> int:
        return len(self.papers)

    def _rows(self, query: str, args: Iterable[object] = ()) -> list[Any]:
        return self._connect().execute(query, tuple(args)).fetchall()

    def _ids_in(self, query: str, values: Iterable[str]) -> set[str]:
        """The first column of `query` ('... in ({})') over `values` (rows_in)."""
        return {str(r[0]) for r in rows_in(self._connect(), query, values)}

    # --- authors -----------------------------------------------------------------------
    def _people(self, column: str, value: str) -> list[Person]:
        """The people filed under `value` in `column` (key or family), first indexed first."""
        people: dict[str, Person] = {}
        query = f"select key, name, paper_id from paper_people where {column} = ? order by rowid"
        for key, name, paper_id in self._rows(query, (value,)):
            person = people.get(key)
            if person is None:
                person = people[key] = Person(name, tuple(key.split()))
            person.papers.add(paper_id)
        return list(people.values())

    def has_person(self, typed: str) -> bool:
        """Is `typed` exactly (as folded) a name the catalogue holds?"""
        key = fold(typed)
        query = "select 1 from paper_people where key = ? limit 1"
        return bool(key) and bool(self._rows(query, (key,)))

    def match_author(self, typed: str, suggest: bool = True) -> NameMatch:
        """Everyone the typed name fits; with no one, the closest names (if `suggest`)."""
        key = fold(typed)
        if not key:
            return NameMatch(typed, ())
        exact = self._people("key", key)
        if exact:
            return NameMatch(typed, (exact[0],))
        tokens = tuple(key.split())
        found = [p for p in self._people("family", tokens[-1]) if name_fits(tokens, p.tokens)]
        if not found and len(tokens) == 2:  # family name first ("Sugiyama Masashi")
            swapped = tokens[::-1]
            found = [p for p in self._people("family", swapped[-1]) if name_fits(swapped, p.tokens)]
        if not found and "-" in typed.strip() and " " not in typed.strip():
            # a hyphened family name alone ("Beurer-Kellner"): the end of a full name
            found = [
                p
                for p in self._people("family", tokens[-1])
                if len(p.tokens) > len(tokens) and p.tokens[-len(tokens) :] == tokens
            ]
        if not found and len(tokens) >= 2:  # "Rupam Mahmood" for A. Rupam Mahmood
            found = [
                p
                for p in self._people("family", tokens[-1])
                if len(p.tokens) > len(tokens)
                and len(p.tokens[0]) == 1
                and name_fits(tokens, p.tokens[1:])
            ]
        if not found and len(tokens) >= 2:  # "Chunyi Lee" for Chun-Yi Lee, and back
            given = "".join(tokens[:-1])
            found = [
                p
                for p in self._people("family", tokens[-1])
                if len(p.tokens) >= 2 and "".join(p.tokens[:-1]) == given
            ]
        if not found and tokens[0] in GIVEN_VARIANTS and len(tokens) >= 2:
            # "Mike Matthews" is Michael Matthews: a short given name for the long one
            for given in GIVEN_VARIANTS[tokens[0]]:
                formal = (given, *tokens[1:])
                found += [
                    p for p in self._people("family", tokens[-1]) if name_fits(formal, p.tokens)
                ]
        found.sort(key=lambda p: (-len(p.papers), p.name))
        if found or not suggest:
            return NameMatch(typed, tuple(found))
        names = self._everyone()
        if self._close_people is None:
            self._close_people = CloseNames(list(names))
        close = self._close_people.closest(key, n=5, cutoff=0.75)
        return NameMatch(typed, (), tuple(names[k][0] for k in close))

    def _everyone(self) -> dict[str, tuple[str, int]]:
        """Every person: folded name -> (name as first indexed, papers), first indexed
        first. Read once per catalogue (one store state), for suggestions and rankings."""
        if self._people_read is None:
            query = (
                "select key, name, min(rowid), count(distinct paper_id) from paper_people "
                "where key != '' group by key order by min(rowid)"
            )
            self._people_read = {key: (name, n) for key, name, _, n in self._rows(query)}
        return self._people_read

    def _places(self) -> tuple[dict[str, str], CloseNames]:
        """Every affiliation: folded -> as spelt, with their close-name finder; read once
        per catalogue, like the people (first indexed first, so the last spelling indexed
        of a folded name is shown)."""
        if self._places_read is None:
            query = "select affiliation from paper_places group by affiliation order by min(rowid)"
            folded = {fold(str(r[0])): str(r[0]) for r in self._rows(query)}
            self._places_read = (folded, CloseNames(list(folded)))
        return self._places_read

    def corrected_place(self, typed: str) -> str | None:
        """The institution a misspelt name stands for, when one spelling of its words is
        close enough to be sure ("Berkley" is Berkeley, "Edinburg" Edinburgh); None if
        the name is known as typed or no correction is an institution."""
        words = fold(typed).split()
        if not words or self.knows_institution(typed):
            return None
        if self._place_words is None:
            folded, _ = self._places()
            vocabulary = {w for name in folded for w in name.split() if len(w) >= TYPO_LENGTH}
            self._place_words = (vocabulary, CloseNames(sorted(vocabulary)))
        vocabulary, close = self._place_words
        fixed = []
        for word in words:
            if word in vocabulary or len(word) < TYPO_LENGTH:
                fixed.append(word)
                continue
            found = close.closest(word, n=1, cutoff=TYPO_CUTOFF)
            # "irivne": two neighbouring letters swapped, which difflib scores too low
            swapped = {w for w in neighbour_swaps(word) if w in vocabulary}
            if not found and len(swapped) != 1:
                return None
            fixed.append(found[0] if found else swapped.pop())
        corrected = " ".join(fixed)
        return (
            corrected
            if corrected != " ".join(words) and self.knows_institution(corrected)
            else None
        )

    def people_named(self, name: str) -> set[str]:
        """The papers of the catalogue person spelt `name` (as `match_author` returns it)."""
        key = fold(name)
        rows = self._rows("select paper_id from paper_people where key = ?", (key,)) if key else []
        return {str(r[0]) for r in rows}

    def family_named(self, family: str) -> set[str]:
        """The papers with an author of this family name ("Bhattacharyya et al.")."""
        key = fold(family)
        rows = (
            self._rows("select paper_id from paper_people where family = ?", (key,)) if key else []
        )
        return {str(r[0]) for r in rows}

    def name_word(self, word: str) -> bool:
        """Whether some author's name has this word ("Brian"): a person, not a slip."""
        key = fold(word)
        query = "select 1 from paper_people where instr(' ' || key || ' ', ?) > 0 limit 1"
        return bool(key) and bool(self._rows(query, (f" {key} ",)))

    def written_capitalised(self, word: str) -> bool:
        """Whether the titles and abstracts writing `word` mostly capitalise it
        ("Bayesian", "Gaussian"; not "brain")."""
        pattern = _whole_word(word, any_case=True)
        forms = Counter(
            m.group(0)[:1].isupper()
            for paper in self.papers_naming(word, any_case=True)
            for m in pattern.finditer(paper.abstract)  # titles capitalise every word
        )
        return forms[True] > forms[False]

    def knows_author(self, typed: str) -> bool:
        return bool(self.match_author(typed, suggest=False).people)

    def top_authors(
        self,
        within: set[str] | None = None,
        limit: int = 10,
        at_least: int = 0,
        excluding: set[str] = frozenset(),  # type: ignore[assignment]
        place: int | None = None,
    ) -> list[tuple[str, int]]:
        """Authors with the most papers (among `within`), ties kept at the cut (and in the
        order the names were first indexed); with `at_least`, every author with that many;
        `excluding`: names left out (a co-author ranking leaves out the author asked of);
        `place`: 0 or -1, counting only the papers where the author is listed first / last."""
        everyone = self._everyone()
        if place is None and within is None:
            counts = everyone
        else:
            if place is not None:
                # each paper's authors are indexed in their order: its first / last row
                end = "min" if place == 0 else "max"
                query = (
                    f"select key, paper_id from paper_people where rowid in "
                    f"(select {end}(rowid) from paper_people group by paper_id) and key != ''"
                )
                rows = [(k, p) for k, p in self._rows(query) if within is None or p in within]
            else:
                query = (
                    "select key, paper_id from paper_people where paper_id in ({}) and key != ''"
                )
                rows = list(rows_in(self._connect(), query, within or ()))
            owned: dict[str, set[str]] = {}
            for key, pid in rows:
                owned.setdefault(key, set()).add(pid)
            counts = {key: (name, len(owned.get(key, ()))) for key, (name, _) in everyone.items()}
        ranked = sorted(
            ((name, n) for name, n in counts.values() if n > 0 and name not in excluding),
            key=lambda r: r[1],
            reverse=True,
        )
        if at_least:
            return [(name, n) for name, n in ranked if n >= at_least]
        if len(ranked) <= limit:
            return ranked
        floor = ranked[limit - 1][1]
        kept = [(name, n) for name, n in ranked if n >= floor]
        if len(kept) <= limit + RANKING_SLACK:
            return kept
        # a tie at the cut too big to list ("2 orals": 43 names): the levels above it
        above = [(name, n) for name, n in kept if n > floor]
        return above or kept

    # --- institutions ------------------------------------------------------------------
    def _candidates(self, names: tuple[str, ...]) -> set[str]:
        """Affiliation strings filed under the first word (or acronym) of any of `names`."""
        keys = {name.split()[0] for name in names if name}
        if acronym_named(names[0]):  # "UIUC" alone (the typed name's, not a variant's)
            keys.add(acronym(names[0]))
        keys.discard("")
        query = "select affiliation from place_keys where key in ({})"
        return self._ids_in(query, sorted(keys))

    def _place_counts(self, affiliations: Iterable[str]) -> dict[str, int]:
        query = (
            "select affiliation, count(distinct paper_id) from paper_places "
            "where affiliation in ({}) group by affiliation"
        )
        return {str(a): int(n) for a, n in rows_in(self._connect(), query, affiliations)}

    def match_institution(self, typed: str) -> InstitutionMatch:
        """Affiliation strings naming the typed institution: its words as a phrase in one
        part of the string (with only generic words around them), its acronym, or a
        known other name. Parts that name another institution sharing the words are
        returned as `related`, with their counts, and not counted."""
        key = fold(typed)
        names = spellings(key)
        verdicts = {a: names_institution(a, names) for a in self._candidates(names)}
        counts = self._place_counts(a for a, v in verdicts.items() if v is not None)
        counted = sorted(
            ((a, n) for a, n in counts.items() if verdicts[a]), key=lambda v: (-v[1], v[0])
        )
        related = sorted(
            ((a, n) for a, n in counts.items() if not verdicts[a]), key=lambda v: (-v[1], v[0])
        )
        same = self._promoted(typed, counted, related)
        if same:  # "Charles University Prague", "Ensae ParisTech" for "ENSAE"
            counted = sorted([*counted, *same], key=lambda v: (-v[1], v[0]))
            related = [r for r in related if r not in same]
        query = "select paper_id from paper_places where affiliation in ({})"
        matched = self._ids_in(query, (a for a, _ in counted))
        suggestions: tuple[str, ...] = ()
        if not counted:
            folded, close_places = self._places()
            suggestions = tuple(folded[c] for c in close_places.closest(key, n=5, cutoff=0.7))
        return InstitutionMatch(
            typed, tuple(counted), frozenset(matched), suggestions, tuple(related)
        )

    def readings(self, typed: str) -> list[tuple[str, int]]:
        """The institutions a typed name with no known owner could be, each with its papers,
        when it fits two or more: a bare acronym ("NTU": Nanyang Technological University
        and National Taiwan University) or a place's name alone ("Hong Kong": HKU and
        HKUST; "Zhejiang"); [] when it names one."""
        key = fold(typed)
        words_typed = key.split()
        acronym_said = typed.strip().isupper() and len(words_typed) == 1 and 2 <= len(key) <= 6
        # a place's name, not an institution's whole name ("Stanford University"), nor a
        # company's ("Google": its labs are its) or a research body's ("Max Planck")
        place_said = (
            not acronym_said
            and 1 <= len(words_typed) <= 2
            and not set(words_typed) & GENERIC_WORDS
            and not PARENT_BODIES.search(key)
        )
        if not (acronym_said or place_said) or key in ALIASES:
            return []
        match = self.match_institution(typed)
        # "Samsung", "Amazon": a company's labs are the company's
        if place_said and any(
            fold(a).startswith(key) and kind_of(a) == "company" for a, _ in match.variants
        ):
            return []
        readings = self._readings_in(key, match.papers, match.variants, acronym_said)
        if len(readings) < 2 or not (place_said and match.related):
            return readings
        # a place's name that fits several: its namesakes the match keeps apart are offered
        # too ("Hong Kong": CUHK, CityU, PolyU beside HKUST and HKU; not for "Duke" alone)
        strings = [*match.variants, *match.related]
        return self._readings_in(key, match.papers, strings, acronym_said)

    def _readings_in(
        self,
        key: str,
        matched: frozenset[str],
        strings: Iterable[tuple[str, int]],
        acronym_said: bool,
    ) -> list[tuple[str, int]]:
        """The institutions `strings` name for the typed `key` (its initials, or a name with
        it in), one per institution, each with its papers."""
        query = "select paper_id from paper_places where affiliation in ({})"
        spelled: dict[str, tuple[str, set[str]]] = {}  # folded name -> (as written, papers)
        stand_alone: set[str] = set()  # names some string holds with no other named beside
        every = set(matched)  # the papers of every string read
        for affiliation, _ in strings:
            papers = self._ids_in(query, [affiliation])
            every |= papers
            in_string: list[str] = []
            for part in SEGMENT_SPLIT.split(affiliation):
                words = fold(part).split()
                words = words[1:] if words[:1] == ["the"] else words
                if acronym_said:  # its initials, or it and one distinctive word ("KU Leuven")
                    named = (acronym(part) == key and bool(_BODY_NOUN.search(part))) or (
                        len(words) == 2 and words[0] == key and words[1] not in GENERIC_WORDS
                    )
                else:  # a university or institute with the place's name in it
                    named = f" {key} " in f" {' '.join(words)} " and bool(_BODY_NOUN.search(part))
                if named and " ".join(words) != key:
                    written, held = spelled.setdefault(" ".join(words), (part.strip(), set()))
                    held.update(papers)
                    in_string.append(" ".join(words))
            if len(set(in_string)) == 1:
                stand_alone.add(in_string[0])
        # "University of London" only ever beside one of its colleges names none of its own
        alone = set(spelled) & stand_alone
        spelled = {n: v for n, v in spelled.items() if n in alone} if alone else spelled
        # one reading per institution, its spellings merged ("University of Tuebingen")
        whole = {n: self.match_institution(n).papers & every for n in spelled}
        readings: list[tuple[str, frozenset[str], frozenset[str]]] = []
        for name in sorted(spelled, key=lambda n: (-len(whole[n]), -len(spelled[n][1]), n)):
            written, papers = spelled[name]
            # "Queen Mary University (of) London", "Chinese Academy of Science(s)"
            said = frozenset(w.removesuffix("s") for w in name.split()) - _JOINING
            if not any(papers <= held or said == words for _, held, words in readings):
                readings.append((written, frozenset(whole[name]), said))
        if len(readings) < 2:
            return []
        return sorted(((w, len(p)) for w, p, _ in readings), key=lambda r: (-r[1], r[0]))

    def _promoted(
        self, typed: str, counted: list[tuple[str, int]], related: list[tuple[str, int]]
    ) -> list[tuple[str, int]]:
        """The related strings that name the typed institution after all."""
        # initials, not a word the titles use ("NEURAL" is no "Neural Concept")
        initials = typed.isupper() and fold(typed) not in self._title_words()
        same = _same_with_a_place(
            typed if initials or " " in typed.strip() else typed.lower(), counted, related
        )
        return same + [r for r in _labs_of(fold(typed), counted, related) if r not in same]

    def _title_words(self) -> set[str]:
        if self._vocabulary is None:
            self._vocabulary = self.title_vocabulary()
        return self._vocabulary

    def grouped(self, affiliation: str) -> InstitutionMatch:
        """`match_institution` of an affiliation string, kept for this store state (an
        institution ranking reads the same few hundred strings each time)."""
        if affiliation not in self._groups:
            self._groups[affiliation] = self.match_institution(affiliation)
        return self._groups[affiliation]

    def affiliation_rows(self, within: set[str] | None = None) -> list[tuple[str, str]]:
        """(affiliation string, paper id) for every non-empty string of the `within` papers
        (None: every paper): an institution ranking's input."""
        query = "select affiliation, paper_id from paper_places where affiliation != ''"
        rows = (
            self._rows(query)
            if within is None
            else rows_in(self._connect(), query + " and paper_id in ({})", within)
        )
        return [(str(a), str(p)) for a, p in rows]

    def papers_listing(self, affiliations: Iterable[str]) -> set[str]:
        """The papers with one of these affiliation strings."""
        query = "select paper_id from paper_places where affiliation in ({})"
        return self._ids_in(query, affiliations)

    def knows_institution(self, typed: str) -> bool:
        names = spellings(fold(typed))
        verdicts = {a: names_institution(a, names) for a in self._candidates(names)}
        if True in verdicts.values():
            return True
        # only another institution's strings share the words: maybe "ENSAE" of "Ensae ParisTech"
        # (read from the verdicts; no paper needs counting to know)
        related = [(a, 0) for a, verdict in verdicts.items() if verdict is False]
        return bool(related) and bool(self._promoted(typed, [], related))

    # --- statuses, titles, filters -----------------------------------------------------
    def with_status(self, statuses: Iterable[str]) -> set[str]:
        query = "select paper_id from paper_facts where status_key in ({})"
        return self._ids_in(query, {s.casefold() for s in statuses})

    def spelled_statuses(self, statuses: Iterable[str]) -> list[str]:
        """The statuses as the catalogue spells them ("oral" -> "Oral"), for exact filters."""
        query = "select distinct status from paper_facts where status_key in ({})"
        return sorted(self._ids_in(query, {s.casefold() for s in statuses}))

    def _folded_titles(self, where: str, args: Iterable[object]) -> list[tuple[str, str]]:
        query = f"select paper_id, folded from paper_titles where {where}"
        return [(str(pid), str(folded)) for pid, folded in self._rows(query, args)]

    def title_word_counts(self, within: set[str] | None = None) -> Counter[str]:
        """How many titles (among `within`; None: all) write each folded word, once a title."""
        counts: Counter[str] = Counter()
        for pid, folded in self._folded_titles("1", ()):
            if within is None or pid in within:
                counts.update(set(folded.split()))
        return counts

    def title_vocabulary(self) -> set[str]:
        """Every word the titles write, folded."""
        return {w for _, folded in self._folded_titles("1", ()) for w in folded.split()}

    def institution_kinds(self) -> dict[str, frozenset[str]]:
        """Each paper's kinds of institution, its affiliations read by name ("company",
        "academic"; a public research body is neither), read once."""
        if self._kinds is None:
            kinds: dict[str, set[str]] = {}
            for affiliation, paper_id in self._rows(
                "select affiliation, paper_id from paper_places where affiliation != ''"
            ):
                kind = _kind_of(str(affiliation))
                if kind:
                    kinds.setdefault(str(paper_id), set()).add(kind)
            self._kinds = {p: frozenset(k) for p, k in kinds.items()}
        return self._kinds

    def unaffiliated(self) -> set[str]:
        """Papers that list no affiliation at all (no row in the places table)."""
        query = "select paper_id from paper_facts where paper_id not in (select paper_id from paper_places)"
        return {str(r[0]) for r in self._rows(query)}

    def mentioning(self, words: str) -> set[str]:
        """Papers whose title or abstract writes `words` as a phrase (case and accents
        aside, a plural too, a version with or without a space): "ChatGPT", "GPT-4" (and
        "GPT4"), "Llama 2" (and "LLaMA2-7B"), "LLaMA" (and "LLaMA2")."""
        # "FlashAttention" is also written "Flash-Attention": its capitals part its words
        key = fold(re.sub(r"(?<=[a-z])(?=[A-Z][a-z])", " ", words))
        if not key:
            return set()
        pattern = re.compile(rf"(?:^| ){written_apart(key)}(?:s|es)?(?: |$)")
        if self._folded_texts is None:  # folded once, on the first such question
            papers = self.papers.many(set(self.papers))
            self._folded_texts = [(p.id, fold(f"{p.title} {p.abstract}")) for p in papers]
        found = {pid for pid, text in self._folded_texts if pattern.search(text)}
        said = words.strip()
        if re.fullmatch(r"[A-Z]{2,}", said):
            # "the MATH benchmark": a name in capitals that abstracts also write as a word
            # ("math"): as written ("CIFAR", never a word, as any abstract writes it)
            texts = {p.id: f"{p.title} {p.abstract}" for p in self.papers.many(found)}
            word = re.compile(rf"(?<![A-Za-z]){said.lower()}s?(?![a-z])")
            if sum(1 for text in texts.values() if word.search(text)) >= WORD_TOO:
                exact = re.compile(rf"(?<![A-Za-z]){said}s?(?![a-z])")
                # "TRANSFORMERS" typed in capitals, which no abstract writes so: the word
                found = {pid for pid, text in texts.items() if exact.search(text)} or found
        return found

    def titled(self, words: str) -> set[str]:
        """Papers whose title holds `words` as a phrase (case, accents and plurals aside);
        "evaluat*": a title word starting so; "^Towards": the title's first word; "?": a
        title that asks a question."""
        if words == "?":  # a title that asks a question
            query = "select paper_id from paper_facts where instr(title, '?') > 0"
            return {str(r[0]) for r in self._rows(query, ())}
        first = words.startswith("^")
        key = fold(words)
        if not key:
            return set()
        if words.rstrip().endswith("*") or first:
            start = "^" if first else "(?:^| )"
            end = "" if words.rstrip().endswith("*") else "(?: |$)"
            pattern = re.compile(rf"{start}{re.escape(key)}{end}")
            found = self._folded_titles("instr(folded, ?) > 0", (key,))
            return {pid for pid, folded in found if pattern.search(folded)}
        pattern, stem = phrase_pattern(key)
        found = self._folded_titles("instr(folded, ?) > 0", (stem,))
        return {pid for pid, folded in found if pattern.search(folded)}

    def matching(self, filters: Filters) -> set[str]:
        """The papers `filters` accept (Filters.accepts, answered from the indexes)."""
        found: list[set[str]] = []
        if filters.paper_ids:
            found.append(self.papers.known(sorted(set(filters.paper_ids))))
        if filters.status:
            found.append(self.with_status(filters.status))
        if filters.author:
            query = "select paper_id from paper_people where instr(casefold(name), ?) > 0"
            found.append({str(r[0]) for r in self._rows(query, (filters.author.casefold(),))})
        if filters.title:
            query = "select paper_id from paper_facts where instr(casefold(title), ?) > 0"
            found.append({str(r[0]) for r in self._rows(query, (filters.title.casefold(),))})
        if not found:
            return set(self.papers)
        return set.intersection(*found)

    def knows(self, name: str) -> bool:
        """An author or institution it holds (a name, not a method or topic)."""
        return self.knows_author(name) or self.knows_institution(name)

    def named_paper(self, reference: str) -> Paper | None:
        """The one paper `reference` names: its full title, the name before its title's
        colon ("BiLLM"), the only title holding every word of it, or the only abstract that
        writes the name as typed ("we introduce GraphsGPT"). None when none or several do."""
        key = fold(reference.strip(" '\"“”‘’*"))
        if not key:
            return None
        words = sorted(set(key.split()))
        every_word = " and ".join(["instr(folded, ?) > 0"] * len(words))
        lookups: list[tuple[str, tuple[str, ...], Callable[[str], bool]]] = [
            ("folded = ?", (key,), lambda folded: True),  # indexed
            ("head = ?", (key,), lambda folded: True),  # indexed
            # SQL keeps titles holding each word somewhere; the rule wants whole words
            (every_word, tuple(words), lambda folded: set(words) <= set(folded.split())),
        ]
        for where, args, rule in lookups:
            found = [pid for pid, folded in self._folded_titles(where, args) if rule(folded)]
            if len(found) == 1:
                return self.papers[found[0]]
        naming = self.papers_naming(reference.strip(), titles=False)
        return naming[0] if len(naming) == 1 else None

    def headed(self, name: str) -> Paper | None:
        """The one paper whose title opens with `name` as written ("DoRA: …", "PARDEN,
        …"); None when none or several do. The openings are read once."""
        found = self._title_heads().get(name, [])
        return self.papers[found[0]] if len(found) == 1 else None

    def _title_heads(self) -> dict[str, list[str]]:
        """Each title's opening name (before its colon) and the papers it opens, read once."""
        if self._heads is None:
            heads: dict[str, list[str]] = {}
            for paper in self.papers.many(set(self.papers)):
                head = title_head(paper.title)
                if head != paper.title.strip():
                    heads.setdefault(head, []).append(paper.id)
            self._heads = heads
        return self._heads

    def opening(self, words: str) -> Paper | None:
        """The one paper whose title's name opens with `words` and goes on ("Long Is More"
        of "Long Is More for Alignment: …"), three words or more; None when none or several
        do."""
        if len(words.split()) < OPENING_WORDS or self.headed(words) is not None:
            return None
        heads = self._title_heads().items()
        found = [ids for head, ids in heads if head.startswith(f"{words} ")]
        return self.papers[found[0][0]] if len(found) == 1 and len(found[0]) == 1 else None

    def written_as(self, typed: str) -> str:
        """How the abstracts write a name typed in lower case ("readagent": "ReadAgent"),
        the commonest form, when one differs from it; "" when none does."""
        if not typed or not typed.islower():
            return ""
        pattern = _whole_word(typed, any_case=True)
        forms: Counter[str] = Counter()
        for paper in self.papers_naming(typed, any_case=True):
            found = pattern.finditer(f"{paper.title} {paper.abstract}")
            forms.update(m.group(0) for m in found if m.group(0) != typed)
        return forms.most_common(1)[0][0] if forms else ""

    def papers_naming(self, name: str, titles: bool = True, any_case: bool = False) -> list[Paper]:
        """The papers whose abstract (or title) writes `name` as typed (whole word, case kept
        unless `any_case`)."""
        if not name:
            return []
        pattern = _whole_word(name, any_case)
        # The records are JSON: only those holding the name as JSON writes it are parsed.
        needle = json.dumps(name.lower() if any_case else name, ensure_ascii=False)[1:-1]
        column = "lower(record)" if any_case else "record"
        query = f"select record from papers where record is not null and instr({column}, ?) > 0"
        found = []
        for (record,) in self._connect().execute(query, (needle,)):
            paper = Paper.model_validate_json(record)
            if pattern.search(paper.abstract) or (titles and pattern.search(paper.title)):
                found.append(paper)
        return found


def _whole_word(name: str, any_case: bool = False) -> re.Pattern[str]:
    """`name` as a whole word ("DoRA", not inside "DoRA-B" or "PreDoRA")."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.I if any_case else 0)


# A misspelt institution word ("Berkley", "Michagan") is corrected only when long and close:
# short words are too easily another name.
TYPO_LENGTH = 5
TYPO_CUTOFF = 0.85

RANKING_SLACK = 2  # names past the limit that a tie at the cut may add before it is cut


def _labs_of(
    key: str, counted: list[tuple[str, int]], related: list[tuple[str, int]]
) -> list[tuple[str, int]]:
    """A company's own labs and branches named after it ("Sony Europe B.V.", "Microsoft
    Research Asia" for Microsoft), counted with it as its ranking row counts them; a
    university's namesakes ("Nanjing University of Science and Technology") stay apart."""
    first = key.split()[0] if key else ""
    if not counted or first in SHARED_FIRST or kind_of(key, [a for a, _ in counted]) != "company":
        return []
    return [
        (a, n) for a, n in related if fold(a).split()[:1] == [first] and kind_of(a) != "academic"
    ]


def _same_with_a_place(
    written: str, counted: list[tuple[str, int]], related: list[tuple[str, int]]
) -> list[tuple[str, int]]:
    """Related strings that are the typed institution after all: its name with only words
    its own strings write apart ("Charles University Prague" beside "Charles University,
    Prague"), or, when no string names it alone, the one string that is its name and one
    more word after it ("Ensae ParisTech" for "ENSAE")."""
    typed = fold(written).split()
    apart = {fold(part) for a, _ in counted for part in SEGMENT_SPLIT.split(a)[1:]}
    same = []
    for a, n in related:
        words = fold(a).split()
        extra = [w for w in words if w not in typed]
        if words[: len(typed)] == typed and extra and all(w in apart for w in extra):
            same.append((a, n))
    # a short name as its initials ("ENSAE"), not a word ("Neural" of "Neural Concept")
    if counted or same or len(related) != 1 or not (len(typed) > 1 or written.isupper()):
        return same
    words = fold(related[0][0]).split()
    alone = len(words) == len(typed) + 1 and words[: len(typed)] == typed
    # "Weierstrass Institute" of "Weierstrass Institute for Applied Analysis and Stochastics"
    full = words[: len(typed) + 1] == [*typed, "for"] and typed[-1] in _NAMED_FOR
    return [related[0]] if full or (alone and words[-1] not in ("of", "for", "and")) else []


_NAMED_FOR = frozenset({"institute", "center", "centre", "laboratory", "lab"})


@cache
def _kind_of(affiliation: str) -> str:
    """An affiliation string's kind of institution, read once per string."""
    return kind_of(affiliation)
