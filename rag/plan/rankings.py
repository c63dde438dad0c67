"""Papers and institutions ranked: "the paper with the longest author list", "What's the
shortest title?", "Which universities had the most orals?".

What the parser reads of such a question: the ranking, how many it keeps, and the question
without the ranking's words (what remains are its constraints: a status, a title word).
Rankings of authors by their papers stay in the parser, beside the names they rank.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rag.text import SPELLED_VALUES
from rag.types import Ranking

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
    r"(?:institutions?|universit(?:y|ies)|compan(?:y|ies)|firms?|labs?|orgs?|"
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
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:institution|university|company|firm|lab|"
    r"organi[sz]ation|affiliation|school)\b(?!s)",
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
    if places:  # "Which universities had the most orals?": the ranking's words
        text = _MOST_PAPERS.sub(" ", text[: places.start()] + " " + text[places.end() :])
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
        ranking = (
            "universities"
            if re.search(r"\b(?:universit|school)", noun)
            else "companies"
            if re.search(r"\b(?:compan|firm|industry)", noun)
            else "institutions"
        )
        top = top or _N_PLACES.search(question)
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
