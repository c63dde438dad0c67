"""Answers to topic questions (which papers, how many, compare): the topic scan's members,
counted honestly ("31 papers; 24 clearly, 7 touch on it"), ranked, each cited with the
sentence that shows why it belongs. An empty set is said plainly."""

from __future__ import annotations

from rag.sets.common import citation, listed_text, plural, row, set_answer
from rag.sets.topics import CLEAR, TopicScanner
from rag.types import Aggregate, Answer, QueryPlan


def topic_answer(
    question: str,
    plan: QueryPlan,
    standalone: str,
    scanner: TopicScanner,
    allowed: set[str] | None,
) -> Answer:
    members = scanner.members(plan.topic, allowed)
    rows = [
        row(n, m.paper, m.why).model_copy(update={"score": round(m.probability, 3)})
        for n, m in enumerate(members, start=1)
    ]
    clearly = sum(1 for m in members if m.probability >= CLEAR)
    limited = " (within the question's constraints)" if allowed is not None else ""
    if not rows:
        text = (
            f"No ICML 2024 abstract{limited} is about “{plan.topic}”: no paper scored as a "
            "member of that topic."
        )
    else:
        split = (
            f" — {clearly} clearly, {len(rows) - clearly} touch on it"
            if clearly < len(rows)
            else ""
        )
        text = listed_text(
            f"{plural(len(rows), 'ICML 2024 paper')}{limited} "
            f"{'is' if len(rows) == 1 else 'are'} about “{plan.topic}”{split}:",
            rows,
            [],
        )
    aggregate = Aggregate(kind=plan.kind, count=len(rows), exact=False, papers=rows)
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
