"""Answers to topic questions (which papers, how many, compare): the topic scan's members,
counted honestly ("31 papers; 24 clearly, 7 touch on it"), ranked, each cited with the
sentence that shows why it belongs. An empty set is said plainly. A comparison adds, per
paper, the abstract's own sentences for its problem, method and main finding."""

from __future__ import annotations

from rag.sets.common import SHOWN_IN_TEXT, citation, listed_text, plain, plural, row, set_answer
from rag.sets.compare import COLUMNS, comparison_cells
from rag.sets.topics import CLEAR, Member, TopicScanner
from rag.types import Aggregate, AggregatePaper, Answer, QueryPlan


def topic_answer(
    question: str,
    plan: QueryPlan,
    standalone: str,
    scanner: TopicScanner,
    allowed: set[str] | None,
) -> Answer:
    members = scanner.members(plan.topic, allowed)
    comparing = plan.kind == "compare"
    rows = [_row(n, m, comparing) for n, m in enumerate(members, start=1)]
    limited = " (within the question's constraints)" if allowed is not None else ""
    if not rows:
        text = (
            f"No ICML 2024 abstract{limited} is about “{plan.topic}”: no paper scored as a "
            "member of that topic."
        )
    else:
        clearly = sum(1 for m in members if m.probability >= CLEAR)
        split = (
            f" — {clearly} clearly, {len(rows) - clearly} touch on it"
            if clearly < len(rows)
            else ""
        )
        summary = (
            f"{plural(len(rows), 'ICML 2024 paper')}{limited} "
            f"{'is' if len(rows) == 1 else 'are'} about “{plan.topic}”{split}"
        )
        text = _compared_text(summary, rows) if comparing else listed_text(summary + ":", rows, [])
    aggregate = Aggregate(
        kind=plan.kind,
        count=len(rows),
        exact=False,
        papers=rows,
        columns=list(COLUMNS) if comparing else [],
    )
    return set_answer(
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


def _row(n: int, member: Member, comparing: bool) -> AggregatePaper:
    update: dict[str, object] = {"score": round(member.probability, 3)}
    if comparing:
        update["cells"] = comparison_cells(member.paper.abstract)
    return row(n, member.paper, member.why).model_copy(update=update)


def _compared_text(summary: str, rows: list[AggregatePaper]) -> str:
    """The first rows' method and finding, quoted; the table carries every row and column."""
    lines = [f"{summary}. How they compare — each paper's method and main finding, quoted:"]
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
