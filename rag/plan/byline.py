"""Questions about one named paper's byline and status: "Who is the second author of the
Medusa paper?", "How many authors does GaLore have?", "Which universities are the DoRA
authors from?", "Was GaLore an oral?". The catalogue answers them exactly; no abstract
says who wrote it or how it was presented.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, NamedTuple

from rag.plan.framing import WHO_WROTE
from rag.text import ORDINALS
from rag.types import QueryPlan

_ORDINAL_PLACES = {"first": 1, "lead": 1, **ORDINALS}
_PLACE = rf"(?P<place>{'|'.join(_ORDINAL_PLACES)}|last|senior)"
_AUTHORS = r"(?:co-?)?authors?|writers?"
_PAPER = r"(?P<paper>[^?]+?)"
_END = r"\s*[?.!]*\s*$"
# the frames, each naming the paper in `paper`; "place": which author
_PLACES = (
    r"(?:universit(?:y|ies)|institutions?|labs?|compan(?:y|ies)|organi[sz]ations?|"
    r"affiliations?|institutes?|schools?)"
)
_ASKED = [
    # "Who are the first and last authors of Medusa?", "Name the authors of DoRA", "Who
    # authored Vision Mamba?": all
    re.compile(
        rf"^\s*(?:(?:who(?:['’]re|\s+are|\s+were)\s+(?:the\s+)?first\s+and\s+last\s+(?:{_AUTHORS})|"
        rf"(?:name|list|give(?:\s+me)?|tell\s+me)\s+(?:all\s+)?the\s+(?:{_AUTHORS}))\s+"
        rf"(?:of|on|behind)|who\s+(?:co-?)?authored)\s+{_PAPER}{_END}",
        re.I,
    ),
    # "Who is the second author of the Medusa paper?", "Who's the senior author on GaLore?"
    re.compile(
        rf"^\s*who(?:['’]s|\s+is|\s+was)\s+(?:the\s+)?{_PLACE}[- ](?:{_AUTHORS})\s+"
        rf"(?:of|on|behind)\s+{_PAPER}{_END}",
        re.I,
    ),
    # "How many authors does the Medusa paper have?", "how many people wrote DoRA"
    re.compile(
        rf"^\s*how\s+many\s+(?:{_AUTHORS}|people|researchers|names)\s+(?:does|did|do)\s+"
        rf"{_PAPER}\s+have{_END}"
        rf"|^\s*how\s+many\s+(?:{_AUTHORS}|people|researchers|names)\s+(?:are|were|is)\s+"
        rf"(?:there\s+)?(?:on|in|behind|listed\s+(?:on|for))\s+{_PAPER.replace('paper', 'paper2')}{_END}"
        rf"|^\s*how\s+many\s+(?:people|researchers|{_AUTHORS})\s+(?:wrote|authored|co-?authored)\s+"
        rf"{_PAPER.replace('paper', 'paper3')}{_END}",
        re.I,
    ),
    # "Which universities are the DoRA authors from?", "What institution is the first author
    # of Medusa from?", "Where are the authors of GaLore based?", "the affiliations of X"
    re.compile(
        rf"^\s*(?:(?:which|what)\s+{_PLACES}|where)\s+(?:is|are|was|were|do|"
        rf"does|did)\s+(?:the\s+)?(?:{_PLACE}\s+)?(?:(?:{_AUTHORS})\s+(?:of|on|behind)\s+{_PAPER}|"
        rf"(?P<paper2>[^?]+?)\s+(?:{_AUTHORS}))\s+(?:from|at|based|work(?:ing)?(?:\s+at)?|"
        rf"affiliated\s+with|come\s+from){_END}"
        rf"|^\s*what\s+(?:are|were)\s+the\s+affiliations\s+of\s+(?:the\s+(?:{_AUTHORS})\s+of\s+)?"
        rf"(?P<paper3>[^?]+?){_END}"
        # "what institution is the Vision Mamba paper from": its authors' places
        rf"|^\s*(?:which|what)\s+{_PLACES}\s+(?:is|are|was|were)\s+(?P<paper5>(?:the\s+)?[^?]+?"
        rf"\s+paper)\s+(?:from|at|based\s+at){_END}"
        # "Which institution is KV-Runahead from?": a name the caller resolves to its paper
        rf"|^\s*(?:which|what)\s+{_PLACES}\s+(?:is|are|was|were)\s+(?P<paper6>[^?]+?)\s+"
        rf"(?:from|at|based\s+at){_END}"
        # "Which affiliations does the VideoPoet paper list?"
        rf"|^\s*(?:which|what)\s+{_PLACES}\s+(?:does|did|do)\s+(?P<paper7>[^?]+?)\s+(?:list|name|"
        rf"give|include|show|have){_END}"
        # "Which institutions are behind the GaLore paper?", "Which labs wrote DoRA?"
        rf"|^\s*(?:which|what)\s+{_PLACES}\s+(?:(?:are|were|is|was)\s+behind|wrote|authored|"
        rf"produced|published|(?:are|were|is|was)\s+on)\s+(?P<paper4>[^?]+?){_END}",
        re.I,
    ),
]
# "Was GaLore an oral?", "Is BiLLM an oral or a poster?", "What was DoRA presented as?",
# "the status of X": the named paper's status
_STATUS_ASKED = re.compile(
    r"^\s*(?:was|is|did)\s+(?P<paper>[^?]+?)\s+(?:(?:get|receive|win|land|have|accepted|"
    r"presented|selected|given|chosen)\s+(?:as\s+)?)?(?:an?\s+)?(?:oral|spotlight|poster)"
    r"(?:\s*,?\s+(?:or|and)\s+(?:an?\s+)?(?:oral|spotlight|poster))*"
    r"(?:\s+(?:paper|talk|presentation|slot))?\s*[?.!]*\s*$"
    r"|^\s*(?:what|how)\s+(?:was|is)\s+(?P<paper2>[^?]+?)\s+(?:presented|accepted)(?:\s+as)?"
    r"\s*[?.!]*\s*$"
    r"|^\s*what(?:['’]s|\s+was|\s+is)\s+the\s+(?:status|presentation\s+(?:type|format)|acceptance\s+"
    r"(?:type|status)|format|decision)\s+(?:of|for)\s+(?P<paper3>[^?]+?)\s*[?.!]*\s*$"
    r"|^\s*(?P<paper4>[^?:]+?)\s*[:–-]\s*(?:oral|spotlight|poster)(?:\s*,?\s+or\s+(?:oral|"
    r"spotlight|poster))+\s*[?.!]*\s*$"
    # "Why was GaLore only a poster?", "Why was Vision Mamba selected as an oral?": its status
    # (the reason is recorded nowhere)
    r"|^\s*why\s+(?:was|is|did|does)\s+(?P<paper6>[^?]+?)\s+(?:only\s+)?(?:(?:get|receive|win|"
    r"land|selected|accepted|chosen|picked|given|made|awarded)\s+(?:as\s+|only\s+)?)?(?:only\s+)?"
    r"(?:an?\s+)?(?:oral|spotlight|poster)(?:\s+(?:paper|talk|presentation|slot))?"
    r"(?:\s+(?:and\s+not|rather\s+than|instead\s+of|but\s+not)\s+(?:an?\s+)?(?:oral|spotlight|"
    r"poster))?\s*[?.!]*\s*$"
    # "what status did TravelPlanner get", "what track/status is 'Stop Regressing'"
    r"|^\s*what\s+(?:status|track|decision|presentation\s+(?:type|format))(?:\s*/\s*\w+)?\s+"
    r"(?:did|does|was|is)\s+(?P<paper5>[^?]+?)(?:\s+(?:get|receive|have|land|given|assigned))?"
    r"\s*[?.!]*\s*$",
    re.I,
)
# "Is the GaLore paper from Caltech?", "Caduceus is from Stanford and CMU, right?", "Medusa
# was written by researchers at Google, right?", "Was the KTO paper written by Google?": who
# the question says wrote it, checked against its byline
_RIGHT = r"\s*,?\s*(?:right|correct|isn['’]t\s+it|wasn['’]t\s+it|no|yes)?\s*[?.!]*\s*$"
_BY_PEOPLE = (
    r"(?:(?:written|authored|developed|done|published)\s+)?(?:by\s+(?:researchers|people|"
    r"authors|a\s+team|folks|someone)\s+(?:at|from)|at|by)"
)
_WHO_ASKED = re.compile(
    # "written by" first: "Was the X paper written by Y?" is not "the X paper written" by Y
    r"^\s*(?:is|was)\s+(?P<paper2>[^?]+?)\s+(?:written|authored|developed|done|published)"
    r"\s+"
    + _BY_PEOPLE.replace("(?:(?:written|authored|developed|done|published)\\s+)?", "")
    + r"\s+(?P<who2>[^?]+?)"
    + _RIGHT
    + r"|^\s*(?:is|was)\s+(?P<paper>[^?]+?)\s+(?:from|out\s+of|by)\s+(?P<who>[^?]+?)"
    + _RIGHT
    + r"|^\s*(?P<paper3>[^?,]+?)\s+(?:is|was|comes|came)\s+(?:from|out\s+of)\s+"
    r"(?P<who3>[^?,]+?)"
    + _RIGHT
    + r"|^\s*(?P<paper4>[^?,]+?)\s+was\s+"
    + _BY_PEOPLE
    + r"\s+(?P<who4>[^?,]+?)"
    + _RIGHT,
    re.I,
)
# "the Medusa paper", "the paper on GaLore": the name within
_PAPER_WORDS = re.compile(
    r"^\s*(?:the\s+)?(?:(?:paper|work|article)\s+(?:on|about|introducing|called|titled)\s+)?"
    r"(?P<name>.+?)(?:\s+(?:paper|work|article))?\s*$",
    re.I,
)


class BylineAsked(NamedTuple):
    said: str  # the paper as named ("the Medusa paper")
    name: str  # its name within ("Medusa")
    written_by: Literal["all", "first", "last", "status", "who"]
    position: int  # the author's place in the byline (2: the second author); 0: none
    who: str = ""  # who the question says wrote it ("Stanford and CMU")


def who_asked(text: str) -> BylineAsked | None:
    """ "Is the GaLore paper from Caltech?": the paper as named, and who is said to have
    written it (a person or institutions, for the caller to resolve)."""
    found = _WHO_ASKED.match(text)
    if found is None:
        return None
    groups = found.groupdict()
    said = next(g for k, g in groups.items() if k.startswith("paper") and g)
    who = next(g for k, g in groups.items() if k.startswith("who") and g)
    said = said.strip(" ?.!'\"“”‘’*")
    named = _PAPER_WORDS.match(said)
    name = named.group("name").strip(" '\"“”‘’*") if named else said
    return BylineAsked(said, name, "who", 0, who.strip(" ?.!'\"“”‘’*"))


def byline_asked(text: str) -> BylineAsked | None:
    """The byline question `text` asks of a paper it names, if any (WHO_WROTE's frames
    included: "Who wrote BiLLM?")."""
    status = _STATUS_ASKED.match(text)
    if status is not None:
        said = next(g for g in status.groupdict().values() if g).strip(" ?.!'\"“”‘’*")
        named = _PAPER_WORDS.match(said)
        return BylineAsked(
            said, named.group("name").strip(" '\"“”‘’*") if named else said, "status", 0
        )
    found = next((m for pattern in _ASKED if (m := pattern.match(text))), None)
    if found is None:
        found = WHO_WROTE.match(text)
        if found is None:
            return None
        said = text[found.end() :]
    else:
        said = next(g for k, g in found.groupdict().items() if k.startswith("paper") and g)
    said = said.strip(" ?.!'\"“”‘’*")
    place = (found.groupdict().get("place") or "").lower()
    named = _PAPER_WORDS.match(said)
    name = named.group("name").strip(" '\"“”‘’*") if named else said
    aside = re.search(r"\s*\(([^()]+)\)\s*$", name)
    if aside:  # "the paper on Mamba for vision (Vision Mamba)": the name in brackets;
        # "Timer (large time series models)": the name before its gloss
        inner = aside.group(1).strip()
        name = inner if re.search(r"[A-Z]", inner) else name[: aside.start()].strip()
    if place in ("last", "senior"):
        return BylineAsked(said, name, "last", 0)
    n = _ORDINAL_PLACES.get(place, 0)
    return BylineAsked(said, name, "first" if n == 1 else "all", n if n > 1 else 0)


# "Who wrote Medusa, and what speedup does it report?": a question about the paper's content
# joined to its byline question
_JOINED = re.compile(
    r"\s*(?:,\s*(?:and|but|plus)?(?:\s+also)?|;|\s+and(?:\s+also)?|\?(?:\s+also,?)?)\s+", re.I
)
_CONTENT = re.compile(
    r"^(?:(?:by|in|on|for|to|from|with|at|of|under|against)\s+(?=what|how|which))?"
    r"(?:what|how|which|why|where|when|does|did|do|is|are|was|were|can|could|tell|"
    r"summari[sz]e|describe|explain|give|list|name)\b",
    re.I,
)
# the content part pointing at the paper its byline part names
_POINTER = re.compile(
    r"\b(?P<its>its)\b|\b(?P<it>it)\b|\b(?P<their>their)\b|\b(?P<they>they|them)\b|"
    r"\b(?P<paper>(?:the|this|that)\s+(?:paper|work|article))\b",
    re.I,
)
_POINTER_ONLY = re.compile(
    r"^(?:it|they|them|this|that|(?:the|this|that)\s+(?:paper|work|article|one))$", re.I
)


class BylineBeside(NamedTuple):
    byline: str  # the byline question on its own ("Who wrote the Medusa paper?")
    content: str  # the rest about the paper, naming it ("what speedup does Medusa report?")
    plan: QueryPlan | None  # the byline question's plan; None: the paper only described
    said: str = ""  # the paper as the question describes it, when no name picks it


def byline_beside(
    text: str,
    byline_plan: Callable[[str], QueryPlan | None],
    kind_of: Callable[[str], str] = lambda q: "paper",
) -> BylineBeside | None:
    """A byline question joined to a question about the same paper's content, split in two
    ("How many authors does TrustLLM have, and what are its main findings?", "What does
    GaLore propose, and who wrote it?"): the catalogue answers the one, the abstract the
    other, and neither part is read as the whole. `byline_plan` plans a byline question
    that names one paper (None otherwise); `kind_of`: the plan kind of a content part. A
    paper described, not named ("Who wrote the
    paper on pipelined DNN inference, and …?"), comes back without a plan: the answer
    finds it and then says its byline."""
    body = _ASKING.sub("", text.strip().rstrip("?.! "))  # "Tell me who wrote BiLLM and …"
    body = body[:1].upper() + body[1:]
    joints = list(_JOINED.finditer(body))
    for i, joint in enumerate(joints):
        left = body[: joint.start()].strip()
        # "Which institution is behind RCGP, the robust … method, and what …": the
        # apposition between the parts is skipped
        for later in joints[i:]:
            right = body[later.end() :].strip()
            if later is not joint and _CONTENT.match(body[joint.end() : later.start()].strip()):
                break
            found = _split(left, right, byline_plan, kind_of)
            if found is not None:
                return found
    return None


def _split(
    left: str,
    right: str,
    byline_plan: Callable[[str], QueryPlan | None],
    kind_of: Callable[[str], str],
) -> BylineBeside | None:
    if not (left and right):
        return None
    plain_left = re.sub(r"\s*\([^()]*\)", "", left)  # "MIN-UCB (bandits with offline data)"
    if _IMPERATIVE.match(plain_left) and _NOUN_PART.match(right):
        right = f"what is {right}"  # "… and the number of LLMs it evaluates"
    asked = byline_asked(f"{plain_left}?") or who_asked(f"{plain_left}?")
    if asked is not None and not _POINTER_ONLY.match(asked.said):
        # "Is Genie an oral, and who wrote it?", "Is X an oral and who are the authors?":
        # two byline parts of one paper, each from the catalogue
        second = _pointed(_BARE_AUTHORS.sub(rf"\g<0> of {asked.name}", right), asked.name)
        plan = byline_plan(f"{plain_left}?") if byline_asked(second) else None
        other = byline_plan(second) if plan is not None else None
        if plan is not None and other is not None and other.written_by != plan.written_by:
            return BylineBeside(f"{plain_left}?", second, plan)
    if asked is not None and _CONTENT.match(right) and not _POINTER_ONLY.match(asked.said):
        plan = byline_plan(f"{plain_left}?")
        if plan is None:
            if not _DESCRIBED.search(plain_left):
                return None
            # "the paper on practical performance guarantees …": found by its answer
            said = asked.said
            paper = said if re.match(r"(?i)(?:the|that|this)\b", said) else f"the paper on {said}"
            return BylineBeside(f"{plain_left}?", f"In {paper}, {right}?", None, said)
        content = _pointed(right, asked.name)
        also = byline_plan(content)
        if also is not None and also.written_by == plan.written_by:
            content = ""  # "… and where are they from?": the one byline says both
        elif _of_the_authors(right):
            return None  # "… and which other papers did they write?": the authors', not its
        elif also is None and content != _asked(right) and kind_of(content) != "paper":
            return None  # "… and which other papers cite it?": no set of the paper's own
        return BylineBeside(f"{plain_left}?", content, plan)
    asked = byline_asked(f"{right}?") or who_asked(f"{right}?")
    if asked is not None and _CONTENT.match(left) and _POINTER_ONLY.match(asked.said):
        # "What does GaLore propose, and who wrote it?": the name is in the first part
        for name in _names_in(left):
            byline = re.sub(rf"\b{re.escape(asked.said)}\b", name, right, count=1)
            plan = byline_plan(f"{byline}?")
            if plan is not None:
                return BylineBeside(f"{byline[:1].upper()}{byline[1:]}?", f"{left}?", plan)
    # a byline asked of "it" ("who wrote it"), not its status ("is it an oral")
    pointed = asked is not None and asked.written_by != "status" and _POINTER_ONLY.match(asked.said)
    asks = _ASKS_SOMETHING.search(left) and kind_of(f"{left}?") == "paper"
    if (pointed or _BARE_AUTHORS.match(right)) and asks:
        # "What is the X paper about and who are the authors?", "On the Societal Impact of
        # Open Foundation Models - what are its main claims? who wrote it?": the paper the
        # first part's answer finds, then its byline
        return BylineBeside("Who wrote it?", f"{left}?", None, "it")
    return None


_ASKS_SOMETHING = re.compile(r"\b(?:what|how|which|why|tell\s+me|summari[sz]e|describe)\b", re.I)


_ASKING = re.compile(
    r"^(?:please\s+)?(?:(?:can|could)\s+you\s+)?(?:tell\s+me|let\s+me\s+know|i(?:['’]d|\s+would)\s+"
    r"like\s+to\s+know)\s+(?=who|which|what|how|whether)",
    re.I,
)
# what an imperative byline asks beside it: "Give me the authors of TrustLLM and the number
# of LLMs it evaluates"
_IMPERATIVE = re.compile(r"^\s*(?:name|list|give(?:\s+me)?|tell\s+me)\b", re.I)
_NOUN_PART = re.compile(r"^(?:the|its|their)\s+\w", re.I)
# a paper described rather than named: "the paper on …", "the … paper", "the work that …"
_DESCRIBED = re.compile(
    r"\b(?:the|that|this)\s+(?:(?:paper|work|article)\s+(?:on|about|that|which|proposing|"
    r"introducing|studying)\b|[^?]+?\s+(?:paper|work|article)\b)",
    re.I,
)


def byline_of(byline: str, said: str, title: str) -> str:
    """The byline question asked of the paper found for a description ("Who wrote the
    paper on X?" → 'Who wrote "Title"?')."""
    return byline.replace(said, f"“{title}”", 1)


def _of_the_authors(content: str) -> bool:
    """ "they", "them", "their" and no "it", "its" or "the paper": the part asks of the
    authors, not the paper."""
    said = {m.lastgroup for m in _POINTER.finditer(content)}
    return bool(said) and said <= {"they", "their"}


# "who are the authors", "who wrote it": a byline part naming no paper of its own
_BARE_AUTHORS = re.compile(r"^\s*who\s+(?:are|were)\s+(?:the\s+)?(?:co-?)?authors(?=\s*$)", re.I)


def _pointed(content: str, name: str) -> str:
    """The content part with its pointers at the paper written as its name ("what speedup
    does it report" → "what speedup does Medusa report"); a part without one ("how many
    papers are about quantization") is asked as it is."""

    def named(m: re.Match[str]) -> str:
        if m.group("its") or m.group("their"):
            return f"{name}'s"
        if m.group("it"):
            return name
        if m.group("they"):
            return f"the authors of {name}"
        return f"the {name} paper"

    return _asked(_POINTER.sub(named, content))


def _asked(content: str) -> str:
    """A part as a question of its own: "What does it propose?"."""
    return f"{content[:1].upper()}{content[1:]}?"


# capitalised runs that may name a paper ("GaLore", "Vision Mamba"), longest first
_CAPITALISED = re.compile(r"(?<![\w-])[\w-]*[A-Z][\w+-]*(?:\s+[\w-]*[A-Z][\w+-]*)*")


def _names_in(text: str) -> list[str]:
    runs = [m.group(0) for m in _CAPITALISED.finditer(text)]
    first = text.split()[0] if text.split() else ""
    return sorted((r for r in runs if r != first), key=len, reverse=True)
