"""The things a comparison names: "Compare SAMformer and Timer", "How does TDPO differ
from NLHF?", "the paper that … versus X" — each a method, a paper or a described paper,
not the papers on a topic."""

from __future__ import annotations

import re

from rag.plan.framing import VENUE

# "Compare SAMformer and Timer", "How does TDPO differ from NLHF?", "differences between X,
# Y and Z": things the question names, not the papers on a topic.
_NAMED_COMPARE = (
    re.compile(r"^\s*(?:please\s+)?(?:compare|contrast)\s+(?P<items>.+?)\s*[?.!]*$", re.I),
    re.compile(
        r"^\s*how\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+(?:differ|compare)\s+"
        r"(?:from|to|with|against)\s+(?P<b>.+?)\s*[?.!]*$",
        re.I,
    ),
    re.compile(
        r"^\s*(?:what\s+(?:are|is)\s+)?(?:the\s+)?(?:main\s+|key\s+)?differences?\s+"
        r"between\s+(?P<items>.+?)\s*[?.!]*$",
        re.I,
    ),
    re.compile(r"^\s*(?P<a>[^?]+?)\s+(?:vs\.?|versus)\s+(?P<b>[^?]+?)\s*[?.!]*$", re.I),
    # "How do Medusa and EAGLE differ?" (not "… differ in what they are built on": one aspect)
    re.compile(r"^\s*how\s+do\s+(?P<items>[^?]+?)\s+(?:differ|compare)\s*[?.!]*$", re.I),
)
NAME_WORDS = 6  # a longer item is a clause of the question, not a name
_ITEM_SPLIT = re.compile(
    r"\s*,\s*(?:and\s+|with\s+)?|\s+(?:and|with|to|against|vs\.?|versus)\s+", re.I
)
# A comparison of the papers on a topic ("compare the coreset papers") names no paper.
_TOPIC_COMPARE = re.compile(r"\bpapers\b|\bworks\b|\bapproaches\s+(?:to|of|for|in)\b", re.I)
_DESCRIBED_ITEM = re.compile(
    r"^(?:the|a)\s+(?:paper|work|method|approach)\s+(?:that|which)\b", re.I
)
_ITEM_EDGES = re.compile(
    r"^(?:the\s+(?:approaches|methods|ideas|results)\s+of\s+|the\s+methods?\s+|the\s+approach\s+"
    r"|the\s+model\s+)|(?:'s)?\s+(?:approach|method|paper)$",
    re.I,
)


def compared_items(question: str) -> list[str]:
    """The two or three things a comparison names ("SAMformer", "Timer"), or [] when the
    question compares the papers on a topic or compares nothing."""
    text = VENUE.sub(" ", question).strip()
    quoted = re.findall(r"“[^”]+”|\"[^\"]+\"", text)
    for i, title in enumerate(quoted):  # a quoted title is one item, whatever it holds
        text = text.replace(title, f"QUOTED{i}Q", 1)
    titles = {q.strip('“”"') for q in quoted}
    if quoted and not re.search(r"(?i)\b(?:compare|vs\.?|versus|differ)", text):
        return []  # "Tell me more about “RLAIF vs. RLHF: …”": one title, quoted whole
    for pattern in _NAMED_COMPARE:
        match = pattern.match(text)
        if match is None:
            continue
        found = match.groupdict()
        if found.get("items") is not None:
            items = _split_items(found["items"])
        else:  # "glide vs medusa vs lookahead decoding": each side may join more
            items = [*_versus(found["a"]), *_versus(found["b"])]
        items = [i.split(":")[0] for i in items]  # "Emory University: paper counts?"
        items = [re.sub(r"QUOTED(\d+)Q", lambda m: quoted[int(m.group(1))], i) for i in items]
        items = [_ITEM_EDGES.sub("", i).strip(" '\"“”‘’*?.,;") for i in items]
        items = [i for i in items if i]
        described = [i for i in items if _DESCRIBED_ITEM.match(i)]
        named = [i for i in items if i not in described]
        if (
            2 <= len(items) <= 4
            and not any(_TOPIC_COMPARE.search(i) for i in named)
            and all(len(i.split()) <= NAME_WORDS for i in named if i not in titles)
        ):
            return items
    return []


def _versus(side: str) -> list[str]:
    return [p.strip() for p in re.split(r"\s+(?:vs\.?|versus)\s+", side, flags=re.I) if p.strip()]


def _split_items(text: str) -> list[str]:
    """ "X, Y and Z" → three items; a described paper keeps its own "and"s only up to the
    next joining word."""
    joins = list(_ITEM_SPLIT.finditer(text))
    if _DESCRIBED_ITEM.match(text) and joins:  # "the paper that … with X": the last join
        last = joins[-1]
        return [text[: last.start()].strip(), text[last.end() :].strip()]
    for join in joins:  # "X and the paper that …": the described paper runs to the end
        if _DESCRIBED_ITEM.match(text[join.end() :]):
            return [*_split_items(text[: join.start()]), text[join.end() :].strip()]
    parts = [p for p in _ITEM_SPLIT.split(text) if p and p.strip()]
    return [p.strip() for p in parts]
