"""Exact answers about authors, institutions and statuses, straight from the catalogue.

Every listed paper is cited; counts are exact (`aggregate.exact`). A name that fits several
people is answered with the candidates and their counts (nothing is guessed); a name that
fits no one says so and offers the closest names the catalogue holds; an empty result is
said plainly.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import partial

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.institutions import top_institutions
from rag.catalogue.names import affiliations_of, entries_by_author, fold
from rag.sets.answer_rows import (
    article,
    citation,
    listed_text,
    one_paper_answer,
    plain,
    plural,
    row,
    set_answer,
)
from rag.sets.selection import (
    Selection,
    campus_of,
    constrained,
    counted_each,
    paper_order,
    papers_of,
    writes,
)
from rag.sets.set_rankings import (
    EVERY_LEVEL,
    NAMES_NOTE,
    PLACES_HEADED,
    person_places,
    places_by_share,
    title_words_ranked,
    unrecorded_said,
    with_each_status,
)
from rag.text import ORDINAL_WORDS, STATUS_WORD, listing
from rag.types import (
    Aggregate,
    AggregatePaper,
    Answer,
    Paper,
    PlanConstraints,
    QueryPlan,
    SuggestedTopic,
)


class MetadataAnswerer:
    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue

    def selection_said(self, plan: QueryPlan, count: int, filtered: bool) -> str:
        """The papers a topic was judged among, as its answer says them ("the 14 oral
        papers that list an author from Google DeepMind"); `filtered`: the caller's filters
        narrowed them too."""
        c = plan.constraints
        conditions = _conditions(c, self._people(c))
        status = " or ".join(s.lower() for s in c.statuses)
        noun = f"{status} paper" if status else "paper"
        said = f"the {plural(count, noun)}".replace(f"the 1 {noun}", f"the one {noun}")
        if conditions:
            said += f" that {'lists' if count == 1 else 'list'} {conditions}"
        if filtered:
            said += " the filters given leave" if not conditions else ", within the filters given"
        return said

    def _people(self, c: PlanConstraints) -> set[str]:
        """The excluded and either-or names that are people, not institutions."""
        return {e for e in [*c.excluded, *c.any_of] if self.catalogue.people_named(e)}

    def _unit_readings(self, c: PlanConstraints, ids: set[str]) -> list[str]:
        """For each excluded unit of an included institution ("Google (not DeepMind)"),
        whose papers are all left out, the other reading: how many more papers list the
        institution outside it beside an author from it."""
        if not c.excluded:
            return []
        matches = [list(self.catalogue.match_institution(t).variants) for t in c.affiliations]
        units = sorted(
            {
                e
                for variants in matches
                for e in c.excluded
                if any(writes(a, e) for a, _ in variants) and not campus_of(e, variants)
            }
        )
        notes = []
        for unit in units:
            other = self.catalogue.papers_listing(
                a for variants in matches for a, _ in variants if not writes(a, unit)
            )
            if more := len(set(other) - ids):
                notes.append(
                    f"Read as papers with no “{unit}” affiliation; {more:,} more list "
                    f"{listing(c.affiliations, 'or')} outside “{unit}” beside a “{unit}” author."
                )
        return notes

    def answer(
        self,
        question: str,
        plan: QueryPlan,
        standalone: str = "",
        allowed: set[str] | None = None,
        about: dict[str, bool] | None = None,
    ) -> Answer:
        """The Answer for a `metadata` plan (authors, institutions, statuses, rankings),
        among the `allowed` papers (the caller's filters; None: every paper); `about`: the
        papers judged about `plan.not_about` (clearly or not), left out and named."""
        if plan.unresolved:
            text, aggregate = self._unresolved(plan)
            # "What was the acceptance rate?": the catalogue cannot answer, and says why
            unrecorded = all(u.kind == "unrecorded" for u in plan.unresolved)
            answer = set_answer(
                question, standalone, plan, text, [], aggregate, abstained=unrecorded
            )
            answer.suggested_topics = _choices(self.catalogue, question, plan)
            return answer
        if plan.written_by:
            return self._written_by(question, standalone, plan, allowed)
        if plan.affiliation_of and plan.constraints.authors:  # "Where is X from?"
            within = partial(self._within, allowed=allowed)
            text, aggregate = person_places(self.catalogue, plan, within)
            cited = [citation(r) for r in aggregate.papers]
            return set_answer(question, standalone, plan, text, cited, aggregate)
        if plan.ranking in ("most_authors", "fewest_authors", "shortest_title", "longest_title"):
            return self._extremes(question, standalone, plan, allowed)
        if plan.ranking == "title_words":  # "What is the most common word in titles?"
            within = partial(self._within, allowed=allowed)
            text, aggregate = title_words_ranked(self.catalogue, plan, within)
            return set_answer(question, standalone, plan, text, [], aggregate)
        if plan.ranking in ("institutions", "universities", "companies", "institutes"):
            text, aggregate = self._places_ranked(plan, allowed)
            return set_answer(question, standalone, plan, text, [], aggregate)
        if plan.ranking is not None:
            text, aggregate = self._ranking(plan, allowed)
            cited = [citation(r) for r in aggregate.papers]
            return set_answer(question, standalone, plan, text, cited, aggregate)
        if plan.statistic:
            return self._statistic(question, standalone, plan, allowed)
        ids, notes, open_ = self._select(plan)
        if plan.unread:  # said, so that a filter the asker meant is not silently lost
            notes.append(
                "Only the names and filters above were used; the question's other words were "
                "not read as a topic."
            )
        about = about or {}
        left_out = sorted(
            self.catalogue.papers.many(ids & set(about)),
            key=lambda p: (not about[p.id], paper_order(p)),
        )
        selected = len(ids)  # "… not about robotics": of how many selected
        if left_out:  # "… not about robotics": those judged about it, named
            topic = plan.not_about
            notes.append(
                f"Left out as about “{topic}” (judged from the abstracts): "
                + "; ".join(
                    f"*{p.title}*{'' if about[p.id] else ' (touches on it)'}" for p in left_out
                )
                + "."
            )
            ids -= {p.id for p in left_out}
        if plan.not_about:
            notes.append(
                f"“Not about” is judged from what each abstract discusses: a paper that uses "
                f"{plan.not_about} without discussing it counts as not about it."
            )
        if allowed is not None and ids - allowed:
            cut = len(ids - allowed)
            ids &= allowed
            notes.append(f"{plural(cut, 'more paper')} left out by the filters.")
        c = plan.constraints
        people = self._people(c)
        notes += self._unit_readings(c, ids)
        papers = sorted(self.catalogue.papers.many(ids), key=paper_order)
        rows = [row(n, p, _facts(p, plan)) for n, p in enumerate(papers, start=1)]
        exact = not open_ and not plan.not_about  # a topic judged, or an unknown place
        aggregate = Aggregate(
            kind="metadata", count=len(rows), exact=exact, papers=rows, notes=notes
        )
        summary = _summary(plan, papers, people)
        if plan.not_about:  # "N of the M papers that list X are not about Y"
            verb = "is" if len(papers) == 1 else "are"
            conditions = _conditions(c, people)
            status = " or ".join(s.lower() for s in c.statuses)
            noun = f"{status} papers" if status else "papers"
            listing_ = f" that list {conditions}" if conditions else ""
            summary = (
                f"{len(papers):,} of the {selected:,} ICML 2024 {noun}{listing_} {verb} not "
                f"about “{plan.not_about}” (judged from the abstracts):"
            )
        if not exact and not plan.not_about:
            summary = f"At least {summary}" if papers else f"None known: {summary}"
        if c.read_as:  # "jing juang" read as Jing Jiang: said first, and not again after
            read = "; ".join(f"“{typed}” as {name}" for typed, name in c.read_as.items())
            summary = f"Reading {read}. {summary}"
            said = {f"“{typed}” read as {name}." for typed, name in c.read_as.items()}
            notes = [n for n in notes if n not in said]
        if len(c.any_of) > 1 and rows:  # "Who had more, A or B?": each one's count
            counts = ", ".join(f"{t}: {n}" for t, n in counted_each(self.catalogue, c.any_of, ids))
            summary = f"{summary.rstrip(':')} ({counts}):"
        text = listed_text(summary, rows, notes)
        return set_answer(question, standalone, plan, text, [citation(r) for r in rows], aggregate)

    def _statistic(
        self, question: str, standalone: str, plan: QueryPlan, allowed: set[str] | None
    ) -> Answer:
        """A number about the papers the constraints select: their share of all papers (or
        of some statuses), their distinct author names, their byline lengths; how many
        institutions, which the catalogue cannot count, is said so."""
        ids, notes, _ = self._select(plan)
        every = set(self.catalogue.papers) if allowed is None else set(allowed)
        ids &= every
        papers = sorted(self.catalogue.papers.many(ids), key=paper_order)
        status = " or ".join(s.lower() for s in plan.constraints.statuses)
        noun = f"ICML 2024 {status + ' ' if status else ''}paper"
        conditions = _conditions(plan.constraints, set())
        listing = f" that list {conditions}" if conditions else ""  # whose papers they are
        if plan.unread:  # said, so that a word the asker meant is not silently lost
            notes.append(
                "Only the names and filters said here were used; the question's other words "
                "were not read as a topic."
            )
        if plan.statistic == "share":
            whole = self.catalogue.with_status(plan.share_of) & every if plan.share_of else every
            within = plan.share_within
            if within is not None:  # "of Google's papers": those papers, the whole
                whole &= constrained(self.catalogue, within).ids
            papers = [p for p in papers if p.id in whole]
            of = " or ".join(s.lower() for s in plan.share_of)
            said = _share_said(_beyond(plan.constraints, within), set(plan.share_of))
            percent = round(100 * len(papers) / len(whole), 1) if whole else None
            share = f"{percent:.1f} %" if percent is not None else "none"
            whose = _conditions(within, set()) if within is not None else ""
            summary = (
                f"{len(papers):,} of the {len(whole):,} ICML 2024 {of + ' ' if of else ''}papers "
                f"{'that list ' + whose + ' ' if whose else ''}({share}) {said}:"
            )
            rows = [row(n, p, _facts(p, plan)) for n, p in enumerate(papers, start=1)]
            aggregate = Aggregate(
                kind="metadata",
                count=len(rows),
                exact=True,
                papers=rows,
                value=percent,
                notes=notes,
            )
            text = listed_text(summary, rows, notes)
            return set_answer(
                question, standalone, plan, text, [citation(r) for r in rows], aggregate
            )
        if plan.statistic == "authors":
            names = {fold(a) for p in papers for a in p.authors}
            note = _NAMES_COUNTED
            text = (
                f"The {plural(len(papers), noun)}{listing} {'have' if listing else 'list'} "
                f"{len(names):,} distinct author names.\n\n{note}"
            )
            notes = [note, *notes]
            text = "\n\n".join([text, *notes[1:]])
            aggregate = Aggregate(
                kind="metadata", count=len(names), exact=True, value=len(names), notes=notes
            )
            return set_answer(question, standalone, plan, text, [], aggregate)
        if plan.statistic == "authors_per_paper" and papers:
            sizes = sorted(len(p.authors) for p in papers)
            mean, median = _mean_median(sizes)
            alone = sum(n == 1 for n in sizes)
            # "orals vs posters": each status's own figure, beside the two together
            by_status = [
                f"{plural(len(some), status.lower())}: {round(m, 2):g} on average (median {d:g})"
                for status in plan.constraints.statuses
                if len(plan.constraints.statuses) > 1
                and (some := [len(p.authors) for p in papers if p.status == status])
                for m, d in [_mean_median(sorted(some))]
            ]
            text = "\n\n".join(
                [
                    f"The {plural(len(papers), noun)}{listing} have {round(mean, 2):g} authors on "
                    f"average (median {median:g}), from {sizes[0]} to {sizes[-1]}; "
                    f"{f'{alone:,}' if alone else 'none'} "
                    f"{'is' if alone == 1 or not alone else 'are'} single-authored."
                    + (f" By status: {'; '.join(by_status)}." if by_status else ""),
                    *notes,
                ]
            )
            aggregate = Aggregate(
                kind="metadata", count=len(papers), exact=True, value=round(mean, 2), notes=notes
            )
            return set_answer(question, standalone, plan, text, [], aggregate)
        if plan.statistic == "authors_per_paper":
            return set_answer(question, standalone, plan, f"ICML 2024 has no {noun}s.", [], None)
        if plan.statistic == "papers_per_author":
            each = Counter(fold(a) for p in papers for a in dict.fromkeys(p.authors))
            if not each:
                return set_answer(
                    question, standalone, plan, f"ICML 2024 has no {noun}s.", [], None
                )
            counts = sorted(each.values())
            mean, median = _mean_median(counts)
            once = sum(n == 1 for n in counts)
            text = "\n\n".join(
                [
                    f"The {len(counts):,} distinct author names of the {plural(len(papers), noun)}"
                    f"{listing} have {round(mean, 2):g} of these papers each on average (median "
                    f"{median:g}, at most {counts[-1]}); {once:,} "
                    f"({round(100 * once / len(counts), 1):g} %) have one.",
                    _NAMES_COUNTED,
                    *notes,
                ]
            )
            aggregate = Aggregate(
                kind="metadata", count=len(counts), exact=True, value=round(mean, 2), notes=notes
            )
            return set_answer(question, standalone, plan, text, [], aggregate)
        if plan.statistic == "countries":
            text = (
                "The catalogue cannot count countries: it records no country for a paper or an "
                "author, and an affiliation string names its country only now and then "
                "(“Tsinghua University” does not say China). Ask for an institution's papers, "
                "or for the institutions with the most papers, instead."
            )
            return set_answer(question, standalone, plan, text, [], None)
        strings = {a for p in papers for a in affiliations_of(p)}
        text = (
            f"The catalogue cannot count institutions exactly: it has no institution table, "
            f"and one institution is written many ways (an acronym, its full name, a "
            f"department of it). The {plural(len(papers), noun)}{listing} list {len(strings):,} "
            f"distinct affiliation strings. The institution rankings (“Which institutions had "
            f"the most papers?”) group the strings institution by institution for the "
            f"institutions with the most papers."
        )
        return set_answer(question, standalone, plan, text, [], None)

    def _select(self, plan: QueryPlan) -> Selection:
        return constrained(self.catalogue, plan.constraints)

    def _unresolved(self, plan: QueryPlan) -> tuple[str, Aggregate | None]:
        lines = []
        for item in plan.unresolved:
            if item.kind == "unrecorded":
                lines.append(unrecorded_said(len(self.catalogue), item.suggestions))
            elif item.kind == "country":
                named = "; ".join(f"{name} ({plural(n, 'paper')})" for name, n in item.candidates)
                lines.append(
                    f"The catalogue records no country or city for an institution, so "
                    f"“{item.text}” cannot be picked out exactly, and no count is claimed."
                    + (
                        f" Institutions whose names say where they are: {named}; others there "
                        f"may not say so."
                        if named
                        else ""
                    )
                    + " Ask about an institution by name, or for the institutions with the most "
                    "papers."
                )
            elif item.candidates:
                options = "; ".join(f"{name} ({plural(n, 'paper')})" for name, n in item.candidates)
                who = "authors of" if item.kind == "author" else "institutions on"
                lines.append(
                    f"“{item.text}” fits {len(item.candidates)} {who} ICML 2024 papers: "
                    f"{options}. Which one do you mean?"
                )
            elif item.kind == "institution":
                lines.append(f"No ICML 2024 paper lists an affiliation matching “{item.text}”.")
            else:
                closest = ", ".join(item.suggestions) or "none close"
                lines.append(
                    f"No ICML 2024 paper lists an author named “{item.text}”. "
                    f"Closest names in the catalogue: {closest}."
                )
        if any(u.candidates or u.kind in ("country", "unrecorded") for u in plan.unresolved):
            return "\n\n".join(lines), None  # a question back, or nothing countable
        return "\n\n".join(lines), Aggregate(kind="metadata", count=0, exact=True, notes=lines)

    def _written_by(
        self, question: str, standalone: str, plan: QueryPlan, allowed: set[str] | None
    ) -> Answer:
        """Who wrote the paper the question names: its byline, each author with their own
        affiliation where the catalogue lists them author by author."""
        paper = self.catalogue.papers.get(plan.like_paper)
        if paper is None or (allowed is not None and paper.id not in allowed):
            text = "That paper is not among the papers the filters leave."
            return set_answer(question, standalone, plan, text, [], None)
        named = f"*{plain(paper.title)}*"
        if plan.written_by == "status":  # "Was GaLore an oral?"
            asked = {s.lower() for s in STATUS_WORD.findall(question)}
            said = paper.status.lower()
            lead = "" if not asked or len(asked) > 1 else "Yes: " if said in asked else "No: "
            text = f"{lead}{named} was {article(said)} {said} at ICML 2024 [1]."
            if re.match(r"\s*why\b", question, re.I):  # "Why was GaLore only a poster?"
                # the status the question gives it comes first ("a spotlight rather than …")
                words = STATUS_WORD.findall(question)
                first = words[0].lower() if words else ""
                other = f", not {article(first)} {first}" if first and first != said else ""
                text = (
                    f"{named} was {article(said)} {said} at ICML 2024{other} [1]. The catalogue "
                    "records each paper's status, not why it was given, and no abstract says."
                )
            why = f"Status: {paper.status}"
            return one_paper_answer(question, standalone, plan, paper, text, why)
        if plan.written_by == "who":  # "Is the GaLore paper from Caltech?"
            return self._said_to_have_written(question, standalone, plan, paper)
        people = _placed_names(paper)
        everyone = (
            f"its {len(people)} authors, in order: {listing(people, 'and')}."
            if len(people) > 1
            else "its only author."
        )
        place = _ordinal(plan.position)
        if plan.written_by == "first":
            text = f"The first author of {named} is {people[0]} [1]; {everyone}"
        elif plan.written_by == "last":
            text = f"The last author of {named} is {people[-1]} [1]; {everyone}"
        elif plan.position > len(people):
            text = f"{named} has no {place} author [1]: {everyone}"
        elif plan.position:
            text = f"The {place} author of {named} is {people[plan.position - 1]} [1]; {everyone}"
        elif len(people) > 1:
            text = f"{named} is by {len(people)} authors: {listing(people, 'and')} [1]."
        else:
            text = f"{named} is by {people[0]} alone [1]."
        listed = sorted(affiliations_of(paper))
        if listed and entries_by_author(paper) is None:
            # "Which universities are the Medusa authors from?": the strings, not who is where
            text += (
                "\n\nThe affiliations it lists (not author by author, so not who is where): "
                + "; ".join(listed)
                + "."
            )
        why = f"Authors: {', '.join(paper.authors)}"
        return one_paper_answer(question, standalone, plan, paper, text, why)

    def _said_to_have_written(
        self, question: str, standalone: str, plan: QueryPlan, paper: Paper
    ) -> Answer:
        """Whether the people and institutions the question names are on the paper's byline:
        yes, no, or which of them are, with the byline's affiliations to check by."""
        named = f"*{plain(paper.title)}*"
        c = plan.constraints
        said = [(who, paper.id in papers_of(self.catalogue, who)) for who in c.affiliations]
        said += [(who, who in paper.authors) for who in c.authors]
        kinds = self.catalogue.institution_kinds().get(paper.id, frozenset())
        kind_words = {"company": "a company", "academic": "a university"}
        said += [(kind_words[k], k in kinds) for k in c.institution_kinds]
        on = [who for who, holds in said if holds]
        off = [who for who, holds in said if not holds]
        lead = "Yes" if not off else "No" if not on else "Partly"
        parts = []
        places = [*c.affiliations, *(kind_words[k] for k in c.institution_kinds)]
        if places:
            placed = [w for w in on if w in places]
            unplaced = [w for w in off if w in places]
            if placed:
                parts.append(f"it lists an author from {listing(placed, 'and')}")
            if unplaced:
                parts.append(f"it lists no author from {listing(unplaced, 'or')}")
        if c.authors:
            if wrote := [w for w in on if w in c.authors]:
                parts.append(
                    f"{listing(wrote, 'and')} {'is' if len(wrote) == 1 else 'are'} among its authors"
                )
            if not_wrote := [w for w in off if w in c.authors]:
                parts.append(
                    f"{listing(not_wrote, 'and')} {'is' if len(not_wrote) == 1 else 'are'} not among its authors"
                )
        text = f"{lead}: {named} — {'; '.join(parts)} [1]."
        listed = sorted(affiliations_of(paper))
        text += f"\n\nIts authors: {', '.join(paper.authors)}."
        if listed:
            text += f" Their affiliations: {'; '.join(listed)}."
        why = f"Authors: {', '.join(paper.authors)}"
        return one_paper_answer(question, standalone, plan, paper, text, why)

    def _extremes(
        self, question: str, standalone: str, plan: QueryPlan, allowed: set[str] | None
    ) -> Answer:
        """The papers with the longest (or shortest) author lists, or titles, among those
        the constraints leave: the ties at the end, or the `top` N asked for."""
        ids, notes, _ = self._select(plan)
        if allowed is not None:
            ids &= allowed
        titles = plan.ranking in ("shortest_title", "longest_title")
        most = plan.ranking in ("most_authors", "longest_title")

        def measure(p: Paper | AggregatePaper) -> int:
            return len(p.title) if titles else len(p.authors)

        unit = "character" if titles else "author"
        pool = sorted(
            self.catalogue.papers.many(ids),
            key=lambda p: ((-1 if most else 1) * measure(p), *paper_order(p)),
        )
        if plan.top:
            papers = pool[: plan.top]
        else:  # "the paper with the most authors": every paper tied at the end
            papers = [p for p in pool if measure(p) == measure(pool[0])]
        rows = [
            row(n, p, f"{plural(measure(p), unit)} · Status: {p.status}")
            for n, p in enumerate(papers, start=1)
        ]
        c = plan.constraints
        status = " or ".join(s.lower() for s in c.statuses)
        conditions = _conditions(c, set())
        among = f" among those that list {conditions}" if conditions else ""
        if plan.topic:  # ranked among the papers clearly about it (the router's set)
            among += f"{' and' if among else ' among those'} clearly about “{plan.topic}”"
        noun = f"ICML 2024 {status + ' ' if status else ''}paper"
        end = (
            ("longest title" if most else "shortest title")
            if titles
            else ("most authors" if most else "fewest authors")
        )
        if not papers:
            summary = f"No {noun} meets the question's conditions."
        elif plan.top:
            summary = f"The {plural(len(papers), noun)} with the {end}{among}:"
        else:
            n = plural(measure(papers[0]), unit)
            which = f"The {noun} with" if len(papers) == 1 else f"{plural(len(papers), noun)} share"
            summary = f"{which} the {end} ({n}){among}:"
        aggregate = Aggregate(
            kind="metadata", count=len(rows), exact=True, papers=rows, notes=notes
        )
        text = listed_text(
            summary, rows, notes, detail=lambda r: f"{r.status}, {plural(measure(r), unit)}"
        )
        return set_answer(question, standalone, plan, text, [citation(r) for r in rows], aggregate)

    def _places_ranked(self, plan: QueryPlan, allowed: set[str] | None) -> tuple[str, Aggregate]:
        """ "Which universities had the most orals?": institutions by their papers among
        those the constraints (and the caller's filters) leave."""
        kind = {"universities": "academic", "companies": "company", "institutes": "public"}.get(
            plan.ranking or "", ""
        )
        if plan.by_share:
            return places_by_share(
                self.catalogue, plan, partial(self._within, allowed=allowed), kind
            )
        within = self._within(plan, allowed)
        limit = EVERY_LEVEL if plan.position else plan.top or 10
        ranked = top_institutions(self.catalogue, within, limit=limit, kind=kind)  # type: ignore[arg-type]
        statuses = plan.constraints.statuses
        noun = f"ICML 2024 {' or '.join(s.lower() for s in statuses) or 'paper'}"
        what = PLACES_HEADED.get(plan.ranking or "", "Institutions")
        heading = f"{what} with the most {noun}s"
        conditions = _conditions(plan.constraints, set())
        if conditions:
            heading += f" that list {conditions}"
        if plan.topic:
            heading += f" clearly about “{plan.topic}”"
        unit = statuses[0].lower() if len(statuses) == 1 else "paper"
        lines = [
            f"{i}. {place.name} — {plural(place.papers, unit)}"
            + (f" (counted as: {_counted_as(place.spellings)})" if len(place.spellings) > 1 else "")
            for i, place in enumerate(ranked, 1)
        ] or [
            f"No ICML 2024 paper is clearly about “{plan.topic}”: nothing to rank."
            if plan.topic
            else "None."
        ]
        note = (
            "Each institution is counted as a question naming it is: every affiliation "
            "string that names it (spellings and departments merged, “counted as”), a paper "
            "once; a company's labs named after it (Google DeepMind) are counted with it. "
            "A university's campuses and institutes are counted with it only where their "
            "strings name it; the corpus has no institution table."
        )
        if plan.ranking != "institutions":
            note += (
                " Universities and companies are told apart by their names (a university, "
                "college, school or institute of technology; a company is named neither so "
                "nor as a public body), which may misplace a few."
            )
        if plan.position:
            what = what.split(" (")[0].lower()
            return _at_place([(p.name, p.papers) for p in ranked], plan, what, noun, note)
        if plan.top and len(ranked) > plan.top:
            heading += f" (the top {plan.top}, with the ties at the cut)"
        text = f"{heading}:\n\n" + "\n".join(lines) + f"\n\n{note}"
        ranking = [(place.name, place.papers) for place in ranked]
        return text, Aggregate(
            kind="metadata", count=len(ranked), exact=True, ranking=ranking, notes=[note]
        )

    def _within(self, plan: QueryPlan, allowed: set[str] | None) -> set[str] | None:
        """The papers a ranking counts: those the constraints and the caller's filters
        leave (None: every paper)."""
        within = None if plan.constraints.is_empty() else self._select(plan)[0]
        if allowed is not None:
            within = allowed if within is None else within & allowed
        return within

    def _ranking(self, plan: QueryPlan, allowed: set[str] | None) -> tuple[str, Aggregate]:
        if plan.each_status and len(plan.constraints.statuses) > 1:
            others = _conditions(plan.constraints.model_copy(update={"statuses": []}), set())
            return with_each_status(
                self.catalogue, plan, partial(self._within, allowed=allowed), others
            )
        within = self._within(plan, allowed)
        named = set(plan.constraints.authors) if plan.ranking == "coauthors" else set()
        place = {"first_authors": 0, "last_authors": -1}.get(plan.ranking or "")
        ranked = self.catalogue.top_authors(
            within,
            limit=plan.top or 10,
            at_least=1 if plan.position else plan.at_least,  # every level, to find the place
            excluding=named,
            place=place,
        )
        lines = [f"{i}. {name} — {plural(n, 'paper')}" for i, (name, n) in enumerate(ranked, 1)]
        note = NAMES_NOTE
        statuses = plan.constraints.statuses
        noun = f"ICML 2024 {' or '.join(s.lower() for s in statuses) or 'paper'}"
        if plan.position:
            who = {0: "first authors", -1: "last authors"}.get(place, "authors")  # type: ignore[arg-type]
            if named:
                who = f"co-authors of {' and '.join(sorted(named))}"
            return _at_place(ranked, plan, who, noun, note)
        heading = (  # "How many authors had more than 5 papers?": the number of names first
            f"{plural(len(ranked), 'author name')} with at least {plural(plan.at_least, noun)}"
            if plan.at_least
            else f"Authors with the most {noun}s"
        )
        if place is not None:  # "Who was first author on the most papers?"
            role = "first" if place == 0 else "last"
            heading = f"Authors listed {role} on the most {noun}s"
        if named:  # "Who did Yoshua Bengio co-author with most often?"
            heading = f"Co-authors of {' and '.join(sorted(named))} on the most {noun}s"
        rows: list[AggregatePaper] = []
        if plan.topic:
            heading += f" clearly about “{plan.topic}”"
            if within is not None and place is None and not named and not plan.at_least:
                # "Who works on machine unlearning?": each name's papers cited, the rest counted
                lines, rows = self._cited_names(ranked, within, plan.topic)
        rest = plan.constraints.model_copy(update={"statuses": []})
        if not named and (conditions := _conditions(rest, set())):
            heading += f" that list {conditions}"  # "… that list an author from Google"
        if not lines:
            lines = ["None."]
        text = f"{heading}:\n\n" + "\n".join(lines) + f"\n\n{note}"
        return text, Aggregate(
            kind="metadata",
            count=len(ranked),
            exact=True,
            ranking=ranked,
            notes=[note],
            papers=rows,
        )

    def _cited_names(
        self, ranked: list[tuple[str, int]], within: set[str], topic: str
    ) -> tuple[list[str], list[AggregatePaper]]:
        """Each ranked name (NAME_LINES at most) with its papers about the topic cited; how
        many more names have such papers, and how many each at most, said after them."""
        papers = sorted(self.catalogue.papers.many(within), key=lambda p: p.title)
        shown = ranked[:NAME_LINES]  # "who works on music generation": 68 one-paper names
        rows: dict[str, AggregatePaper] = {}
        lines = []
        for i, (name, n) in enumerate(shown, 1):
            cited = []
            for paper in [p for p in papers if name in p.authors][:NAME_CITED]:
                if paper.id not in rows:
                    rows[paper.id] = row(len(rows) + 1, paper, f"About “{topic}”")
                cited.append(f"[{rows[paper.id].n}]")
            lines.append(f"{i}. {name} — {plural(n, 'paper')} {''.join(cited)}".rstrip())
        listed = {name for name, _ in shown}
        others = [
            n for name, n in self.catalogue.top_authors(within, at_least=1) if name not in listed
        ]
        if others:
            most = max(others)
            each = "one such paper each" if most == 1 else f"at most {most} such papers each"
            on = ""
            if len(papers) <= NAME_CITED * 3:  # few papers: every one cited, its names in it
                for paper in papers:
                    if paper.id not in rows:
                        rows[paper.id] = row(len(rows) + 1, paper, f"About “{topic}”")
                on = ", on " + "".join(f"[{r.n}]" for r in rows.values())
            lines.append(
                f"… and {plural(len(others), 'more author name')} with {each} (of the "
                f"{plural(len(within), 'paper')} clearly about it{on})"
            )
        return lines, list(rows.values())


_ABOVE_SHOWN = 10  # names listed above the place asked


def _ordinal(n: int) -> str:
    return ORDINAL_WORDS.get(n, f"{n}th")


def _at_place(
    ranked: list[tuple[str, int]], plan: QueryPlan, who: str, noun: str, note: str
) -> tuple[str, Aggregate]:
    """ "Which author ranks second for orals?": the names at the second-highest count
    (ties kept), the ones above them, and how the place was read."""
    levels = sorted({n for _, n in ranked}, reverse=True)
    place = _ordinal(plan.position)
    unit = noun.removeprefix("ICML 2024 ")
    if len(levels) < plan.position:
        text = f"Only {plural(len(levels), 'count')} of {noun}s among {who}: no {place} place."
        return text, Aggregate(kind="metadata", count=0, exact=True, ranking=[], notes=[note])
    n = levels[plan.position - 1]
    at = [(name, k) for name, k in ranked if k == n]
    above = [(name, k) for name, k in ranked if k > n]
    names = listing([name for name, _ in at], "and")
    tied = f"tied with {plural(n, unit)} each" if len(at) > 1 else f"with {plural(n, unit)}"
    text = (
        f"{place.capitalize()} place among {who} by {noun}s: {names}, {tied}.\n\nAbove:\n\n"
        + "\n".join(f"- {name} — {plural(k, unit)}" for name, k in above[:_ABOVE_SHOWN])
        + (f"\n- and {len(above) - _ABOVE_SHOWN} more" if len(above) > _ABOVE_SHOWN else "")
        + f"\n\nPlaces go by count: names tied at a count share a place, so {place} place is "
        f"the {place}-highest count.\n\n{note}"
    )
    return text, Aggregate(kind="metadata", count=len(at), exact=True, ranking=at, notes=[note])


def _facts(paper: Paper, plan: QueryPlan) -> str:
    """Why the paper is in the list, in catalogue terms."""
    c = plan.constraints
    parts = [f"Author: {a}" for a in paper.authors if a in c.authors]
    if c.affiliations:
        parts.append("Affiliations: " + "; ".join(sorted(affiliations_of(paper))[:3]))
    if c.statuses or not parts:
        parts.append(f"Status: {paper.status}")
    return " · ".join(parts)


def _placing(c: PlanConstraints) -> str:
    if c.position < 0:
        return f"the {_ordinal(-c.position)}-to-last author"
    if c.position:
        return f"the {_ordinal(c.position)} author"
    unless = [w for w, on in (("first", c.not_first), ("last", c.not_last)) if on]
    return "an author" + (f", not {' or '.join(unless)}" if unless else "")


_NAMES_COUNTED = (
    "Counted as the catalogue spells the names: one name may be several people (common "
    "names), and one person spelled two ways is counted twice."
)


def _mean_median(values: list[int]) -> tuple[float, float]:
    """The mean and median of sorted `values` (not empty)."""
    middle = len(values) // 2
    median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    return sum(values) / len(values), median


def _beyond(c: PlanConstraints, within: PlanConstraints | None) -> PlanConstraints:
    """The constraints a share asks of its papers beyond those naming the papers it is of."""
    if within is None:
        return c
    return c.model_copy(
        update={
            "authors": [a for a in c.authors if a not in within.authors],
            "affiliations": [a for a in c.affiliations if a not in within.affiliations],
            "title_words": [w for w in c.title_words if w not in within.title_words],
            "any_of": [] if within.any_of else c.any_of,
        }
    )


def _share_said(c: PlanConstraints, of: set[str]) -> str:
    """What the papers of a share have, after "N of the M papers (x %)": "list an author
    from Stanford", "are orals"."""
    statuses = [s.lower() + "s" for s in c.statuses if s not in of]
    conditions = _conditions(c, set())
    said = [f"list {conditions}"] if conditions else []
    if statuses:
        said.append(f"are {' or '.join(statuses)}")
    return " and ".join(said) or "are counted"


def _summary(plan: QueryPlan, listed: list[Paper], people: set[str]) -> str:
    """The answer's first line; `people`: the excluded and either-or names that are authors."""
    c = plan.constraints
    count = len(listed)
    conditions = _conditions(c, people)
    status = " or ".join(s.lower() for s in c.statuses)
    noun = f"{status} paper" if status else "paper"
    if count == 0:
        return (
            f"No ICML 2024 {noun} lists {conditions}."
            if conditions
            else f"ICML 2024 has no {noun}s."
        )
    papers = plural(count, f"ICML 2024 {noun}")
    # "…, and how many of them were orals?": the statuses of a list that mixes them
    statuses = Counter(p.status.lower() for p in listed if p.status)
    mix = (
        " (" + ", ".join(plural(n, s) for s, n in sorted(statuses.items(), key=_by_rank)) + ")"
        if len(statuses) > 1 and not c.statuses
        else ""
    )
    if conditions:
        return f"{papers} {'lists' if count == 1 else 'list'} {conditions}{mix}:"
    return f"There {'is' if count == 1 else 'are'} {papers}{mix}:"


def _conditions(c: PlanConstraints, people: set[str]) -> str:
    """What the constraints ask of a paper, as the answer says it ("" when nothing)."""
    return " and ".join(
        [
            *(f"{a} as {_placing(c)}" for a in c.authors),
            *([f"{c.first_author} as the first author"] if c.first_author else []),
            *([f"{c.last_author} as the last author"] if c.last_author else []),
            *(_from(c, a) for a in c.affiliations),
            *([_either_said(c.any_of, people)] if c.any_of else []),
            *(f"not {e} as an author" for e in c.excluded if e in people),
            *(f"no “{e}” affiliation" for e in c.excluded if e not in people),
            *(
                f"“{w[1:]}” as the title's first word"
                if w.startswith("^")
                else "a title that asks a question"
                if w == "?"
                else f"“{w}” in the title"
                for w in c.title_words
            ),
            *(
                [listing([f"“{w}”" for w in c.any_title_words], "or") + " in the title"]
                if c.any_title_words
                else []
            ),
            *(
                f"no “{w[1:]}” as the title's first word"
                if w.startswith("^")
                else f"no “{w}” in the title"
                for w in c.not_title_words
            ),
            *(f"“{w}” in the title or abstract" for w in c.text_words),
            *(
                [listing([f"“{w}”" for w in c.any_text_words], "or") + " in the title or abstract"]
                if c.any_text_words
                else []
            ),
            *(f"no “{w}” in the title or abstract" for w in c.not_text_words),
            *(["no affiliation"] if c.no_affiliations else []),
            *(
                [_kinds_said(c.institution_kinds, c.without_kinds)]
                if c.institution_kinds or c.without_kinds
                else []
            ),
            *(
                [_authors_said(c.min_authors, c.max_authors)]
                if c.min_authors or c.max_authors
                else []
            ),
        ]
    )


def _kinds_said(kinds: Sequence[str], without: Sequence[str]) -> str:
    """ "an author from a company and one from a university", "no author from a company"."""
    word = {"company": "a company", "academic": "a university"}
    said = " and one from ".join(word[k] for k in kinds)
    said = f"an author from {said}" if said else ""
    none = " or ".join(word[k] for k in without)
    return f"{said}{' and ' if said and none else ''}{f'no author from {none}' if none else ''}"


def _from(c: PlanConstraints, institution: str) -> str:
    place = c.affiliation_place
    if place == "every":
        return f"{institution} as every author's affiliation"
    if place == "first and last":
        return f"{institution} as both the first and the last author's affiliation"
    return (
        f"{institution} as the {place} author's affiliation"
        if place
        else f"an author from {institution}"
    )


def _either_said(either: list[str], people: set[str]) -> str:
    """ "Haggai Maron or Ethan Fetaya as an author", "an author from MIT or Stanford"."""
    joined = " or ".join(either)
    return f"{joined} as an author" if set(either) <= people else f"an author from {joined}"


def _authors_said(low: int, high: int) -> str:
    if low == high:
        return "a single author" if low == 1 else f"exactly {low} authors"
    if low and high:
        return f"{low} to {high} authors"
    return f"at least {low} authors" if low else f"at most {high} authors"


def _counted_as(spellings: tuple[str, ...]) -> str:
    more = f" and {len(spellings) - 3} more" if len(spellings) > 3 else ""
    return "; ".join(spellings[:3]) + more


def _placed_names(paper: Paper) -> list[str]:
    """The authors, each with their affiliation when the catalogue lists one per author
    ("Wei Huang (The University of Hong Kong)"); the names alone when it does not."""
    listed = entries_by_author(paper)
    if listed is None:
        return list(paper.authors)
    return [
        f"{a} ({place})" if place else a for a, place in zip(paper.authors, listed, strict=True)
    ]


def _by_rank(item: tuple[str, int]) -> int:
    return {"oral": 0, "spotlight": 1, "poster": 2}.get(item[0], 3)


NAME_CITED = 3  # papers cited beside each name of a ranking by topic
NAME_LINES = 10  # names listed in a ranking by topic, ties beyond them counted
CHOICES = 8  # the people or institutions offered as buttons when a name fits several


def _choices(catalogue: Catalogue, question: str, plan: QueryPlan) -> list[SuggestedTopic]:
    """The question asked again for each person or institution an ambiguous name fits
    ("NTU": one for Nanyang Technological University, one for National Taiwan University),
    when one name in it is ambiguous, each with the papers that question finds."""
    asked = [u for u in plan.unresolved if u.candidates]
    if len(asked) != 1 or plan.topic:
        return []  # with a topic, the count would be the topic's to judge
    item = asked[0]
    found = re.search(re.escape(item.text), question, re.I)
    offered = []
    for name, _ in item.candidates[:CHOICES]:
        c = plan.constraints.model_copy(deep=True)
        (c.authors if item.kind == "author" else c.affiliations).append(name)
        again = f"{question[: found.start()]}{name}{question[found.end() :]}" if found else ""
        offered.append(
            SuggestedTopic(
                topic=name,
                count=len(constrained(catalogue, c).ids),
                question=again or f"{question} ({name})",
            )
        )
    return offered
