"""Follow-up questions become standalone questions before retrieval.

With an LLM: llama-index's condense step (as in CondensePlusContextChatEngine), but the
answer still goes through the citing engine, so citations survive in chat. Without one:
a deterministic rule: a follow-up pointing at the one paper the previous answer cited
("What hardware did they use?") names it ("What hardware did Medusa use?"); otherwise the
previous question and the cited papers it points at ("the second one", "[2]") are carried
into the new query.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rag.answer.prompts import CONDENSE_PROMPT
from rag.answer.references import previous_references
from rag.plan.compared import compared_items
from rag.plan.turns import last_question
from rag.text import ORDINALS, SUPERLATIVES
from rag.types import ChatMessage

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

log = logging.getLogger(__name__)
_ORDINALS = {"first": 1, **ORDINALS, "last": -1}
# Words that point back. A bare "paper(s)" or "method" does not: "Which papers use
# diffusion?" is a new question, and rewriting it drags the previous topic into retrieval.
_FOLLOW_UP = re.compile(
    r"(\b(?:it|its|they|them|their|this|that|these|those|the (?:first|second|third|fourth|"
    r"fifth|last|former|latter|above|previous|same|paper|papers|method|approach|model|"
    r"authors)|which ones?)|\[\d+\])(?!\w)|^(and|also|what about|how about|compare|why|how so)\b",
    re.I,
)
MAX_HISTORY_CHARS = 4000


def _previous_question(history: list[ChatMessage]) -> str:
    last = last_question(history)
    return last[0] if last is not None else ""


def _last_answer(history: list[ChatMessage]) -> str:
    return next((m.content for m in reversed(history) if m.role == "assistant"), "")


# A pronoun after something the question names itself points at that: "What is GraphsGPT
# and what was it pretrained on?", "Which papers study X, and what do they find?".
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those)\b", re.I)
_ANTECEDENT = re.compile(
    r"\b(?!ICML\b|LLMs?\b)(?:[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]?\w*)\b"  # GraphsGPT, QuIP
    r"|\b(?:papers?|methods?|models?|works?|approach(?:es)?|abstracts?)\b"
)


def _points_back(question: str) -> bool:
    """Whether a pointer in the question needs the conversation: any pointer but a pronoun
    does; a pronoun does only when nothing before it in the question can be what it means."""
    for match in _FOLLOW_UP.finditer(question):
        pronoun = _PRONOUN.fullmatch(match.group(0).strip())
        if not pronoun or not _ANTECEDENT.search(question[: match.start()]):
            return True
    return False


def is_follow_up(question: str) -> bool:
    if len(question.split()) > 25:
        return False
    if not _points_back(question):  # "What does the spotlight one propose?" points too
        found = _PROPERTY_ONE.search(question)
        return (
            found is not None
            and found.group(0).lower().rstrip().endswith("one")
            and not set(found.group("what").lower().split()) & _NO_PROPERTY
        )
    # "Compare MagicLens and BAGEL" names what it compares: standalone, unless an item
    # points back ("compare [1] and [2]", "compare it and Timer").
    items = compared_items(question)
    return len(items) < 2 or any(_FOLLOW_UP.search(item) for item in items)


# Words standing for the one paper the previous answer cited: "What hardware did they use?"
_POINTER = re.compile(
    r"\b(?:(?P<possessive>its|their)|it|they|them|this (?:paper|work|method|model|one)|that "
    r"(?:paper|work|method|model|one)|the (?:paper|work|method|model|authors))\b",
    re.I,
)
NAME_CHARS = 40  # a title's part before its colon this short is the paper's name ("Medusa")


def paper_name(title: str) -> str:
    """How a question names a paper: the part of its title before a colon, else the title."""
    head = title.split(":", 1)[0].strip()
    return head if ":" in title and len(head) <= NAME_CHARS else title


def named_follow_up(question: str, title: str) -> str:
    """The follow-up with its first pointer replaced by the paper's name ("What hardware did
    Medusa use?"), or "" when it has no pointer."""
    matches = list(_POINTER.finditer(question))
    if not matches:
        return ""
    # "Who are the authors of that one?": "that one" is the paper, "the authors" its; "who
    # are the authors and where are they from?": "they" are the authors
    match = matches[0]
    if match.group(0).lower() == "the authors" and len(matches) > 1:
        of = question[match.end() : matches[1].start()]
        match = matches[1] if re.fullmatch(r"\s*(?:of|on|behind)\s*", of, re.I) else match
    name = _named(title) + ("'s" if match.group("possessive") else "")
    if match.group(0).lower() == "the authors":  # "Who are the authors?": its authors
        name = f"the authors of {_named(title)}"
    return f"{question[: match.start()]}{name}{question[match.end() :]}"


# "What about EAGLE?", "And QuIP#?": the last question asked of another named thing
_ANOTHER = re.compile(
    r"^\s*(?i:and\s+|so\s+)?(?i:(?:what|how)\s+about\s+)?(?i:the\s+)?(?P<name>[A-Z][\w#+.-]*"
    r"(?:[- ][A-Z0-9][\w#+.-]*){0,2})(?:\s+paper)?\s*\??\s*$"
)


def another_named(
    question: str, previous: str, title: str, names_paper: Callable[[str], bool] | None = None
) -> str:
    """The previous question asked of the thing this one names instead of the paper the
    last answer was about ("How much faster is Medusa-2?" → "What about EAGLE?" asks "How
    much faster is EAGLE?"); "" when the question is no such turn or the previous one did
    not name that paper."""
    found = _ANOTHER.match(question)
    if found is None or not re.match(r"(?i)\s*(?:and|so|what|how)\b", question):
        return ""
    if names_paper is not None and not names_paper(found.group("name")):
        return ""  # "What about Llama 2?" after "Does Medusa speed up Vicuna?": no paper's name
    name = paper_name(title)
    said = re.search(rf"\b{re.escape(name)}\b[\w-]*", previous)
    if said is None:
        return f"What is {found.group('name')}?"
    return f"{previous[: said.start()]}{found.group('name')}{previous[said.end() :]}"


# "the second one", "the first oral", "[2]", "paper 3": one paper of the last answer's list
_ORDINAL_POINTER = re.compile(
    rf"\b(?:the\s+)?(?P<ord>{'|'.join(_ORDINALS)})\s+(?:one|paper|oral|poster|spotlight|"
    r"result|entry|item|hit)\b|\[(?P<n>\d+)\]|\b(?:paper|number|no\.)\s*#?(?P<n2>\d+)\b",
    re.I,
)
# "compare the first two", "the first two papers": the list's opening pair
_FIRST_TWO = re.compile(r"\b(?:the\s+)?(?:first|top)\s+two(?:\s+(?:papers|ones|results))?\b", re.I)


def _named(title: str) -> str:
    """A listed paper as a follow-up names it: its title's name, or its whole title quoted
    where that name reads as two things ("RLAIF vs. RLHF")."""
    name = paper_name(title)
    # "Position: Mission Critical – …": a kind of paper before the colon, no name
    if re.search(r"\b(?:vs\.?|versus|and|or)\b", name, re.I) or name.lower() == "position":
        return f"“{title}”"
    return name


def pointed_follow_up(question: str, references: dict[int, str]) -> str:
    """The follow-up with a pointer at one paper of the last answer's list ("Who wrote the
    second one?", "Tell me more about [2]") replaced by that paper's name, or "the first
    two" by both; "" when it points at none of them."""
    two = _FIRST_TWO.search(question)
    if two and 1 in references and 2 in references:
        both = f"{_named(references[1])} and {_named(references[2])}"
        return f"{question[: two.start()]}{both}{question[two.end() :]}"
    found = _ORDINAL_POINTER.search(question)
    if found is None:
        return ""
    if found.group("ord"):
        n = _ORDINALS[found.group("ord").lower()]
        n = max(references) if n == -1 and references else n
    else:
        n = int(found.group("n") or found.group("n2"))
    if n not in references:
        return ""
    return f"{question[: found.start()]}{_named(references[n])}{question[found.end() :]}"


# a question whose answer is one paper, ranked first: "Which paper reports the largest speedup?"
_ONE_ASKED = re.compile(rf"\b{SUPERLATIVES}\b", re.I)
# an answer with one paper clearly so, listed first: "Only 1–2 … abstracts …: 1 clearly"
_ONE_FOUND = re.compile(
    r"^\s*(?:Only\s+)?1(?:–\d+)?\s+ICML\s+2024\s+(?:paper|abstract)s?\b[^\n]*?(?::\s*1\s+clearly|:[ \t]*(?:\n|$))"
)
# a pointer at one paper, not at several: "it", "that paper", "this one"
_SINGULAR = re.compile(r"\b(?:it|its|(?:this|that)\s+(?:paper|one|work|method|model))\b", re.I)


# "the spotlight one", "the time series one", "the oral paper": one paper of the last list
# told apart by its status or its title's words
_PROPERTY_ONE = re.compile(
    r"\bthe\s+(?P<what>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:one|paper|work)(?![\w-])"
    # "the spotlight one propose?", "the time series one do?"; not "the rank one update",
    # "the top one accuracy", "the one-shot pruning method"
    r"(?=\s*(?:[?.!,]|$)|\s+(?:do|does|did|is|was|propose|proposes|show|shows|say|says|use|uses|"
    r"find|finds|report|reports|claim|claims|mean|means|study|studies|about|from|by|in)\b)",
    re.I,
)
# what tells no listed paper apart: "the rank one", "the number one", "the best one"
_NO_PROPERTY = frozenset(
    "rank top number best worst fastest first second third last next other same above previous "
    "only main new old right wrong".split()
)
_LISTED_STATUS = re.compile(r"\*\s*\((Oral|Spotlight|Poster)\)\s*\[(\d+)\]")


def property_follow_up(
    question: str, history: list[ChatMessage], references: dict[int, str]
) -> str:
    """The follow-up with "the spotlight one" or "the time series one" replaced by the name
    of the one listed paper that is so ("What does the spotlight one propose?"); "" when
    none or several are."""
    found = _PROPERTY_ONE.search(question)
    if found is None or len(references) < 2:
        return ""
    what = found.group("what").lower()
    if what in _ORDINALS or set(what.split()) & _NO_PROPERTY:
        return ""
    # the papers the last answer showed in its list, with their statuses
    shown = {int(n): s.lower() for s, n in _LISTED_STATUS.findall(_last_answer(history))}
    if what in ("oral", "spotlight", "poster"):
        picked = [n for n in references if shown.get(n) == what]
    else:
        terms = [w for w in re.findall(r"[a-z0-9-]+", what) if len(w) > 2]
        picked = [
            n for n, title in references.items() if terms and all(t in title.lower() for t in terms)
        ]
    if len(picked) > 1 and shown:  # "the Mamba one": the one the asker saw, not the rest
        picked = [n for n in picked if n in shown]
    if len(picked) != 1:
        return ""
    name = _named(references[picked[0]])
    return f"{question[: found.start()]}{name}{question[found.end() :]}"


def condense_rule(
    question: str, history: list[ChatMessage], names_paper: Callable[[str], bool] | None = None
) -> str:
    """Deterministic rewrite for the extractive backend; `names_paper`: whether a name is a
    paper's own ("What about EAGLE?" asks the last question of EAGLE's paper)."""
    if not history or not is_follow_up(question):
        return question
    references = previous_references(history)
    pointed_at = pointed_follow_up(question, references) or property_follow_up(
        question, history, references
    )
    if pointed_at:  # "Who wrote the second one?", "the spotlight one": that paper, by name
        return pointed_at
    previous = _previous_question(history)
    if (
        len(references) > 1
        and 1 in references
        and (_ONE_ASKED.search(previous) or _ONE_FOUND.match(_last_answer(history)))
    ):
        # "Is that paper from industry?" after "Which of them reports the biggest speedup?":
        # the one paper that answer gave, first
        named = named_follow_up(question, references[1]) if _SINGULAR.search(question) else ""
        if named:
            return named
    if len(references) == 1:  # one paper to point at: the question names it, nothing else
        title = next(iter(references.values()))
        # "What about EAGLE?" after a question about Medusa: that question, of EAGLE
        other = another_named(question, _previous_question(history), title, names_paper)
        named = other or named_follow_up(question, title)
        if named:
            return named
    pointed: list[str] = []
    lowered = question.lower()
    for word, n in _ORDINALS.items():
        if re.search(rf"\b{word}\b", lowered) and references:
            key = max(references) if n == -1 else n
            if key in references:
                pointed.append(references[key])
    pointed += [
        references[int(n)] for n in re.findall(r"\[(\d+)\]", question) if int(n) in references
    ]
    context = pointed or list(references.values())[:2]
    parts = [question, _previous_question(history), *dict.fromkeys(context)]
    return " ".join(p for p in parts if p)


def condense_llm(question: str, history: list[ChatMessage], llm: LLM) -> str:
    if not history:
        return question
    lines = [f"{m.role}: {m.content}" for m in history[-6:]]
    text = "\n".join(lines)[-MAX_HISTORY_CHARS:]
    reply = llm.complete(CONDENSE_PROMPT.format(history=text, question=question))
    replied = str(reply.text).strip().splitlines()
    first = replied[0].strip().strip('"').strip() if replied else ""
    return first or question


class FollowUpRewriter:
    """Turns a follow-up into the standalone question retrieval needs: with the LLM when
    one is configured (falling back to the rule if it fails), else with the rule."""

    def __init__(self, llm: LLM | None) -> None:
        self.llm = llm

    def standalone(
        self,
        question: str,
        history: list[ChatMessage],
        names_paper: Callable[[str], bool] | None = None,
    ) -> str:
        if not history:
            return question
        if self.llm is not None:
            try:
                return condense_llm(question, history, self.llm)
            except Exception as exc:  # the rule is a safe fallback; answering reports LLM trouble
                log.warning("condensing the follow-up with the LLM failed: %s", type(exc).__name__)
        return condense_rule(question, history, names_paper)
