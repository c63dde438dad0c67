"""Premises about where a result holds that the abstract bounds otherwise: a claim for every
case ("for any non-convex potential") where the abstract names a kind of it, another kind
of data ("voice recordings" of an image paper), another named test bed."""

from __future__ import annotations

import re

from rag.answer.claims import ASKING, YES_NO
from rag.text import content_terms, stems_match

# "for any non-convex potential", "whatever the noise level": a claim about every case
# ("across all nodes" says how a method works, not where a result holds).
_EVERY_CASE = re.compile(
    r"\b(?:(?:for|on|to|with|under)\s+(?:any|every|arbitrary)|over\s+(?:any|every)|"
    r"whatever(?:\s+the)?|regardless\s+of(?:\s+the)?)\s+((?:[\w-]+\s+){0,2}[\w-]+)",
    re.I,
)
_PHRASE_END = re.compile(
    r"\b(?:of|on|at|in|to|for|with|and|or|is|are|was|were|does|do|can|that|which|where|"
    r"when|as|by|from|so|but|then|its|their)\b",
    re.I,
)
# An abstract that claims every case too: "for all SNR regimes", "general graphs",
# "distribution-agnostic", "a wide range of".
_ALL_CASES = re.compile(
    r"\b(?:any|all|every|each|arbitrary|general|generic|universal|universally|broad|wide|"
    r"whatever|regardless|no matter|agnostic|free|independent|various|varying|different|"
    r"diverse|many|most)\b",
    re.I,
)
SCOPE_WINDOW = 4  # words between a universal word and the thing it ranges over
# Said of every case wherever it stands in the sentence: "regardless of the nature of …"
_EVERY_WAY = re.compile(
    r"\b(?:regardless of|irrespective of|no matter|for (?:all|any|every)|whatever)\b", re.I
)
# A sentence that bounds where its claim holds: "in the noiseless setting", "under some
# assumptions", "for data coming from a mixture of …".
_SOME_CASES = re.compile(
    r"\b(?:only|under|assum\w*|settings?|cases?|class(?:es)?|famil(?:y|ies)|mixtures?|"
    r"special|restricted|specific|certain|particular|some|provided|coming from|"
    r"(?!regard)\w+less)(?![\w-])|\\le(?:q)?\b|≤|\\ge(?:q)?\b|≥",  # "with $\\beta\\le 2$"
    re.I,
)


def _narrowed(sentence: str, stems: frozenset[str], asked: set[str]) -> bool:
    """The sentence writes the thing with a modifier the question does not have ("linear
    models" for "any model class"): a kind of it, not every one."""
    words = re.findall(r"[\w-]+", sentence)
    for i, word in enumerate(words[1:], start=1):
        if any(stems_match(t, stems) for t in content_terms(word)):
            before = content_terms(words[i - 1])
            if before and not set(before) & (asked | stems) and words[i - 1].isalpha():
                return True
    return False


def overgeneral(question: str, sentences: list[str]) -> str:
    """The sentence that writes the thing a question claims of every case, when no
    sentence claims it of every case ("for any non-convex potential" against "for
    non-convex periodic functions")."""
    if YES_NO.search(question):
        return ""  # "Did it succeed on every single task?" asks whether, it claims nothing
    for claim in _EVERY_CASE.finditer(question):
        phrase = _PHRASE_END.split(re.sub(r"^(?:whether|if)\s+", "", claim.group(1)), 1)[0]
        stems = frozenset(t for t in content_terms(phrase) if len(t) >= 4)
        if not stems:
            continue
        writing: list[str] = []
        for sentence in sentences:
            words = re.findall(r"[\w-]+", sentence)
            places = [
                i
                for i, w in enumerate(words)
                if any(stems_match(t, stems) for t in content_terms(w))
            ]
            if not places:
                continue
            near = " ".join(
                " ".join(words[max(0, i - SCOPE_WINDOW) : i + SCOPE_WINDOW + 1]) for i in places
            )
            if _ALL_CASES.search(near) or _EVERY_WAY.search(sentence):
                return ""  # the abstract says it of every case too
            writing.append(sentence)
        asked = set(content_terms(question))
        # a sentence saying where the claim holds; else one naming a kind of the thing
        bounded = [s for s in writing if _SOME_CASES.search(s)] or [
            s for s in writing if _narrowed(s, stems, asked)
        ]
        if bounded:  # the one most about what the question asks
            return max(bounded, key=lambda s: len(asked & set(content_terms(s))))
    return ""


# Kinds of data, each a group of kinds a paper is about one of: "voice recordings" asked of
# a paper on images, "protein networks" of one on citation networks.
_DOMAINS = (
    {
        "image": r"images?|photos?|photographs?|pictures?|pixels?|vision|visual|imagenet|cifar",
        "video": r"videos?|vision|visual",
        # "sounds interesting", "her voice": only as data
        # "symbolic music" (piano rolls, MIDI) is no audio
        "audio": r"audio|speech|(?<!symbolic )music|acoustic|spoken|(?:voice|sound) (?:recordings?|data|signals?)",
        "symbolic music": r"symbolic music|piano[- ]rolls?|midi",
        "graph": r"graphs?|node[- ]classification",
        "tabular": r"tabular",
        "touch": r"tactile|touch|haptic",
    },
    {
        "citation": r"citation",
        "social": r"social networks?",
        "biology": r"protein|proteins|genes?|gene regulatory|molecular",
        "traffic": r"traffic|road networks?",
    },
)


# each group's kinds compiled once (they are read for every rare word of a question)
_KINDS = tuple(
    {kind: re.compile(rf"\b(?:{words})\b", re.I) for kind, words in group.items()}
    for group in _DOMAINS
)


def same_kind_of_data(word: str, text: str) -> bool:
    """ "photos" of an abstract on "images": one kind of data in other words."""
    return any(
        kind.fullmatch(word) and kind.search(text) for group in _KINDS for kind in group.values()
    )


def other_domain(question: str, sentences: list[str], title: str) -> str:
    """The sentence showing the paper works on another kind of data than the question says
    ("voice recordings" of an image-anonymization metric)."""
    sentences = [s for s in sentences if not _URL.search(s)]  # "a demo video is at https://…"
    text = " ".join([title, *sentences]).lower()
    asked = question.lower()
    for group, kinds in zip(_DOMAINS, _KINDS, strict=True):
        said = {k for k, kind in kinds.items() if kind.search(asked)}
        written = {k for k, kind in kinds.items() if kind.search(text)}
        if said - written and written - said:  # "audio" of a vision-and-touch paper
            other = "|".join(group[k] for k in written)
            return next(
                (s for s in [title, *sentences] if re.search(rf"\b(?:{other})\b", s.lower())), ""
            )
    return ""


# "on the cutting stock problem" against "On the graph coloring problem, we show …"
_TESTBED = re.compile(
    r"\b(?:on|for|in|with)\s+(?:the\s+)?(?P<name>(?:[\w-]+\s+){0,3}?[\w-]+)\s+"
    r"(?P<kind>problem|benchmark|dataset|game|environment)s?\b",
    re.I,
)
_ANY_TESTBED = frozenset(
    content_terms(
        "several standard various popular common widely used public multiple diverse "
        "challenging real world synthetic many different benchmark established classic "
        "existing new large scale small well known these those our two three four five six "
        "seven eight nine ten dozen numerous"
    )
)
_TESTED = re.compile(
    r"\b(?:show|shows|experiment|experiments|evaluat\w*|demonstrat\w*|achiev\w*|results?|"
    r"outperform\w*|test\w*|empirical\w*)\b",
    re.I,
)


def other_testbed(question: str, sentences: list[str], title: str) -> str:
    """The sentence reporting the test on another named problem or benchmark than the one
    the question names, whose words the abstract never writes."""
    written = set(content_terms(" ".join([title, *sentences])))
    for asked in _TESTBED.finditer(question):
        words = [w for w in content_terms(asked.group("name")) if w not in ASKING]
        if len(words) < 2 or any(stems_match(w, frozenset(written)) for w in words):
            continue  # "the same problem", or one the abstract writes
        kind = asked.group("kind").lower()
        for sentence in sentences:
            for said in _TESTBED.finditer(sentence):
                other = set(content_terms(said.group("name"))) - ASKING - _ANY_TESTBED
                # "several standard benchmarks", "eight benchmarks" name none
                named = other and not any(c.isdigit() for c in said.group("name"))
                if said.group("kind").lower() == kind and named and _TESTED.search(sentence):
                    return sentence
    return ""


_URL = re.compile(r"https?://|www\.|github", re.I)
