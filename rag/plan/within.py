"""A topic within a topic, asked in two parts or with "also": "How many papers are about
diffusion models, and how many of them are about video?", "Which papers on graph neural
networks are also about molecules?", "Of the federated learning papers, which ones deal
with differential privacy?". Each is asked as one two-facet topic ("papers about X together
with Y"), which the facet reader splits and judges facet by facet; read as one phrase, the
second part was dropped or glued to the first ("graph neural networks are also about
molecules").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

_ABOUT = (
    r"(?:about|on|related\s+to|concerned\s+with|deal(?:s|ing)?\s+with|involv(?:e|es|ing)|"
    r"us(?:e|es|ing)|appl(?:y|ies|ied|ying)(?:\s+to)?|stud(?:y|ies|ying)|address(?:es|ing)?|tackl(?:e|es|ing)|"
    r"focus(?:es|ing)?\s+on|consider(?:s|ing)?|work(?:s|ing)?\s+on|rel(?:y|ies|ying)\s+on|"
    r"build(?:s|ing)?\s+on|leverag(?:e|es|ing)|employ(?:s|ing)?|exploit(?:s|ing)?)"
)
_ASK = r"(?P<ask>how\s+many|which|what|list|show(?:\s+me)?|find|give\s+me)"
_VENUE = r"(?:(?:the\s+)?ICML(?:\s+2024)?\s+)?"
_Y = r"(?P<y>[^?,;]+?)"
_END = (
    r"(?P<rest>\s*,?\s*and\s+(?:how\s+many\s+(?:are\s+there|of\s+them\s+are\s+there)|"
    # "…, and which ones (are they)?": the list with the count
    r"(?:which|what)(?:\s+ones|\s+papers)?(?:\s+are\s+(?:they|those|these))?)"
    # "… — which are they?"
    r"|\s*[—–-]+\s*(?:which|what)\s+(?:are\s+they|ones|papers))?\s*[?.!]*\s*$"
)
_PATTERNS = [
    # "How many papers are about X, and how many of them are (also) about Y?"
    re.compile(
        rf"^\s*(?:how\s+many|which|what)\s+{_VENUE}papers\s+(?:are|were)\s+(?:about|on)\s+"
        rf"(?P<x>[^?,;]+?)\s*[,;]?\s+and\s+{_ASK.replace('ask', 'ask2')}\s+(?:ones\s+|of\s+"
        rf"(?:them|those|these)\s+)(?:are\s+|were\s+|also\s+)*{_ABOUT}\s+{_Y}{_END}",
        re.I,
    ),
    # "Which papers on X are also about Y?", "How many papers about X also use Y?", "How
    # many papers on X are about Y?"
    re.compile(
        rf"^\s*{_ASK}\s+{_VENUE}papers\s+(?:on|about)\s+(?P<x>[^?,;]+?)\s+(?:(?:that|which)\s+)?"
        rf"(?:(?:are|were|do|does)?\s*also\s+(?:are\s+)?|are\s+|were\s+)?{_ABOUT}\s+{_Y}{_END}",
        re.I,
    ),
    # "Which X papers are also about Y?", "reinforcement learning papers that also use
    # transformers", "graph neural network papers about molecules"
    re.compile(
        rf"^\s*(?:{_ASK}\s+)?(?:are\s+)?{_VENUE}(?P<x>[\w-]+(?:\s+[\w-]+){{0,4}}?)\s+papers\s+"
        rf"(?:(?:that|which)\s+)?(?:(?P<also>(?:are\s+|were\s+)?also)\s+(?:are\s+)?|are\s+|were\s+)?"
        rf"{_ABOUT}\s+{_Y}{_END}",
        re.I,
    ),
    # "Of the federated learning papers, which ones deal with differential privacy?", "Among
    # papers on LLMs, which deal with healthcare?"
    re.compile(
        rf"^\s*(?:of|among)\s+(?:(?:(?:the|all\s+the|all)\s+)?(?P<x>[^?,;]+?)\s+papers|(?:the\s+)?"
        rf"papers\s+(?:on|about)\s+(?P<x2>[^?,;]+?))\s*,?\s*"
        rf"{_ASK.replace('ask', 'ask2')}(?:\s+ones|\s+of\s+them)?\s+(?:are\s+|were\s+|also\s+)*"
        rf"{_ABOUT}\s+{_Y}{_END}",
        re.I,
    ),
]
# not a topic: a status or an institution narrows the first part ("…, and which of them
# are orals?", "… from MIT"), and the first part's own reading handles those
_NOT_TOPIC = re.compile(r"\b(?:orals?|spotlights?|posters?|position|from|by|authors?)\b", re.I)
_LEAD_WORDS = frozenset("which what list show find give how the all icml".split())
# a clause, not a topic, before "papers" ("institution has the most", "A and")
_CLAUSE = re.compile(
    r"\b(?:has|have|had|the|most|more|fewer|is|are|was|were|do|does|did|published|wrote|get|"
    r"got|give|me|show|list|find|papers?)\b|\b(?:and|or)\s*$",
    re.I,
)
# words before "papers" that pick no topic ("recent papers that use X", "three papers", "a
# few papers", "survey papers"): any of them, and x is no topic
_NO_TOPIC = frozenset(
    "a an one two three four five six seven eight nine ten dozen couple few several some "
    "many more most these those such good great cool key main top best interesting "
    "relevant related accepted important notable famous recent new newest latest other "
    "industry industrial academic survey surveys benchmark position theoretical theory "
    "empirical review application applied".split()
)


def two_facets(first: str, second: str) -> str:
    """One topic of two facets, as the facet reader splits it ("diffusion models with video")."""
    return f"{first} with {second}"


class Within(NamedTuple):
    question: str  # asked as one topic of two facets ("Which papers are about X with Y?")
    first: str  # X where its papers are asked first ("How many … X, and how many of them …")


def topic_within(
    question: str, known: Callable[[str], bool], written: Callable[[str], bool] | None = None
) -> str | None:
    """The question asked as one topic of two facets ("How many papers are about X with
    Y?"), or None. `known`: whether a name is an author or institution the catalogue holds
    ("Which Google papers are about RL?" is Google's RL papers, not a topic)."""
    within = read_within(question, known, written)
    return within.question if within else None


def first_asked(question: str, known: Callable[[str], bool]) -> str:
    """The first topic of a question that asks its papers and then those of them about
    another ("How many papers are about X, and how many of them are about Y?", "Of the X
    papers, which …"): X, whose own count the answer says first; "" otherwise."""
    within = read_within(question, known)
    return within.first if within else ""


def read_within(
    question: str, known: Callable[[str], bool], written: Callable[[str], bool] | None = None
) -> Within | None:
    """A topic within a topic, if the question asks one: see topic_within, first_asked.
    `written`: whether some abstract writes a word ("Waht papers use RL" names no topic)."""
    for at, pattern in enumerate(_PATTERNS):
        found = pattern.match(question)
        if found is None:
            continue
        x = (found.group("x") or found.groupdict().get("x2") or "").strip()
        y = found.group("y").strip()
        if _NOT_TOPIC.search(x) or _NOT_TOPIC.search(y) or known(x) or known(y):
            return None
        groups = found.groupdict()
        typed = x if found.start("x" if found.group("x") else "x2") else x[:1].lower() + x[1:]
        one_name = " " not in x and not typed.islower()  # "Bandit papers …" starts a sentence
        if "also" in groups and not groups["also"] and one_name:
            return None  # "Which LLM papers are about code": a name may be a lab's; ask "also"
        said = x.lower().split()
        if written is not None and not all(written(w) for w in said):
            return None
        if said[0] in _LEAD_WORDS or set(said) & _NO_TOPIC or _CLAUSE.search(x) or x[:1].isdigit():
            return None  # "which institution has the most papers on X": a ranking
        asks = " ".join(filter(None, [groups.get("ask"), groups.get("ask2"), groups["rest"]]))
        # "How many papers are about X, and which …": the count asked first
        asks = f"{question[: found.start('x' if found.group('x') else 'x2')]} {asks}"
        lead = "How many" if re.search(r"how\s+many", asks, re.I) else "Which"
        first = x if at in _TWO_PARTS else ""
        return Within(f"{lead} papers are about {two_facets(x, y)}?", first)
    return None


_TWO_PARTS = (0, 3)  # the patterns asking the first topic's papers, then some of them


# "List the papers on machine unlearning, then the ones on watermarking.", "How many papers
# are about A, and how many about B?": two sets, each asked on its own
_TWO = re.compile(
    r"^\s*(?P<lead>list|show(?:\s+me)?|give\s+me|find|which|what|how\s+many)\s+(?:all\s+)?"
    r"(?:the\s+)?(?:ICML\s+(?:2024\s+)?)?papers\s+(?:are\s+|were\s+)?(?:on|about)\s+"
    r"(?P<a>[^,?;]+?)(?P<joint>\s*,\s*(?:and\s+)?(?:then\s+)?|\s*;\s*(?:then\s+)?|\s+and\s+"
    r"(?:then\s+)?|\s+then\s+)(?:(?P<lead2>how\s+many|which|list|show(?:\s+me)?|give\s+me)\s+)?"
    r"(?P<noun2>(?:all\s+)?the\s+(?:ones|papers)|papers|ones)?\s*(?:are\s+|were\s+)?(?:on|about)\s+"
    r"(?P<b>[^?;]+?)\s*[?.!]*\s*$",
    re.I,
)


# "Compare the number of papers on federated learning and on differential privacy", "Are
# there more papers on A or on B?": both counts
_COUNTS_COMPARED = re.compile(
    r"^\s*(?:compare\s+(?:the\s+)?(?:number|count)s?\s+of\s+(?:ICML\s+(?:2024\s+)?)?papers|"
    r"(?:are\s+there|were\s+there)\s+more\s+(?:ICML\s+(?:2024\s+)?)?papers)\s+(?:on|about)\s+"
    r"(?P<a>[^,?;]+?)\s*,?\s+(?:and|or|with|to|vs\.?|versus|than)\s+(?:those\s+|papers\s+|the\s+ones\s+)?"
    r"(?:on|about)\s+(?P<b>[^?;]+?)\s*[?.!]*\s*$",
    re.I,
)


def two_sets(question: str, known: Callable[[str], bool]) -> tuple[str, str] | None:
    """The two set questions a question joins ("List the papers on A, then the ones on
    B": "Which papers are about A?", "Which papers are about B?"), or None; not a topic
    within a topic ("…, and which ones are about video?")."""
    counted = _COUNTS_COMPARED.match(question)
    if counted is not None:  # two counts, side by side
        a, b = counted.group("a").strip(), counted.group("b").strip()
        return f"How many papers are about {a}?", f"How many papers are about {b}?"
    found = _TWO.match(question)
    if found is None or topic_within(question, known) is not None:
        return None
    a, b = found.group("a").strip(), found.group("b").strip()
    said_twice = found.group("lead2") or found.group("noun2") or "then" in found.group("joint")
    if not said_twice:
        return None  # "papers about A and about B": both, one set
    if _NOT_TOPIC.search(b) or re.search(r"\b(?:them|those|these)\b", f"{a} {b}", re.I):
        return None  # "…, and which of them are orals?": one set, narrowed
    lead = "How many" if found.group("lead").lower().startswith("how") else "Which"
    second = found.group("lead2") or found.group("lead")
    lead2 = "How many" if second.lower().startswith("how") else "Which"
    return f"{lead} papers are about {a}?", f"{lead2} papers are about {b}?"
