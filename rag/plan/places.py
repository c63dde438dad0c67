"""The institutions a question names, read against the catalogue's affiliations.

"from MIT", "the Microsoft papers", "How many orals did INRIA have?", "from both Harvard
and Meta", "from ANU or KU Leuven", "no co-author from Berkeley", "(the Hong Kong campus,
not Shenzhen)", "from Berkley" (misspelt): each span is the longest run of words the
catalogue knows as an institution, never a person.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import COUNTRIES, acronym, fold, spellings
from rag.catalogue.names import GENERIC_WORDS as _GENERIC
from rag.plan.situations import PLACE_WORDS
from rag.text import STOPWORDS
from rag.types import PlanConstraints

_INSTITUTION_AFTER = re.compile(  # a lookahead, so "at least one author at MIT" tries both
    r"\b(?:from|at|out of|affiliated with|affiliation(?: with)?|working at|employed at|"
    # "papers whose affiliations include Ben-Gurion University"
    r"affiliations?\s+(?:include|includes|including|list|lists|contain|contains|name|names)|"
    # "papers that list TU Dortmund", "every paper listing Valence Labs"
    r"(?:(?<=papers\sthat\s)|(?<=papers\swhich\s)|(?<=paper\s)|(?<=papers\s))(?:lists?|listing)|"
    # "what portion went to Stanford": the papers that are Stanford's
    r"(?:went|go|goes|belong(?:s|ed)?)\s+to|"
    # "how many orals involved Stanford": a capitalised name the papers involve
    r"involv(?:e|es|ed|ing)(?=\s+(?:the\s+)?(?-i:[A-Z]))|"
    r"(?:working|based|located|people|researchers|authors|labs?)\s+in|"
    r"(?P<between>between))\s+(?:the\s+)?"
    # "University of California, Berkeley": a comma before a capitalised word stays;
    # "from either X or Y": one of them (the "or" is read after the first)
    r"(?:(?P<both>both\s+)(?:the\s+)?|either\s+(?:the\s+)?)?"
    r"(?=(?P<span>(?:[^?,;.()—–]|,\s*(?=[A-Z]))+))",
    re.I,
)
_INSTITUTION_BEFORE = re.compile(
    r"(?P<span>(?:\S+\s+){0,8}\S+)\s+(?:authors?|co-?authors?|researchers?|affiliations?|people|"
    r"folks|staff|employees)\b",
    re.I,
)
OWNER_PAPERS = 3  # papers on which a one-word lower-case name is an institution's own
# the words a name keeps in lower case: "University of X", "Institut de Y"
_SMALL = frozenset("of for and the at in on de du des la le di da del der und".split())
# a lower-case name owning papers or people: "intsig's", "walmart people", "nvidia papers"
_OWNED_LOWER = re.compile(
    r"(?<![\w'’-])(?P<name>[a-z][a-z0-9&-]+)(?=(?P<owns>['’]s\b)|\s+(?:people|researchers|authors|folks|"
    r"staff|employees|papers|orals|spotlights|posters|icml)\b)"
)
# "had Google somewhere among the affiliations", "list DeepMind in their affiliations"
_INSTITUTION_AMONG = re.compile(
    r"(?P<span>(?:\S+\s+){0,8}?\S+)\s+(?:somewhere\s+|anywhere\s+)?(?:among|in|on)\s+(?:the|its|"
    r"their|an?\s+paper['’]s)\s+(?:list\s+of\s+)?(?:af+il+i?ations|authors)\b",
    re.I,
)
# "OpenAI's Babbage and Ada models", "Google's PaLM API": a product's maker, not where
# authors work ("HIT's Shenzhen campus", "Google's Zurich office" are the institution's)
_MAKER = re.compile(
    r"\b((?-i:[A-Z])[\w&.-]*)['’]s\s+(?:[\w.-]+\s+){0,3}?(?:models?|LLMs?|APIs?|chatbots?|"
    r"assistants?|products?|services?|chips?|GPUs?|TPUs?|hardware|software|apps?)\b",
    re.I,
)
_POSSESSIVE = re.compile(r"(?<=[A-Za-z])['’]s\b")
_NO_ONE = (
    r"(?:without|with\s+no|(?:have|has|had)\s+no|no|"
    r"(?:don['’]t|do\s+not|doesn['’]t|does\s+not|didn['’]t|did\s+not)\s+"
    r"(?:involve|include|have)(?:\s+any(?:one|body)?|\s+an?)?)"
)
# "have no co-author from Berkeley", "don't involve anyone from KTH"
_EXCLUDED_FROM = re.compile(
    rf"\b{_NO_ONE}\s+(?:(?:co-?)?authors?\s+|one\s+|researchers?\s+|people\s+)?"
    r"(?:from|at|affiliated\s+with)\s+(?:the\s+)?(?P<span>[^?,;.()\x00]+)",
    re.I,
)
# "(the Hong Kong campus, not Shenzhen)", "excluding Google"
# "excluding anything with a J.P. Morgan author", "had no Google co-authors",
# "didn't involve Google"
_EXCLUDED_WITH = re.compile(
    r"(?:\b(?:excluding|except(?:\s+for)?|leaving\s+out|without)\s+(?:anything|any\s+papers?|"
    r"papers?|those|ones|the\s+ones)\s+with\s+(?:an?\s+)?|\b(?:had|have|has|with|but)\s+no\s+|"
    # "without an MIT coauthor"
    r"\bwithout\s+(?:an?|any)\s+)"
    r"(?P<span>(?:[^?,;()\x00.]|\.(?=\w|\s+[A-Z]))+?)\s+(?:co-?)?authors?\b"
    r"|\b(?:didn['’]t|did\s+not|don['’]t|do\s+not|doesn['’]t|does\s+not)\s+involve\s+"
    r"(?P<involved>(?-i:[A-Z])[^?,;()\x00]*)",
    re.I,
)
# "Who had more orals, MIT or Stanford?"
_WHO_MORE = re.compile(
    r"\b(?P<frame>(?:who|which)\b[^,:?]*\bmore)\b[^,:?]*[,:]\s*(?P<span>[^?]+?\s+or\s+[^,?]+?)"
    r"\s*\??\s*$",
    re.I,
)
# what "more" may count for the question to compare papers: "more orals", "more papers in total"
_PAPERS_COUNTED = re.compile(
    r"(?:(?:papers?|orals?|spotlights?|posters?|works?|publications?|accepted|at|icml|2024|in|"
    r"total|of|them|and|or)(?:\s+|$))*",
    re.I,
)
# "Warwick or UCL: which one published more works?"
_THEN_WHICH = re.compile(
    r"^\s*(?P<span>[^:?]+?\s+or\s+[^:?]+?)\s*:\s*(?:which|who)\b[^?]*\b(?:more|most|fewer)\b", re.I
)
# "Oxford or NUS, which one had more orals?"
_THEN_COMMA_WHICH = re.compile(
    r"^\s*(?P<span>[^,:?]+?\s+or\s+[^,:?]+?)\s*,\s*(?:which|who)\b[^?]*\b(?:more|most|fewer)\b",
    re.I,
)
# "Did KIT or the University of Macau have more papers?"
_DID_MORE = re.compile(
    r"^\s*(?:did|does|do)\s+(?P<span>[^?]+?\s+or\s+[^?]+?)\s+(?:have|get|publish|present)\s+"
    r"(?:more|fewer)\b",
    re.I,
)
# "Out of A, B and C, which one got the most orals?"
_OUT_OF_LIST = re.compile(
    r"^\s*(?:out\s+of|of|among|between)\s+(?P<span>[^?]+?\s+(?:and|or)\s+[^,?]+?),\s*"
    r"(?:which|who)\b",
    re.I,
)
_EXCLUDED = re.compile(
    r"(?:\bbut\s+not|\bnot(?:\s+counting)?|\bexcluding|\bexcept(?:\s+for)?|\bother\s+than|"
    r"\bwithout|\bminus|\b(?:are|is|were|was)n['’]t)\s+"
    r"(?:the\s+|(?P<from>from|at)\s+(?:the\s+)?)?(?P<span>[^?,;.()\x00]+)",
    re.I,
)
_PART_OF = frozenset({"campus", "branch", "site", "office", "lab", "labs"})
# what may follow a known name and say nothing more: a generic word, its acronym in brackets;
# a plural asks for every institution named after it ("Max Planck institutes")
_PLURAL_TAIL = r"universities|institutes|labs|groups|teams"
_NAME_TAIL = (
    rf"(?:\s+(?i:university|institute|{_PLURAL_TAIL})(?![\w-])|"
    r"\s*\(\s*[A-Z]{2,}[\w&-]*\s*\)){0,2}"
)
# Words that may follow an excluded place: the question goes on, the place has ended.
_JOINING = frozenset(
    "and or but with in at on that who which whose where for about as while whereas".split()
)
_DEPARTMENT = re.compile(
    r"\b(?:the\s+)?(?:(?:computer|data|information|electrical|mathematical|statistical)\s+)?"
    r"(?:science|sciences|engineering|statistics|mathematics|informatics)?\s*"
    r"(?:department|dept\.?|school|faculty|division)\b",
    re.I,
)
_CAMPUS = re.compile(r"\b(?:the\s+)?(?:[\w-]+\s+){0,2}campus\b", re.I)
# "the Microsoft papers": a capitalised name right before "papers" (not "Bayesian papers":
# it must be an institution the catalogue knows)
# A capitalised name, small words inside it ("University of Chicago", "X or Y")
_NAMED = (
    r"(?:[A-Z][\w&.*-]*\s+(?:(?:of|for|and|de|at|the|or|für|fur|der|des|du|di|la|le|bin|&)\s+){0,2})"
    # "University of California, Berkeley": a campus after a comma
    r"{0,7}[A-Z][\w&.*-]*(?:,\s+[A-Z][\w&.*-]*(?:\s+[A-Z][\w&.*-]*)?"
    r"(?=\s+(?i:have|had|has|got|get|publish|present)\b))?"
)
# Cities an institution is qualified by ("Kyutai in Paris"); any other capitalised words
# after "in" may be a topic ("Meta in Reinforcement Learning").
_CITIES = (
    r"Paris|London|Berlin|Munich|Zurich|Geneva|Lausanne|Vienna|Amsterdam|Tübingen|Tuebingen|"
    r"Madrid|Barcelona|Rome|Milan|Stockholm|Copenhagen|Helsinki|Oslo|Warsaw|Prague|Moscow|"
    r"Edinburgh|Oxford|Cambridge|Beijing|Shanghai|Shenzhen|Hangzhou|Nanjing|Wuhan|Chengdu|"
    r"Guangzhou|Hong Kong|Taipei|Tokyo|Kyoto|Seoul|Singapore|Bangalore|Bengaluru|Delhi|Mumbai|"
    r"Tel Aviv|Jerusalem|Haifa|Dubai|Abu Dhabi|Sydney|Melbourne|Toronto|Montreal|Vancouver|"
    r"Boston|New York|Pittsburgh|Seattle|San Francisco|Los Angeles|Chicago|Austin|Atlanta|"
    r"Berkeley|Palo Alto|Princeton"
)
# "IISc and the University of Liverpool … combined": a paper from either, counted once
_COMBINED = re.compile(r"\b(?:combined|in total|altogether|between them)\b", re.I)
# "Zicheng Liu (Zhejiang University)": which of the people so named
_INSTITUTION_ASIDE = re.compile(
    rf"(?<=[a-z] )\((?P<span>(?=[^)]*\b(?:University|Institute|College|Laboratory|Academy|"
    rf"School|Universit[äé]t?)\b){_NAMED})\)"
)  # not "(FL)" after a method's name: an institution's noun inside, after a person
# "the Microsoft papers", "Which Oxford academic", "Peng Cheng Lab researchers"
_INSTITUTION_PAPERS = re.compile(
    rf"(?P<span>{_NAMED})\s+(?:papers?|academics?|researchers|scientists|faculty)\b"
)
# "Any orals for Notre Dame", "papers by Mila", "the most papers with Google": a capitalised
# name after "for" / "by" / "with" that ends the question
_INSTITUTION_FOR = re.compile(
    rf"\b(?i:orals?|spotlights?|posters?|papers?|works|publications)\s+(?i:for|by|with)\s+"
    rf"(?:the\s+)?(?P<span>{_NAMED})(?=\s*(?:[?.!;]|,(?!\s*[A-Z])|$|\s+(?i:at|in)\s+ICML))"
)  # not "papers for the Waymo Open Dataset report results": the name ends the question
# (a comma before a capital goes on with the name: "Institute of …, Chinese Academy of …")
_THAT_PLACE = re.compile(rf"\b(?:that|this|the\s+same)\s+{PLACE_WORDS}\b", re.I)
_AFFILIATION_WORD = re.compile(
    r"\b(?:(?:carry|carries|carrying|have|has|having|with|list|lists|listing)\s+)?"
    r"(?:an?\s+)?affiliations?\b",
    re.I,
)
_ABBREVIATED = re.compile(r"\bUniv\b\.?", re.I)
# "Uni Helsinki" is the University of Helsinki, "Korea U." Korea University
_UNI = re.compile(r"\bUni\s+(?=[A-Z])")
_U_DOT = re.compile(r"(?<=[a-z])\s+U\.(?=\s|$|[?,])")
_AFFILIATED = re.compile(
    r"\b([\w&]+)-affiliated(?=\s+(?:co-?)?authors?\b|\s+researchers?\b|\s+(?:papers|works|"
    r"orals|spotlights|posters)\b)",
    re.I,
)
# "How many orals did INRIA have?": an institution as the subject of having or getting
# "Beijing University of Posts and Telecommunications had 2 orals": the subject
_INSTITUTION_SUBJECT = re.compile(
    rf"^\s*(?:the\s+)?(?P<span>{_NAMED})\s+(?i:had|has|got|published|presented)\b"
)
# "how many orals Nanyang Technological University had", "papers Zhejiang Lab presented"
_INSTITUTION_DID = re.compile(
    rf"(?<=[a-z] )(?:the\s+)?(?P<span>{_NAMED})\s+(?i:had|got|published|presented)\b"
)
_IN_COUNTRY = re.compile(
    rf"\b(University|Institute|College|Academy|Laboratory)\s+in\s+(?:the\s+)?(?:{COUNTRIES}|US)\b"
)
_INSTITUTION_HAS = re.compile(
    rf"\b(?i:did|does|do)\s+(?:the\s+)?(?P<span>{_NAMED})\s+"
    r"(?:(?i:group|team|lab|labs|people|researchers|folks)\s+)?"
    r"(?i:have|get|win|publish|present|appear|contribute|show\s+up|bring|write|co-?write|"
    r"co-?author|author|produce|put\s+out)\b"
)
# "Google (not DeepMind)", "Meta (FAIR)", "Microsoft, excluding MSR,": an aside on a name
_NAME_BEFORE = r"(?P<name>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*){0,4})"
_ASIDE_CUE = r"(?P<cue>(?:but\s+)?not(?:\s+counting)?|excluding|except(?:\s+for)?|without)\s+"
_ASIDE_SAID = r"(?P<said>(?:the\s+)?(?-i:[A-Z])[\w&.'’-]*(?:\s+[\w&.'’-]+){0,4}?)\s*"
# "Meta / FAIR", "Peking University vs Tsinghua University": two names side by side
_NAME_AFTER = r"(?P<other>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?:of\s+|the\s+)?(?-i:[A-Z])[\w&.'’-]*){0,4})"
_SIDE_BY_SIDE = re.compile(
    rf"{_NAME_BEFORE}\s*(?P<how>/|\s(?:vs\.?|versus)\s)\s*{_NAME_AFTER}", re.I
)
# a question counting papers, whose names may be institutions side by side
_COUNTED = re.compile(
    r"\b(?:papers|orals|spotlights|posters|how\s+many|count|counts|number|more|fewer|output|"
    r"published|publish)\b",
    re.I,
)
_ASIDE_AFTER_NAME = (
    re.compile(rf"{_NAME_BEFORE}\s*\(\s*(?:{_ASIDE_CUE})?{_ASIDE_SAID}\)", re.I),
    re.compile(rf"{_NAME_BEFORE},\s+{_ASIDE_CUE}{_ASIDE_SAID},", re.I),
    # "Google minus DeepMind": the second left out of the first
    re.compile(
        rf"{_NAME_BEFORE}\s+(?P<cue>minus)\s+(?P<said>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*){{0,3}})"
        r"(?=\s*[,:;?.!]|\s+(?:have|has|had|got|get|at|in)\b|\s*$)",
        re.I,
    ),
)
_NOUN_WORDS = frozenset("university institute college academy laboratory lab school".split())
ACRONYM_DOCS = 2  # an acronym this few abstracts write is no topic's ("UCSD", not "ICL")
INSTITUTION_WORDS = 8  # "Hong Kong University of Science and Technology" is seven


# "University at X" alone, not "Duke University at Durham" (a name before it)
_SUNY_CAMPUS = re.compile(r"\bUniversity at (?P<city>[A-Z][a-z]+)")
# a terse query led by a name: "Berkeley offline RL papers", "Stanford diffusion orals?"
_TERSE_LEAD = re.compile(
    r"^\s*(?P<span>[A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*){0,3})\s+"
    r"(?P<rest>(?:[\w'’-]+\s+){1,4})(?i:papers|orals|spotlights|posters)\s*[?.!]?\s*$"
)
_NAMED_AT = re.compile(
    r"\b(?P<name>[A-Z][\w&'’-]*(?:\s+[A-Z][\w&'’-]*){1,4}\s+(?:Institute|University|College|"
    r"School|Center|Centre))\s+at\s+(?P<city>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)


class PlaceReader:
    def __init__(self, catalogue: Catalogue, doc_freq: Callable[[str], int] | None = None) -> None:
        self.catalogue = catalogue
        # how many abstracts write a word: "ICL" is a topic's acronym, "UCSD" no topic's
        self.doc_freq = doc_freq
        self._lower = False  # the question being read is typed in lower case

    def read(self, text: str, constraints: PlanConstraints, set_like: bool = True) -> str:
        """The question's institutions into `constraints`; the text without them.
        `set_like`: the question asks about papers as a set; else a lowercase word after
        "at" or "from" is an idiom ("at scale", "from scratch"), not an institution."""
        text = _ABBREVIATED.sub("University", text)
        # typed in lower case: a misspelt name after "from" need not be capitalised
        self._lower = not any(c.isupper() for c in text[1:])
        if self._lower:
            # "shanghai jiao tong university's work": the name, its owner's "'s" aside
            owned = re.sub(
                r"(?<=[a-z])['’]s\b(?=\s+(?:icml|papers?|work|orals?|spotlights?|output))", "", text
            )
            text = self._capitalised(owned, constraints)  # "did sorbonne university get into icml"
        else:
            text = self._lower_owners(text, exact=True)  # "How many meta orals are about RL?"
        # "University of Texas at Austin": one name, not Austin after "at"
        text = re.sub(r"\b(University of [A-Z][a-z]+) at ([A-Z][a-z]+)", r"\1 \2", text)
        text = _SUNY_CAMPUS.sub(
            self._suny, text
        )  # "University at Buffalo" (not "Duke University at")
        text = _NAMED_AT.sub(self._named_at, text)  # "Toyota Technological Institute at Chicago"
        # "Xidian University in China": the country says where, it names no institution
        text = _IN_COUNTRY.sub(r"\1", text)
        text = _U_DOT.sub(" University", _UNI.sub("University of ", text))
        text = _AFFILIATED.sub(r"\1", text)  # "a Huawei-affiliated author"
        text = self._asides(text)  # "Google (not DeepMind)", "Meta (FAIR)"
        # a name before "'s" is someone's or somewhere's: "MIPT's orals" may be its initials
        owners = frozenset(re.findall(r"([A-Z][\w&.-]*)['’]s\b", text))
        # "stealing … from OpenAI's Babbage models": the maker of a thing, not an affiliation
        makers = frozenset(m.group(1) for m in _MAKER.finditer(text))
        text = _POSSESSIVE.sub("", text)  # "LMU Munich's orals", "HIT's Shenzhen campus"
        # "no co-author from Berkeley", "not Shenzhen": set aside while the included
        # institutions are read, then kept out if they name a place, else put back
        held: list[tuple[str, str, bool]] = []  # (the phrase, its place words, after "from")
        for pattern in (_EXCLUDED_WITH, _EXCLUDED_FROM, _EXCLUDED):
            while (match := pattern.search(text)) is not None:
                cued = pattern is not _EXCLUDED or bool(match.group("from"))
                span = match.group("span") or match.groupdict().get("involved") or ""
                held.append((match.group(0), span, cued))
                text = f"{text[: match.start()]} \x00{len(held) - 1}\x00 {text[match.end() :]}"
        for pattern in (_WHO_MORE, _DID_MORE, _OUT_OF_LIST, _THEN_WHICH, _THEN_COMMA_WHICH):
            listed = pattern.search(text)
            if listed and self._either(listed.group("span").split(), constraints):
                text = text[: listed.start("span")] + text[listed.end("span") :]
                # "Which company has more orals": no topic ("… more employees" is asked)
                framed = listed.groupdict().get("frame")
                counted = text[listed.end("frame") : listed.start("span")] if framed else ""
                if framed and _PAPERS_COUNTED.fullmatch(counted.strip(" ,:")):
                    text = text[: listed.start("frame")] + text[listed.end("frame") :]
        text = self._included(text, constraints, set_like, owners, makers)
        if not (constraints.affiliations or constraints.any_of):
            text = self._terse_lead(text, constraints)
        included = constraints.affiliations or constraints.any_of
        for i, (phrase, span, cued) in enumerate(held):
            # "but not Oxford Pets": a dataset's name, not Oxford; "not Shenzhen" needs a
            # place it is part of, "not from Google" does not
            place = self._excluded_place(span.split()[:INSTITUTION_WORDS], constraints.affiliations)
            rest = span.split()[len(place.split()) :]
            if rest and rest[0].lower() in _PART_OF:  # "not counting the Chicago campus"
                rest = rest[1:]
            if rest and re.fullmatch(r"(?:co-?)?authors?|researchers|people", rest[0], re.I):
                rest = rest[1:]  # "without DeepMind authors"
            if place and (cued or included) and (not rest or rest[0].lower() in _JOINING):
                constraints.excluded.append(place)
                # "not from Google or Microsoft", "neither Meta nor Google": each left out
                while rest[:1] and rest[0].lower() in ("or", "nor", "and") and cued:
                    more = self._excluded_place(
                        [w.rstrip(",") for w in rest[1:][:INSTITUTION_WORDS]], []
                    )
                    after = rest[1 + len(more.split()) :] if more else []
                    if not more or (after and after[0].lower() not in _JOINING):
                        break
                    constraints.excluded.append(more)
                    rest = after
                phrase = " " + " ".join(rest)  # the cue and the place out, the rest kept
            text = text.replace(f"\x00{i}\x00", phrase, 1)
        if not (constraints.affiliations or constraints.any_of):
            return text
        text = _AFFILIATION_WORD.sub(" ", text)  # "papers that carry a TUM affiliation"
        # "… at the University of Georgia — did that university …": the place said again
        text = _THAT_PLACE.sub(" ", text)
        # "Maryland's computer science department", "HIT's Shenzhen campus": parts of it
        return _DEPARTMENT.sub(" ", _CAMPUS.sub(" ", text))

    def _asides(self, text: str) -> str:
        """ "Does Google (not DeepMind) have …": the exclusion said after the question's
        frame, where it cannot split it; "Meta (FAIR)": a part of it named, not a second
        institution."""
        for pair in list(_SIDE_BY_SIDE.finditer(text)):
            first = self._longest_institution(pair.group("name").split(), from_end=True)
            second = self._longest_institution(pair.group("other").split(), from_end=False)
            if first is None or second is None or not _COUNTED.search(text):
                continue  # "US/EU regulation of AI": no papers counted, no institutions
            if any(
                re.fullmatch(rf"(?:{COUNTRIES}|US|USA|EU|UK)", " ".join(n)) for n in (first, second)
            ):
                continue  # a country names no institution
            a, b = " ".join(first), " ".join(second)
            said = text[pair.start() : pair.start("other") + len(" ".join(second))]
            if pair.group("how").strip() == "/" and self._part_of(b, a):
                joined = a  # "Meta / FAIR": one institution, its lab named too
            elif pair.group("how").strip() == "/" and self._part_of(a, b):
                joined = b
            else:
                joined = f"{a} or {b}"  # "PKU vs Tsinghua": each one's papers
            head = pair.group("name")[: len(pair.group("name")) - len(a)]
            text = text.replace(said, f"{head}{joined}", 1)
        for aside in [m for pattern in _ASIDE_AFTER_NAME for m in pattern.finditer(text)]:
            words = aside.group("name").split()
            name = self._longest_institution(words, from_end=True)
            if name is None:
                continue
            said = aside.group("said").strip()
            if set(fold(said).split()) & set(fold(" ".join(name)).split()):
                continue  # "Tsinghua (not Tsinghua Shenzhen)": a campus, the exclusion reader's
            if aside.group("cue") and not text[: aside.start()].strip():
                continue  # "Google (not DeepMind): how many orals?": no frame to move it past
            if aside.group("cue"):
                text = text.replace(aside.group(0), aside.group("name"), 1)
                text = re.sub(
                    r"\s*([?.!]?)\s*$", rf", {aside.group('cue')} {said}\1", text, count=1
                )
            elif self._part_of(said, " ".join(name)):  # "Meta (FAIR)", not "ICT (CAS)"
                text = text.replace(aside.group(0), aside.group("name"), 1)
        return text

    def _part_of(self, part: str, whole: str) -> bool:
        """Whether every paper listing `part` lists `whole` too ("FAIR" of "Meta")."""
        if not self.catalogue.knows_institution(part):
            return False
        inner = set(self.catalogue.match_institution(part).papers)
        return bool(inner) and inner <= set(self.catalogue.match_institution(whole).papers)

    def _terse_lead(self, text: str, constraints: PlanConstraints) -> str:
        """ "Berkeley offline RL papers", "Google DeepMind RL orals": a query of a few
        words led by an institution, then a topic; not "Meta learning papers" (a phrase
        abstracts write), "Physics-informed papers" or a person."""
        found = _TERSE_LEAD.match(text)
        if found is None:
            return text
        words = found.group("span").split()
        name_words = self._longest_institution(words, from_end=False)
        if name_words is None:
            return text
        name = " ".join(name_words)
        rest = found.group("rest").split()
        left = words[len(name_words) :] + rest[:1]
        if any(w[:1].isupper() and not w.isupper() for w in left):
            return text  # "Waymo Open Dataset papers", "Stanford Cars papers": one name
        following = " ".join([*name_words, *(words[len(name_words) :] + rest)[:1]])
        if (
            self.catalogue.has_person(name)
            or self.a_fields_word(name)
            or self.catalogue.mentioning(following.lower())
        ):
            return text
        constraints.affiliations.append(name)
        return text.replace(name, " ", 1)

    def _suny(self, found: re.Match[str]) -> str:
        """ "(the) University at Buffalo" as SUNY's campus there, where the catalogue has one."""
        before = found.string[: found.start()].split()[-1:]
        if before and before[0][:1].isupper() and before[0].lower() != "the":
            return found.group(0)  # "Duke University at Durham": a name before it
        named = f"SUNY {found.group('city')}"
        return named if self.catalogue.knows_institution(named) else found.group(0)

    def _named_at(self, found: re.Match[str]) -> str:
        """A name with "at" inside it that the catalogue knows, without the "at"."""
        words = found.group("name").split()
        for start in range(len(words) - 1):  # "Did Toyota …": the name starts later
            whole = " ".join([*words[start:], found.group("city")])
            if self.catalogue.knows_institution(whole):
                return " ".join([*words[:start], whole])
        return found.group(0)

    def _capitalised(self, text: str, constraints: PlanConstraints) -> str:
        """A question typed in lower case with its institutions capitalised, where a run of
        words holding an institution's noun ("sorbonne university") is one the catalogue
        knows, or one misspelt ("singaoore management university", noted in `read_as`);
        the other words stay as typed (a topic is no institution)."""
        words = [w.strip(",.?!;:'\"") for w in text.split()]
        taken = [False] * len(words)
        for size in range(min(len(words), INSTITUTION_WORDS), 1, -1):
            for start in range(len(words) - size + 1):
                span = words[start : start + size]
                if any(taken[start : start + size]) or not _NOUN_WORDS & set(span):
                    continue
                # "… for Advanced Studies": a name may end in "studies", a question's word
                if span[0] in STOPWORDS or (span[-1] in STOPWORDS and span[-1] != "studies"):
                    continue
                named = [w for w in span if w not in STOPWORDS and w not in _GENERIC]
                typed = " ".join(span)
                name = (
                    self._as_written(typed)
                    if self.catalogue.knows_institution(typed)
                    else self.catalogue.corrected_place(typed)
                )
                said = re.compile(rf"\b{re.escape(typed)}\b")
                if named and name and said.search(text):  # not across a comma: "…, icml"
                    if name != typed:
                        constraints.read_as[typed] = name
                    title = " ".join(w if w in _SMALL else w.capitalize() for w in name.split())
                    text = said.sub(title, text, count=1)
                    taken[start : start + size] = [True] * size
        return self._lower_owners(text)

    def _lower_owners(self, text: str, exact: bool = False) -> str:
        """ "intsig's icml 2024 count", "walmart people on icml 2024 papers": a one-word name
        the catalogue knows, said in lower case as the owner of papers or of the people on
        them, capitalised; `exact`: only a name institutions are written as ("meta orals"
        in a question typed otherwise in capitals)."""
        for owned in list(_OWNED_LOWER.finditer(text)):
            word = owned.group("name")
            named = self._named_exactly(word)  # "meta orals", "nvidia papers": a company
            # "physics papers", "game papers": a field's word, unless said as the owner ("'s")
            field = (
                not owned.group("owns")
                and self.doc_freq is not None
                and self.doc_freq(word) > 2
                and not named
            )
            if field or word in STOPWORDS or len(word) < 3 or (exact and not named):
                continue
            if self.catalogue.knows_institution(word):
                name = self._as_written(word)
                text = re.sub(rf"\b{re.escape(word)}\b", name[:1].upper() + name[1:], text, count=1)
        return text

    def _named_exactly(self, word: str) -> bool:
        """Whether an institution is written as this one word on several papers ("Meta",
        "NVIDIA"), not only inside a longer name ("Physics & Informatics Lab"), and on at
        least half as many papers as abstracts write the word ("fair" is no FAIR)."""
        papers, _ = self._written_alone(word)
        # "fair papers" (FAIR on 3): a word abstracts write more often than the name is a word
        written = self.doc_freq(word) if self.doc_freq is not None else 0
        return papers >= OWNER_PAPERS and 2 * papers >= written

    def a_fields_word(self, name: str) -> bool:
        """A one-word name no institution is written as alone, which abstracts write more
        often than affiliations hold it ("Physics", "Statistics", "Vector"; not "Meta",
        "Berkeley", "Cohere")."""
        if " " in name or self.doc_freq is None:
            return False
        alone, every = self._written_alone(name)
        return not alone and self.doc_freq(name.lower()) > every

    def _written_alone(self, word: str) -> tuple[int, int]:
        """The papers with an institution written as this one word, and with any affiliation
        string the word stands for ("Meta": 45 and 134)."""
        variants = self.catalogue.match_institution(word).variants
        alone = sum(n for v, n in variants if fold(v) == fold(word))
        return alone, sum(n for _, n in variants)

    def _as_written(self, typed: str) -> str:
        """ "flor ida international university": a space typed inside a word, the name as
        the catalogue writes it; otherwise as typed."""
        variants = self.catalogue.match_institution(typed).variants
        written = variants[0][0] if variants else ""
        key, joined = fold(written), fold(typed).replace(" ", "")
        return written if key != fold(typed) and key.replace(" ", "") == joined else typed

    def _excluded_place(self, words: list[str], included: list[str]) -> str:
        """The longest start of `words` that is an institution, or that the affiliations of
        an included one write ("Shenzhen" of the Chinese University of Hong Kong)."""
        variants = [
            fold(a)
            for typed in included
            for a, _ in self.catalogue.match_institution(typed).variants
        ]
        for size in range(len(words), 0, -1):
            name = " ".join(words[:size]).strip(" '\"")
            key = fold(name)
            if (
                key
                and key not in STOPWORDS
                and (
                    any(f" {key} " in f" {v} " for v in variants)
                    or self.catalogue.knows_institution(name)
                )
            ):
                return name
        return ""

    def _included(
        self,
        text: str,
        constraints: PlanConstraints,
        set_like: bool,
        owners: frozenset[str],
        makers: frozenset[str] = frozenset(),
    ) -> str:
        patterns = (
            (_INSTITUTION_AFTER, False),
            (_INSTITUTION_ASIDE, False),
            (_INSTITUTION_FOR, False),
            (_INSTITUTION_AMONG, True),
            (_INSTITUTION_BEFORE, True),
            (_INSTITUTION_PAPERS, True),
            (_INSTITUTION_HAS, True),
            (_INSTITUTION_SUBJECT, True),
            (_INSTITUTION_DID, True),
        )
        for pattern, keep_end in patterns:
            for match in list(pattern.finditer(text)):
                if match.group("span").strip() not in text:
                    continue  # inside a name already taken ("… of Texas at Austin")
                words = match.group("span").split()
                combined = _COMBINED.search(text) is not None and "and" in words
                if keep_end and ("or" in words or combined) and self._either(words, constraints):
                    if combined:  # "… combined": the word asked for the union, no topic
                        text = _COMBINED.sub(" ", text)
                    # "Did Heidelberg University or Anthropic have more orals?"
                    text = text.replace(match.group("span"), " ", 1)
                    continue
                found = self._longest_institution(words, from_end=keep_end)
                if pattern is _INSTITUTION_AFTER:  # "from Berkley", "from UC Irivne" (not "UC")
                    text, mended = self._misspelt(words, text, constraints, len(found or ()))
                    found = None if mended else found
                if found is None:
                    continue
                # "The University of Sydney": its strings write it with and without "The"
                name = re.sub(r"^the\s+", "", " ".join(found).strip(" '\""), flags=re.I)
                if not set_like and name.islower() and " " not in name:
                    continue  # "learns skills at scale": Scale AI is not meant
                if self.catalogue.has_person(name):
                    continue  # "papers from Sergey Levine": a person, not a place
                if keep_end and self._ends_a_person(words, len(found)):
                    continue  # "Songtao Lu's papers": his family name, not an institution "LU"
                if pattern is _INSTITUTION_AFTER and name in makers:
                    continue  # "stealing … from OpenAI's Babbage models": no affiliation
                named_by_place = pattern in (
                    _INSTITUTION_FOR,
                    _INSTITUTION_PAPERS,
                    _INSTITUTION_HAS,
                    _INSTITUTION_SUBJECT,
                    _INSTITUTION_DID,
                )
                # "How many papers did SJTU have": the frame says the name owns papers
                owning = name in owners or pattern in (_INSTITUTION_HAS, _INSTITUTION_SUBJECT)
                if named_by_place and not self._leads_an_affiliation(name, owning):
                    continue  # "the Statistics papers": a department's word, not a place
                cued = pattern is _INSTITUTION_AFTER or owning  # "from Physics", "Physics's"
                if not cued and self.a_fields_word(name):
                    continue  # "Physics papers": the field, not "Physics & Informatics Lab"
                # "Kyutai in Paris": the city says where, it asks about nothing more
                text = re.sub(rf"{re.escape(name)}\s+in\s+(?:{_CITIES})\b", name, text)
                # "Mohamed bin Zayed University (MBZUAI)", "Max Planck institutes": its name
                tail = re.search(rf"{re.escape(name)}{_NAME_TAIL}", text)
                said = tail.group(0)[len(name) :] if tail else ""
                text = text.replace(tail.group(0), " ", 1) if tail else text
                name, family = self._name_said(name, said)
                rest = words[len(found) :]
                if family and not constraints.any_of:  # "Max Planck institutes": each of them
                    constraints.any_of += family
                    continue
                either = self._alternatives(rest) if pattern is _INSTITUTION_AFTER else []
                if either:  # "from ANU or KU Leuven": an author from one of them
                    constraints.any_of += [name, *either]
                    for other in either:
                        text = re.sub(rf"\sor\s+(?:the\s+)?{re.escape(other)}", " ", text, count=1)
                    continue
                constraints.affiliations.append(name)
                if keep_end:  # "Xiamen University and Peng Cheng Lab researchers": both
                    for other in self._joined_before(words[: len(words) - len(found)]):
                        constraints.affiliations.append(other)
                        text = re.sub(rf"{re.escape(other)}\s+(?:and|&)\s", " ", text, count=1)
                # "from both Harvard and Meta", "from Xiamen University and Tencent": each
                rest = rest if pattern is _INSTITUTION_AFTER else []
                while rest[:1] and rest[0].lower() in ("and", "&"):
                    the = int(rest[1:2] != [] and rest[1].lower() == "the")  # "and the Ulsan …"
                    more = self._longest_institution(rest[1 + the :], from_end=False)
                    if more is None:
                        break
                    named = " ".join(more).strip(" '\"")
                    constraints.affiliations.append(named)
                    text = re.sub(
                        rf"\s(?:and|&)\s+(?:the\s+)?{re.escape(named)}", " ", text, count=1
                    )
                    rest = rest[1 + the + len(more) :]
        return text

    def _name_said(self, name: str, said: str) -> tuple[str, list[str]]:
        """The name as the words after it say it: its acronym in brackets where that names
        more of its strings ("Mohamed bin Zayed University (MBZUAI)": MBZUAI, whose strings
        hold the name's and more); with a plural ("Max Planck institutes"), the name and every
        institution named after it, for a union."""
        match = self.catalogue.match_institution(name)
        short = re.search(r"\(\s*([A-Z]{2,}[\w&-]*)\s*\)", said)
        if short and self.catalogue.knows_institution(short.group(1)):
            longer = self.catalogue.match_institution(short.group(1))
            own = {a for a, _ in match.variants}
            # only the acronym written alone is added ("SU" fits Southeast University too)
            alone = all(a in own or fold(a) == fold(short.group(1)) for a, _ in longer.variants)
            if alone and set(match.papers) < set(longer.papers):
                name, match = short.group(1), longer
        if not re.search(rf"(?i)\b(?:{_PLURAL_TAIL})\b", said):
            return name, []
        named = [a for a, _ in match.related if fold(a).startswith(fold(name)) and "," not in a]
        return name, [name, *named] if named else []

    def _joined_before(self, words: list[str]) -> list[str]:
        """The institutions joined by "and" that end `words` ("Xiamen University and")."""
        found: list[str] = []
        while len(words) >= 2 and words[-1].lower() in ("and", "&"):
            more = self._longest_institution(words[:-1], from_end=True)
            if more is None:
                break
            found.append(" ".join(more).strip(" '\""))
            words = words[: -1 - len(more)]
        return found

    def _either(self, words: list[str], constraints: PlanConstraints) -> bool:
        """Institutions listed with "or" (or "A, B and C"), each the catalogue knows, into
        `any_of`."""
        joined = re.sub(r"^(?:the|a)\s+", "", " ".join(words), flags=re.I)
        # "A, B or C": "and" inside a name ("Beijing Technology and Business University")
        joiner = r",\s*(?:or\s+)?|\s+or\s+" if " or " in joined else r",\s*(?:and\s+)?|\s+and\s+"
        parts = [p.strip() for p in re.split(joiner, joined)]
        parts = [re.sub(r"^(?:the)\s+", "", p, flags=re.I) for p in parts if p]
        found = [self._longest_institution(part.split(), from_end=True) for part in parts]
        if len(parts) < 2 or any(f is None for f in found):
            return False
        constraints.any_of += [" ".join(f) for f in found if f is not None]
        return True

    def _alternatives(self, rest: list[str]) -> list[str]:
        """The institutions after "or" ("… or KU Leuven"), each the catalogue knows."""
        found: list[str] = []
        while rest[:1] and rest[0].lower() == "or":
            words = rest[2:] if rest[1:2] and rest[1].lower() == "the" else rest[1:]
            more = self._longest_institution(words, from_end=False)
            if more is None:
                # "from Cohere or Mistral?": a name the catalogue lacks is still a place
                # asked, with no paper, where the question ends on it
                named = list(itertools.takewhile(lambda w: bool(re.match(r"[A-Z]", w)), words))
                ends = len(named) == len(words) and 0 < len(named) <= 3
                if not ends or re.search(r"[?.!,]\w", " ".join(named)):
                    break
                more = named
            found.append(" ".join(more).strip(" '\"?.!,"))
            rest = words[len(more) :]
        return found

    def _misspelt(
        self, words: list[str], text: str, constraints: PlanConstraints, known: int = 0
    ) -> tuple[str, bool]:
        """ "from Berkley": capitalised words after "from" that, spelt right, are a place;
        `known`: the first words already name one ("UC"), so only a longer name counts
        ("UC Irivne"), the word after them capitalised too and the name one word longer
        correctable. Whether one was read."""
        read: dict[str, str | None] = {}  # each span corrected once
        if known:
            after = words[known : known + 1]
            if known >= 3 or not after or not (after[0][:1].isupper() or self._lower):
                return text, False
            longer = " ".join(words[: known + 1]).strip(" '\"")
            read[longer] = self.catalogue.corrected_place(longer)
            if read[longer] is None:
                return text, False
        for size in range(min(len(words), 3), 0, -1):
            typed = " ".join(words[:size]).strip(" '\"")
            if not (typed[:1].isupper() or self._lower):
                continue
            if typed not in read:
                read[typed] = self.catalogue.corrected_place(typed)
            corrected = read[typed]
            if corrected:
                constraints.affiliations.append(corrected)
                constraints.read_as[typed] = corrected
                return text.replace(typed, " ", 1), True
        return text, False

    def _ends_a_person(self, words: list[str], size: int) -> bool:
        """Whether the last `size` words end a person's name that starts one or two words
        before them."""
        end = len(words) - size
        return any(
            self.catalogue.match_author(
                " ".join(words[start:]).strip(" '\"’"), suggest=False
            ).unique
            is not None
            for start in range(max(0, end - 2), end)
        )

    def _leads_an_affiliation(self, name: str, owned: bool = False) -> bool:
        """Whether an affiliation string starts with the name or one of its other names
        ("Microsoft Research"; "LMU Munich" for "Ludwig-Maximilians-Universität München");
        `owned` ("MIPT's orals") or written in no abstract ("UCSD papers"): by its initials
        too, which a topic's acronym ("ICL papers") may share."""
        keys = spellings(fold(name))
        variants = self.catalogue.match_institution(name).variants
        # "MIPT" for "Moscow Institute of Physics and Technology": the initials lead it
        unwritten = self.doc_freq is not None and self.doc_freq(name) <= ACRONYM_DOCS
        short = (owned or unwritten) and name.isupper() and len(name) >= 3
        distinctive = set(fold(name).split()) - _GENERIC
        return any(
            fold(a).replace(" at ", " ").startswith(keys)  # "… North Carolina at Chapel Hill"
            or (short and acronym(a) == fold(name))
            # "the Oxford papers": "University of Oxford" names nothing else
            or (distinctive and set(fold(a).split()) - _GENERIC == distinctive)
            # "Berkeley papers": the campus of "University of California, Berkeley"
            or a.rsplit(",", 1)[-1].strip().casefold() == name.casefold() != a.casefold()
            for a, _ in variants
        )

    def _longest_institution(self, words: list[str], from_end: bool) -> list[str] | None:
        if from_end and len(words) > 1 and words[-1].lower() in ("group", "team"):
            words = words[:-1]  # "the Bosch Center for AI group": the center
        for size in range(min(len(words), INSTITUTION_WORDS), 0, -1):
            span = words[-size:] if from_end else words[:size]
            span = [*span[:-1], span[-1].rstrip(",")]  # "from MIT, Stanford …": MIT
            if span[-1].lower() in STOPWORDS:
                continue  # "Bar-Ilan University at (the time)": the name ends before "at"
            name = " ".join(span).strip(" '\"")
            # An institution is named by at least one word that is not a stopword ("the")
            # nor a generic word ("university") on its own.
            named = [w for w in fold(name).split() if w not in STOPWORDS and w not in _GENERIC]
            if named and self.catalogue.knows_institution(name):
                return span
        return None
