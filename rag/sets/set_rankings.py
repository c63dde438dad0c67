"""Answers a plain ranking or count gets wrong: institutions ranked by the share of their
papers with a status, the authors with a paper of each of two statuses, where one person
is from, and what the catalogue does not record at all (said so, with nothing counted)."""

from __future__ import annotations

from collections.abc import Callable

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.institutions import top_institutions
from rag.catalogue.names import entries_by_author
from rag.sets.answer_rows import plural, row, statuses_said
from rag.text import STOPWORDS
from rag.types import Aggregate, AggregatePaper, Paper, QueryPlan

Within = Callable[[QueryPlan], "set[str] | None"]  # the papers a plan counts (None: all)

SHARE_RANKED_FROM = 10  # papers an institution needs for its share to be ranked
EVERY_LEVEL = 100_000  # a ranking's limit that keeps every level
# how an institution ranking of each kind is headed
PLACES_HEADED = {
    "universities": "Universities",
    "companies": "Companies",
    "institutes": "Research institutes (neither universities nor companies)",
}
NAMES_NOTE = (
    "Counts are per name as the catalogue spells it: one name may stand for several people "
    "(common names), and nothing here tells them apart."
)
_HOLDS = (
    "The catalogue holds the {n:,} accepted ICML 2024 papers: their titles, abstracts, "
    "authors, affiliations and status (oral, spotlight or poster)"
)
# what is said for a question about what the catalogue does not record
_UNRECORDED_SAID = {
    "submissions": "It records no submissions or rejected papers, so no acceptance rate or "
    "number of submissions can be given; it can give the share of orals or spotlights among "
    "the accepted papers, overall or of an institution.",
    "citations": "It records no citations, so no paper or author can be ranked or counted by them.",
    "reviews": "It records no review scores or ratings; orals and spotlights are the only "
    "distinction it holds.",
    "awards": "It records no awards (best or outstanding paper, test of time); orals and "
    "spotlights are the only distinction it holds.",
    "topics": "It records no topic labels, so topics cannot be ranked from it; a topic asked "
    "by name is judged from the abstracts (“How many orals are about diffusion models?”).",
}


def unrecorded_said(papers: int, whats: list[str]) -> str:
    """What the catalogue holds, and that it records none of `whats` ("citations")."""
    said = " ".join(_UNRECORDED_SAID[what] for what in whats if what in _UNRECORDED_SAID)
    return f"{_HOLDS.format(n=papers)}. {said}".strip()


def places_by_share(
    catalogue: Catalogue, plan: QueryPlan, within: Within, kind: str
) -> tuple[str, Aggregate]:
    """ "Which university had the highest share of orals among its papers?": each
    institution's papers with the statuses over all its papers, for the institutions with
    at least `SHARE_RANKED_FROM` papers (a share of one or two papers says little)."""
    statuses = plan.constraints.statuses
    whole_plan = plan.model_copy(
        update={"constraints": plan.constraints.model_copy(update={"statuses": []})}
    )
    base = within(whole_plan)
    part = within(plan) or set()
    places = top_institutions(catalogue, base, limit=EVERY_LEVEL, kind=kind)  # type: ignore[arg-type]
    rows = []
    for place in places:
        papers = catalogue.papers_listing(place.spellings)
        papers = papers if base is None else papers & base
        if len(papers) >= SHARE_RANKED_FROM:
            rows.append((len(papers & part) / len(papers), len(papers & part), len(papers), place))
    rows.sort(key=lambda r: (-r[0], -r[1], r[3].name))
    top = plan.top or 10
    cut = rows[top - 1][0] if len(rows) > top else 0.0  # ties at the cut kept
    kept = [r for r in rows if r[0] >= cut and r[1]]  # none of a status is no share to rank
    left = sum(1 for r in rows if not r[1])
    what = PLACES_HEADED.get(plan.ranking or "", "Institutions")
    unit, units = statuses_said(statuses), statuses_said(statuses, plural=True)
    heading = (
        f"{what} by the share of their ICML 2024 papers that are {units}, among those "
        f"with at least {SHARE_RANKED_FROM} papers ({len(rows)} of them)"
    )
    lines = [
        f"{i}. {place.name} — {k} of its {plural(n, 'paper')} ({100 * k / n:.1f} %)"
        for i, (_, k, n, place) in enumerate(kept, 1)
    ]
    if left:
        lines.append(
            f"({plural(left, 'other')} with at least {SHARE_RANKED_FROM} papers "
            f"{'has' if left == 1 else 'have'} no {unit}.)"
        )
    note = (
        "A share is an institution's papers with that status over all its papers, each "
        "institution counted as a question naming it is (spellings and departments merged); "
        f"institutions with fewer than {SHARE_RANKED_FROM} papers are left out, since a share "
        "of one or two papers says little. The catalogue holds accepted papers only, so no "
        "acceptance rate can be given."
    )
    text = f"{heading}:\n\n" + "\n".join(lines) + f"\n\n{note}"
    ranking = [(place.name, k) for _, k, _, place in kept]
    value = 100 * kept[0][0] if kept else None
    return text, Aggregate(
        kind="metadata", count=len(kept), exact=True, ranking=ranking, value=value, notes=[note]
    )


def with_each_status(
    catalogue: Catalogue, plan: QueryPlan, within: Within, others: str
) -> tuple[str, Aggregate]:
    """ "Which authors had both an oral and a spotlight?": the names with a paper of each
    status, with their papers of each; `others`: the rest of the constraints, as said."""
    statuses = plan.constraints.statuses
    counts: list[dict[str, int]] = []
    for status in statuses:
        one = plan.constraints.model_copy(update={"statuses": [status]})
        papers = within(plan.model_copy(update={"constraints": one}))
        counts.append(dict(catalogue.top_authors(papers, at_least=1)))
    names = set(counts[0]).intersection(*counts[1:])
    ranked = sorted(names, key=lambda n: (-sum(c[n] for c in counts), n))
    lines = [
        f"{i}. {name} — "
        + ", ".join(plural(c[name], s.lower()) for c, s in zip(counts, statuses, strict=True))
        for i, name in enumerate(ranked, 1)
    ] or ["None."]
    asked = " and ".join(f"{'an' if s[0] in 'AEIOU' else 'a'} {s.lower()}" for s in statuses)
    heading = f"{plural(len(ranked), 'author name')} with {asked} at ICML 2024"
    if others:  # "Did any Google author …": of the papers that list Google
        heading += f", counting only papers that list {others}"
    text = f"{heading}:\n\n" + "\n".join(lines) + f"\n\n{NAMES_NOTE}"
    ranking = [(name, sum(c[name] for c in counts)) for name in ranked]
    return text, Aggregate(
        kind="metadata", count=len(ranked), exact=True, ranking=ranking, notes=[NAMES_NOTE]
    )


def title_words_ranked(
    catalogue: Catalogue, plan: QueryPlan, within: Within
) -> tuple[str, Aggregate]:
    """ "What is the most common word in titles?": the words the most titles write (each
    title once; function words left out), among the papers the constraints select."""
    papers = within(plan)
    counts = catalogue.title_word_counts(papers)
    # ties in alphabetical order: the same every run
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    words = [(w, n) for w, n in ranked if w not in STOPWORDS and len(w) > 2]
    top = plan.top or 10
    cut = words[top - 1][1] if len(words) > top else 0  # ties at the cut kept
    kept = [(w, n) for w, n in words if n >= cut]
    total = len(catalogue) if papers is None else len(papers)
    lines = [f"{i}. {w} — {plural(n, 'title')}" for i, (w, n) in enumerate(kept, 1)] or ["None."]
    note = (
        f"Counted over {plural(total, 'title')}, each title once per word, in lower case "
        "as written (a plural is its own word); function words are left out."
    )
    statuses = statuses_said(plan.constraints.statuses, plural=True)
    whose = f"titles of ICML 2024 {statuses}" if statuses else "ICML 2024 titles"
    if papers is not None and not statuses:
        whose = "titles of the ICML 2024 papers asked about"
    text = f"The words the most {whose} write:\n\n" + "\n".join(lines) + f"\n\n{note}"
    return text, Aggregate(kind="metadata", count=len(kept), exact=True, ranking=kept, notes=[note])


PLACE_CITED = 5  # papers cited beside each place a person is listed at


def person_places(catalogue: Catalogue, plan: QueryPlan, within: Within) -> tuple[str, Aggregate]:
    """ "Where is Volkan Cevher from?": the affiliations listed beside the person's name on
    their papers, most papers first, each place's papers cited; papers whose affiliations
    are not listed author by author are counted apart (whose is whose cannot be told)."""
    person = plan.constraints.authors[0]
    papers = sorted(catalogue.papers.many(within(plan) or set()), key=lambda p: p.title)
    places: dict[str, list[Paper]] = {}
    unaligned = 0
    for paper in papers:
        entries = entries_by_author(paper)
        if entries is None or person not in paper.authors:
            unaligned += 1
            continue
        place = entries[paper.authors.index(person)] or "no affiliation given"
        places.setdefault(place, []).append(paper)
    ranked = sorted(places.items(), key=lambda item: (-len(item[1]), item[0]))
    rows: list[AggregatePaper] = []
    lines = []
    for place, held in ranked:
        cited = []
        for paper in held[:PLACE_CITED]:
            rows.append(row(len(rows) + 1, paper, f"{person}: {place}"))
            cited.append(f"[{len(rows)}]")
        lines.append(f"- {place} — {plural(len(held), 'paper')} {''.join(cited)}")
    status = statuses_said(plan.constraints.statuses, plural=True) or "papers"
    if not papers:
        text = f"{person} has no ICML 2024 {status} among those asked about."
    elif not ranked:
        text = (
            f"None of {person}'s {plural(len(papers), 'ICML 2024 ' + status[:-1])} lists its "
            "affiliations author by author, so which is theirs cannot be told."
        )
    else:
        text = f"{person}'s affiliation as listed beside the name on their ICML 2024 {status}:\n"
        text += "\n".join(lines)
    notes = []
    if unaligned and ranked:
        notes.append(
            f"{plural(unaligned, 'more paper')} {'lists' if unaligned == 1 else 'list'} "
            "affiliations not author by author, so which is theirs cannot be told there."
        )
    notes.append(
        "As the authors entered them on OpenReview; one name may stand for several people."
    )
    text += "\n\n" + " ".join(notes)
    ranking = [(place, len(held)) for place, held in ranked]
    aggregate = Aggregate(
        kind="metadata", count=len(ranked), exact=True, papers=rows, ranking=ranking, notes=notes
    )
    return text, aggregate
