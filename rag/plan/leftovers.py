"""What is left of a question once its names and filters are read: the asker's own words
("Can you check how many", "I'm writing a reference letter for …", another language's),
a byline place or an author count said in words no frame reads ("takes the final author
spot", "a team of more than 10 people"), and the topic that remains."""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.catalogue.catalogue import Catalogue
from rag.plan.framing import CJK_LETTERS
from rag.plan.people import record_author
from rag.plan.rankings import COUNT_WORDS, count_said
from rag.text import ORDINALS, content_terms
from rag.types import PlanConstraints, Unresolved

GENERIC_TOPIC = {"paper", "author", "publish", "icml", "2024", "accept", "conferenc", "number",
                  # who and what a metadata question asks of ("someone from X", "got an oral")
                  "someon", "somebodi", "anyon", "peopl", "person", "got", "get", "receiv",
                  "involv", "includ", "either", "neither", "everi", "each",
                  # "in total", "altogether", "came out of"; a company's "Inc."
                  "total", "altogeth", "overal", "combin", "came", "come", "inc", "ltd", "llc",
                  "corp", "gmbh",
                  # "the word 'X' in the title", "everything from CISPA", "research labs"
                  "word", "term", "everyth", "anyth", "somewher", "anywher", "affili", "research", "lab", "laboratori",
                  # "an oral presentation", "a spotlight talk"; "collaborations between X and Y"
                  "present", "talk", "collabor",
                  # "among the authors", "this year", "Many thanks", "wrote"
                  "among", "year", "thank", "thanks", "pleas", "wrote", "write", "written",
                  # "submissions got accepted as an oral", "selected for", "given a spotlight"
                  "submiss", "select", "given", "time",
                  # "did he co-author", "I picked X", "people in Adelaide"
                  "he", "she", "him", "her", "pick", "one", "work", "titl", "group", "team",
                  # "what's the tally", "make it to oral", "the fewest", "break down … by status"
                  "talli", "make", "fewest", "most", "more", "fewer", "break", "status",
                  # "pubs", "the X folks", "made it into", "got in", "this year", "appear"
                  "pub", "folk", "made", "appear", "least", "newest", "oldest", "latest",
                  # "joint papers of A and B", "A and B … combined", "anyone from X"
                  "joint", "contribut", "mention", "public", "articl", "need", "academ",
                  # "what the paper … was called", "ever"
                  "call", "ever", "stuff",
                  "bring", "brought",
                  # "on the byline", "credited on", "named last", "what's the count", "that
                  # place", "the group's output", "what turns up", "how active … paper-wise",
                  # "had a hand in", "behind any papers", "look like"
                  "bylin", "credit", "name", "place", "output", "record", "turn",
                  "activ", "wise", "fine", "hand", "behind", "look", "ie"}  # fmt: skip
# the asker's words beside a name, which alone may still be a topic ("abstraction",
# "hitting times"): "next: X — drop the posters", "Quick tally please: … how many hits?",
# "grab whatever ICML 2024 has with 'w' in the title", "X's lineup … look like"
_BESIDE_NAMES = frozenset(
    {"abstract", "like", "next", "quick", "hit", "whatev", "grab", "rundown", "lineup", "plenti",
     "rack", "figur", "enough"}
)  # fmt: skip


def left_beside_names(
    question: str,
    typed: str,
    topic: str,
    similar: bool,
    constraints: PlanConstraints,
    unresolved: list[Unresolved],
    catalogue: Catalogue,
    doc_freq: Callable[[str], int] | None,
    tidy: Callable[[str], str],
) -> tuple[str, str]:
    """What is left of a question once its names and filters are read: the topic it
    asks about, and the words said as not read (another language); a byline place, an
    author count or an institution found in it goes into `constraints`."""
    unread = ""
    c = constraints
    if topic and (c.authors or c.affiliations or c.first_author or c.last_author or c.any_of):
        # "A friend of mine just took a job at X. How many papers did that place get?": the
        # sentence before the question is its context, no topic
        topic = re.split(r"(?<=\w)[.!?]\s+(?=[A-Z])|\s+\.\s+(?=[A-Z])", topic)[-1]
    said = _byline_said(question, constraints) if topic and not similar else ""
    if said:  # "ever the last an": that place's words out, a topic beside them kept
        spoken = {w.lower() for w in re.findall(r"[\w-]+", said)}
        kept = [
            w
            for w in topic.split()
            if w.lower().strip(",.?!") not in spoken and not set(content_terms(w)) & _BYLINE_TERMS
        ]
        rest = re.sub(_DANGLING, "", " ".join(kept))
        topic = "" if set(content_terms(rest)) <= ASKERS_WORDS else tidy(rest)
    placed = constraints.first_author or constraints.last_author or constraints.position
    if topic and placed and set(content_terms(topic)) <= _BYLINE_TERMS:
        topic = ""  # "…, i.e. last in the byline": the place said again
    sized = constraints.min_authors or constraints.max_authors
    if topic and sized and set(content_terms(topic)) <= _BYLINE_TERMS | _TEAM_TERMS:
        topic = ""  # "big-team efforts (over 10 authors)": the count said again
    situated = _SITUATED.match(topic) if topic and not similar else None
    if situated and situated.group("what") and _BACK.search(question):
        # "I'm working on LLM alignment; which papers did X write about it?": about that
        topic = situated.group("what").strip()
    c = constraints
    named = c.authors or c.affiliations or c.first_author or c.last_author or c.any_of
    if topic and not similar and not named and not unresolved:
        # "Apa saja makalah dari Sharif University of Technology yang diterima di …",
        # "MediaTek: number of", "NAVER stuff", "Hanyang University and KIAS", "cener for
        # ai safety": nothing read but known institutions' names (one misspelt, in lower
        # case), beside the asker's words
        places, rest, typed_as = _places_left(topic, catalogue, doc_freq)
        if places and (
            not re.search(r"\w", rest)
            or asker_words_left(rest, PlanConstraints(affiliations=places), doc_freq)
        ):
            constraints.affiliations += places
            constraints.read_as.update(typed_as)
            topic = rest
    if topic and not similar and not named and not unresolved and not constraints.affiliations:
        # "nikita dikov icml 2024 - what did they publish?": a misspelt name opening the
        # question before a dash, beside the asker's words
        topic = _person_left(topic, constraints, catalogue, doc_freq)
    left = asker_words_left(topic, constraints, doc_freq) if topic and not similar else ""
    if left:
        # "Would you mind telling me which of" beside a name: the asker's words, no
        # topic; words in another language are said as unused, an English topic among
        # them kept ("… dari University of Tokyo tentang graph neural networks?")
        english = english_run(topic, doc_freq) if left == "unread" else ""
        unread, topic = (topic if left == "unread" else ""), english
    if _CJK.search(typed) and not topic and not constraints.is_empty():
        unread = unread or "words in another script"  # "Papers from KAIST on 언어 모델"
    return topic, unread


def asker_words_left(
    topic: str, constraints: PlanConstraints, doc_freq: Callable[[str], int] | None
) -> str:
    """Whether what is left beside a named person, institution or title word is the
    asker's own words (I, you, "how many", another language), which no topic holds."""
    c = constraints
    named = c.authors or c.first_author or c.last_author or c.affiliations or c.any_of
    if not (named or c.title_words):
        return ""
    if not re.search(r"\w", topic):
        return "chat"  # nothing left but punctuation
    if not re.search(r"[A-Za-z]", topic):
        return "unread"  # "Сколько на": words in another script
    if _SITUATED.match(topic):
        return "chat"  # "I'm writing a reference letter for …": the asker's situation
    terms = [t for t in content_terms(topic) if t not in GENERIC_TOPIC | _BESIDE_NAMES]
    if not terms:
        return "chat"  # "What did … bring": no word a topic is made of
    # two or more, none an acronym: "rl", "gp", "T5" are topics
    words = re.findall(r"\w+", topic)
    if (
        len(words) >= 2
        and all(len(w) <= 2 for w in words)
        and not re.search(r"\d|\b[A-Z]{2}\b", topic)
    ):
        return "chat"  # "de à" of "Quels sont les articles de X à ICML 2024 ?"
    unknown = [t for t in terms if doc_freq is not None and not doc_freq(t)]
    # "Welche Beiträge hat": a sentence in another language (one or two typos are not)
    if len(unknown) >= 3 and 2 * len(unknown) >= len(terms):
        return "unread"
    # "Can you check how many", "Would you mind telling me which of": nothing left once
    # the asker's words are gone ("papers on what we can learn from GFlowNets" keeps them)
    return "chat" if _CHAT.search(topic) and set(terms) <= ASKERS_WORDS else ""


def _places_left(
    topic: str, catalogue: Catalogue, doc_freq: Callable[[str], int] | None
) -> tuple[list[str], str, dict[str, str]]:
    """The known institutions named in what is left of a question, what is left beside
    them, and the misspelt ones as typed (a lower-case name alone, with a word no abstract
    writes: "cener for ai safety", not "symbolic")."""
    said: list[str] = []
    rest = topic
    for place in list(_NAMED_PLACE.finditer(topic)):
        name = longest_place(topic, place, catalogue)
        if name and " " not in name and not written_as(name, catalogue):
            continue  # "ICL papers": initials no affiliation writes are a topic's
        if name and name in rest:
            said.append(name)
            rest = rest.replace(name, " ", 1)
    if said or topic[1:] != topic[1:].lower() or len(topic.split()) > 8:
        return said, rest, {}
    # "need titles: graduate university for avanced studies": the name may be one part
    for part in [topic, *re.split(r"\s*[:;,—–]\s*", topic)]:
        typed = re.sub(r"^\s*(?:from|by|at)\s+", "", part).strip(" ?.!")
        if not typed or len(typed.split()) > 6:
            continue
        mistyped = doc_freq is not None and any(not doc_freq(t) for t in content_terms(typed))
        corrected = catalogue.corrected_place(typed) if mistyped else None
        if corrected:
            return [corrected], topic.replace(typed, " "), {typed: corrected}
    return [], topic, {}


_OPENING_NAME = re.compile(
    r"^\s*(?P<name>[A-Za-z][\w'’.-]+(?:\s+[A-Za-z][\w'’.-]+){1,2})\s*[-—–:,]\s+"
)


def _person_left(
    topic: str,
    constraints: PlanConstraints,
    catalogue: Catalogue,
    doc_freq: Callable[[str], int] | None,
) -> str:
    """The rest of `topic` once the one catalogue person its opening words (before a dash or
    colon) fit is read into `constraints`, when nothing but the asker's words follows."""
    said = _OPENING_NAME.match(topic)
    if said is None:
        return topic
    read = PlanConstraints()
    record_author(said.group("name"), catalogue.match_author(said.group("name")), read, [])
    rest = topic[said.end() :]
    if not read.authors or not asker_words_left(rest, read, doc_freq):
        return topic
    constraints.authors += read.authors
    constraints.read_as.update(read.read_as)
    return rest


def written_as(name: str, catalogue: Catalogue) -> bool:
    """Whether some affiliation writes this one-word name itself ("NAVER", "MediaTek")."""
    said = re.compile(rf"\b{re.escape(name)}\b", re.I)
    return any(said.search(a) for a, _ in catalogue.match_institution(name).variants)


def longest_place(text: str, found: re.Match[str], catalogue: Catalogue) -> str:
    """The longest known name from `found` on, with the parts a comma or "in" adds
    ("University of California, Berkeley"); "" when the catalogue knows none."""
    tail = re.match(
        r"(?:\s*,\s*[A-Z][\w&'’.-]*(?:\s+(?:(?:of|for|and|the)\s+)?[A-Z][\w&'’.-]*)*){1,2}",
        text[found.end() :],
    )
    names = [found.group(0)]
    if tail:
        parts = re.findall(r",\s*[^,]+", tail.group(0))
        names = [found.group(0) + "".join(parts[:k]) for k in range(len(parts), 0, -1)] + names
    city = re.match(r"\s+in\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)?", text[found.end() :])
    if city:  # "Czech Technical University in Prague": a name its city ends
        names.insert(0, found.group(0) + city.group(0))
    return next((n.strip() for n in names if catalogue.knows_institution(n.strip())), "")


def english_run(text: str, doc_freq: Callable[[str], int] | None) -> str:
    """The longest run of two or more words the abstracts use, in a leftover otherwise
    of another language ("tentang graph neural networks" → "graph neural networks")."""
    if doc_freq is None:
        return ""
    words = re.findall(r"[\w-]+", text)
    known = [  # a word of its own, common in the abstracts ("de", "se" are not)
        len(w) >= 3 and bool(content_terms(w)) and all(doc_freq(t) >= 5 for t in content_terms(w))
        for w in words
    ]
    best: list[str] = []
    run: list[str] = []
    for word, ok in zip(words, known, strict=True):
        run = [*run, word] if ok else []
        best = run if len(run) > len(best) else best
    return " ".join(best) if len(best) >= 2 else ""


_BYLINE_TERMS = frozenset(
    content_terms(
        "i.e. e.g. ie eg last first final senior lead byline position list author place spot "
        "take takes took show shows showed appear appears appeared ever come comes came sit "
        "sits listed named slot team teams written wrote write people persons researchers "
        "without alone own solo single handedly coauthors co-authors "
        # "What papers did they supervise as last author?": the last place's gloss
        "supervise supervised supervising advise advised advising mentor mentored"
    )
)
_TEAM_TERMS = frozenset(
    content_terms(
        "big large small huge massive tiny effort efforts collaboration group groups crew"
    )
)
_DANGLING = r"(?:\s+(?:were|was|is|are|by|a|an|the|of|with|from|on|in|and))+$"
_ORDINAL = {"first": 1, "lead": 1, **ORDINALS, "last": -1, "final": -1, "senior": -1}
# a byline place or an author count said in words no frame above reads ("shows up third
# in the byline", "ever the final author"; "teams of a dozen or more people")
_PLACE_NEAR = re.compile(
    # "is X listed last on any paper": the place after a verb of listing
    rf"\b(?:listed|named|placed|appears?|appeared|comes?|came)\s+(?P<placed>{'|'.join(_ORDINAL)})\b"
    r"(?=\s+(?:on|in|among)\s+(?:any|an?|the|their|his|her)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:papers?|byline|author\s+list|list\s+of\s+authors|(?:co-?)?authors)\b)|"  # not "placed first in D4RL"
    # "papers (that) end with X in the author list": the place the list gives the name
    r"\b(?P<ends>end|ends|ending|start|starts|starting|begin|begins|beginning)\s+with\s+"
    r"(?:[A-Z][\w.'’-]*\s+){1,4}(?=(?:in|on|as)\s+(?:the|their)\s+(?:author\s+list|byline|"
    r"list\s+of\s+authors)\b)|"
    # "author lists that close with X", "at the front of the author list"
    r"\b(?:author\s+lists?|bylines?|lists?\s+of\s+authors)\s+(?:that\s+|which\s+)?(?P<ends2>close|"
    r"closes|closing|end|ends|ending|finish|finishes|conclude|concludes|open|opens|start|starts|"
    r"begin|begins)\s+with\b|"
    r"\b(?:at\s+)?the\s+(?P<side>front|head|start|beginning|top|end|close|tail|back|bottom)\s+of\s+"
    r"(?:the|their|its|an?)\s+(?:author\s+list|byline|list\s+of\s+authors)\b|"
    rf"\b(?P<place>{'|'.join(_ORDINAL)})(?:[- ]|\s+(?:in|on|of)\s+(?:the\s+|an?\s+)?)"
    r"(?:author(?:ed)?\b|byline\b|author\s+list\b)"  # not "first authors": others
    r"(?!\s+(?:of|on|for|students?)\b)",  # "the lead author of X's paper": asked, not a filter
    re.I,
)
_WHO_HOLDS = re.compile(r"^\s*(?:who|name|list|show\s+me\s+each)\b|\beach\s+(?:first|last)\b", re.I)
_COUNT_NEAR = re.compile(
    r"\b(?P<mod>exactly|just|only|at\s+least|more\s+than|over|fewer\s+than|less\s+than|"
    r"at\s+most|no\s+more\s+than|under)?\s*(?:an?\s+)?"
    rf"(?P<n>\d{{1,2}}|dozen|{'|'.join(COUNT_WORDS)})\s*(?P<post>or\s+more|or\s+fewer|or\s+less|\+)?"
    r"\s+(?P<co>co-?)?(?:authors?|(?<=\s)(?=\w)(?P<people>people|persons|names|researchers|writers))\b"
    # "eight authors or more": the bound said after the noun
    r"(?:\s+(?P<post2>or\s+more|or\s+fewer|or\s+less|and\s+up|and\s+above|plus)\b)?"
    # not "only one author from MIT": how many of its authors are where, which no byline says
    r"(?!\s+(?:from|at|with|in|of|listed|affiliated|based|who|that|as)\b)"
    # "a two-person author list", "three-author papers": exactly that many
    rf"|\b(?P<n2>\d{{1,2}}|{'|'.join(COUNT_WORDS)})[- ](?:person|author|name|member|people)\s+"
    r"(?:author\s+lists?|bylines?|papers?|works?|author\s+teams?)\b",
    re.I,
)


# "write any paper alone", "published without co-authors" (not "robots learning alone")
_SOLO_NEAR = re.compile(
    r"\b(?:writ\w*|wrote|publish\w*|author\w*)\b(?:\s+[\w-]+){0,4}?\s+(?P<solo>alone|"
    r"by\s+(?:him|her|them)sel(?:f|ves)|on\s+(?:his|her|their)\s+own|single-handedly|"
    r"without\s+(?:any\s+)?co-?authors)\b",
    re.I,
)
# people counted as a byline only where the question says they wrote it
_WROTE = re.compile(
    r"\b(?:writ\w*|wrote|authored|co-?authored|byline|listed\s+as\s+(?:co-?)?authors)\b", re.I
)


def _byline_said(question: str, c: PlanConstraints) -> str:
    """A byline place for the one person named, or an author count, that no frame read:
    into `c`; the word that says it (or "")."""
    placed = c.first_author or c.last_author or c.position or c.not_first or c.not_last
    if (
        len(c.authors) == 1
        and not placed
        and not c.affiliations
        and not _WHO_HOLDS.search(question)
    ):
        near = _PLACE_NEAR.search(question)
        if near:
            ends = (near.group("ends") or near.group("ends2") or "").lower()
            side = (near.group("side") or "").lower()
            closing = ends.startswith(("end", "clos", "finish", "conclu")) or side in (
                "end",
                "close",
                "tail",
                "back",
                "bottom",
            )
            said = "last" if closing else "first" if ends or side else ""
            place = _ORDINAL[(near.group("place") or near.group("placed") or said).lower()]
            if place == 1:
                c.first_author = c.authors.pop()
            elif place == -1:
                c.last_author = c.authors.pop()
            else:
                c.position = place
            return near.group(0)
    solo = _SOLO_NEAR.search(question) if len(c.authors) == 1 else None
    if solo and not (c.min_authors or c.max_authors):  # "write any paper alone"
        c.min_authors = c.max_authors = 1
        return solo.group("solo")
    counted = _COUNT_NEAR.search(question)
    if counted is None or c.min_authors or c.max_authors:
        return ""
    around = question[max(0, counted.start() - 30) : counted.end() + 30]
    if counted.group("people") and not _WROTE.search(around):
        return ""  # "negotiation with more than two people": the topic's people
    if counted.group("n2"):  # "a two-person author list": exactly two names
        c.min_authors = c.max_authors = count_said(counted.group("n2").lower())
        return counted.group(0)
    said = counted.group("n").lower()
    n = 12 if said == "dozen" else count_said(said)
    n += 1 if counted.group("co") else 0  # "with just one co-author": two names
    mod = (counted.group("mod") or "").lower()
    post = (counted.group("post") or counted.group("post2") or "").lower()
    post = "or more" if post in ("and up", "and above", "plus") else post
    if mod.startswith(("at least", "more", "over")) or post in ("or more", "+"):
        c.min_authors = n + int(mod.startswith(("more", "over")))
    elif mod.startswith(("fewer", "less", "at most", "no more", "under")) or post:
        c.max_authors = n - int(mod.startswith(("fewer", "less", "under")))
    elif mod in ("exactly", "just", "only"):
        c.min_authors = c.max_authors = n
    else:
        return ""  # "three authors" alone may be a topic's words ("three people negotiate")
    return counted.group(0)


# the asker's words, left over when a frame was not understood: no topic says them
_CHAT = re.compile(
    r"\b(?-i:I)\b|\b(?:I['’](?:m|d|ve|ll)|me|my|you|your|we|our)\b"
    r"|\bhow\s+(?:many|often)\b|\bwhich\s+of\b|\bok(?:ay)?\b|\b(?:what|how)\s+about\b"
    r"|\bwhat['’]?s\b",
    re.I,
)
_CJK = re.compile(rf"[{CJK_LETTERS}]")
_NAMED_PLACE = re.compile(
    r"\b(?:[A-Z][\w&'’.-]*\s+(?:-\s+)?){0,4}(?:University|Institute|College)"
    r"(?:\s+(?:of|for)\s+[A-Z][\w&'’.-]*(?:\s+(?:and\s+)?[A-Z][\w&'’.-]*){0,3}){0,2}"
    # a name written in capitals or run together: "NAVER", "MediaTek", "DeepMind"
    r"|\b(?:[A-Z]{2,}[\w&-]*|[A-Z][a-z]+[A-Z][\w&-]*)\b"
    # a company's capitalised words: "How active was Horizon Robotics", "Siemens researchers"
    r"|\b(?<![.!?]\s)(?<!^)[A-Z][a-z][\w&-]*(?:\s+[A-Z][\w&-]*){0,3}\b"
)
_SITUATED = re.compile(
    r"^\s*(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+\w+ing\b"
    r"(?:\s+(?:on|in|with|about|into)\s+(?P<what>[^;,.:—–]+?)(?=\s*(?:[;,.:—–]|\s+and\b|$)))?",
    re.I,
)
_BACK = re.compile(r"\b(?:about|on|for|with|in|of)\s+(?:it|them|this|that)\b", re.I)
ASKERS_WORDS = frozenset(
    content_terms(
        "can could would will please tell telling show list give check know want wanted like "
        "need find look looking see wonder wondering curious mind help thanks thank thx ok "
        "okay many often anything everything quick question hi hello hey pull get got heard "
        "gave trying work working going remind grateful called email possible collaboration "
        "before after thinking wondered ask asking asked interested care whats what "
        # "I remember a paper by X …", "Would you be able to list", "so I can read up"
        "remember recall able read"
    )
)
