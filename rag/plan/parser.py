"""Question analysis without a model: what kind of question, which constraints, what topic.

Deterministic and offline. Names are found (rag.plan.people) by looking word spans up in the
catalogue (so "volkan cevher", typed in lower case, is still an author), institutions
after the words that introduce them ("from", "at", "affiliated with", "… author"), and the
topic is what remains once the question's frame ("Which ICML 2024 papers …") and the
constraints are taken away. A question about one paper keeps `kind="paper"`: today's path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import fold
from rag.plan.byline import byline_asked, who_asked
from rag.plan.compared import compared_items
from rag.plan.framing import VENUE, plain_question
from rag.plan.leftovers import GENERIC_TOPIC, left_beside_names, written_as
from rag.plan.people import PeopleReader
from rag.plan.places import PlaceReader
from rag.plan.rankings import (
    COUNT_WORDS,
    PLACE_RANKINGS,
    POSITION_RANKINGS,
    TOP_N,
    count_said,
    papers_or_places_ranked,
    rank_position,
)
from rag.plan.regions import asked_by_place, asked_unrecorded
from rag.plan.set_readings import (
    affiliations_asked,
    by_share,
    institution_kinds,
    no_affiliation,
    not_about,
    title_words_ranked,
    topics_of,
    who_works_on,
    with_each_status,
)
from rag.plan.statistics import StatisticAsked, selected, statistic_asked
from rag.plan.titles import mend_title_typos, text_words, title_words
from rag.plan.within import topic_within
from rag.text import STATUS_WORD, content_terms, listing, title_head, titled_in
from rag.types import PlanConstraints, PlanKind, QueryPlan, Ranking, Unresolved

_YEAR = re.compile(r"\b(?:in|of|for)\s+2024\b", re.I)
# "How many papers …" counts a set; "How many GPUs …" asks about one paper.
_COUNT = re.compile(
    r"^\s*(?:how many|what(?: is| was)? the number of|(?:the\s+)?number of|count(?: of)?)\s+"
    r"(?:(?:icml|2024|icml 2024|oral|spotlight|poster|accepted|the|of the|main[- ]track)\s+)*"
    # "How many RL papers", "how many graph transformer papers": a topic before the noun
    r"(?:(?!(?:of|these|those|them|such|above|their|its|his|her)\b)[\w-]+\s+){0,3}?"
    r"(?:papers|publications|works|articles|titles|abstracts|orals|spotlights|posters)\b"
    # "How many of Jason D. Lee's papers were about RL?": a count among someone's papers
    r"|^\s*how many of\s+(?!(?:the|these|those|their|its|his|her|our|my|your)\b)"
    r"(?:[\w.-]+\s+){0,4}[\w.-]+['’]s?\s+(?:(?:icml|2024|icml 2024|oral|"
    r"spotlight|poster|accepted)\s+)*(?:papers|publications|works|orals|spotlights|posters)\b",
    re.I,
)
# "Compare the papers on X", "how do they differ": the papers on a topic side by side
_COMPARE = re.compile(
    r"\b(?:compare|comparing|comparison|contrast)\b|\bhow do\b.*\bdiffer\b|\bdifferences?\b.*\bpapers\b",
    re.I,
)
_SIMILAR = re.compile(
    r"\bpapers?\b(?:\s+(?:are|is|that are|which are))?(?:\s+(?:the\s+)?most)?"
    r"\s+(?:like|similar to|related to|close to)\s+"
    r"(?P<ref>.+?)\s*[?.!]*$",
    re.I,
)
# "Who did X co-author with most often?", not "papers that work with the most data"
_COAUTHORS = re.compile(
    r"\b(?:co-?author(?:ed|s)?|collaborat\w*|worked|work|wrote|written)\s+(?:\w+\s+)?with\s+"
    r"(?:the\s+)?most(?:\s+(?:often|frequently))?(?=\s*(?:[?.,]|$|\s+(?:at|in|on|during)\b))"
    r"|\bmost\s+(?:frequent|common|regular|prolific)\s+(?:co-?authors?|collaborators?)\b"
    # "Who co-authored most with X?", "who worked most often with X"
    r"|\b(?:co-?author(?:ed|s)?|collaborat\w*|worked|wrote|published)\s+(?:the\s+)?most"
    r"(?:\s+(?:often|frequently|papers))?\s+with\b",
    re.I,
)
_MOST_WITH = re.compile(
    r"\b(?:(?:co-?author(?:ed|s)?|collaborat\w*|worked|work|wrote|written)\s+)?(?:\w+\s+)?"
    r"with\s+(?:the\s+)?most(?:\s+(?:often|frequently|papers))?\b|\bmost\s+(?:often|frequently)\b|"
    r"\bmost\s+(?:frequent|common|regular|prolific)\s+(?:co-?authors?|collaborators?)\b"
    r"|\b(?:co-?author(?:ed|s)?|collaborat\w*|worked|wrote|published)\s+(?:the\s+)?most"
    r"(?:\s+(?:often|frequently|papers))?(?=\s+with\b)",
    re.I,
)
_RANKING = re.compile(
    r"\b(?:which|what|who)\b.*\bauthors?\b.*\b(?:most|top)\b"
    # "which researchers had the most papers", not "… proposed the most efficient attention"
    r"|\b(?:which|what)\s+(?:\w+\s+){0,3}?(?:researchers?|people|scientists|academics?|professors?)\b"
    r".*\b(?:most|top)\s+"
    r"(?:\w+\s+){0,3}?(?:papers|orals|spotlights|posters|publications)\b"
    # "top twenty-five authors": a number in words may be hyphened
    r"|\b(?:top|most prolific|leading)\s+(?:\w+(?:-(?:one|two|three|four|five|six|seven|eight|nine))?\s+){0,3}?"
    r"(?:authors?|researchers?|scientists)\b"
    r"|\bwho\b.*\b(?:most|top)\b.*\b(?:papers|orals|spotlights|posters|publications)\b",
    re.I,
)
# "Who came up with the idea of position papers?", "who coined the term …"
_ORIGIN = re.compile(
    r"^\s*who\s+(?:first\s+)?(?:(?:came|comes|come)\s+up\s+with|invented|coined|originated|"
    r"thought\s+(?:up|of))\b",
    re.I,
)
_SET = re.compile(
    r"\b(?:which|what|list|show|find|give|name|are there|all)\b[^?]*\b(?:papers|abstracts)\b"
    # "List the ICML 2024 work on …", not "show that the method works"
    r"|^\s*(?:list|show(?: me)?)\s+(?:the\s+|all\s+)?(?:icml\s+2024\s+)?"
    r"(?:work|works|publications|research|studies)\s+(?:on|about|in|that)\b"
    r"|\bpapers\s+(?:by|from|on|about|with|in|that|where|whose)\b"
    # "list every paper about speculative decoding": each of a set, said in the singular
    r"|\b(?:list|show|give|name|find)\b[^?]*\bevery\s+(?:single\s+)?(?:icml\s*(?:20)?24\s+|icml\s+)?"
    r"(?:paper|abstract|publication)\b|^\s*every\s+(?:icml\s+)?paper\s+(?:on|about)\s+[^;?]*\??\s*$"
    r"|\b(?:co-?author(?:ed|s)?|publish(?:ed)?|author of|as an author)\b"
    # "whats the deal with mamba papers", "what's up with the LLM papers"
    r"|\bwhat(?:['’]?s|\s+is)\s+(?:the\s+deal|going\s+on|up)\s+with\s+(?:the\s+|all\s+(?:the\s+|these\s+)?|these\s+)?"
    r"(?:[\w'’-]+\s+){1,4}papers\b"
    # a terse query: "offline RL papers", "physics papers at ICML 2024?"
    r"|^\s*(?!(?:how|why|when|where|who|whose|do|does|did|is|are|was|were|can|could|should|"
    r"would|will|tell|explain|summari[sz]e|describe)\b)"
    # not a name of two capitalised words ("Waymo Open Dataset papers"): what it says is asked
    r"(?!(?-i:[A-Z][a-z][\w'’-]*\s+){2})(?:[\w'’-]+\s+){1,4}papers"
    r"(?:\s+(?:at|in|from)\s+icml(?:\s*20)?(?:\s*24)?)?\s*[?.!]?\s*$",
    re.I,
)
_STATUS = STATUS_WORD
STATUSES = ("Oral", "Spotlight", "Poster")
_STATUS_NOUN = re.compile(
    r"\b(?:orals|spotlights|posters|non-?(?:oral|spotlight|poster)|talks?|"
    r"(?:an?|as\s+an?)\s+(?:oral|spotlight|poster)|(?:oral|spotlight|poster)-only|"
    r"(?:oral|spotlight|poster)\s+(?:papers?|presentations?|talks?|counts?|tall(?:y|ies)|totals?)|"
    r"(?:make\s+it|made\s+it|promoted|upgraded)\s+(?:to|as)\s+(?:an?\s+)?(?:oral|spotlight|poster)|"
    r"(?:one|two|three|\d+|any|no)\s+(?:oral|spotlight|poster)|"
    # "What was Vikas Garg's oral called?", "their spotlight"
    r"(?:['’]s?|\b(?:his|her|their|its))\s+(?:ICML\s*(?:20)?24\s+)?(?:oral|spotlight|poster))\b",
    re.I,
)
_STATUS_COUNTED = re.compile(
    r"\b(oral|spotlight|poster)\s+(?:counts?|tall(?:y|ies)|totals?|slots?)\b", re.I
)
_SPOTLIGHT_POSTER = re.compile(r"\bspotlight\s+posters?\b", re.I)
_NOT_STATUS = re.compile(
    r"(?:\b(?:non-?|neither\s+(?:an?\s+)?|not\s+(?:accepted\s+as\s+)?(?:an?\s+)?|"
    r"other\s+than\s+(?:an?\s+)?|excluding\s+(?:the\s+)?|except\s+(?:for\s+)?(?:the\s+)?|"
    r"not\s+counting\s+(?:the\s+)?|leaving\s+out\s+(?:the\s+)?|apart\s+from\s+(?:the\s+)?|"
    # "minus the orals", "leaving aside the posters", "not the posters", "skip the orals"
    r"minus\s+(?:the\s+)?|(?:leaving|leave|setting|set|putting|put)\s+aside\s+(?:the\s+)?|"
    r"leave\s+out\s+(?:the\s+)?|not\s+the\s+|skip(?:ping)?\s+(?:the\s+)?|ignor(?:e|ing)\s+"
    r"(?:the\s+)?|without\s+(?:the\s+)?|drop(?:ping)?\s+(?:the\s+)?)|"
    r"n['’]t\s+(?:an?\s+)?)(?P<statuses>(?:oral|spotlight|poster)s?"
    r"(?:\s*(?:,|or|nor|and)\s*(?:an?\s+)?(?:oral|spotlight|poster)s?)*)\b"
    # "apart from the oral by OpenAI": one paper set aside, not its status
    r"(?!\s+(?:by|from|on|about|of|that|which|with|where)\b)",
    re.I,
)
# "got past the poster stage", "above spotlight level": the statuses ranked higher
_ABOVE_STATUS = re.compile(
    r"\b(?:(?:got|get|gets|went|go|goes|made\s+it|make\s+it|moved|move|rose|climbed)\s+)?"
    r"(?:past|beyond|above)\s+(?:the\s+|a\s+)?(?P<status>oral|spotlight|poster)s?"
    r"(?:\s+(?:stage|level|tier|bar|round))?\b",
    re.I,
)
# "a long talk", "accepted talks": orals
_TALK = re.compile(r"\b(?:long|accepted|contributed|oral)\s+(talk|presentation)(s?)\b", re.I)
_ET_AL = re.compile(
    r"(?:\b(?:would\s+be\s+)?cited\s+as\s+)?[\"'“‘]?(?P<given>(?-i:[A-Z])[\w'’-]+\s+)?"
    r"(?P<family>(?-i:[A-Z])[\w'’-]+)\s+et\s+al\b\.?[\"'”’]?",
    re.I,
)
# The frame around a topic, removed from the front and back of what is left.
_LEAD = re.compile(
    # "by are about X", "or papers are about X": what an author or a status left
    r"^(?:(?:what(?:['’]?s| is)? (?:the deal|up|going on) with(?: all)?|how many times|how often|how many|and|(?:or|by|\+|&)(?=\s+(?:papers?\s+)?(?:are|were|is|was)\b)|which|what|who|top|most prolific|leading|list|show(?: me)?|count|find|give me|name|are there(?: any)?|is there|"
    r"compare|comparing|how do|how does|of|the|all|a|an|any|among|amongst|approaches|explanations|papers?|"
    r"works?|publications?|articles?|research|accepted|main|track|are|is|were|was|do|does|did|have|has|"
    r"that|which|whose|where|about|on|regarding|concerning|related to|dealing with|deal with|"
    r"deals with|study|studies|studying|address|addresses|tackle|tackles|handle|handles|focus on|focusing on|"
    r"work on|works on|involve|involves|centred on|centered on|built around|propose or analy[sz]e|from|"
    r"come from|comes from|came from|come|comes|came|"
    r"propose or evaluate|propose|proposes|use|uses|using|apply|applies|in|at|to|for|with|"
    r"mention|mentions|mentioning|abstracts|"
    r"there|me|anything|something|at least one|one|include|includes|main|primary|key|(?:main |primary )?contributions? "
    r"(?:is|are)|develop|develops|develop or apply|design|designs)(?=[\s,:]|$)[\s,:]*)+",
    re.I,
)
_TRAIL = re.compile(
    r"(?:(?:^|\s+)(?:differ|differs)\b.*|\s+(?:offered|given|proposed) by\b.*|\s+papers?|\s+are there|"
    # "… learning from (Stanford)", "… models with (authors from MIT)": what it led taken
    r"\s+at|\s+in|\s+have|\s+has|\s+from|\s+by|\s+with"
    # "… on LLM jailbreaks come (from CMU)", "… originate (from industry)"
    r"|\s+(?:come|comes|came|originate|originated|stem|stems|stemmed)"
    # "… on LLM safety were (presented as) orals": the verb its status word left
    r"|\s+(?:were|was|are|is|got|get|became)(?:\s+(?:presented|accepted|selected|given|chosen|"
    r"picked|made|granted))?(?:\s+(?:as|for|an?))?)+\s*$",
    re.I,
)
_AT_LEAST_PAPERS = re.compile(
    rf"\b(?:(at least|more than|over|no fewer than)\s+(\d+|{'|'.join(COUNT_WORDS)})|"
    r"(\d+)\s+or\s+more)\s+(?:\w+\s+){0,3}?(?:papers?|orals?|spotlights?|posters?|publications?)\b",
    re.I,
)
# what an author did with the papers counted ("had", "presented", "wrote")
# the article (and verb) before a status: "… on diffusion an oral", "… get a spotlight"
_A_STATUS = re.compile(
    r"(?:\b(?:gets?|got|getting|receive[ds]?|received|wins?|won|land(?:s|ed)?|as)\s+)?"
    r"\ban?\s+(?=(?:oral|spotlight|poster)\b)",
    re.I,
)
_STATUS_HELD = re.compile(r"\b(?:had|has|have|presented|published|wrote|authored|got)\b", re.I)
# "first author on the most papers", "most often the last-listed author", "first-authored"
_RANK_PLACE = re.compile(
    r"\b(?P<place>first|last|senior|lead)(?:[- ]listed|[- ]named)?[- ]"
    r"(?:authors?(?:ed|ships?)?|authored)\b|\bauthors?\s+(?:listed\s+)?(?P<place2>first|last)\b"
    r"|\blisted\s+(?P<place3>first|last)\b",  # not "the leading authors": the most prolific
    re.I,
)
# "on more papers than anyone else", "most frequently": who leads
_BEYOND_ANYONE = re.compile(
    r"\b(?:most|more)\s+(?:often|frequently)\b|\bmore\b(?=[^?]*\bthan\s+any(?:one|body)"
    r"(?:\s+else)?\b)|\bthan\s+any(?:one|body)(?:\s+else)?\b",
    re.I,
)
_ONE_ASKED = re.compile(
    r"\bwhich\s+(?:\w+\s+){0,3}?(?:academic|researcher|author|person|scientist|professor)\s",
    re.I,
)
_WHO = re.compile(
    r"\b(?:who|which|what)\s+(?:\w+\s+)?(?:authors?|researchers?|people)\b|^\s*who\b"
    # "How many authors had more than 5 papers?": the names, counted
    r"|\bhow\s+many\s+(?:\w+\s+)?(?:authors|researchers|people|persons|individuals|names)\b",
    re.I,
)
_MANY_AUTHORS = re.compile(
    rf"\b(?:(at least|more than|over|no fewer than)\s+(\d+|{'|'.join(COUNT_WORDS)})|"
    rf"(\d+|{'|'.join(COUNT_WORDS)})\s+or\s+more)\s+(?:co-?)?authors\b"
    # "eight authors or more", "10 authors and up": the bound after the noun
    rf"|\b(\d+|{'|'.join(COUNT_WORDS)})\s+(?:co-?)?authors\s+(?:or\s+more|and\s+up|and\s+above|plus)\b",
    re.I,
)
# what leaves papers of an author count out: "leave out anything with", "excluding those with"
_LEFT_OUT = re.compile(
    r"\b(?:leave|leaving|left)\s+out|\b(?:excluding|except(?:\s+for)?|minus|skip(?:ping)?|"
    r"drop(?:ping)?|ignor(?:e|ing)|not\s+counting|but\s+not|other\s+than)"
    r"(?:\s+(?:anything|any|papers?|ones?|those|the\s+ones|works?))?(?:\s+(?:with|that\s+have|having))?"
    r"\s*$",
    re.I,
)
_FEW_AUTHORS = re.compile(
    rf"\b(?:(fewer than|less than|under)|(at most|no more than))\s+(\d+|{'|'.join(COUNT_WORDS)})"
    r"\s+(?:co-?)?authors\b",
    re.I,
)
_EXACT_AUTHORS = re.compile(
    rf"\b(?:(?P<solo>solo[- ](?:authored|authors?)|single[- ]authors?(?:ed)?|sole[- ]authored|"
    r"one-author)|"
    # not "only one author from MIT": how many of its authors are where, which no byline says
    rf"(?:exactly|only|just)\s+(?P<n>\d+|{'|'.join(COUNT_WORDS)})\s+authors?"
    r"(?!\s+(?:from|at|with|in|of|listed|affiliated|based|who|that|as)\b)|"
    rf"(?P<n2>\d+|{'|'.join(COUNT_WORDS)})-authors?(?:ed)?|"
    # "papers with five authors", "have 5 authors" (not "5 authors or more")
    rf"(?:with|have|has|having)\s+(?P<n3>\d+|{'|'.join(COUNT_WORDS)})\s+(?:co-?)?authors"
    r"(?!\s+or\b))\b",
    re.I,
)
_N = rf"(?:\d+|{'|'.join(COUNT_WORDS)})"
_PEOPLE_WORDS = r"(?:people|persons|researchers|writers|contributors)"
# How many authors, said in other words, as the author-count patterns read it
_AUTHOR_COUNTS_SAID = (
    # "written by three people or fewer", "by 20+ people": authors
    (re.compile(
        rf"\b(?:written|authored|co-?authored|put\s+together)\s+by\s+(?P<n>{_N}\+?)\s+"
        rf"{_PEOPLE_WORDS}\b", re.I,
    ), r" with \g<n> authors"),
    # "as a two-person collaboration", "3-person teams": exactly that many
    (re.compile(
        # not "three-person teams coordinate": people in a study, not on a byline
        rf"\b(?:as\s+an?\s+(?P<n>{_N})[- ]person\s+(?:collaborations?|efforts?|teams?)|"
        rf"(?P<m>{_N})[- ]person\s+(?:papers?|author\s+teams?|bylines?))\b", re.I,
    ), lambda m: f" with exactly {m.group('n') or m.group('m')} authors"),
    (re.compile(r"\b(?P<n>\d+)\+\s+(?=(?:co-?)?authors\b)", re.I), r"at least \g<n> "),
    # "with just one co-author": two authors
    (re.compile(
        rf"\bwith\s+(?:just|only|exactly)?\s*(?P<n>{_N})\s+(?:other\s+)?co-?authors?\b", re.I,
    ), lambda m: f" with exactly {count_said(m.group('n')) + 1} authors"),
    # "written by exactly four people"
    (re.compile(
        rf"\b(?:written|authored)\s+by\s+(?:exactly|just|only)\s+(?P<n>{_N})\s+{_PEOPLE_WORDS}\b", re.I,
    ), r" with exactly \g<n> authors"),
    # "a dozen or more authors"; "come from teams of ten or more authors"
    (re.compile(r"\ba\s+dozen\s+(?=(?:or\s+more\s+)?(?:co-?)?authors\b)", re.I), "12 "),
    (re.compile(
        rf"\b(?:come|comes|came)?\s*(?:from|by)\s+(?:an?\s+)?teams?\s+of\s+(?={_N}\b)", re.I,
    ), " with "),
    # "three authors or fewer"
    (re.compile(rf"\b(?P<n>{_N})\s+(?:co-?)?authors\s+or\s+(?:fewer|less)\b", re.I),
     r"at most \g<n> authors"),
)  # fmt: skip
# "with three to five authors", "between 2 and 4 authors"
_AUTHOR_RANGE = re.compile(
    rf"\b(?:between\s+)?(?P<low>{_N})\s*(?:to|and|-|–)\s*(?P<high>{_N})\s+(?:co-?)?authors\b",
    re.I,
)
_POINTER = re.compile(
    r"\b(?:address|about|on|study|studies|tackle|cover|do|use|uses|apply|applies)\s+"
    r"(?:this|that|it|these|those|them)\b",
    re.I,
)
_OF_THEM = re.compile(
    r",?\s+and\s+(?:how\s+many|which(?:\s+ones)?)\s+(?:of\s+(?:them|these|those)\b[^?]*|"
    r"(?:are|were)\s+(?:an?\s+)?(?:orals?|spotlights?|posters?)\s*(?=[?.!]|$))",
    re.I,
)


# "a first author from ETH Zurich", "written entirely by people from Mila": whose
# affiliation the institution must be; read off before the institution itself.
def _author_from(place: str) -> str:
    """ "(with) a first author (who is) from", "their senior author's affiliation is at"."""
    return (
        r"\b(?:(?:with|having|has|have|had|whose)\s+)?(?:(?:a|an|the|their|its)\s+)?"
        rf"(?:{place})[- ]authors?(?:['’]s\s+affiliation)?\s+(?:(?:is|was|are|were|being|"
        r"who\s+(?:is|was))\s+)?(?:both\s+)?(?:from|at|affiliated\s+with|based\s+at|"
        r"working\s+at)\s+"
    )


_AFFILIATION_PLACES = (
    # "both the first and the last author based at X": both ends of the byline
    ("first and last", re.compile(
        _author_from(
            r"(?:both\s+)?(?:the\s+)?(?:first|lead)(?:[- ]author)?\s+(?:and|&)\s+(?:the\s+)?"
            r"(?:last|senior)"
        ),
        re.I,
    )),
    ("first", re.compile(
        _author_from("first|lead|leading")
        + r"|\bfirst[- ]authored\s+by\s+(?:someone|somebody|people|researchers?|authors?|a\s+"
        r"researcher)\s+(?:from|at)\s+",
        re.I,
    )),
    ("last", re.compile(_author_from("last|senior"), re.I)),
    ("every", re.compile(
        r"\b(?:(?:written|authored|co-?authored|produced)\s+)?(?:entirely|exclusively|solely|"
        r"only|wholly|purely)\s+by\s+(?:people|authors|researchers|folks|scientists)\s+"
        r"(?:from|at)\s+"
        r"|\b(?:where\s+|in\s+which\s+|whose\s+)?(?:all|every\s+one)\s+(?:of\s+(?:the|their|"
        r"its)\s+)?(?:authors|co-?authors)\s+(?:(?:are|were|come|came|is|was)\s+)?(?:from|at|"
        r"affiliated\s+with)\s+"
        r"|\bwhose\s+authors\s+(?:are|were)\s+all\s+(?:from|at)\s+"
        r"|\bevery\s+(?:author|co-?author)\s+(?:(?:is|was|comes|came)\s+)?(?:from|at|"
        r"affiliated\s+with)\s+"
        # the institution before the noun: "entirely by Google authors", "with only Mila
        # authors", "all-Google papers"
        r"|\b(?:(?:written|authored|co-?authored|produced)\s+)?(?:(?:entirely|exclusively|"
        r"solely|only|wholly|purely)\s+by|(?:with|having|has|had)\s+only)\s+"
        r"(?P<inst>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?:of\s+)?(?-i:[A-Z])[\w&.'’-]*){0,5}?)\s+"
        r"(?:people|authors|researchers|folks|scientists|employees|staff)\b"
        r"|\ball-(?P<inst2>(?-i:[A-Z])[\w&.'’]*)\b",
        re.I,
    )),
)  # fmt: skip


def _affiliation_place(text: str) -> tuple[str, str]:
    """The text with a place-of-author phrase said plainly ("with an author from"), and
    the place ("first", "last", "first and last", "every"; "" when the question gives
    none)."""
    for place, pattern in _AFFILIATION_PLACES:
        if pattern.search(text):
            said = pattern.sub(
                lambda m: (
                    f" with an author from {m.groupdict().get('inst') or ''}"
                    f"{m.groupdict().get('inst2') or ''} "
                ),
                text,
                count=1,
            )
            return said, place
    return text, ""


_MORE_THAN = re.compile(
    r"^\s*(?:did|does|do|has|have)\s+(?P<a>.+?)\s+(?:publish|have|get|write|present)\s+"
    r"(?:more|(?:a\s+)?(?:higher|larger|greater|bigger))\s+"
    r"(?:[\w-]+\s+){0,4}?(?P<noun>papers|orals|spotlights|posters)?\s*(?:[\w-]+\s+)?"
    r"than\s+(?P<b>(?-i:[A-Z])[^?]+?)\s*\?*\s*$",
    re.I,
)
# "Which of Jiayi Ji and Rongrong Ji had the larger number of papers?"
_WHICH_OF_MORE = re.compile(
    # "Between A and B, who has more papers?"
    r"^\s*between\s+(?P<a2>.+?)\s+and\s+(?P<b2>.+?),\s*(?:who|which(?:\s+one)?)\s+(?:has|had|have|got|published)"
    r"\s+(?:the\s+)?(?:more|most)\b"
    r"|^\s*which\s+of\s+(?P<a>.+?)\s+(?:and|or)\s+(?P<b>.+?)\s+(?:had|has|have|got|published|wrote)"
    r"\s+(?:the\s+)?(?:more|most|larger|largest|higher|highest|greater|bigger)\b"
    r"(?:[^?]*?\b(?P<noun>orals|spotlights|posters)\b)?",
    re.I,
)


# "Yale on number of spotlights", "MIT in RL papers": a compared name and what is counted
_CRITERION = re.compile(
    r"^(?P<name>.+?)\s+(?:on|in|by|for|regarding)\s+(?:the\s+|their\s+)?(?:(?:number|count|"
    r"amount)\s+of\s+)?(?P<what>[^?]+?)\s*[?.!]*$",
    re.I,
)
# "Is Oxford or Cambridge stronger in RL at ICML 2024 (number of RL papers)?"
_STRONGER_IN = re.compile(
    r"^\s*(?:is|are|was|were)\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s+(?:stronger|better|bigger|"
    r"more\s+(?:active|prolific|productive|present))\s+(?:in|on|at)\s+(?P<what>[^?(]+?)"
    r"(?:\s+at\s+ICML(?:\s*20)?(?:\s*24)?)?\s*(?:\([^)]*\))?\s*[?.!]*\s*$",
    re.I,
)


def _more_of(items: list[str], what: str) -> str:
    """The either-or count question of what a comparison counts: statuses ("spotlights")
    or the papers on a topic ("RL papers", "RL")."""
    statuses = _statuses_said(what)
    rest = re.sub(r"(?i)\b(?:papers?|works?)\b", " ", STATUS_WORD.sub(" ", what))
    topic = re.sub(r"\s+", " ", rest).strip(" ,")
    if statuses and not topic:
        return _more_papers(items, statuses)
    return _more_papers(items, f"papers on {topic}" if topic else None)


def _statuses_said(text: str) -> str:
    """The statuses a text names, as a count's noun ("orals and spotlights"), or ""."""
    found = dict.fromkeys(w.lower() for w in STATUS_WORD.findall(text))
    return " and ".join(f"{w}s" for w in found)


def _more_papers(items: list[str], noun: str | None = None) -> str:
    """The either-or count question the parser reads: "Who had more papers, A or B?"."""
    return f"Who had more {noun or 'papers'}, {listing(items, 'or')}?"


def _names_paper(said: str, title: str) -> bool:
    """Whether a who-wrote question names the paper itself: its title, or the name before
    its title's colon ("BiLLM"; not "LoRA" for "LoRA+: …", nor a topic one title holds)."""
    head = title_head(title)
    return said.casefold() in (title.casefold(), head.casefold()) or titled_in(said, title)


_SENTENCES = re.compile(r"(?<=[a-z0-9\"'”’)])[.!?]\s+(?=[A-Z])")
_ABOUT_ASKER = re.compile(r"\s*(?:i|i['’]m|i['’]ve|my|me|we|we['’]re|our|us)\b", re.I)


# the question pointing back at what a sentence before named: "How big was their footprint?"
_POINTS_BACK = re.compile(r"\b(?:their|theirs|them|they|that\s+place|those|these)\b", re.I)


def _sentences_before(question: str, whose: bool) -> Iterator[tuple[str, bool]]:
    """The sentences before a question's last, each with whether it stays: not when about
    the asker ("I work at MIT."), unless, with `whose`, it names someone's papers ("I'm
    compiling X's record."), or the last points back ("their footprint": "I'm applying to
    TU Wien.")."""
    *before, last = _SENTENCES.split(question)
    pointed = bool(_POINTS_BACK.search(last))
    for sentence in before:
        stays = (
            not _ABOUT_ASKER.match(sentence)
            or pointed
            or (whose and re.search(r"\w['’]s\b", sentence) is not None)
        )
        yield sentence.strip(), stays


NEGATED_WORD = 3  # abstracts writing "non" + a word for it to name a kind of its own


class QuestionParser:
    """Turns a question into a `QueryPlan` using the catalogue's own vocabularies."""

    def __init__(self, catalogue: Catalogue, doc_freq: Callable[[str], int] | None = None) -> None:
        self.catalogue = catalogue
        self.doc_freq = doc_freq
        self.places = PlaceReader(catalogue, doc_freq)
        self.people = PeopleReader(catalogue, self.places.a_fields_word, doc_freq)

    def plan(self, question: str) -> QueryPlan:
        both = _COUNT_THEN_SHARE.match(question)
        if both:  # "How many papers are about LLMs, and what percentage is that?": its share
            question = f"What {both.group('share')} of ICML 2024 papers {both.group('rest')}?"
        plain = plain_question(question)
        asked = statistic_asked(question)
        if asked is not None:  # "What fraction of papers were orals?": of the count's papers
            counted = selected(self._read(asked.asked), asked)
            if counted.constraints.is_empty() or counted.kind != "metadata":
                counted = self._said_before(question, asked) or counted
            pointed = _POINTS_BACK.search(question) and counted.constraints.is_empty()
            if pointed and not asked.share_of:
                counted = counted.model_copy(update={"kind": "paper"})  # "behind them": unread
            if counted.kind == "metadata" and not (counted.ranking or counted.written_by):
                update = {"statistic": asked.statistic, "share_of": asked.share_of}
                return counted.model_copy(update={**update, **self._within(asked)})
            if asked.statistic == "share" and counted.kind == "count" and not asked.catalogued:
                # a topic's share: its count, whose members are judged, over all papers (or
                # the statuses it is of), or over the topic's ("of the papers on X were …")
                of_topic = bool(asked.within) and bool(self._read(asked.within).topic)
                update = {"statistic": "share", "share_of": asked.share_of}
                return counted.model_copy(update={**update, "share_of_topic": of_topic})
        # "Which authors had both an oral and a spotlight?", "Which of X's papers are not
        # about robotics?", "Which university had the highest share of orals?"
        readings = (
            with_each_status,
            not_about,
            by_share,
            title_words_ranked,
            affiliations_asked,
            who_works_on,
            topics_of,
        )
        for reading in readings:
            if reading is not_about and self._names_its_negation(question):
                continue  # "optimization but are not convex": nonconvex optimization
            read_so = reading(question, self._read)
            if read_so is not None:
                return read_so
        position, at_top = rank_position(question)
        if position:  # "Which author ranks second for orals?": the ranking, and its place
            ranked = self._read(at_top)
            if ranked.ranking in POSITION_RANKINGS:
                return ranked.model_copy(update={"position": position, "top": 0})
        read = self._read(question, plain)
        c = read.constraints
        named = c.authors or c.affiliations or c.first_author or c.last_author or c.any_of
        if read.kind != "metadata" or named or read.ranking or read.unresolved:
            return read
        # "I'm putting together Peng Wu's ICML 2024 record for a tenure file. Posters only,
        # please.": the person or institution the sentence before names
        for sentence, stays in _sentences_before(question, whose=True):
            if not stays:
                continue
            said = self._read(f"Which papers {sentence}?").constraints
            if said.authors or said.affiliations:
                update = {"authors": said.authors, "affiliations": said.affiliations}
                return read.model_copy(update={"constraints": c.model_copy(update=update)})
        return read

    def _said_before(self, question: str, asked: StatisticAsked) -> QueryPlan | None:
        """A statistic's papers described in a sentence before it ("Quick one: titles with
        'smoothing' in them. If you total up their authors and divide …"): the first such
        sentence that selects papers by the catalogue."""
        for sentence, stays in _sentences_before(question, whose=False):
            # "I'm thinking about applying to TU Wien.": the asker's situation, then the count
            about_asker = _ABOUT_ASKER.match(sentence)
            # "I'm organising a get-together for Bo An and their co-authors.": a person the
            # asker's situation names is whose papers (the asker's own place is not)
            person_only = not stays
            counted = (
                f"{sentence.rstrip('.!')}. How many papers did they have?"
                if about_asker
                else f"How many papers {sentence}?"
            )
            said = selected(self._read(counted), asked)
            c = said.constraints
            if person_only and (c.affiliations or c.any_of or not c.authors):
                continue
            if said.kind == "metadata" and not c.is_empty():
                return said if not (said.ranking or said.written_by) else None
        return None

    def _within(self, asked: StatisticAsked) -> dict[str, object]:
        """A share's papers when named ("of Google's papers"): their constraints, their
        statuses with the share's own."""
        if not asked.within:
            return {}
        base = self._read(asked.within).constraints
        if not (base.authors or base.affiliations or base.title_words or base.any_of):
            return {}  # "of the ICML 2024 papers", "of the orals": all, or by status only
        if base.first_author or base.last_author:
            return {}
        statuses = sorted(set(asked.share_of) | set(base.statuses))
        return {"share_within": base.model_copy(update={"statuses": []}), "share_of": statuses}

    def _names_its_negation(self, question: str) -> bool:
        """ "… but are not convex": one word whose negation the abstracts write as a word of
        its own ("nonconvex"), a kind of the topic rather than a topic left out."""
        found = re.search(
            r"\bbut\s+(?:are|is|were|was)\s+not\s+([a-z][a-z-]*)\s*[?.!]*\s*$", question, re.I
        )
        word = found.group(1).lower().replace("-", "") if found else ""
        return (
            bool(word) and self.doc_freq is not None and self.doc_freq(f"non{word}") >= NEGATED_WORD
        )

    def _read(self, question: str, plain: str | None = None) -> QueryPlan:
        """The plan of `question`; `plain`: its plain_question when already read."""
        typed = question  # as typed: "adam papers" is no person, "Adam Smith papers" is
        question = plain_question(question) if plain is None else plain
        # "Which papers on GNNs are also about molecules?": one topic of two facets
        doc_freq = self.doc_freq
        written = (lambda w: bool(doc_freq(w))) if doc_freq is not None else None
        question = topic_within(question, self._known, written) or question
        compared = compared_items(question)
        crit = _CRITERION.match(compared[-1]) if compared else None
        if crit and all(self._known(item) for item in [*compared[:-1], crit.group("name")]):
            # "Compare Harvard and Yale on number of spotlights": each one's count of those
            compared = [*compared[:-1], crit.group("name")]
            question = _more_of(compared, crit.group("what"))
            compared = []
        stronger = _STRONGER_IN.match(question)
        if stronger and all(self._known(stronger.group(k)) for k in "ab"):
            # "Is Oxford or Cambridge stronger in RL?": each one's papers on it
            question = _more_of([stronger.group("a"), stronger.group("b")], stronger.group("what"))
        if compared and all(self._known(item) for item in compared):
            # "CyberAgent vs Emory University: paper counts?": each one's papers, counted
            # "PKU vs Berkeley: who got more orals and spotlights?": of those statuses
            compared, question = [], _more_papers(compared, _statuses_said(question) or None)
        versus = _MORE_THAN.match(question) or _WHICH_OF_MORE.match(question)
        rivals = (
            [
                VENUE.sub(" ", versus.group(k) or versus.groupdict().get(k + "2") or "").strip()
                for k in "ab"
            ]
            if versus
            else []
        )
        if versus and all(self._known(name) for name in rivals):
            # "Did Jiawei Han publish more papers than Bhavya Kailkhura?"
            question = _more_papers(rivals, versus.group("noun"))
        if compared:
            return QueryPlan(kind="compare", compared=compared)
        by_place = asked_unrecorded(question) or asked_by_place(question, self.catalogue)
        if by_place is not None:  # "How many orals did Chinese universities get?"
            return QueryPlan(kind="metadata", unresolved=[by_place])
        text = re.sub(r"\(\s*\)", " ", VENUE.sub(" ", question)).strip()  # "(ICML 2024)"
        if text != question.strip():  # "ICML spotlights … in 2024": the venue's year too
            text = _YEAR.sub(" ", text)
        # "…, and how many of them were orals?": the list, with its statuses counted
        text = _of_them_dropped(text)
        byline = byline_asked(text)
        said, paper = "", None
        if byline is not None:  # the paper as named, or the name within it
            said, paper = next(
                (
                    (s, named)
                    for s in (byline.said, byline.name)
                    if s
                    and (named := self.catalogue.named_paper(s)) is not None
                    and _names_paper(s, named.title)
                ),
                ("", None),
            )
        if byline is not None and paper is not None and _names_paper(said, paper.title):
            # "Who's the first author of 'On The Fairness …'?", "Who wrote BiLLM?", "How many
            # authors does the Medusa paper have?": the named paper's byline, from the
            # catalogue (no abstract says who wrote it)
            return QueryPlan(
                kind="metadata",
                like_paper=paper.id,
                written_by=byline.written_by,
                position=byline.position,
            )
        said_by = self._said_to_have_written(text)
        if said_by is not None:  # "Is the GaLore paper from Caltech?": its byline, checked
            return said_by
        constraints = PlanConstraints()
        unresolved: list[Unresolved] = []
        set_like = bool(
            _SET.search(question) or _COUNT.search(question) or _RANKING.search(question)
        )
        text, ranked = papers_or_places_ranked(question, text, bool(_WHO.search(question)))
        # "overshadowed by the spotlight" uses the word, "orals", "a spotlight paper" the status
        # "poster count for X", "oral slots": the papers of that status, counted
        text = _STATUS_COUNTED.sub(lambda m: f"{m.group(1)}s", text)
        if set_like or ranked or _STATUS_NOUN.search(question):
            # "anything, apart from posters, about Mamba": the aside's commas go with it
            text = re.sub(r",\s*,", " ", self._statuses(text, constraints))
        for pattern, plainly in _AUTHOR_COUNTS_SAID:
            text = pattern.sub(plainly, text)  # type: ignore[arg-type]
        ranged = _AUTHOR_RANGE.search(text)
        if ranged:  # "three to five authors": both bounds
            constraints.min_authors = count_said(ranged.group("low"))
            constraints.max_authors = count_said(ranged.group("high"))
            text = text[: ranged.start()] + " " + text[ranged.end() :]
        many = _MANY_AUTHORS.search(text)
        if many and re.match(r"\s+(?:from|at)\b", text[many.end() :]):
            many = None  # "at least 2 authors from MIT": of MIT, not in all
        if many is not None:  # "papers with at least 10 authors", "more than twenty authors"
            more = (many.group(1) or "").lower().startswith(("more", "over"))
            least = count_said(many.group(2) or many.group(3) or many.group(4)) + int(more)
            left_out = _LEFT_OUT.search(text[: many.start()])
            if left_out:  # "leave out anything with ten or more authors": at most nine
                constraints.max_authors = least - 1
                text = text[: left_out.start()] + " " + text[many.end() :]
            else:
                constraints.min_authors = least
                text = text[: many.start()] + " " + text[many.end() :]
        few = _FEW_AUTHORS.search(text)
        if few:  # "with fewer than five authors", "at most 3 authors"
            constraints.max_authors = count_said(few.group(3)) - int(bool(few.group(1)))
            text = text[: few.start()] + " " + text[few.end() :]
        exactly = _EXACT_AUTHORS.search(text)
        if exactly:  # "solo-authored", "single-author papers", "exactly two authors"
            said = exactly.group("n") or exactly.group("n2") or exactly.group("n3")
            n = 1 if exactly.group("solo") else count_said(said)
            constraints.min_authors = constraints.max_authors = n
            text = text[: exactly.start()] + " " + text[exactly.end() :]
        text = no_affiliation(text, constraints)  # "How many papers list no affiliation?"
        text = institution_kinds(text, constraints)  # "from both industry and academia"
        text = title_words(text, constraints)
        if set_like or _STATUS_NOUN.search(question):  # "Which orals mention ChatGPT?"
            text = text_words(text, constraints, self._written)
        mend_title_typos(constraints, self.catalogue, self.doc_freq)
        cited = _ET_AL.search(text) if set_like else None
        whole = f"{cited.group('given') or ''}{cited.group('family')}" if cited else ""
        given = cited is not None and cited.group("given") is not None
        person = self.catalogue.match_author(whole, suggest=False).unique if given else None
        if cited and (person is not None or self.catalogue.family_named(cited.group("family"))):
            # "cited as Bhattacharyya et al.": that family's name first, three or more
            # authors; "Jeongwhan Choi et al.": that person first
            constraints.first_author = person.name if person else cited.group("family")
            constraints.min_authors = max(constraints.min_authors, 3)
            kept = "" if person or not given else cited.group("given")  # not a name's part
            text = text[: cited.start()] + f" {kept} " + text[cited.end() :]
        text, place = _affiliation_place(text)
        text = self.places.read(text, constraints, set_like)
        if place and constraints.affiliations:
            constraints.affiliation_place = place  # type: ignore[assignment]
        text = self.people.read(text, constraints, unresolved, typed)
        for name in list(constraints.affiliations):
            # "universities in Hong Kong", "Hong Kong institutions": every one there, not one
            where = re.compile(
                rf"\bin\s+(?:the\s+)?{re.escape(name)}\b|\b{re.escape(name)}\s+(?:universities|"
                r"institutions|institutes|companies|labs|schools|orgs|organi[sz]ations)\b",
                re.I,
            )
            readings = [] if where.search(question) else self.catalogue.readings(name)
            narrowed, said = self._narrowed(name, readings, question)
            if narrowed:  # "NTU Singapore", "UW Madison", "Illinois Tech": the one meant
                constraints.affiliations[constraints.affiliations.index(name)] = narrowed
                text = re.sub(rf"\b{re.escape(said)}\b", " ", text, count=1)
                continue
            if readings:  # "NTU", "Hong Kong": which one? Asked, not summed
                constraints.affiliations.remove(name)
                unresolved.append(Unresolved(kind="institution", text=name, candidates=readings))
        threshold = _AT_LEAST_PAPERS.search(question)
        at_least = 0
        if threshold and _WHO.search(question):  # "Which authors had at least 9 papers?"
            more = (threshold.group(1) or "").lower().startswith(("more", "over"))
            at_least = count_said(threshold.group(2) or threshold.group(3)) + int(more)
            text = _AT_LEAST_PAPERS.sub(" ", _STATUS_HELD.sub(" ", text))
        placed_rank = None
        if not (constraints.authors or constraints.first_author or constraints.last_author) and (
            _RANKING.search(question) or _BEYOND_ANYONE.search(question)
        ):
            placed_rank = _RANK_PLACE.search(text)  # "first author on the most papers"
        if placed_rank:
            text = _BEYOND_ANYONE.sub(" ", _RANK_PLACE.sub(" author ", text))
        text = TOP_N.sub("top", text)  # "the top 3 authors on X": the topic is X
        if _COAUTHORS.search(question):  # "co-author with most often": the ranking's words
            text = _MOST_WITH.sub(" ", text)
        similar = _SIMILAR.search(text)
        topic = similar.group("ref").strip(" '\"") if similar else _topic(text)
        if ranked and ranked.ranking in PLACE_RANKINGS and topic:
            # "… make up the top 5", "… carrying the word": the ranking's frame; "… the
            # most papers in reinforcement learning", "… lead the way in AI safety": a topic
            topic = _ranking_topic(question, topic)
        topic, unread = left_beside_names(
            question,
            typed,
            topic,
            bool(similar),
            constraints,
            unresolved,
            self.catalogue,
            self.doc_freq,
            _topic,
        )
        if topic[:1].isupper() and f"{topic[:1].lower()}{topic[1:]}" in typed:
            topic = topic[:1].lower() + topic[1:]  # "offline RL papers", as typed
        named = self.catalogue.named_paper(topic) if similar else None
        kind = _kind(question, bool(topic), constraints, unresolved, named is not None)
        if kind == "metadata" and constraints.is_empty() and _POINTER.search(question):
            kind = "paper"  # "Which papers address this?": about something said before
        if kind == "compare" and not topic and not constraints.any_of:
            # "Compare the number of oral papers from Google and Microsoft": each one's count
            for names in (constraints.affiliations, constraints.authors):
                if len(names) >= 2 and not (constraints.affiliations and constraints.authors):
                    constraints.any_of, names[:] = list(names), []
                    kind = "metadata"
        ranking: Ranking | None = None
        top = TOP_N.search(question)
        if ranked:
            kind, ranking = "metadata", ranked.ranking
        elif _COAUTHORS.search(question) and constraints.authors:
            kind, ranking = "metadata", "coauthors"  # "Who did X co-author with most often?"
        elif placed_rank:
            place = next(g for g in placed_rank.groups() if g).lower()
            first = place in ("first", "lead", "leading")
            kind, ranking = "metadata", "first_authors" if first else "last_authors"
        elif _RANKING.search(question) or at_least:
            kind, ranking = "metadata", "authors"
        return QueryPlan(
            kind=kind,
            topic=topic if kind != "paper" else "",
            constraints=constraints,
            ranking=ranking,
            at_least=at_least,
            top=ranked.top
            if ranked
            else count_said(top.group(1) or top.group(2))
            if ranking and top
            else 1  # "Which Tencent researcher had the most papers?": the one (ties kept)
            if ranking and (_ONE_ASKED.search(question) or _BEYOND_ANYONE.search(question))
            else 0,
            unresolved=unresolved,
            like_paper=named.id if named is not None and kind == "similar" else "",
            unread=unread,
        )

    def _said_to_have_written(self, text: str) -> QueryPlan | None:
        """ "Caduceus is from Stanford and CMU, right?", "Was the KTO paper written by Kawin
        Ethayarajh?": a paper named by its title's name, and people or institutions the
        catalogue knows, each of them; else None (the question is read otherwise)."""
        asked = who_asked(text)
        if asked is None:
            return None
        said, paper = next(
            (
                (s, named)
                for s in (asked.said, asked.name)
                if s and (named := self.catalogue.named_paper(s)) is not None
            ),
            ("", None),
        )
        if paper is None or not _names_paper(said, paper.title):
            return None
        constraints = PlanConstraints()
        whole = re.sub(r"^(?:the|an?)\s+", "", asked.who.strip(), flags=re.I)
        kind = _KIND_SAID.fullmatch(whole)
        if kind:  # "Is the WMDP paper from industry?": a company among its affiliations
            constraints.institution_kinds = ["academic" if kind.group("academic") else "company"]
            return QueryPlan(
                kind="metadata", like_paper=paper.id, written_by="who", constraints=constraints
            )
        # "Huazhong University of Science and Technology": one name, "and" and all
        parts = (
            [whole]
            if self.catalogue.knows_institution(whole)
            else re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", asked.who)
        )
        for who in parts:
            who = re.sub(r"^(?:the|an?)\s+", "", who.strip(), flags=re.I)
            match = self.catalogue.match_author(who, suggest=False) if " " in who else None
            if match is not None and match.unique is not None:
                constraints.authors.append(match.unique.name)
            elif who[:1].isupper() and self.catalogue.knows_institution(who):
                constraints.affiliations.append(who)
            else:
                return None  # "Is this from scratch?": no one the catalogue knows
        return QueryPlan(
            kind="metadata", like_paper=paper.id, written_by="who", constraints=constraints
        )

    def _written(self, phrase: str) -> bool:
        return bool(self.catalogue.mentioning(phrase))

    def _narrowed(
        self, name: str, readings: list[tuple[str, int]], question: str
    ) -> tuple[str, str]:
        """The one reading of an ambiguous name the word after it picks ("NTU Singapore":
        Nanyang; "Illinois Tech"; "Hong Kong PolyU": PolyU itself), and that word."""
        after = re.search(rf"\b{re.escape(name)}\s+([A-Z][\w-]+)", question)
        if not readings or after is None:
            return "", ""
        word = after.group(1)
        if self.catalogue.knows_institution(f"{name} {word}"):
            return f"{name} {word}", word
        longer = [f"{r} {word}" for r, _ in readings]  # "IIT Delhi": "Indian … Technology Delhi"
        known = [n for n in longer if self.catalogue.knows_institution(n)]
        if len(known) == 1:
            return known[0], word
        key = fold(word)
        by_name = [r for r, _ in readings if any(w.startswith(key) for w in fold(r).split())]
        picked = by_name or [
            reading
            for reading, _ in readings
            if any(
                w.startswith(key)
                for a, _ in self.catalogue.match_institution(reading).variants
                for w in fold(a).split()
            )
        ]
        if len(picked) == 1:
            return picked[0], word
        # "Hong Kong PolyU": the word is the institution's own name, one no reading has
        own = re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}\w*", word)
        if written_as(word, self.catalogue) or (own and self.catalogue.knows_institution(word)):
            return word, word
        return "", ""

    def _known(self, item: str) -> bool:
        """An author or institution the catalogue holds (a compared name, not a method)."""
        return self.catalogue.knows(item)

    # --- constraints -------------------------------------------------------------------
    def _statuses(self, text: str, constraints: PlanConstraints) -> str:
        text = _SPOTLIGHT_POSTER.sub("spotlight", text)  # a spotlight is a spotlight poster
        text = _TALK.sub(lambda m: f"oral{m.group(2)}", text)
        above = _ABOVE_STATUS.search(text)
        if above:  # "got past the poster stage": orals and spotlights
            passed = STATUSES.index(above.group("status").capitalize())
            constraints.statuses = list(STATUSES[:passed])  # STATUSES: highest first
            return _STATUS.sub(" ", _ABOVE_STATUS.sub(" ", text))
        negated = _NOT_STATUS.search(text)
        if negated:  # "non-poster papers", "neither orals nor spotlights": the other statuses
            out = {m.group(1).lower() for m in _STATUS.finditer(negated.group("statuses"))}
            constraints.statuses = [s for s in STATUSES if s.lower() not in out]
            return _STATUS.sub(" ", _NOT_STATUS.sub(" ", text))
        found = [m.group(1).capitalize() for m in _STATUS.finditer(text)]
        constraints.statuses = sorted(set(found), key=found.index)
        text = _A_STATUS.sub(" ", text)  # "Did any paper on X get a spotlight?": no "get a"
        # "LMU Munich's orals" are its papers: the noun stays for the institution patterns
        return _STATUS.sub(lambda m: " papers" if m.group(0).lower().endswith("s") else " ", text)


# "How many papers are about LLMs, and what percentage is that?": the count and its share
_COUNT_THEN_SHARE = re.compile(
    r"^\s*how\s+many\s+(?:icml\s+(?:20)?24\s+)?papers\s+(?P<rest>(?:are|were)\s+[^,?]+?)\s*,?\s+and\s+"
    r"what\s+(?P<share>percentage|percent|share|fraction|proportion)\s+(?:is\s+that|of\s+(?:all\s+)?"
    r"(?:the\s+)?(?:papers|conference)(?:\s+is\s+that)?|does\s+that\s+make)\s*[?.!]*\s*$",
    re.I,
)
_KIND_SAID = re.compile(
    r"(?:an?\s+)?(?:industry(?:\s+labs?)?|company|companies|corporate\s+lab)"
    r"|(?P<academic>academia|universit(?:y|ies)|an?\s+university|academic\s+labs?)",
    re.I,
)
_AUTHOR_FRAME = re.compile(
    r"\b(?:at least one|an?|any|one or more)?\s*(?:co-?)?authors?\b"
    r"(?:\s+(?:affiliated with|from|at|of))?|\bco-?author(?:ed|s)?\b|\bpublish(?:ed)?\b"
    r"|\b(?:and\s+)?(?:co-?)?(?:write|wrote|written)(?:\s+together)?\b|\btogether\b"
    r"|\b(?:co-?)?authored(?:\s+or\s+co-?authored)?\b"
    # "did A and B ever collaborate on a paper" (not "how robots collaborate")
    r"|\bever\s+(?:collaborat(?:e|ed)|team(?:ed)?\s+up)(?:\s+on)?\b"
    r"|\b(?:collaborat(?:e|ed)|team(?:ed)?\s+up)\s+on\s+(?:an?|any|the)\s+"
    r"(?=(?:ICML\s*(?:20)?24\s+)?papers?\b)",
    re.I,
)


def _topic(text: str) -> str:
    """What is left of the question once its frame is taken away ("" when nothing is)."""
    text = re.sub(r"\s+", " ", _AUTHOR_FRAME.sub(" ", text)).strip(" ?.!")
    # "(listed last)", "(oral / spotlight / poster)": an aside on the constraints, not "(ECG)"
    text = _ASIDE.sub(" ", text).strip(" ?.!:")
    parts = re.split(r"\bpapers?\b", text, maxsplit=1, flags=re.I)
    if len(parts) == 2:
        before, after = parts
        after = _TRAIL.sub("", after.strip(" ?.!,"))
        text = after if _content(after) else before
    for _ in range(3):
        text = _TRAIL.sub("", _LEAD.sub("", text.strip(" ?.!,"))).strip(" ?.!,")
    return text if _content(text) else ""


_ASIDE = re.compile(
    r"\s*\((?:\s*(?:listed|last|first|senior|lead|position|only|author|oral|spotlight|poster|"
    r"paper)s?"
    r"\s*(?:[/,&]|or\b|and\b)?)+\)|\s*\(\s*(?:by|from|with|of)?[\s/,|-]*\)",
    re.I,
)


def _content(text: str) -> bool:
    return any(t not in GENERIC_TOPIC for t in content_terms(text))


# "Which papers use Givens rotations, and for what purpose?" asks what the papers say too:
# the cited answer quotes it; a list of titles would not.
_DETAIL = re.compile(r",?\s+and\s+(?:what|how|why|for what|in what|which)\b", re.I)
# "What does the paper by Collin Burns on weak supervision find?", "james zou's oral paper —
# what is it about?": one paper of someone's, asked what it says
_ONE_PAPER_OF = re.compile(
    r"(?:\bthe\s+(?:[\w-]+\s+){0,4}(?:paper|work|article)\s+(?:by|from|of)\b"
    r"|['’]s\s+(?:(?:oral|spotlight|poster|new|latest|recent)\s+)?(?:paper|work|article)\b"
    r"|\bthe\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*){1,3}\s+(?:paper|work|article)\b)"
    # "AMD's paper total": a count of its papers
    r"(?!\s+(?:total|tally|count|counts|number|numbers|output|haul|list|titles?)\b)"
    r"(?![^?]*\b(?:papers|works|articles|how\s+many|which\s+(?:other\s+)?papers?)\b)"
    # "Is the paper by Tri Dao an oral?": its status, the catalogue's to say
    r"(?![^?]*\b(?:an?\s+)?(?:oral|spotlight|poster)\s*\??\s*$)",
)
_ASKS_CONTENT = re.compile(
    r"^\s*(?:in\s+[^,?]+,\s*)?(?:what|how|why|does|did|do|is|was)\b"
    r"|[—–:-]\s*(?:what|how|why)\b|\b(?:find|finds|found|show|shows|propose|proposes|claim|"
    r"claims|report|reports|conclude|concludes)\s*\??\s*$",
    re.I,
)


# the words a ranking question is framed in (and any metadata question's), around its topic
_RANK_FRAME = (
    frozenset(
        content_terms(
            "haul slot slots session sessions total totals tally list lists name names contributor "
            "contributors publisher publishers producer producers leaderboard share count number "
            "carrying carry collected collect placed place kindly accepted interested rather than "
            "other others blog post conference conferences ml programme program way charge area "
            "field space development lead leads leading led top most biggest largest highest "
            "greatest prolific rank ranked ranking dominate dominated institution institutions "
            "university universities company companies lab labs institute institutes org orgs "
            "organisation organisations organization organizations firm firms school schools "
            "industry spot spots position results entries ones first combined plus together sum "
            "behind make up give show tell which what who are were is was the a an of in on for "
            "to at by with about as and or ICML 2024 icml24 papers paper research centres centers "
            "neither nor non public presented published contributed regarding related concerning "
            "involving using mentioning study studies studying use uses used that care look looks "
            "like does do want need only just know please gave give gives giving had have has got get "
            "how many much could would can kindly"
        )
    )
    | frozenset(COUNT_WORDS)
    | frozenset(GENERIC_TOPIC)
)


def _ranking_topic(question: str, topic: str) -> str:
    """What a ranking's papers are about, from what is left of the question once the
    ranking is read: the span of words no ranking frame uses ("area of optimization" is
    optimization; "make up the top" and "sessions" are nothing), and only where the
    question says it as a topic: after "on", "in", "for", "involving" …, or before
    "papers", "research" ("the most LLM papers"); "how many", "that gave …" say none."""
    words = topic.split()
    kept = [
        i
        for i, w in enumerate(words)
        if (terms := content_terms(w)) and not set(terms) <= _RANK_FRAME
    ]
    span = " ".join(words[kept[0] : kept[-1] + 1]).strip(" ,.:;?!") if kept else ""
    if not span:
        return ""
    first, last = re.escape(span.split()[0]), re.escape(span.split()[-1])
    said = re.search(rf"{_TOPIC_BEFORE}(?:the\s+)?{first}\b", question, re.I) or re.search(
        rf"\b{last}\s+{_TOPIC_AFTER}", question, re.I
    )
    return span if said else ""


# what introduces a ranking's topic, and what follows one
_TOPIC_BEFORE = (
    r"\b(?:on|about|in|for|of|regarding|concerning|involving|using|mentioning|with|to|"
    r"study(?:ing)?|use|address(?:ing)?|related\s+to)\s+"
)
_TOPIC_AFTER = (
    r"(?:papers?|research|work|works|publications?|leaderboard|space|field|area|orals?|"
    r"spotlights?|posters?)\b"
)


def _of_them(text: str) -> re.Match[str] | None:
    """ "…, and which of them are orals?", "…, and which are orals?" (not "which were orals,
    and which were posters?", a status asked of each)."""
    found = _OF_THEM.search(text)
    bare = found and not re.search(r"\bof\s+(?:them|these|those)\b", found.group(0), re.I)
    return None if found and bare and STATUS_WORD.search(text[: found.start()]) else found


def _of_them_dropped(text: str) -> str:
    found = _of_them(text)
    return text if found is None else f"{text[: found.start()]}{text[found.end() :]}"


def _kind(
    question: str,
    has_topic: bool,
    constraints: PlanConstraints,
    unresolved: list[Unresolved],
    names_a_paper: bool = False,
) -> PlanKind:
    has_constraint = not constraints.is_empty() or bool(unresolved)
    split = _of_them(question)
    # "…, and which of them are orals?" counts the topic's papers by status; "…, and what do
    # they find?" (or "how many of them are about vision?") asks what they say
    detail = _DETAIL.search(question) and not (split and STATUS_WORD.search(split.group(0)))
    if has_topic and detail and not _COUNT.search(question):
        return "paper"
    people = constraints.authors or constraints.affiliations
    if people and _ONE_PAPER_OF.search(question) and _ASKS_CONTENT.search(question):
        return "paper"  # the cited answer, among that person's or place's papers
    if _SIMILAR.search(question):
        # "papers like BiLLM" names a paper; "papers like diffusion for molecules" a topic
        return "similar" if names_a_paper else "list"
    if _COUNT.search(question):
        return "count" if has_topic else "metadata"
    if _COMPARE.search(question) and re.search(r"\bpapers\b", question, re.I):
        return "compare"
    if _ORIGIN.search(question):
        return "paper"  # who first had an idea: no set of papers answers it
    if _SET.search(question) or has_constraint:
        if not has_topic:
            return "metadata"
        return "list"
    return "paper"
