"""A follow-up to a set answer, read against the plan of the question before it: "Which of
them are orals?" narrows the papers the last answer listed, "What about from MIT?" asks the
same of another institution, "Same question but for GNNs" of another topic, "No, I meant
EPFL" corrects one. The merged plan is answered like any set question, so a follow-up never
loses the topic or the constraints it builds on, nor keeps one it replaces.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from rag.catalogue.catalogue import Catalogue
from rag.plan.within import two_facets
from rag.text import STATUS_WORD, SUPERLATIVES
from rag.types import ChatMessage, PlanConstraints, PlanKind, QueryPlan

Plan = Callable[[str], QueryPlan]
MAX_TURNS_BACK = 3  # follow-ups on follow-ups read back this far

# "Which of them are orals?", "How many of those mention ImageNet?", "Of those, which …"
_NARROWED = re.compile(
    r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?(?:of\s+(?:them|those|these),?\s+)?"
    r"(?P<ask>how\s+many|which|what)\s+(?:ones\s+)?(?:(?:of|among)\s+(?:them|those|these)\s+)?"
    r"(?P<rest>.+?)\s*[?.!]*\s*$",
    re.I,
)
_SUPERLATIVE = re.compile(rf"\b(?:{SUPERLATIVES}|most)\b", re.I)
# "of them", "among those", "of his papers", "Which ones …": the papers the last answer listed
_POINTS_BACK = re.compile(
    r"\b(?:of|among)\s+(?:them|those|these|(?:his|her|their)\s+(?:papers|ones|work))\b"
    r"|^\s*(?:and\s+|so\s+)?(?:which|how\s+many)\s+ones\b"
    # "which is from KAIST?", "which are about RLHF?": in chat, of the papers just listed
    r"|^\s*(?:and\s+|so\s+)?which\s+(?:one\s+)?(?:is|are|was|were)\s+(?:also\s+)?"
    r"(?:from|by|about|on|at)\b",
    re.I,
)
# "And how many posters?", "And which spotlights?", "And orals?"
_STATUS_INSTEAD = re.compile(
    r"^\s*(?:and|what\s+about|how\s+about)\s+(?:(?P<ask>how\s+many|which)\s+)?(?:the\s+)?"
    r"(?P<status>orals?|spotlights?|posters?)(?:\s+papers)?\s*[?.!]*\s*$"
    # "Which are orals?", "How many were spotlights?": of the papers just listed
    # "Which one is a spotlight?", "Which is an oral?"
    r"|^\s*(?:and\s+)?(?P<ask2>how\s+many|which)\s+(?:ones?\s+)?(?:of\s+(?:them|those|these)\s+)?"
    r"(?:are|were|is|was|got|became)\s+(?:an?\s+)?"
    r"(?P<status2>(?:orals?|spotlights?|posters?)(?:\s*(?:,|or|and|/)\s*(?:orals?|spotlights?|posters?))*)"
    r"\s*[?.!]*\s*$",
    re.I,
)
# "How many are there?", "How many in total?", "And how many is that?": the list counted
_HOW_MANY_THEM = re.compile(
    r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?how\s+many(?:\s+(?:are|were|is)\s+(?:there|that|those|these|they)"
    r"|\s+(?:of\s+)?(?:them|those|these)|\s+(?:papers|ones))?(?:\s+(?:are\s+there))?"
    r"(?:\s+(?:in\s+total|altogether|overall|total|all\s+together))?\s*[?.!]*\s*$",
    re.I,
)
# "What about from MIT?", "And from Peking University?", "Same question but for GNNs.",
# "No, I meant EPFL."
_INSTEAD = re.compile(
    r"^\s*(?:and\s+|ok(?:ay)?,?\s+|so\s+)?(?:what|how)\s+about\s+(?P<x>.+?)\s*[?.!]*\s*$"
    r"|^\s*and\s+(?P<x2>(?:from|by|on|about|for)\s+.+?)\s*[?.!]*\s*$"
    r"|^\s*(?:the\s+)?same\s+(?:question|thing|one)?\s*,?\s*(?:but\s+)?(?:for|with|about|on)\s+"
    r"(?P<x3>.+?)\s*[?.!]*\s*$"
    r"|^\s*(?:(?:no|nope|sorry|actually|oops)[,.!]?\s+)+i\s+meant\s+(?P<x4>.+?)\s*[?.!]*\s*$"
    # "And how many mention Claude?": another name mentioned
    r"|^\s*and\s+(?:how\s+many|which)(?:\s+(?:papers|ones))?\s+(?P<x5>mentions?\s+.+?)\s*[?.!]*\s*$",
    re.I,
)


# what a "what about …" asks of the papers listed, not another set of them
_NO_THING = re.compile(
    r"(?i)^(?:in|at|during|before|after|since)\s|^\d{4}\b|^(?:the\s+|their\s+|its\s+)?"
    r"(?:limitations?|results?|datasets?|baselines?|methods?|experiments?|code|performance|"
    r"contributions?|findings?|benchmarks?|metrics?|details?|setup|implementation|evaluation|"
    r"speed(?:-?up)?s?|accuracy|costs?|authors?|first\s+one|second\s+one|last\s+one|others?)\b"
)


_THEM = r"(?:them|they|these|those|these\s+papers|those\s+papers|each(?:\s+one|\s+of\s+them)?)"
# "What are they about?", "What do these papers do?", "Summarize them", "Tell me about each"
_ABOUT_THEM = re.compile(
    r"^\s*(?:(?:so|and|ok(?:ay)?|great|thanks)[,!.]?\s+)*(?:"
    rf"what\s+(?:are|were)\s+{_THEM}(?:\s+all)?\s+about"
    rf"|what\s+(?:do|did)\s+{_THEM}(?:\s+all)?\s+(?:do|propose|study|find|show|say|cover)"
    rf"|(?:briefly\s+)?(?:summari[sz]e|describe|explain)\s+{_THEM}"
    rf"|tell\s+me\s+(?:more\s+)?about\s+{_THEM}"
    rf"|give\s+me\s+(?:a\s+)?(?:summary|rundown|overview)\s+of\s+{_THEM}"
    r")(?:\s+(?:briefly|in\s+(?:a|one)\s+(?:line|sentence)(?:\s+each)?))?\s*[?.!]*\s*$",
    re.I,
)


# "list their authors", "who wrote them?", "who are the authors of those?"
_THEIR_AUTHORS = re.compile(
    r"^\s*(?:(?:so|and|ok(?:ay)?|great|thanks)[,!.]?\s+)*(?:"
    r"(?:list|give(?:\s+me)?|show(?:\s+me)?|name)\s+(?:all\s+)?their\s+(?:co-?)?authors"
    rf"|who\s+(?:wrote|authored)\s+{_THEM}"
    rf"|who\s+(?:are|were)\s+(?:the\s+)?(?:co-?)?authors\s+of\s+{_THEM}"
    r"|who\s+(?:are|were)\s+their\s+(?:co-?)?authors|their\s+authors"
    r")\s*[?.!]*\s*$",
    re.I,
)


def asks_their_authors(question: str) -> bool:
    """ "list their authors", "who wrote them?": each listed paper's byline."""
    return _THEIR_AUTHORS.match(question) is not None


def asks_about_them(question: str) -> bool:
    """ "What are they about?", "Summarize them": what each paper just listed does."""
    return _ABOUT_THEM.match(question) is not None


class FollowedUp(NamedTuple):
    plan: QueryPlan
    standalone: str  # the merged question, said plainly


def last_question(history: list[ChatMessage]) -> tuple[str, list[ChatMessage]] | None:
    """The user's last question, with the history before it; None when there is none."""
    for at in range(len(history) - 1, -1, -1):
        if history[at].role == "user":
            return history[at].content, history[:at]
    return None


def followed_up(
    question: str, history: list[ChatMessage], plan: Plan, catalogue: Catalogue, depth: int = 0
) -> FollowedUp | None:
    """The plan of a follow-up to a set answer merged with the plan it follows, or None
    when the question is no such follow-up (it is read on its own, or by the text rule)."""
    last = last_question(history)
    shape = _shape(question)
    if last is None or shape is None or depth >= MAX_TURNS_BACK:
        return None
    before, earlier = last
    if asks_about_them(before):  # "What are they about?" in between: the list before it
        return followed_up(question, earlier, plan, catalogue, depth + 1)
    previous = _plan_of(before, earlier, plan, catalogue, depth + 1)
    if previous.kind not in ("list", "count", "metadata") or not _a_set(previous):
        return None
    merged = _merged(previous, shape, plan, catalogue)
    return None if merged is None else FollowedUp(merged, said_plainly(merged))


def asked_of_them(
    question: str, history: list[ChatMessage], plan: Plan, catalogue: Catalogue
) -> str | None:
    """ "Which of them reports the biggest speedup?" after a topic's papers: the superlative
    asked of that topic ("Which paper about speculative decoding reports …"); else None."""
    last = last_question(history)
    found = _NARROWED.match(question)
    if last is None or found is None or not _POINTS_BACK.search(question):
        return None
    rest = _POINTS_BACK.sub(" ", found.group("rest")).strip()
    if not _SUPERLATIVE.search(rest):
        return None
    previous = _plan_of(*last, plan, catalogue, 1)
    if previous.kind not in ("list", "count") or not previous.topic:
        return None
    c = previous.constraints
    said = c.model_copy(update={"affiliations": [], "authors": [], "statuses": []})
    if not said.is_empty() or previous.not_about:
        return None  # a list narrowed some other way: its papers are not said again here
    whose = "".join([*(f" from {a}" for a in c.affiliations), *(f" by {a}" for a in c.authors)])
    noun = " or ".join(s.lower() for s in c.statuses) + " paper" if c.statuses else "paper"
    return f"Which {noun} about {previous.topic}{whose} {rest}?"


def _plan_of(
    question: str, history: list[ChatMessage], plan: Plan, catalogue: Catalogue, depth: int
) -> QueryPlan:
    """A question's plan as its turn read it: merged with the one it followed up, if any."""
    prior = followed_up(question, history, plan, catalogue, depth)
    return prior.plan if prior is not None else plan(question)


def _a_set(plan: QueryPlan) -> bool:
    """A plan of papers picked by topic and constraints, which a follow-up can narrow."""
    return not (
        plan.ranking or plan.statistic or plan.written_by or plan.like_paper or plan.unresolved
    ) and bool(plan.topic or not plan.constraints.is_empty())


def _shape(question: str) -> re.Match[str] | None:
    """How the question follows up, as the match of its pattern (`.re` says which)."""
    if found := _STATUS_INSTEAD.match(question):
        return found
    if found := _HOW_MANY_THEM.match(question):
        return found
    if (found := _NARROWED.match(question)) and _POINTS_BACK.search(question):
        return found
    return _INSTEAD.match(question)


def _merged(
    previous: QueryPlan, found: re.Match[str], plan: Plan, catalogue: Catalogue
) -> QueryPlan | None:
    merged = previous.model_copy(deep=True)
    c = merged.constraints
    if found.re is _STATUS_INSTEAD:  # "And how many posters?"
        said = found.group("status") or found.group("status2")  # "orals or spotlights"
        c.statuses = [s.capitalize() for s in dict.fromkeys(STATUS_WORD.findall(said.lower()))]
        ask = found.group("ask") or found.group("ask2")
        if ask:
            merged.kind = _kind(ask, merged)
        return merged
    if found.re is _HOW_MANY_THEM:  # "How many are there?": the same papers, counted
        merged.kind = _kind("how many", merged)
        return merged
    if found.re is _NARROWED:  # "Which of them are orals?"
        rest = _POINTS_BACK.sub(" ", found.group("rest")).strip()
        if _SUPERLATIVE.search(rest):
            return None  # "Which of them reports the largest speedup?": no facet to add
        added = plan(f"Which papers {rest}?")
        if added.unresolved or added.ranking or added.statistic:
            return None
        _add(c, added.constraints)
        if added.topic and merged.topic and merged.topic.lower() in added.topic.lower():
            merged.topic = added.topic  # "… about federated learning with DP": said whole
        elif added.topic and merged.topic:  # "Which of them are about audio?": two facets
            merged.topic = two_facets(merged.topic, added.topic)
        merged.topic = merged.topic or added.topic
        merged.not_about = merged.not_about or added.not_about
        merged.kind = _kind(found.group("ask"), merged)
        return merged
    said = next(g for g in found.groups() if g).strip()  # "What about from MIT?"
    return _instead(merged, said, plan, catalogue)


def _instead(merged: QueryPlan, said: str, plan: Plan, catalogue: Catalogue) -> QueryPlan | None:
    """The previous plan with what `said` names put in place of its kind of thing: an
    institution's, a person's, a status's, a mentioned name's or the topic's."""
    c = merged.constraints
    if _NO_THING.match(said):
        return None  # "What about the limitations?", "What about in 2023?": no set's part
    mention = re.match(r"(?i)mentions?\s+(?:the\s+)?(.+)", said)
    if mention:  # "And how many mention Claude?"
        c.text_words = [mention.group(1).strip()]
        return merged
    thing = re.sub(r"(?i)^(?:from|by|on|about|for|the)\s+", "", said).strip()
    if STATUS_WORD.fullmatch(thing.rstrip("sS").lower() or ""):
        c.statuses = [thing.rstrip("sS").capitalize()]
        return merged
    alone = plan(f"Which papers are from {thing}?") if not said.lower().startswith("by ") else None
    if alone is not None and alone.constraints.affiliations and not alone.topic:
        c.affiliations = list(alone.constraints.affiliations)
        return merged
    person = catalogue.match_author(thing, suggest=False)
    if " " in thing and person.unique is not None:
        c.authors = [person.unique.name]
        return merged
    if c.text_words and re.search(r"[A-Z0-9]", thing):  # "What about CIFAR-10?" after ImageNet
        c.text_words = [thing]
        return merged
    if said.lower().startswith(("from ", "by ")):
        return None  # a place or person the catalogue does not know: asked on its own
    topic = plan(f"Which papers are about {thing}?")
    if not topic.topic or topic.unresolved or not topic.constraints.is_empty():
        return None
    merged.topic = topic.topic
    if merged.kind == "metadata":
        merged.kind = "list"
    return merged


def _add(to: PlanConstraints, more: PlanConstraints) -> None:
    for name in ("authors", "affiliations", "any_of", "statuses", "title_words", "text_words",
                 "any_text_words", "not_text_words", "not_title_words", "excluded",
                 "institution_kinds", "without_kinds"):  # fmt: skip
        items = getattr(to, name)
        items += [x for x in getattr(more, name) if x not in items]


def _kind(ask: str, plan: QueryPlan) -> PlanKind:
    counted = ask.lower().startswith("how")
    if plan.topic:
        return "count" if counted else "list"
    return "metadata"


def said_plainly(plan: QueryPlan) -> str:
    """The merged question in words, for the answer's record ("How many oral papers about
    diffusion models from MIT?")."""
    c = plan.constraints
    statuses = " or ".join(s.lower() for s in c.statuses)
    parts = ["How many" if plan.kind == "count" else "Which", f"{statuses} papers".strip()]
    if plan.topic:
        parts.append(f"about {plan.topic}")
    if plan.not_about:
        parts.append(f"not about {plan.not_about}")
    if c.affiliations:
        parts.append("from " + " and ".join(c.affiliations))
    if c.excluded:
        parts.append("not from " + " or ".join(c.excluded))
    if c.authors:
        parts.append("by " + " and ".join(c.authors))
    if c.text_words:
        parts.append("mentioning " + " and ".join(c.text_words))
    return " ".join(parts) + "?"
