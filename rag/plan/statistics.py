"""Questions about the catalogue as numbers: "What fraction of ICML 2024 papers were
orals?", "How many distinct authors published?", "What is the average number of authors
per paper?", "How many institutions had papers?".

A statistic is read from two things, each said anywhere in the question: a measure (a share
of the papers; the people on them, each once; their authors per paper; how many
institutions) and the papers it is of. The measure's words are taken out and the rest is
read as the count question of the same papers ("How many papers were orals?"), whose plan
selects them; the statuses said as the papers it is of ("of the orals", "spotlights only",
"considering just the orals") are returned beside it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rag.plan.leftovers import ASKERS_WORDS
from rag.text import content_terms, edits_within_one, neighbour_swaps
from rag.types import QueryPlan, Statistic

_ICML = r"(?:icml\s*(?:20)?24|(?:the\s+)?conference)(?:['’]s)?"
_STATUS = r"(?:oral|spotlight|poster)"
# the papers a statistic is of: "ICML 2024's accepted papers", "all the oral talks", "them"
_PAPERS = (
    rf"(?:papers|publications|works|titles|submissions|everything(?:\s+accepted)?|{_STATUS}s|"
    rf"{_STATUS}\s+(?:papers|talks|presentations))"
)
_SET = re.compile(
    rf"\b(?:(?:all|every(?:\s+one)?|each)\s+(?:of\s+)?)?(?:the\s+|their\s+|its\s+)?"
    rf"(?:{_ICML}\s+)?(?:accepted\s+)?(?P<set>{_PAPERS}|title|paper|{_STATUS})\b"
    rf"|\b(?P<venue>icml\s*(?:20)?24)\b(?!['’]?s?\s+{_PAPERS})",
    re.I,
)
# a status said as the papers a statistic is of: "of the orals", "spotlights only",
# "considering just the orals", "the orals from ICML 2024: … their titles"
_BASE = re.compile(
    rf"\b(?:of|among(?:st)?|across|over|within|from|for|on|in|at|out\s+of|considering|counting|"
    rf"just|only|solely)\s+(?:(?:all|just|only|every(?:\s+one)?)\s+(?:of\s+)?)?(?:the\s+)?"
    rf"(?:{_ICML}\s+)?(?:accepted\s+)?(?P<status>{_STATUS})s?\b(?!\s+(?:status|slot|award))"
    rf"|\b(?P<status2>{_STATUS})s?(?:\s+(?:papers|talks))?\s+(?:only|alone)\b"
    # the whole said as such: "every spotlight paper", "the total number of orals"
    rf"|\b(?:all|every|each|total\s+(?:number|count)\s+of|whole|entire)\s+(?:(?:of\s+)?the\s+)?"
    rf"(?:{_ICML}\s+)?(?:accepted\s+)?(?P<status3>{_STATUS})s?\b(?!\s+(?:status|slot|award))"
    # "a randomly drawn ICML 2024 oral": the statuses a paper is drawn from
    rf"|\brandom(?:ly)?\s+(?:drawn\s+|picked\s+|chosen\s+|selected\s+)?(?:{_ICML}\s+)?"
    rf"(?P<status4>{_STATUS})\b",
    re.I,
)
# a status said as what the counted papers are: "were orals", "ended up as spotlights"
_CONDITION = re.compile(
    rf"\b(?:were|are|was|is|as|became|become|got|get|received|receive|given|won|earned|landed|"
    rf"made|make|selected\s+for|awarded)\s+(?:an?\s+|the\s+)?(?:{_STATUS})",
    re.I,
)

# the words of a share, misspelt too ("fraciton", "percentge", "propotion")
_SHARE_NOUN = (
    r"(?:fractions?|percentages?|percent|per\s*cent|pct|proportions?|portions?|share|ratio|slice|"
    r"chunk|piece|part|cut|%)"
)
_SHARE = re.compile(
    # "what fraction of", "what's the share of", "which proportion"
    rf"\b(?:what|which)\s+(?:is\s+the\s+|was\s+the\s+|['’]s\s+the\s+)?(?:{_SHARE_NOUN})"
    rf"(?:\s+of\b)?"
    # "how big a slice of", "how large a chunk of", "how much of ICML 2024"
    rf"|\bhow\s+(?:big|large|small|sizable|sizeable)\s+(?:of\s+)?(?:a|an|is\s+the|was\s+the)\s+"
    rf"(?:{_SHARE_NOUN}|piece\s+of\s+the\s+pie)(?:\s+of\b)?"
    rf"|\bhow\s+much\s+of\b"
    # "how many percent", "in percent terms", "percentage-wise", "as a percentage of"
    rf"|\bhow\s+many\s+(?:percent|per\s*cent|%)(?:\s+of\b)?"
    rf"|\b(?:in|as)\s+(?:a\s+)?(?:percent(?:age)?|per\s*cent|fraction|proportion|share|decimal|%)s?"
    rf"(?:\s+terms)?(?:\s+of\b)?"
    rf"|\b(?:percent(?:age)?|per\s*cent)[- ]?wise\b"
    # "out of every 100 accepted papers", "per hundred papers"
    rf"|\b(?:out\s+of\s+(?:every|each)|per|in\s+(?:every\s+)?)\s*(?:100|(?:a|one)\s+hundred|hundred)\b"
    # "Percentage of orals with a Google author", "the share of", "as a percentage of"
    # "siyuan li: pct of the spotlights they're on"
    rf"|(?:^\s*|(?<=[:;,—–])\s*|\s-\s+|\b(?:the|a|its|their|['’]s)\s+){_SHARE_NOUN}\s+of\b"
    # "Just the % please.", "as a %": a share asked as its unit, no number before it
    rf"|(?<![\d.])(?<![\d.]\s)%"
    # "what are the chances X is one of its authors": of a paper drawn at random, a share
    rf"|\b(?:what\s+(?:are|is|were|was|'?re|'?s)\s+)?(?:the\s+)?(?:chances?|odds|probability|"
    rf"likelihood)\s+(?:that\s+)?(?=[^?.!]*\b(?:random(?:ly)?|any|a\s+given|one\s+of)\b|"
    rf"[^?]*\brandom(?:ly)?\b)"
    # "how many orals involved X, relative to the total number of orals": part to whole
    rf"|,?\s*\b(?:relative|compared|in\s+relation|in\s+proportion|proportional)\s+(?:to|with)\s+"
    rf"(?:the\s+)?(?:total|all|whole|entire|overall|full)\b[^?.!,;]*",
    re.I,
)
# a part set against its whole, when the whole is said ("÷ all accepted papers", "normalise
# it by the overall number of accepted papers", "what did X account for among them", "what
# do the ones with X make up"): a share
_RELATION = re.compile(
    r"\s*÷\s*|\s+/\s+(?=all\b)|\b(?:vs\.?|versus)\s+(?=all\b)|\b(?:divided|normali[sz]ed?|normali[sz]ing|scaled?)\s+(?:it\s+|that\s+|them\s+)?"
    r"(?:by|against|to)\b|\b(?:i\s+want\s+it\s+|measured\s+|set\s+|taken\s+)?against\s+(?=(?:all|every|the\s+"
    r"(?:total|whole|entire|overall))\b)|\b(?:account(?:s|ed)?\s+for|make(?:s)?\s+up|made\s+up|"
    r"constitute(?:s|d)?|comprise(?:s|d)?)\b",
    re.I,
)
# the whole said: "all accepted ICML 2024 papers", "the conference's overall number of
# accepted papers", "every spotlight", "among them", "among icml 2024 orals"
_WHOLE = re.compile(
    rf"(?:\b(?:the\s+)?(?:conference|icml(?:\s*(?:20)?24)?)['’]s\s+)?"
    rf"\b(?:all|every|overall|entire|whole|total)\b[^?.!,;]{{0,50}}?\b(?:papers|titles|{_STATUS}s|"
    rf"submissions|acceptances|accepted|them)\b|\bthe\s+(?:whole|entire)\s+(?:conference|conferance|program|"
    rf"programme|event)\b|\bamong\s+(?:them|those|these|(?:the\s+)?(?:{_ICML}\s+)?"
    rf"(?:{_STATUS}s|papers|titles))\b",
    re.I,
)
# "Google's share of the papers": the papers from Google
_OWNER = re.compile(
    rf"(?P<who>(?-i:[A-Z])[\w&.-]*(?:\s+(?:of\s+)?(?-i:[A-Z])[\w&.-]*)*)['’]s\s+{_SHARE_NOUN}\s+of\b",
    re.I,
)

_PEOPLE = (
    r"(?:authors|co-?authors|researchers|people|ppl|persons|individuals|scientists|contributors|"
    r"names|humans|folks|writers|hands)"
)
_BODY = r"(?:population|pool|cohort|crowd|community|body|base|workforce)"
# people each said once, strongly enough that "how many" alone counts them ("one name badge
# per person: how many should I print?", "the union", "to reach every author")
_ONCE_STRONG_SAID = (
    r"\bper\s+(?:person|head|individual)\b|\bunion\b|\b(?:every|each)\s+(?:single\s+)?(?:author|"
    r"co-?author|person)\b"
)
_ONCE_STRONG = re.compile(_ONCE_STRONG_SAID, re.I)
_ONCE = r"(?:distinct|unique|different|diff|separate|individual|non-?duplicated|de-?duplicated)"
# "how many distinct authors", "number of unique people", "the headcount of authors"
_PEOPLE_COUNTED = re.compile(
    rf"\b(?:how\s+many|(?:the\s+)?(?:total\s+)?(?:number|count|tally)\s+of)\s+{_ONCE}\s+{_PEOPLE}\b"
    rf"|\b(?:the\s+|a\s+)?(?:total\s+)?(?:head\s*-?count|number\s+of\s+heads)(?:\s+of\s+{_PEOPLE})?\b"
    rf"|\b(?:how\s+many|(?:the\s+)?(?:total\s+)?(?:number|count)\s+of)\s+{_PEOPLE}\b"
    # "the size of the combined author roster"
    rf"|\b(?:(?:what(?:['’]s|\s+is)\s+)?the\s+size\s+of\s+|how\s+(?:big|large|long)\s+is\s+)?(?:the\s+)?"
    rf"(?:combined\s+|total\s+|whole\s+|full\s+|joint\s+)?(?:author\s+)?roster\b"
    # the authors merged into one set: "How large is the union?"
    r"|\bhow\s+(?:large|big)\s+(?:is|was|would\s+be)\s+(?:the|that)\s+(?:union|(?:combined|merged)\s+set)\b"
    # people as one body: "how large is the author population across them"
    rf"|\b(?:how\s+(?:big|large)\s+(?:is|was)\s+|(?:what(?:['’]s|\s+is)\s+)?the\s+size\s+of\s+)?"
    rf"(?:the\s+)?(?:author|people|researcher|contributor|scientist)\s+{_BODY}\b"
    # "the pool of researchers behind them", "a count of the people in it", "an author index"
    rf"|\b{_BODY}\s+of\s+{_PEOPLE}\b|\b(?:a\s+)?(?:number|count)\s+of\s+the\s+{_PEOPLE}\b"
    r"|\bauthor\s+index\b",
    re.I,
)
# people each said once: "counting each person only once", "nobody double-counted", "no
# duplicates"
_EACH_ONCE_SAID = (
    r"\b(?:count(?:ing|ed)?\s+)?(?:each|every)\s+(?:person|author|name|researcher|individual|one)"
    r"\s+(?:(?:counted|is\s+counted|only|just)\s+)*once\b|\bonce\s+each\b"
    r"|\b(?:no(?:body|\s+one)?|without|not)\s+(?:being\s+)?double[- ]?count\w*"
    r"|\b(?:no|without(?:\s+any)?)\s+(?:duplicates|duplication|repeats)\b"
)
# what makes "how many people" a count of people, not of one paper's byline: each said once
# ("counting each person only once", "nobody double-counted", "no duplicates"), in all
# ("in total", "is that"), or on papers ("appear across those papers", "authored")
_EACH_ONCE = re.compile(
    rf"\b{_ONCE}\s+{_PEOPLE}\b|\b(?:head\s*-?count|roster)\b|\btotal\s+(?:number|count)\s+of\s+{_PEOPLE}\b"
    rf"|{_EACH_ONCE_SAID}"
    r"|\b(?:in\s+total|altogether|overall|all\s+told|combined)\b|\bis\s+that\b"
    rf"|\b{_BODY}\b|\bacross\b|\b(?:included|including)\b"
    # "merge their author lists into one set", "an author index", "Ping Luo's circle", "a
    # count of the people in it"
    rf"|{_ONCE_STRONG_SAID}|\bone\s+set\b|\bauthor\s+index\b|\bcircle\b"
    r"|\b(?:pool|count)\s+of\s+(?:the\s+)?(?:researchers|people)\b"
    r"|\b(?:authored|co-?authored|wrote|published|contributed|appear\w*|show\s+up|are\s+on|"
    r"were\s+on|are\s+listed|were\s+listed|worked\s+on|had\s+papers)\b",
    re.I,
)
# "how many authors does the Medusa paper have": one paper's byline, read elsewhere
_ONE_PAPERS = re.compile(
    r"\b(?:does|did|do)\s+(?:the|this|that|a|an)\s+(?:[\w'’:-]+\s+){0,8}?(?:paper|work|one)"
    r"\s+have\b|\b(?:on|of|in)\s+(?:the|this|that)\s+(?:[\w'’:-]+\s+){0,6}?(?:paper|work)\b"
    r"(?!\s*s)",
    re.I,
)

# people counted paper by paper: "how many names does each one list", "spread the author
# names on them evenly, how many would each paper get"
_EACH_PAPER = (
    r"\b(?:each|every|per|a\s+single)\s+(?:(?:icml\s*(?:20)?24\s+)?(?:paper|publication|work|title|"
    r"one|entry)|of\s+them|of\s+those|of\s+these)\b(?!\s+of\b)|\bevenly\b|\bapiece\b"
)
# the distributive words that name no papers: "each one", "evenly"
_EACH_ONE = r"\b(?:each|every|a\s+single)\s+(?:one|entry|of\s+them|of\s+those|of\s+these)\b|\bevenly\b|\bapiece\b"
_DISTRIBUTED = re.compile(
    rf"\bhow\s+many\s+(?:author\s+)?{_PEOPLE}\b[^.?!]{{0,60}}?(?:{_EACH_PAPER})"
    rf"|(?:{_EACH_PAPER})[^.?!]{{0,60}}?\bhow\s+many\s+(?:author\s+)?{_PEOPLE}\b"
    rf"|\b{_PEOPLE}\b[^.?!]{{0,60}}?\bevenly\b[^.?!]{{0,60}}?\bhow\s+many\b",
    re.I,
)
_MEAN = r"(?:average\w*|averag\w*|avg|mean|median|typical(?:ly)?|usual(?:ly)?|normal(?:ly)?)"
_SIZE = (
    r"(?:(?:number|count|#)\s+of\s+(?:co-?)?authors|(?:co-?)?authors?(?:[- ]count|[- ]list\s*"
    r"(?:length|size)s?|[- ]lists?)?|team\s+sizes?|teams|bylines?(?:\s+lengths?)?|"
    r"author\s+teams)"
)
# the mean byline: "average number of authors", "authors per paper", "how big are the author
# lists on average"; the averaging word and the byline's size said anywhere together
# "the authors-to-papers ratio", "the ratio of authors to papers", "per-paper author count",
# "total up their authors and divide by how many papers": the mean byline
_RATIO = (
    # "what author-list length do you get across X's papers": one length for many, a mean
    r"\bwhat\s+(?:author[- ]list|byline|team)\s+(?:length|size)\b|"
    # "authors/paper"
    r"\b(?:co-?)?authors?\s*/\s*(?:paper|title|publication|work)s?\b|"
    # "How crowded were the bylines": their length
    r"\bhow\s+(?:crowded|packed|full|busy|long|big|large)\s+(?:are|were|is|was)\s+(?:the\s+|their\s+|"
    r"its\s+)?(?:bylines?|author\s+lists?|author\s+teams?|lists\s+of\s+authors)\b|"
    r"\b(?:co-?)?authors?[- ]to[- ]papers?\s+ratio\b|\bratio\s+of\s+(?:co-?)?authors\s+to\s+"
    r"papers\b|\bper[- ]paper\s+(?:co-?)?authors?(?:[- ]count|\s+number)?\b"
    r"|\b(?:total|add|sum|count)\s+up\s+(?:their|the|all\s+(?:the|of\s+their))\s+(?:co-?)?authors\b"
    r"[^.?!]*?\bdivid\w*\s+(?:it\s+|them\s+|that\s+)?by\s+(?:how\s+many\s+papers"
    r"(?:\s+there\s+are)?|the\s+(?:number|count)\s+of\s+papers|the\s+papers)"
    r"|\b(?:co-?)?authors\s+divided\s+by\s+(?:the\s+(?:number|count)\s+of\s+)?papers\b"
)
_UNIT = (
    rf"(?:\s+(?:per|an|a|for\s+(?:each|an?)|on\s+(?:each|an?)|each|of\s+an?|in\s+an?)\s+"
    rf"(?:icml\s*(?:20)?24\s+)?(?:paper|publication|work|title|{_STATUS})s?\b)"
)
_PER_PAPER = re.compile(
    rf"{_RATIO}|{_DISTRIBUTED.pattern}|"
    rf"\b(?:(?:co-?)?authors|author[- ]count)\s+(?:per|for\s+each|on\s+each|each)\s+"
    rf"(?:icml\s*(?:20)?24\s+)?(?:paper|publication|work|title|{_STATUS})\b"
    rf"|\b{_MEAN}\b(?:[^.?!]{{0,60}}?)\b{_SIZE}\b{_UNIT}?"
    rf"|\b{_SIZE}\b(?:[^.?!]{{0,80}}?)(?:\b{_MEAN}\b|\bon\s+average\b|\baverag\w*|\bper\s+paper)",
    re.I,
)
# "how many authors does a paper usually cite": authors it does something else with
_OTHER_VERB = re.compile(
    rf"\bhow\s+many\s+{_PEOPLE}\s+(?:does|do|did|would|will|should)\b"
    r"(?![^?]*\b(?:have|has|had|list|lists|include|includes|feature|features|carry|get|expect|"
    r"see|find)\b)",
    re.I,
)
# a mean byline's words, wherever said: "the average number of authors per paper", "team
# sizes", "averaged out", "on average"
_MEAN_SAID = re.compile(
    rf"\b(?:what(?:['’]s|\s+is|\s+was|\s+are)\s+)?(?:the\s+)?(?:{_MEAN}\s+)?{_SIZE}{_UNIT}?"
    rf"|\b{_MEAN}(?:\s+(?:out|over\s+(?:all\s+(?:of\s+)?)?(?:them|those|these|the\s+papers)))?\b"
    rf"|\bon\s+average\b|\b(?:bigger|larger|longer|smaller|shorter)\b"
    rf"|{_RATIO}|{_EACH_ONE}",
    re.I,
)
# "how many authors should I expect on it": the mean byline's question, said with a count
_HOW_MANY_AUTHORS = re.compile(rf"\bhow\s+many\s+{_PEOPLE}\b|\bhow\s+(?:big|large|long)\b", re.I)

_PLACES = (
    r"(?:institutions|universities|unis|affiliations|organi[sz]ations|orgs|compan(?:ies|ys)|firms|"
    r"corporations|labs|laboratories|research\s+(?:groups|labs|institutes|centers|centres)|"
    r"institutes|schools|colleges|groups|employers|research\s+cent(?:er|re)s|start-?ups|spin-?offs|"
    r"non-?profits|ngos|charities|foundations|government\s+agencies|agencies|hospitals)"
)
# "How many institutions had papers?", "Number of unis that got spotlights", "how many labs
# took part"; not a ranking ("the most papers") or a threshold ("more than ten papers")
_INSTITUTIONS = re.compile(
    # "Counting research centres only, how many of them put out a spotlight?"
    rf"\b{_PLACES}\b(?:\s+only)?\s*,\s*how\s+many\s+of\s+them\b|"
    rf"\b(?:how\s+many|(?:the\s+)?(?:total\s+)?(?:number|count|tally)\s+of)\s+"
    rf"(?:(?:distinct|unique|different|diff|separate|individual)\s+)?(?:[\w-]+\s+)?{_PLACES}\b"
    r"(?![^?]*\b(?:the\s+most|the\s+fewest|more\s+than|at\s+least\s+(?!one\b|1\b|a\b)|over\s+\d|(?:a|any)\s+"
    r"(?:paper|oral|spotlight|poster)\s+(?:on|about)|papers?\s+(?:on|about)\s+\w))",
    re.I,
)
# an institution's kind said before its noun: "how many Chinese universities", not "how
# many papers' universities"
_KIND_WORD = re.compile(r"^(?:[A-Z][\w-]*|[a-z]+(?:ese|ian|ish|an|ch))$")

# measure words misspelt: "fraciton", "percentge", "avergae", "seperate"
_SPELLED = (
    "fraction",
    "percentage",
    "percent",
    "proportion",
    "average",
    "separate",
    "distinct",
    "everything",
)
_NOT_MISSPELT = frozenset({"district", "portion", "fractions", "averages", "desperate"})


# "the rate at which ICML 2024 orals used the word X": what share of them did
_RATE = re.compile(
    rf"\b(?:the|what(?:['’]s|\s+is|\s+was)?(?:\s+the)?)\s+rate\s+(?:at\s+which|of)\s+"
    rf"(?=(?:the\s+)?(?:all\s+)?(?:{_ICML}\s+)?(?:accepted\s+)?{_PAPERS}\b)",
    re.I,
)


def _respelled(question: str) -> str:
    """The question with a measure word's slip mended (one letter, or two swapped)."""

    def mend(found: re.Match[str]) -> str:
        word = found.group(0)
        low = word.lower()
        if len(low) < 6 or low in _NOT_MISSPELT or low in _SPELLED:
            return word
        for right in _SPELLED:
            if edits_within_one(low, right) or right in neighbour_swaps(low):
                return right
        return word

    return _RATE.sub("what share of ", re.sub(r"[A-Za-z]+", mend, question))


# the words a statistic's question frames its papers with ("Do orals tend to have bigger
# author lists?", "titles carry the word"), which say no topic
FRAME_TERMS = frozenset(
    content_terms(
        "paper papers title titles across all every each any tend have has bigger larger list "
        "lists team teams size sizes typical expect grab carry feature involve appear include "
        "contain use plus so that is figure out count counted counting number total person "
        "take took part participate contribute represent percent percentage ratio curiosity "
        "people author authors icml conference accepted"
    )
)


class StatisticAsked(NamedTuple):
    statistic: Statistic
    share_of: list[str]  # "share": the statuses of the papers it is a share of (all: [])
    asked: str  # the count question of the same papers
    statuses: list[str]  # the statuses said as the papers it is of
    within: str = ""  # "share": the count question of the papers it is a share of, if named
    # read from a part set against a whole ("÷", "account for"): only of papers the catalogue
    # selects, since the same verbs say what a paper does ("represent all the papers")
    catalogued: bool = False


def statistic_asked(question: str) -> StatisticAsked | None:
    """The statistic `question` asks, if any, and the count question of its papers."""
    said = _respelled(question)
    # "the ratio of authors to papers" is the mean byline, no share
    for read in (
        (_per_paper, _share, _per_author, _people, _institutions, _countries)
        if re.search(_RATIO, said, re.I)
        else (_share, _per_author, _people, _per_paper, _institutions, _countries)
    ):
        asked = read(said)
        if asked is not None:
            return asked
    return None


def _share(question: str) -> StatisticAsked | None:
    measure = _SHARE.search(question)
    if measure is None:
        return _related_share(question)  # "X's papers ÷ all accepted papers"
    if not _SET.search(question):
        return None  # "what fraction of the data is labeled": no papers' share
    base = _base(question, measure)
    ask = "" if re.search(r"\bhow\s+many\b", _without(question, measure)) else "how many"
    owner = _OWNER.search(question[: measure.end()])
    if owner:  # "Google's share of the papers": how many of them are from Google
        rest = question[measure.end() :]
        asked = (
            f"{question[: owner.start()]} how many {rest.rstrip(' ?.!')} from {owner.group('who')}?"
        )
    else:
        after = question[measure.end() :].lstrip()
        venue = _SET.match(after)
        if venue is not None and venue.group("venue"):  # "how much of ICML 2024 …": its papers
            question = question[: measure.end()] + " papers " + after[venue.end() :]
            after = question[measure.end() :].lstrip()
        of = _said_of(measure) and ask
        # "what fraction of papers": how many papers; "… of the orals": how many of them
        of = (
            " of"
            if of and re.match(r"(?:the|them|their|its|all|those|these)\b", after, re.I)
            else ""
        )
        if not of and not _said_of(measure) and _SET.match(after):
            of = "of the"  # "Out of every 100 accepted papers, how many …"
        asked = _replaced(question, measure, f"{ask}{of}")
    within = _within(question, measure)
    return StatisticAsked("share", base, _tidy(asked), base, within)


def _related_share(question: str) -> StatisticAsked | None:
    """A share said as a part set against the whole it names ("÷ all accepted papers", "what
    did X account for among them"); not when another statistic is asked."""
    whole = _WHOLE.search(question)
    if whole is None or _LISTED.match(question):
        return None
    related = _RELATION.search(question)
    if related is None or _INSTITUTIONS.search(question) or _PEOPLE_COUNTED.search(question):
        return None
    base = _base(question, related) or _statuses(whole.group(0))
    # the sentence that relates them, without the relation and the whole: the part
    start = max((m.end() for m in _SENTENCE_END.finditer(question, 0, related.start())), default=0)
    ends = _SENTENCE_END.search(question, related.end())
    said = question[start : ends.start() if ends else len(question)]
    cut = related.start() - start, related.end() - start
    part = f"{said[: cut[0]]} {said[cut[1] :]}"
    if not re.match(r"among\s+(?!them|those|these)", whole.group(0), re.I):
        part = part.replace(whole.group(0), " ", 1)  # the whole said is no part
    owner = re.match(r"\s*what\s+(?:did|do|does)\s+", part, re.I)
    part = _ASKED_WHAT.sub(" ", part)
    if owner:  # "What did Stanford account for among them?": Stanford's papers
        asked = f"How many papers did {part.strip(' ?')} have?"
    elif re.search(r"\bhow\s+many\b", part, re.I):
        asked = f"{part}?"
    else:
        asked = f"How many papers {part}?"
    return StatisticAsked("share", base, _tidy(asked), base, catalogued=True)


# what a share's papers are said to do or have: "(Google's papers) were spotlights"
_PREDICATE = re.compile(
    r"\b(?:were|are|was|is|had|have|has|got|get|received|came|come|went|ended|made|included|"
    r"include|includes|feature|features|featured|list|lists|listed|carry|carries|contain|"
    r"contains|mention|mentions|involve|involves|involved|won|earned|landed|became|did|do|does|"
    r"used|use|uses|that|which|with)\b|[,;:?!]",
    re.I,
)


def _said_of(measure: re.Match[str]) -> bool:
    """Whether a share's measure ends with its "of" ("what fraction of")."""
    return measure.group(0).lower().rstrip().endswith(" of")


def _within(question: str, measure: re.Match[str]) -> str:
    """The count question of the papers a share is of, when said after its "of" before what
    they do ("What share of Google's papers were spotlights?": "How many of Google's
    papers?"); for "the ratio of X's papers to all papers", the papers after "to"."""
    if not _said_of(measure):
        return ""
    after = question[measure.end() :]
    ratio = re.search(r"\bto\s+(?=(?:all|the|every|total)\b)", after, re.I)
    if ratio:
        after = after[ratio.end() :]
    said = _PREDICATE.search(after)
    subject = (after[: said.start()] if said else after).strip()
    return f"How many of {subject}?" if _SET.search(subject) else ""


def _people(question: str) -> StatisticAsked | None:
    measure = _PEOPLE_COUNTED.search(question)
    if measure is None and _ONCE_STRONG.search(question) and re.search(_PEOPLE, question, re.I):
        measure = re.search(r"\bhow\s+many\b", question, re.I)
    if measure is None or not _EACH_ONCE.search(question):
        return None
    if _DISTRIBUTED.search(question) and not re.search(rf"\b{_ONCE}\b", question, re.I):
        return None  # "how many names does each one list": per paper, read by _per_paper
    if not re.search(
        _ONCE + r"|head\s*-?count|roster", measure.group(0), re.I
    ) and _ONE_PAPERS.search(question):
        return None  # "how many authors does the Medusa paper have": its byline
    text = re.sub(_EACH_ONCE_SAID, " ", question, flags=re.I)
    measure = _PEOPLE_COUNTED.search(text) or measure
    return _selection("authors", text, measure)


def _per_paper(question: str) -> StatisticAsked | None:
    measure = _PER_PAPER.search(question)
    if measure is None or _OTHER_VERB.search(question):
        return None
    # "how many authors should I expect on it": the count asked is of the papers
    counted = _HOW_MANY_AUTHORS.search(question)
    return _selection("authors_per_paper", question, counted or measure, _MEAN_SAID)


def _institutions(question: str) -> StatisticAsked | None:
    measure = _INSTITUTIONS.search(question)
    if measure is None:
        return None
    words = measure.group(0).split()
    kind = words[-2] if len(words) >= 3 else ""
    said = kind.lower() not in ("", "many", "of", "distinct", "unique", "different", "diff")
    said = said and not re.fullmatch(_PLACES, " ".join(words[-2:]), re.I)  # "government agencies"
    if said and not _KIND_WORD.match(kind):
        return None  # "how many papers' institutions": not a count of institutions
    return _selection("institutions", question, measure)


# papers per author: "how many papers did each author have on average", "the average number
# of papers per author", "papers per person"
_PER_AUTHOR = re.compile(
    rf"\bpapers?\s+(?:per|for\s+each|for\s+an?|by\s+(?:each|an?|the\s+average))\s+(?:average\s+|"
    rf"typical\s+)?(?:author|person|researcher|scientist|name)\b"
    rf"|\bhow\s+many\s+papers\s+(?:did|does|do|had|has|have)\s+(?:each|every|an?\s+(?:average|"
    rf"typical)|the\s+(?:average|typical))\s+(?:author|person|researcher|scientist)\b"
    rf"|\b{_MEAN}\s+(?:number\s+of\s+)?papers\s+(?:per|for\s+each|for\s+an?|by\s+(?:each|an?))\s+"
    rf"(?:author|person|researcher|scientist)\b",
    re.I,
)


def _per_author(question: str) -> StatisticAsked | None:
    measure = _PER_AUTHOR.search(question)
    if measure is None or not re.search(
        rf"\b{_MEAN}\b|\bon\s+average\b|\bper\b|\beach\b", question, re.I
    ):
        return None
    return _selection("papers_per_author", question, measure, _MEAN_SAID)


# "How many countries had papers?": the catalogue records none
_COUNTRIES = re.compile(
    r"\b(?:how\s+many|(?:the\s+)?(?:total\s+)?(?:number|count|tally)\s+of)\s+(?:(?:distinct|unique|"
    r"different|diff|separate)\s+)?(?:countries|nations|nationalities)\b",
    re.I,
)


def _countries(question: str) -> StatisticAsked | None:
    measure = _COUNTRIES.search(question)
    return _selection("countries", question, measure) if measure else None


def _selection(
    statistic: Statistic,
    question: str,
    measure: re.Match[str],
    rest_of_it: re.Pattern[str] | None = None,
) -> StatisticAsked:
    """A statistic of the papers the rest of `question` selects: its measure said as "how
    many papers", where it was said ("…, so how many papers is that"), or before its
    sentence when it asked no count ("Could you figure out the author count per paper …")."""
    statuses = _statuses(question)
    asks = r"how\s+many\b" if statistic == "authors_per_paper" else r"how\s+many\b|number\s+of\b"
    if re.match(rf"(?:the\s+|total\s+)*(?:{asks})", measure.group(0), re.I):
        text = _replaced(question, measure, "how many papers")
    else:
        start = max(
            (m.end() for m in _SENTENCE_END.finditer(question, 0, measure.start())), default=0
        )
        text = (
            f"{question[:start]} How many papers {question[start : measure.start()]} "
            f"{question[measure.end() :]}"
        )
    if rest_of_it is not None:
        text = rest_of_it.sub(" ", text)
    return StatisticAsked(statistic, [], _tidy(text), statuses)


_SENTENCE_END = re.compile(r"[.!?:]\s+")


def _base(question: str, measure: re.Match[str]) -> list[str]:
    """The statuses a share is of: said after its "of", or as the papers it is of."""
    after = question[measure.end() :]
    if _said_of(measure):
        found = _SET.match(after.lstrip())
        if found is not None and not re.match(r"(?:their|its)\b", found.group(0), re.I):
            # "of orals and spotlights": every status joined to the first
            joined = re.match(
                rf"(?:\s*(?:,|and|or|&|plus)\s+(?:the\s+)?{_STATUS}s?\b)+",
                after.lstrip()[found.end() :],
                re.I,
            )
            said = found.group(0) + (joined.group(0) if joined else "")
            return _statuses(said) if found.group("set") else []
    return sorted(
        {
            next(
                g for g in found.group("status", "status2", "status3", "status4") if g
            ).capitalize()
            for found in _BASE.finditer(question)
            if not _CONDITION.search(question[max(0, found.start() - 30) : found.end()])
        }
    )


# the words a related part is asked with, which select nothing: "What did X account for",
# "how dominant was", "I want it", "not a raw count", "= ?"
_ASKED_WHAT = re.compile(
    r"^\s*(?:what|how\s+\w+)\s+(?:did|do|does|is|was|were|are)\b|\bwhat\s+(?:did|do|does)\b"
    r"|\b(?:could|can|would)\s+you\s+(?:take|get|give\s+me)\b|\b(?:i\s+want\s+it|not\s+a\s+raw\s+count)\b"
    r"|\b(?:paper\s+)?(?:tally|count|total)\b"
    r"|=\s*\?*|\band\s*$",
    re.I,
)
# a question asking for papers, not a number: "Which papers …", "List …"
_LISTED = re.compile(r"^\s*(?:which|list|show|name|give\s+me\s+the)\b", re.I)


def _statuses(text: str) -> list[str]:
    return sorted({m.group(1).capitalize() for m in re.finditer(rf"\b({_STATUS})s?\b", text, re.I)})


# what a statistic's question adds that is no constraint: "are represented", "in total",
# "had papers", ", like avg number of authors"
_FILLER = re.compile(
    r",\s*(?:like|i\s+mean|e\.g\.|say)\b.*$|\b(?:(?:are|were|is|was)\s+)?represented\b|\bin\s+total\b|"
    r"\baltogether\b|\boverall\b|\ball\s+told\b|\bhad\s+(?:at\s+least\s+one|any|a)\s+papers?\b|"
    r"\bhad\s+papers\b",
    re.I,
)


def _without(question: str, found: re.Match[str]) -> str:
    return question[: found.start()] + " " + question[found.end() :]


def _replaced(question: str, found: re.Match[str], said: str) -> str:
    return f"{question[: found.start()]} {said} {question[found.end() :]}"


def _tidy(asked: str) -> str:
    """The count question without what only frames it, in one line."""
    said = re.sub(r"\s+", " ", _FILLER.sub(" ", asked))
    said = re.sub(r"\s+([,.;:?!])", r"\1", said)
    said = re.sub(r"(?:^|(?<=[:.!?]))\s*[,;]\s*", " ", said).strip()
    said = re.sub(r"(?<=[.!?] )[a-z]", lambda m: m.group(0).upper(), said)
    return said[:1].upper() + said[1:] if said.strip(" ?.!") else "?"


# a topic the count question asks about ("… are about diffusion", "papers on RLHF"), not the
# words left of its frame ("how many titles carry the word 'descent'")
_ABOUT = re.compile(
    r"\b(?:about|on|regarding|concerning|related\s+to|stud(?:y|ies|ying)|focus(?:ed|es|ing)?\s+"
    r"on|deal(?:s|ing)?\s+with|tackl\w+|address\w*|in\s+the\s+(?:area|field)\s+of)\s+(?:the\s+)?$",
    re.I,
)


def selected(counted: QueryPlan, asked: StatisticAsked) -> QueryPlan:
    """The count question's plan as a statistic's selection: the statuses said as its papers
    added, and a topic it does not ask about ("titles carry") said as not read."""
    c = counted.constraints
    statuses = sorted(set(c.statuses) | set(asked.statuses))
    if asked.statistic != "share" and statuses != c.statuses:
        counted = counted.model_copy(
            update={"constraints": c.model_copy(update={"statuses": statuses})}
        )
    named = c.authors or c.affiliations or c.title_words or c.first_author or c.last_author
    topic = counted.topic
    if counted.kind == "paper" and not topic and asked.statistic != "share":  # a set, no paper
        return counted.model_copy(update={"kind": "metadata"})
    if counted.kind not in ("count", "list") or not topic:
        return counted
    # "What is the", "Do orals tend to have bigger": no word of a topic
    unread = topic if set(content_terms(topic)) - FRAME_TERMS - ASKERS_WORDS else ""
    if unread and not (named or c.any_of or statuses):
        return counted  # "What % of papers use transformers?": a topic's, not the catalogue's
    at = asked.asked.find(topic.split()[0])
    if at >= 0 and _ABOUT.search(asked.asked[:at]):
        return counted  # "What share of Google's papers are about RL?": a topic's count
    return counted.model_copy(update={"kind": "metadata", "topic": "", "unread": unread})
