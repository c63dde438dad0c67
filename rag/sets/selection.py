"""The papers a plan's catalogue constraints select (authors, byline places,
institutions and the parts left out of them, statuses, title words, author counts), and
notes on how each name was read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import affiliation_entries, fold
from rag.sets.answer_rows import plural
from rag.types import Paper, PlanConstraints

# how a paper's institutions are told apart, said with every answer that uses it
KINDS_READ = (
    "Companies and universities told apart by their names (a national lab, Inria or Mila "
    "is neither); papers that list no affiliation are in neither."
)


class Selection(NamedTuple):
    ids: set[str]  # the papers meeting every constraint
    notes: list[str]  # how institutions were read, what was left out
    open: int  # papers left out because whose affiliation is whose cannot be told


def constrained(catalogue: Catalogue, c: PlanConstraints) -> Selection:
    """The papers meeting every constraint, and notes on how institutions were read."""
    found: list[set[str]] = []  # each constraint's papers; every paper when none
    open_ = 0
    notes = [f"“{typed}” read as {name}." for typed, name in c.read_as.items()]
    for name in c.authors:
        found.append(catalogue.people_named(name))
    for name, place in ((c.first_author, 0), (c.last_author, -1)):
        if name:  # the catalogue keeps each paper's authors in their order
            key = fold(name)
            family = " " not in key  # "Bhattacharyya et al.": whoever of that family
            ids = catalogue.family_named(name) if family else catalogue.people_named(name)
            found.append(
                {
                    p.id
                    for p in catalogue.papers.many(ids)
                    if p.authors
                    and (
                        fold(p.authors[place]).split()[-1:] == [key]
                        if family
                        else fold(p.authors[place]) == key
                    )
                }
            )
    if (c.not_first or c.not_last or c.position) and len(c.authors) == 1:
        # "but not in first position", "neither first nor last", "second author"
        key = fold(c.authors[0])
        records = catalogue.papers.many(catalogue.people_named(c.authors[0]))
        found.append({p.id for p in records if _placed(p, key, c)})
    left_out = set(c.excluded)  # the parts ruled out of an affiliation ("not Shenzhen")
    for typed in c.affiliations:
        match = catalogue.match_institution(typed)
        variants = list(match.variants)
        papers = set(match.papers)
        parts = {e for e in c.excluded if campus_of(e, variants)}
        if parts:
            left_out -= parts
            variants = [(a, n) for a, n in variants if not any(writes(a, e) for e in parts)]
            papers = catalogue.papers_listing(a for a, _ in variants)
            notes.append(f"Not counted (excluded): {', '.join(sorted(parts))}")
        # "both Google and Google DeepMind": Google outside DeepMind, beside a DeepMind author
        units = [
            o
            for o in c.affiliations
            if writes(o, typed)
            and fold(o) != fold(typed)
            and any(writes(a, o) for a, _ in variants)
        ]
        if units:
            variants = [(a, n) for a, n in variants if not any(writes(a, u) for u in units)]
            papers = catalogue.papers_listing(a for a, _ in variants)
            said = " or ".join(f"“{u}”" for u in units)
            notes.append(f"“{typed}” read as its affiliations other than {said}.")
        if c.affiliation_place:  # "a first author from X": the author's own entry
            strings = {a for a, _ in variants}
            papers, unknown = _placed_at(catalogue.papers.many(papers), strings, c)
            open_ += len(unknown)
            if unknown:
                notes.append(_unplaced_note(typed, c.affiliation_place, unknown))
        found.append(papers)
        notes.append(f"“{typed}” counted as: {counted_as(variants)}")
        if match.related:
            other = ", ".join(f"{a} ({n})" for a, n in match.related[:4])
            notes.append(f"Not counted (other institutions with these words): {other}")
    if c.any_of:  # "from ANU or KU Leuven", "Haggai Maron or Ethan Fetaya": one of them
        each = [papers_of(catalogue, typed) for typed in c.any_of]
        either = set().union(*each)
        if c.only_one:  # "…, but not both"
            either = {p for p in either if sum(p in papers for papers in each) == 1}
        found.append(either)
        for typed in c.any_of:
            if not catalogue.people_named(typed):
                match = catalogue.match_institution(typed)
                if not match.variants:  # "Cohere or Mistral": no paper lists Mistral
                    notes.append(f"No paper lists “{typed}” as an affiliation.")
                    continue
                notes.append(f"“{typed}” counted as: {counted_as(list(match.variants))}")
    without: set[str] = set()
    for typed in sorted(left_out):  # "no co-author from Berkeley", "without Luca Arnaboldi"
        people = catalogue.people_named(typed)
        match = catalogue.match_institution(typed)
        # generous when leaving out: "J.P. Morgan Chase" is J.P. Morgan here
        related = catalogue.papers_listing(a for a, _ in match.related)
        without |= people or set(match.papers) | related
        who = "with" if people else "with an author from"
        notes.append(f"Papers {who} “{typed}” are left out.")
    if c.statuses:
        found.append(catalogue.with_status(c.statuses))
    for words in c.title_words:
        found.append(catalogue.titled(words))
    for words in c.not_title_words:  # "don't mention forecasting in the title"
        without |= catalogue.titled(words)
    if c.no_affiliations:  # "How many papers list no affiliation?"
        found.append(catalogue.unaffiliated())
    if c.institution_kinds or c.without_kinds:  # "authors from both industry and academia"
        kinds = catalogue.institution_kinds()
        found.append(
            {
                p
                for p in catalogue.papers
                if set(c.institution_kinds) <= kinds.get(p, frozenset())
                and not set(c.without_kinds) & kinds.get(p, frozenset())
                and (c.institution_kinds or p in kinds)
            }
        )
        notes.append(KINDS_READ)
    for words in c.text_words:  # "Which papers mention ChatGPT?"
        found.append(catalogue.mentioning(words))
    for words in c.not_text_words:  # "… but not GPT-3.5"; "… not LLMs" leaves out "LLM" too
        singular = words[:-1] if re.search(r"[^s]s$", words) and len(words) > 3 else words
        without |= catalogue.mentioning(words) | catalogue.mentioning(singular)
    if c.any_text_words:  # "evaluate on MuJoCo or D4RL"
        found.append(set().union(*(catalogue.mentioning(w) for w in c.any_text_words)))
    if c.any_title_words:  # "'minimax' or 'benchmark' in the title"
        found.append(set().union(*(catalogue.titled(w) for w in c.any_title_words)))
    if c.min_authors or c.max_authors:  # the catalogue's author lists are whole
        pool = set.intersection(*found) if found else set(catalogue.papers)
        low, high = c.min_authors or 1, c.max_authors or 10**6
        found.append({p.id for p in catalogue.papers.many(pool) if low <= len(p.authors) <= high})
    ids = set.intersection(*found) if found else set(catalogue.papers)
    return Selection(ids - without, notes, open_)


def _placed_at(
    papers: list[Paper], strings: set[str], c: PlanConstraints
) -> tuple[set[str], list[Paper]]:
    """The papers whose first / last / every author is from the institution (its
    affiliation `strings`), and those the catalogue cannot tell: their affiliations are not
    listed author by author (fewer or more entries than authors, or that author's empty)."""
    held: set[str] = set()
    unknown: list[Paper] = []
    for paper in papers:
        listed = affiliation_entries(paper)
        if c.affiliation_place == "every":
            if any(a and a not in strings for a in listed):
                continue  # someone is from elsewhere, whoever it is
            aligned = len(listed) == len(paper.authors) and all(listed)
        else:
            ends = {"first": [0], "last": [-1]}.get(c.affiliation_place, [0, -1])
            aligned = len(listed) == len(paper.authors) > 0 and all(listed[i] for i in ends)
            if aligned and any(listed[i] not in strings for i in ends):
                continue
        if aligned:
            held.add(paper.id)
        else:
            unknown.append(paper)
    return held, unknown


def _unplaced_note(typed: str, place: str, unknown: list[Paper]) -> str:
    whose = "every author" if place == "every" else f"the {place} author"
    titles = "; ".join(f"*{p.title}*" for p in sorted(unknown, key=paper_order)[:5])
    more = " …" if len(unknown) > 5 else ""
    return (
        f"Not known for {plural(len(unknown), 'more paper')} that "
        f"{'lists' if len(unknown) == 1 else 'list'} “{typed}”: their affiliations are not "
        f"given author by author, so whether {whose} is from there cannot be told "
        f"({titles}{more})."
    )


def papers_of(catalogue: Catalogue, typed: str) -> set[str]:
    """A person's papers, or else an institution's."""
    return catalogue.people_named(typed) or set(catalogue.match_institution(typed).papers)


def counted_each(catalogue: Catalogue, names: list[str], ids: set[str]) -> list[tuple[str, int]]:
    """How many of `ids` are each person's or institution's ("Who had more, A or B?")."""
    return [(name, len(papers_of(catalogue, name) & ids)) for name in names]


def counted_as(variants: list[tuple[str, int]]) -> str:
    more = " …" if len(variants) > 6 else ""
    return ", ".join(f"{a} ({n})" for a, n in variants[:6]) + more


def campus_of(part: str, variants: Sequence[tuple[str, int]]) -> bool:
    """Whether an excluded name is a campus or site of the included institution, written
    after a comma or in brackets ("CUHK, Shenzhen", "HKUST (Guangzhou)"), so that only those
    strings are left out; a unit named with it ("Google DeepMind", "Microsoft Research")
    leaves out every paper listing it, as any other institution does."""
    written = [a for a, _ in variants if writes(a, part)]
    placed = [a for a in written if re.search(rf"[,(]\s*(?:the\s+)?{re.escape(part)}", a, re.I)]
    return bool(written) and 2 * len(placed) >= len(written)


def writes(affiliation: str, place: str) -> bool:
    """Whether the affiliation string writes the place's words in a row."""
    return f" {fold(place)} " in f" {fold(affiliation)} "


def paper_order(paper: Paper) -> tuple[int, str]:
    rank = {"oral": 0, "spotlight": 1, "poster": 2}.get(paper.status.casefold(), 3)
    return rank, paper.title.casefold()


def _placed(paper: Paper, key: str, c: PlanConstraints) -> bool:
    """Whether the author (folded `key`) stands where the constraints put them."""
    places = [i for i, a in enumerate(paper.authors) if fold(a) == key]
    if not places:
        return False
    last = len(paper.authors) - 1
    return (
        not (c.not_first and 0 in places)
        and not (c.not_last and last in places)
        and (
            not c.position
            or (c.position - 1 if c.position > 0 else last + 1 + c.position) in places
        )
    )
