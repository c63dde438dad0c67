"""What the catalogue does not record, asked as if it did. Institutions by their country,
city or region ("Chinese universities", "Hong Kong universities"): no count is claimed, and
the institutions whose names say the place are offered instead. Submissions and the
acceptance rate, citations, reviews and awards: said not to be recorded."""

from __future__ import annotations

import re

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import COUNTRIES
from rag.types import Unresolved

# institutions asked by their country, which the catalogue does not record: "Chinese
# universities", "companies in Korea", "European labs"
_NATION = (
    rf"(?:{COUNTRIES}|Europe|Asia|Africa|(?:North|South|Latin)\s+America|the\s+US|the\s+UK|"
    r"Chinese|American|Korean|Japanese|German|French|British|Canadian|Indian|Israeli|Swiss|Dutch|"
    r"Italian|Spanish|Swedish|Australian|Singaporean|Taiwanese|Belgian|Austrian|Danish|Finnish|"
    r"Norwegian|European|Asian|African|US|UK)"
)
_CLASS_NOUN = (
    r"(?:universit(?:y|ies)|unis?|institutions?|institutes?|compan(?:y|ies)|firms?|labs?|"
    r"laboratories|schools|organi[sz]ations|research\s+groups)"
)
# (the class's noun in lower case: "Chinese University of Hong Kong" is one institution)
_BY_COUNTRY = re.compile(
    rf"(?-i:\b(?P<nation>{_NATION}))\s+(?-i:{_CLASS_NOUN})\b(?!\s+(?:of|for|at)\s+[A-Z])"
    rf"|\b(?-i:{_CLASS_NOUN})\s+(?:in|from|based\s+in|located\s+in)\s+(?:the\s+)?"
    rf"(?-i:(?P<nation2>{_NATION}))\b",
    re.I,
)
# a city or region many institutions' names say: "Hong Kong universities", "labs in Beijing"
_PLURAL_CLASS = (
    r"(?:universities|unis|institutions|institutes|companies|firms|labs|laboratories|schools|"
    r"organi[sz]ations|research\s+groups)"
)
_PLACE_CLASS = re.compile(
    rf"\b(?P<place>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)\s+{_PLURAL_CLASS}\b"
    rf"|\b{_PLURAL_CLASS}\s+(?:in|from|based\s+in|located\s+in)\s+(?P<place2>[A-Z][\w-]+"
    r"(?:\s+[A-Z][\w-]+)?)"
)


# papers or their authors asked by country: "papers from china", "orals from Switzerland",
# "papers with an author in Germany", "Korean authors" (not "Korea University", nor a
# topic set in a country: "fairness for people in India", "papers written in Chinese")
_PAPERS = r"(?:papers?|orals?|spotlights?|posters?|submissions|works)"
_AUTHORS = r"(?:authors?|co-?authors?|researchers)"
_LINK = (
    r"(?:are|were|is|was|that|which|come|comes|came|coming|have|has|had|with|by|list|lists|"
    r"listing|an?|any|one|some|at\s+least|all|only|entirely|mostly|authors?|co-?authors?|"
    r"researchers|affiliated|based|located)"
)
_NATION_END = r"\b(?!\s*(?-i:[A-Z])|\s+(?:universit|institut|college|compan|lab|school|tech))"
_BY_PEOPLES_COUNTRY = re.compile(
    rf"\b(?P<who>{_PAPERS})\s+(?:{_LINK}\s+){{0,4}}(?P<prep>from|out\s+of)\s+"
    rf"(?P<nation>(?:the\s+)?{_NATION}){_NATION_END}"
    rf"|\b(?P<who2>{_AUTHORS})\s+(?:{_LINK}\s+){{0,2}}(?P<prep2>from|in|at|based\s+in)\s+"
    rf"(?P<nation3>(?:the\s+)?{_NATION}){_NATION_END}"
    rf"|(?-i:\b(?P<nation2>{_NATION}))\s+(?:authors?|researchers|co-?authors?)\b",
    re.I,
)


def asked_by_place(question: str, catalogue: Catalogue) -> Unresolved | None:
    """Institutions, papers or people asked by their country or city ("Chinese
    universities", "papers from China", "Hong Kong universities"), which the catalogue does
    not record; the institutions whose names say the place, when two or more do."""
    found = _BY_COUNTRY.search(question) or _BY_PEOPLES_COUNTRY.search(question)
    place = next(
        (g for k in ("nation", "nation2", "nation3") if found and (g := found.groupdict().get(k))),
        "",
    )
    said = " ".join(_capitalised(w) for w in place.split())  # "china" -> "China", "the uk"
    text = found.group(0) if found else ""
    if found and found.re is _BY_PEOPLES_COUNTRY and (found.group("who") or found.group("who2")):
        who, prep = (
            found.group("who") or found.group("who2"),
            found.group("prep") or found.group("prep2"),
        )
        text = f"{who.lower()} {prep} {said}"  # "papers from China"
    # "the UK", "US": a country's letters, not an acronym of institutions ("Universität Köln")
    named = catalogue.readings(said) if len(re.sub(r"(?i)^the\s+", "", place)) > 3 else []
    if found is None:
        found = _PLACE_CLASS.search(question)
        place = (found.group("place") or found.group("place2")) if found else ""
        named = catalogue.readings(place) if found else []
        if found is None or len(named) < 2:
            return None
    return Unresolved(kind="country", text=text or found.group(0), candidates=named[:8])


def _capitalised(word: str) -> str:
    if word.lower() in ("us", "uk", "usa"):
        return word.upper()
    return word if word.lower() == "the" else word[:1].upper() + word[1:]


# what the catalogue holds nothing about, asked of the conference's papers: "the acceptance
# rate of ICML 2024", "how many papers were rejected", "the most cited paper", "review
# scores", "best paper awards" (not a speculative decoder's token acceptance rate)
_UNRECORDED = (
    (
        "submissions",
        re.compile(
            r"\bacceptance\s+rates?\s+(?:of|at|for|in)\s+(?:the\s+)?(?:icml|conference|main\s+track"
            r"|papers|submissions)\b|\b(?:icml\s*(?:20)?24|conference)['’]?s?\s+acceptance\s+rates?\b"
            r"|\b(?:highest|lowest|best|worst|top|biggest|largest)\s+acceptance\s+rates?\b"
            r"|\bhow\s+many\s+(?:papers|submissions)\s+(?:were|got|was)\s+(?:rejected|submitted)\b"
            r"|\bhow\s+many\s+submissions\b|\b(?:the\s+)?rejected\s+(?:papers|submissions)\b"
            r"|\b(?:papers|submissions)\s+(?:that\s+)?(?:were|got)\s+rejected\b",
            re.I,
        ),
    ),
    (
        "citations",
        re.compile(
            r"\b(?:the\s+)?most[- ]cited\b|\b(?:most|fewest|highest\s+number\s+of|how\s+many)\s+"
            r"citations\b(?![^?]*\b(?:papers?\s+they|influencers?)\b)",
            re.I,
        ),
    ),
    (
        "reviews",
        re.compile(
            # a number of the papers' reviews, not reviews as a topic ("reward models
            # trained on review scores")
            r"\b(?:highest|lowest|best|worst|average|mean|median|top|minimum|what)\s+"
            r"(?:review(?:er)?|meta-?review)\s+(?:scores?|ratings?|grades?)\b"
            r"|\b(?:review(?:er)?|meta-?review)\s+(?:scores?|ratings?)\s+(?:of|for|did|does|do)\s+"
            r"(?:the\s+|its\s+|their\s+|an?\s+)?(?:icml|papers?|orals?|spotlights?|submissions?)\b"
            r"|\bhighest[- ]rated\s+(?:papers?|submissions?)\b|\bbest[- ]reviewed\b",
            re.I,
        ),
    ),
    (
        # topics ranked, which no label records: "which topics have the most orals", "the
        # main trends at ICML 2024", "the hottest research areas"
        "topics",
        re.compile(
            r"\b(?:which|what)\s+(?:are\s+(?:the\s+)?)?(?:research\s+)?(?:topics|areas|fields|"
            r"subfields|themes|subjects)\b[^?]*?\b(?:most|popular|common|biggest|dominant|top|"
            r"hottest|trending)\b"
            r"|\b(?:main|major|biggest|key|hot|hottest|top|dominant)\s+(?:research\s+)?"
            r"(?:trends|topics|themes|areas)\b(?!\s+(?:in|of|for|on)\s+(?!icml|the\s+conference))"
            r"|\b(?:most|more)\s+popular\s+(?:research\s+)?(?:topics?|areas?|fields?|themes?)\b",
            re.I,
        ),
    ),
    (
        "awards",
        re.compile(
            r"\b(?:best|outstanding)\s+paper\s+(?:awards?|prizes?|honou?rs?)\b"
            r"|\b(?:won|win|wins|received|got)\s+(?:an?\s+|the\s+)?(?:award|prize)s?\b"
            r"|\btest[- ]of[- ]time\s+(?:awards?|prizes?|honou?rs?)\b",
            re.I,
        ),
    ),
)


# a question about what papers study or do, where those words are its topic ("papers that
# predict review scores", "the acceptance rate of speculative tokens", "h-index of researchers")
_ABOUT_CONTENT = re.compile(
    r"\b(?:stud(?:y|ies|ying)|propos\w*|predict\w*|learn\w*|analy[sz]\w*|about|model(?:s|ed|ing)?|"
    r"estimat\w*|use|uses|using|generali[sz]\w*|speculative|tokens?|auctions?|competitions?|"
    r"datasets?|literature|researchers|methods?|reported)\b",
    re.I,
)


def asked_unrecorded(question: str) -> Unresolved | None:
    """A question about what the catalogue does not record (submissions and rejections,
    citations, reviews, awards): said so, with no count claimed."""
    if _ABOUT_CONTENT.search(question):
        return None
    found = [(what, m) for what, said in _UNRECORDED if (m := said.search(question))]
    if not found:
        return None
    text = "; ".join(m.group(0).strip() for _, m in found)
    return Unresolved(kind="unrecorded", text=text, suggestions=[what for what, _ in found])
