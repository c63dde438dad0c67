"""Answers to topic questions (which papers, how many, compare) from the topic's judgement:
the number that answers "how many are about X" is the papers judged clearly about it,
stated first; those that only touch on it follow, counted apart ("13–34 papers: 13
clearly, 21 more touch on it"). A topic of several facets counts only papers holding every
facet, each cited with the sentence for each facet; an empty intersection is said plainly,
with the closest papers ranked and no count. A topic the abstracts do not name gets the
closest papers ranked, the named topics they share as suggestions, and no count.
"""

from __future__ import annotations

from rag.sets.answer_rows import (
    SHOWN_IN_TEXT,
    article,
    citation,
    listed_text,
    plain,
    plural,
    row,
    set_answer,
    status_of_them,
    statuses_said,
)
from rag.sets.compare import COLUMNS, comparison_cells
from rag.sets.judgement import TINY, Judged, TopicJudgement
from rag.types import Aggregate, AggregatePaper, Answer, QueryPlan, SuggestedTopic


def topic_answer(
    question: str,
    plan: QueryPlan,
    standalone: str,
    judgement: TopicJudgement,
    among: str = "",
    suggestions: list[SuggestedTopic] | None = None,
) -> Answer:
    """The answer for a judged topic; `among`: the papers it was judged among, when the
    question or the caller narrowed them ("the 14 oral papers that list …")."""
    comparing = plan.kind == "compare"
    within = f" (among {among})" if among else ""
    if judgement.verdict == "described":
        rows = _rows(judgement.closest, comparing, "closest")
        text = _described_text(judgement, rows, suggestions or [], within)
        aggregate = _aggregate(plan, None, 0, rows, comparing)
    elif judgement.verdict == "none" or (len(judgement.facets) > 1 and _tiny(judgement)):
        members = _rows(judgement.members, comparing)
        others = [j for j in judgement.closest if j not in judgement.members]
        closest = _rows(others, comparing, "closest", start=len(members) + 1)
        rows = members + closest
        text = _none_text(judgement, members, closest, within)
        clearly = judgement.clearly
        aggregate = _aggregate(plan, clearly, len(members) - clearly, rows, comparing)
    else:
        rows = _rows(judgement.members, comparing)
        clearly = judgement.clearly
        summary = _summary(judgement, len(rows), clearly, within)
        text = _compared_text(summary, rows) if comparing else listed_text(summary, rows, [])
        aggregate = _aggregate(plan, clearly, len(rows) - clearly, rows, comparing)
        split = _status_asked(question, plan, judgement)
        if split:  # "How many are about X, and how many of them are orals?": both said
            text = f"{split}\n{text}"
    if plan.source == "llm" and judgement.verdict != "described":
        text = f"Read as: {_named(judgement)}.\n{text}"  # the model named the topic
    spelled = [f"“{typed}” as “{word}”" for typed, word in plan.constraints.read_as.items()]
    if spelled and judgement.topic == plan.topic:  # "protien": read as spelled, and said
        text = f"Read {', '.join(spelled)}.\n{text}"
    answer = set_answer(
        question,
        standalone,
        plan,
        text,
        [citation(r) for r in rows],
        aggregate,
        backend="topic-scan",
        mode="catalogue",
        abstained=not rows,
    )
    answer.suggested_topics = list(suggestions or [])
    return answer


def topic_share(
    answer: Answer, judgement: TopicJudgement, whole: int, what: str, condition: str = ""
) -> Answer:
    """A topic's answer with its share said first ("What % of papers are about diffusion?"):
    the papers clearly about it over `whole`, those that only touch on it said apart;
    `condition`: what the part's papers are when the whole is the topic's ("spotlights")."""
    part = judgement.clearly
    if not whole:
        return answer
    share = 100 * part / whole
    more = len(judgement.members) - part
    touching = f" ({plural(more, 'more paper')} only {_touch(more)} on it)" if more else ""
    verb = "is" if part == 1 else "are"
    said = f"{share:.1f} %: {part} of the {whole:,} {what} {verb} clearly about {_named(judgement)}{touching}."
    if condition:  # the share is of the topic's papers: what the part of them is
        if condition.split()[0] in ("oral", "spotlight", "poster"):  # "is an oral", "are orals"
            article = "an" if condition[0] in "aeiou" else "a"
            plural_ = statuses_said(condition.split(" or "), plural=True)
            condition = f"{article} {condition}" if part == 1 else plural_
        said = f"{share:.1f} %: {part} of the {whole:,} {what} {verb} {condition}."
    update: dict[str, object] = {"answer": f"{said}\n\n{answer.answer}"}
    if answer.aggregate is not None:
        update["aggregate"] = answer.aggregate.model_copy(update={"value": round(share, 1)})
    return answer.model_copy(update=update)


def _tiny(judgement: TopicJudgement) -> bool:
    return len(judgement.members) <= TINY


def _aggregate(
    plan: QueryPlan, count: int | None, touching: int, rows: list[AggregatePaper], comparing: bool
) -> Aggregate:
    return Aggregate(
        kind=plan.kind,
        count=count,
        touching=touching,
        exact=False,
        papers=rows,
        columns=list(COLUMNS) if comparing else [],
    )


def _rows(
    judged: list[Judged], comparing: bool, membership: str = "", start: int = 1
) -> list[AggregatePaper]:
    out = []
    for n, j in enumerate(judged, start=start):
        unsure = "possibly" if len(j.facet_sentences) > 1 else "touches"  # several facets
        label = membership or ("clearly" if j.clearly else unsure)
        update: dict[str, object] = {
            "score": round(j.probability, 3),
            "membership": label,
            "facet_sentences": dict(j.facet_sentences),
        }
        if comparing:
            update["cells"] = comparison_cells(j.paper.abstract)
        out.append(row(n, j.paper, j.why).model_copy(update=update))
    return out


def _named(judgement: TopicJudgement) -> str:
    """ "“X”", or "“X” and “Y”" for the facets a paper must combine."""
    facets = judgement.facets or [judgement.topic]
    quoted = [f"“{f}”" for f in facets]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" and {quoted[-1]}"


def _summary(judgement: TopicJudgement, total: int, clearly: int, within: str) -> str:
    several = len(judgement.facets) > 1
    about = f"combine {_named(judgement)}" if several else f"are about {_named(judgement)}"
    verb_one = f"combines {_named(judgement)}" if several else f"is about {_named(judgement)}"
    if clearly == total:
        verb = verb_one if total == 1 else about
        return f"{plural(total, 'ICML 2024 paper')}{within} {verb}:"
    more = total - clearly
    if several:  # the uncertain ones may combine them; "touch on" is a matter of one topic
        if clearly == 0:
            return (
                f"No ICML 2024 paper{within} clearly {verb_one}; "
                f"{plural(more, 'paper')} possibly {'does' if more == 1 else 'do'}:"
            )
        return f"{clearly}–{total} ICML 2024 papers{within} {about}: {clearly} clearly, {more} possibly:"
    if clearly == 0:
        return (
            f"No ICML 2024 paper{within} is clearly about {_named(judgement)}; "
            f"{plural(more, 'paper')} {_touch(more)} on it:"
        )
    return (
        f"{clearly}–{total} ICML 2024 papers{within} {about}: {clearly} clearly, "
        f"{more} more {_touch(more)} on it:"
    )


# "…, and how many of them are orals?": a status asked of the topic's papers


def _status_asked(question: str, plan: QueryPlan, judgement: TopicJudgement) -> str:
    """ "Of the 107 papers clearly about “diffusion models”, 10 are orals (1 more touches on
    it)." where the question asks how many of the topic's papers have a status; "" else."""
    status = status_of_them(question)
    if not status or plan.constraints.statuses:
        return ""
    clear = [m for m in judgement.members if m.clearly]
    have = sum(1 for m in clear if m.paper.status == status)
    touching = sum(1 for m in judgement.members if not m.clearly and m.paper.status == status)
    word = f"{article(status.lower())} {status.lower()}" if have == 1 else f"{status.lower()}s"
    more = f" ({touching} more {_touch(touching)} on it)" if touching else ""
    verb = "is" if have == 1 else "are"
    return (
        f"Of the {plural(len(clear), 'paper')} clearly about {_named(judgement)}, "
        f"{have} {verb} {word}{more}."
    )


def _touch(n: int) -> str:
    return "touches" if n == 1 else "touch"


def _none_text(
    judgement: TopicJudgement,
    members: list[AggregatePaper],
    closest: list[AggregatePaper],
    within: str,
) -> str:
    if len(judgement.facets) > 1:
        if not members:
            head = f"No ICML 2024 abstract{within} combines {_named(judgement)}."
        elif judgement.clearly == len(members):
            head = (
                f"Only {plural(len(members), 'ICML 2024 abstract')}{within} "
                f"combine{'s' if len(members) == 1 else ''} {_named(judgement)}:"
            )
        else:  # "Only 0–2 …": the unsure ones possibly do
            clearly, more = judgement.clearly, len(members) - judgement.clearly
            head = (
                f"Only {clearly}–{len(members)} ICML 2024 abstracts{within} combine "
                f"{_named(judgement)}: {clearly} clearly, {more} possibly:"
            )
    elif judgement.unknown:
        words = ", ".join(f"“{w}”" for w in judgement.unknown)
        head = f"No ICML 2024 abstract{within} uses the word{'s' if len(judgement.unknown) > 1 else ''} {words}."
    else:
        head = f"No ICML 2024 abstract{within} is about {_named(judgement)}."
    lines = [head]
    lines += [_line(r) for r in members]
    if closest:
        lines.append("The closest papers, ranked (not counted as members):")
        lines += [_line(r) for r in closest[:SHOWN_IN_TEXT]]
    return "\n".join(lines)


def _described_text(
    judgement: TopicJudgement,
    rows: list[AggregatePaper],
    suggestions: list[SuggestedTopic],
    within: str,
) -> str:
    lines = [
        f"The abstracts don't name “{judgement.topic}” in these words, so I can't count its "
        f"papers. The closest ICML 2024 papers{within}, ranked:"
    ]
    lines += [_line(r) for r in rows[:SHOWN_IN_TEXT]]
    if suggestions:
        offered = " · ".join(f"{s.topic} ({plural(s.count, 'paper')})" for s in suggestions)
        lines += ["", f"Did you mean: {offered}?"]
    return "\n".join(lines)


def _line(r: AggregatePaper) -> str:
    return f"- *{plain(r.title)}*{f' ({r.status})' if r.status else ''} [{r.n}]"


def _compared_text(summary: str, rows: list[AggregatePaper]) -> str:
    """The first rows' method and finding, quoted; the table carries every row and column."""
    lines = [
        f"{summary.rstrip(':')}. How they compare — each paper's method and main finding, quoted:"
    ]
    for r in rows[:SHOWN_IN_TEXT]:
        method = r.cells.get("method") or r.why
        finding = r.cells.get("finding")
        said = f"“{plain(method)}”" + (f" Finding: “{plain(finding)}”" if finding else "")
        lines.append(f"- *{plain(r.title)}* [{r.n}]: {said}")
    if len(rows) > SHOWN_IN_TEXT:
        lines.append(
            f"- … and {len(rows) - SHOWN_IN_TEXT:,} more (the full table has every paper's "
            "problem, method and finding)"
        )
    return "\n".join(lines)
