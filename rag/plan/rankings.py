"""Papers and institutions ranked: "the paper with the longest author list", "What's the
shortest title?", "Which universities had the most orals?".

What the parser reads of such a question: the ranking, how many it keeps, and the question
without the ranking's words (what remains are its constraints: a status, a title word).
Rankings of authors by their papers stay in the parser, beside the names they rank.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rag.text import ORDINALS, SPELLED_VALUES
from rag.types import Ranking

# the rankings of institutions, by kind
PLACE_RANKINGS = ("institutions", "universities", "companies", "institutes")
# Counts as questions write them ("top three", "more than twenty authors")
COUNT_WORDS = dict(sorted(SPELLED_VALUES.items(), key=lambda item: -len(item[0])))
TOP_N = re.compile(
    rf"\btop\s+(\d{{1,2}}|{'|'.join(COUNT_WORDS)})\b"
    # "the two most prolific authors"
    rf"|\b(\d{{1,2}}|{'|'.join(COUNT_WORDS)})\s+most\s+(?:prolific|productive|published)\b",
    re.I,
)


def count_said(said: str) -> int:
    """ "3" or "three" as a number."""
    return int(said) if said.isdigit() else COUNT_WORDS[said.lower()]


# "the paper with the longest author list", "which oral has the most authors": papers
# ranked by their bylines, not authors by their papers ("most authors from X" is neither)
_BYLINE_RANK = re.compile(
    # a paper that has / lists the most authors (not "cite the most authors", "handle …")
    r"(?:\b(?:has|have|had|with|lists?|listing|carr(?:y|ies))\s+(?:the\s+)?"
    r"(?:(?P<most>most|(?:largest|highest|greatest|biggest)\s+(?:number|count)\s+of)|"
    r"(?P<fewest>fewest|least|(?:smallest|lowest)\s+(?:number|count)\s+of))"
    r"\s+(?:co-?)?(?:authors|contributors)\b(?!\s+(?:from|at|of|in)\b)"
    # "the largest number of authors on an ICML 2024 paper"
    r"|\b(?P<most2>(?:largest|highest|greatest|biggest)\s+(?:number|count)\s+of)\s+"
    r"(?:co-?)?authors\s+on\s+(?:an?|one|a\s+single)\s+(?:ICML\s*(?:20)?24\s+)?paper"
    r"|\b(?:(?:has|have|had|with)\s+)?(?:the\s+)?(?:(?P<long>longest|largest|biggest|most\s+"
    r"crowded)|(?P<short>shortest|smallest))\s+(?:author(?:\s+|-)(?:lists?|teams?|line-?ups?|"
    r"counts?)|(?:lists?|numbers?|teams?)\s+of\s+(?:co-?)?authors|bylines?))\b",
    re.I,
)
# "Which institutions had the most papers?", "top 5 universities by orals", "the most
# prolific companies": institutions ranked by their papers
_PLACES_RANKED = (
    r"(?:institutions?|universit(?:y|ies)|unis?|compan(?:y|ies)|firms?|labs?|orgs?|"
    r"organi[sz]ations?|affiliations?|schools?|industry\s+labs?)"
)
# what makes a question about institutions a ranking: the most papers, the most prolific,
# coming out on top, leading; not "the most efficient attention"
_RANK_CUE = (
    # "of" may have gone with the venue ("the largest count of ICML 2024 papers")
    r"(?:most|(?:largest|highest|biggest|greatest)\s+(?:number|count)(?:\s+of)?)\s+"
    r"(?:(?:icml|2024|accepted|oral|spotlight|poster|['‘\"“][^'’\"”]+['’\"”])\s+)*"
    r"(?:papers|orals|spotlights|posters|publications|works|acceptances|titles)\b"
    r"|most\s*(?:(?:at|in)\s+ICML\s*(?:20)?24)?\s*(?:[?.!]|$)"
    r"|most\s+(?:represented|prolific|productive|often|frequent(?:ly)?)\b|rank\s+highest\b"
    r"|c[oa]me\s+out\s+on\s+top\b|\b(?:lead|led)\b|\bby\s+(?:the\s+)?(?:number|count)\s+of\b"
    r"|\bby\s+(?:oral|spotlight|poster|paper)\s+count\b"
)
_INSTITUTION_RANK = re.compile(
    # "Which (single) institution …", "Among universities, which ones …"; not "Which Fudan
    # University researchers …" (a named one's people), "Which company's LLM …"
    rf"(?:\b(?:which|what)\s+(?:(?-i:[a-z0-9])[\w-]*\s+){{0,2}}?{_PLACES_RANKED}\b"
    rf"|\bamong\s+(?:the\s+)?{_PLACES_RANKED},?\s+which(?:\s+ones?)?\b)"
    r"(?!['’]|\s+(?:of|researchers?|authors?|people|academics?|scientists?|professors?|"
    r"faculty|members?|students?)\b)"
    rf"(?=[^?]*?(?:{_RANK_CUE}))"
    # "the top 5 universities (by orals)", "Name the three institutions with the most …"
    rf"|\b(?:top|most\s+prolific|leading|biggest|most\s+productive|(?:name|list|show|give)"
    r"\s+(?:me\s+)?the)\s+"
    rf"(?:\d+\s+|(?:{'|'.join(COUNT_WORDS)})\s+)?(?:\w+\s+)?{_PLACES_RANKED}\b"
    r"(?=\s+(?:by|at|in|with|for)\b|\s*[?.!,]|\s*$)"
    rf"|\brank\s+(?:the\s+)?{_PLACES_RANKED}\b",
    re.I,
)
_MOST_PAPERS = re.compile(
    r"\b(?:are|were|is|was)\s+(?:the\s+)?most\s+(?:represented|often|frequent(?:ly)?|prolific|"
    r"productive)\b|\brank\s+highest\b|\bc[oa]me\s+out\s+on\s+top\b|\b(?:lead|led)\b(?:\s+in\b)?|"
    r"\b(?:(?:had|has|have|got|with|published|presented|contributed\s+to|was\s+on|were\s+on)\s+)?"
    r"(?:the\s+)?(?:most|(?:largest|highest|biggest|greatest)\s+(?:number|count)(?:\s+of)?)\b"
    r"|\bby\s+(?:the\s+)?(?:number|count)\s+of\b|\bby\b(?=\s+(?:oral|spotlight|poster|paper)s?\s+count\b)"
    r"|\b(?:ranked|sorted)\s+by\b|\b(?:single|counting|count|into)\b|[()]",
    re.I,
)
# "What's the shortest paper title?", "the paper with the longest title"
_TITLE_RANK = re.compile(
    # not "pick the shortest titles for news articles"
    r"\b(?:(?:has|have|had|with)\s+)?(?:the\s+)?(?:(?P<short>shortest|briefest)|longest)\s+"
    r"(?:paper\s+)?titles?\b(?!\s+(?:for|of|to)\b)"
    r"|\b(?:paper\s+)?title\s+is\s+the\s+(?:(?P<short2>shortest|briefest)|longest)\b",
    re.I,
)
_N_PLACES = re.compile(
    rf"\b(\d{{1,2}}|{'|'.join(COUNT_WORDS)})\s+(?:\w+\s+)?{_PLACES_RANKED}\b", re.I
)
# "Which university had the most orals?": the one (ties kept)
_SINGULAR_PLACE = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:institution|university|uni|company|firm|lab|"
    r"organi[sz]ation|affiliation|school)\b(?!s)"
    # "By affiliation, who led the poster count?"
    r"|\bby\s+(?:affiliation|institution|organi[sz]ation|company|university)\s*,?\s+who\s+"
    r"(?:led|leads|topped|tops|won|wins|came\s+(?:out\s+on\s+)?top)\b",
    re.I,
)
_PAPER_NOUN = re.compile(
    r"\b(?:papers?|works?|publications?|articles?|titles?|orals?|spotlights?|posters?|"
    r"submissions?)\b",
    re.I,
)
# "the 3 papers with the most authors": how many papers the byline ranking keeps
_N_PAPERS = re.compile(
    rf"\b(\d{{1,2}}|{'|'.join(COUNT_WORDS)})\s+(?:(?:icml|2024|accepted)\s+)*"
    r"(?:papers|orals|spotlights|posters|works|publications)\b",
    re.I,
)


# The general reading, where the phrasings above find nothing ("Which were the six
# institutions that collected the biggest haul of orals?", "Could you kindly list five
# institutions, ranked by …", "who are the top 3 universities"): a class of institutions
# asked for, and a superlative or an order anywhere in the question
_CLASS = (
    r"(?:(?:research\s+(?:institutes?|institutions?|labs?|organi[sz]ations?|centers?|"
    r"centres?|bodies)|non-?(?:university|academic)\s+(?:labs?|institutes?)|public\s+research"
    r"\s+(?:labs?|institutes?|bodies))|industry\s+labs?|institutions?|institutes?|"
    r"universit(?:y|ies)|unis?|compan(?:y|ies)|firms?|labs?|orgs?|organi[sz]ations?|schools?)"
)
_WORDS = "|".join(COUNT_WORDS)
_PUBLIC_CLASS = re.compile(r"\b(?:research|non-?(?:university|academic)|public)\s", re.I)
_CLASS_ASKED = re.compile(
    rf"\b(?:which|what)\s+(?:(?!(?:do|does|did|are|is|were|was|have|has|had|can|could|would|"
    rf"will|should)\b)(?-i:[a-z0-9])[\w-]*\s+){{0,3}}?{_CLASS}\b"
    r"(?!['’]|\s+(?:of|researchers?|authors?|people|academics?|scientists?|professors?|"
    r"faculty|members?|students?)\b)"
    rf"|\b(?:\d{{1,2}}|{_WORDS})\s+(?:(?-i:[a-z])[\w-]*\s+)?{_CLASS}\b"
    rf"|\b(?:list|name|give|show|rank|who\s+are)\s+(?:me\s+)?(?:the\s+)?(?:top\s+)?"
    rf"(?:(?:\d{{1,2}}|{_WORDS})\s+)?(?:(?-i:[a-z])[\w-]*\s+)?{_CLASS}\b"
    rf"|\b{_CLASS}\s+(?:ranked|sorted|ordered)\s+by\b"
    # "unis with most papers", "companies by the most orals": the class first
    rf"|^\s*{_CLASS}\s+(?:with|by|having)\s+(?:the\s+)?(?:most|highest|largest|biggest)\b"
    # "How do companies stack up on orals?", "By affiliation, who led …?"
    rf"|\bhow\s+(?:do|did|does)\s+(?:the\s+)?{_CLASS}\s+(?:stack\s+up|compare|rank|fare|measure\s+up)\b"
    r"|\bby\s+(?:affiliation|institution|organi[sz]ation|company|university)\s*,?\s+who\b"
    # "the leaderboard of institutions", "a ranking of universities"
    rf"|\b(?:leaderboard|ranking|league\s+table|standings)\s+(?:of|for)\s+(?:the\s+)?{_CLASS}\b",
    re.I,
)
# "… rather than universities or companies: which two published the most?"
_WHICH_N = re.compile(rf"\b(?:which|what)\s+(\d{{1,2}}|{_WORDS})(?:\s+ones)?\b", re.I)
# "non-university labs", "public research labs", "research institutes": that class asked
_PUBLIC_ASKED = re.compile(
    r"\b(?:non-?(?:university|academic)|public\s+research|research)\s+(?:labs?|institutes?|"
    r"institutions?|organi[sz]ations?|centers?|centres?|bodies)\b",
    re.I,
)
_ANY_CLASS = re.compile(rf"\b{_CLASS}\b", re.I)
# an order by papers: "the most at ICML", "the biggest … paper count", "top 5", "ranked";
# not "the most efficient attention" (the topic's superlative)
_SUPERLATIVE = re.compile(
    r"\b(?:most|largest|biggest|highest|greatest)\s+(?:(?!(?:\w+ed|cited|influential|important|"
    r"interesting|popular|impactful|notable|famous|promising|relevant|recent|novel|efficient|"
    r"accurate|interpretable|intelligent|robust|powerful|useful)\b)(?-i:[\w-]+)\s+){0,3}?(?:papers?|orals?|"
    r"spotlights?|posters?|publications?|works?|titles?|slots?|counts?|numbers?|totals?|tall(?:y|ies)|"
    r"hauls?|shares?|contributions?)\b"
    r"|\b(?:most|largest|biggest|highest|greatest)\b(?=\s*(?:(?:at|in|of|overall)\b|[?.!,:;]|$))"
    # "top 5", "top the list", "on top" (not "top labs": the best ones)
    rf"|\btop\s+(?:\d{{1,2}}\b|(?:{_WORDS})\b|of\b|the\b|at\b|in\b|spots?\b)|\b(?:on|at)\s+(?:the\s+)?top\b"
    r"|\b(?:leading|lead|leads|led|dominat\w*|ranked|ranking|rank|leaderboard|prolific)\b"
    r"|\bstack\s+up\b|\bout-?(?:publish|produc|number|pac)\w*\b"
    r"|\b(?:most|best)\s+(?:represented|present|visible|active)\b"
    # "more poster presentations than any other", "the biggest contributors"
    r"|\bmore\s+(?:[\w-]+\s+){0,3}?than\s+any(?:one|body|\s+other)?\b"
    r"|\b(?:most|largest|biggest|highest|greatest)\s+(?:contributors?|producers?|publishers?)\b",
    re.I,
)
# the words of such a ranking, out of what is left for its constraints and topic
_RANK_WORDS = re.compile(
    r"\b(?:the\s+)?(?:most|largest|biggest|highest|greatest|top|leading)\b(?:\s+(?:haul|share|"
    r"number|count|tally|totals?|list))?(?:\s+of)?|\b(?:ranked|sorted|ordered)\s+by\b|"
    r"\b(?:make\s+up|behind|collected?|placed|published|presented|had|have|has|got)\b|"
    r"\b(?:stack\s+up|out-?(?:publish|produc|number|pac)\w*(?:\s+(?:all|every|each)\s+(?:of\s+)?"
    r"(?:its|their|the)?\s*(?:competitors|rivals|others|peers))?)(?:\s+(?:on|in|for|by))?|"
    r"\bif\s+(?:you|we|one)\s+(?:only\s+)?(?:count|include|consider|look\s+at)\b",
    re.I,
)
# "I only need two names": how many the ranking keeps
_N_NAMES = re.compile(
    rf"\b(\d{{1,2}}|{_WORDS})\s+(?:names|entries|ones|results)\b"
    rf"|\b(?:the\s+)?first\s+(\d{{1,2}}|{_WORDS})\b",  # "give me the first six"
    re.I,
)


def _class_ranked(question: str, text: str) -> tuple[str, re.Match[str] | None, str]:
    """The general reading of an institution ranking: the text without the class asked,
    that class's words and whether it is the research bodies'."""
    if not _SUPERLATIVE.search(question):
        return text, None, ""
    asked = _CLASS_ASKED.search(text)
    if asked is None and _WHICH_N.search(text):
        # "research institutes …: which two …" (not "Out of Central South University, …
        # which one": a named one's noun)
        asked = next(
            (
                m
                for m in _ANY_CLASS.finditer(text)
                if m.group(0).islower() and not re.search(r"[A-Z][\w-]*\s+$", text[: m.start()])
            ),
            None,
        )
    if asked is None:
        return text, None, ""
    text = text[: asked.start()] + " " + text[asked.end() :]
    public = _PUBLIC_CLASS.search(asked.group(0))
    return (
        _RANK_WORDS.sub(" ", _MOST_PAPERS.sub(" ", text)),
        asked,
        public.group(0) if public else "",
    )


class Ranked(NamedTuple):
    ranking: Ranking
    top: int  # how many it keeps (ties kept at the cut); 0: as many as the answer lists


def papers_or_places_ranked(question: str, text: str, asks_who: bool) -> tuple[str, Ranked | None]:
    """The ranking of papers (by their bylines or titles) or of institutions that
    `question` asks, and `text` without its words. `asks_who`: the question asks for
    people ("Who had the most papers with the most authors?" ranks no papers)."""
    byline = _BYLINE_RANK.search(text) if _PAPER_NOUN.search(question) and not asks_who else None
    if byline:  # "the paper with the longest author list": the ranking's words
        text = text[: byline.start()] + " " + text[byline.end() :]
    places = _INSTITUTION_RANK.search(text)
    public = ""
    if places:  # "Which universities had the most orals?": the ranking's words
        text = _MOST_PAPERS.sub(" ", text[: places.start()] + " " + text[places.end() :])
    elif not byline and not asks_who:
        text, places, public = _class_ranked(question, text)
    titled = _TITLE_RANK.search(text)
    if titled:
        text = text[: titled.start()] + " " + text[titled.end() :]
    ranking: Ranking
    top = TOP_N.search(question)
    if byline:
        longest = byline.group("most") or byline.group("most2") or byline.group("long")
        ranking = "most_authors" if longest else "fewest_authors"
        top = top or _N_PAPERS.search(question)
    elif places:
        noun = places.group(0).lower()
        asked_public = _PUBLIC_ASKED.search(question)  # "non-university labs": not universities
        public = public or (asked_public.group(0) if asked_public else "")
        ranking = (
            "institutes"
            if public
            else "universities"
            if re.search(r"\b(?:universit|school|unis?\b)", noun)
            else "companies"
            if re.search(r"\b(?:compan|firm|industry)", noun)
            else "institutions"
        )
        top = top or _N_PLACES.search(question) or _WHICH_N.search(question)
        top = top or _N_NAMES.search(question)
    elif titled:
        short = titled.group("short") or titled.group("short2")
        ranking = "shortest_title" if short else "longest_title"
        top = top or _N_PAPERS.search(question)
    else:
        return text, None
    if top:
        return text, Ranked(ranking, count_said(top.group(1) or top.group(2)))
    # "which university": the one (ties kept)
    return text, Ranked(ranking, int(bool(places and _SINGULAR_PLACE.search(question))))


# the rankings a place in them may be asked of (authors and institutions by their papers)
POSITION_RANKINGS = (
    "authors", "first_authors", "last_authors", "coauthors", "institutions", "universities",
    "companies", "institutes",
)  # fmt: skip
# "ranks second", "in third place", "the second-most", "the runner-up": a place in a
# ranking, asked by its order
_ORDINAL = rf"({'|'.join(ORDINALS)})"
_ANY_ORDINAL = rf"(?:{'|'.join(ORDINALS)})"
# what may follow the place before what is counted ("… for the number of orals")
_PLACE_TAIL = (
    r"(?:\s+(?:place|spot|position))?(?:\s*,)?"
    r"(?:\s+(?:for|in|on|by|with|when\s+it\s+comes\s+to))?"
    r"(?:\s+(?:the\s+)?(?:number|count|total|tally)\s+of|\s+terms\s+of)?"
)
_POSITION = re.compile(
    # "ranks second for …", "came in third in …", "is fourth by …"
    rf"\b(?:rank(?:s|ed)?|plac(?:es|ed)|c[oa]mes?|finish(?:es|ed)?|sits?|stands?|"
    rf"(?:is|was|are|were)(?=\s+(?:in\s+|at\s+)?(?:the\s+)?{_ANY_ORDINAL}\s+(?:place|spot|"
    rf"position|for|in|on|by)\b))\s+(?:in\s+|at\s+)?(?:the\s+)?{_ORDINAL}\b{_PLACE_TAIL}"
    # "took second place in …", "in third place for …"
    rf"|\b(?:in|at|took|takes|taking|holds?|held|claims?|claimed|got|gets)\s+(?:the\s+)?"
    rf"{_ORDINAL}\s+(?:place|spot|position)\b{_PLACE_TAIL}"
    # "the runner-up in …"
    rf"|\b(?:(?:is|was|are|were)\s+)?(?:the\s+)?(?P<runner>runners?[- ]up)\b{_PLACE_TAIL}",
    re.I,
)
# "the second-most papers", "the third highest number of orals": the superlative kept
_ORDINAL_SUPERLATIVE = re.compile(
    rf"\b{_ORDINAL}[- ](?=(?:most|highest|largest|biggest|greatest)\b)", re.I
)


def rank_position(question: str) -> tuple[int, str]:
    """The place in a ranking `question` asks for ("Which author ranks second for orals?":
    2; 0: none) and the question asked of the top instead ("Which author had the most
    orals?"), for the ranking readers."""
    found = _POSITION.search(question)
    if found and question[: found.start()].strip():  # not "In the second place, which …"
        said_n = next((g for g in found.groups() if g), "")
        n = 2 if found.group("runner") else ORDINALS[said_n.lower()]
        rest = question[found.end() :]
        said = " had the most " if rest.strip(" ?.!") else " had the most papers "
        return n, question[: found.start()] + said + rest
    found = _ORDINAL_SUPERLATIVE.search(question)
    if found:
        n = ORDINALS[found.group(1).lower()]
        return n, question[: found.start()] + question[found.end() :]
    return 0, question
