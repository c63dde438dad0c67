"""How names are compared: people as users type them, institutions by words or acronym.

Pure functions over strings, used by the catalogue (rag.catalogue.catalogue) to match a typed
name against the names papers are written with, and by the paper index
(rag.catalogue.index) to file each affiliation under the words a look-up starts from.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from rag.text import edits_within_one, neighbour_swaps, without_accents
from rag.types import Paper

# Words that do not make an institution's name distinctive, and are left out of acronyms.
_ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "at", "de", "in", "&"})
# (" & " before another institution: "Zhejiang University & Westlake University"; not
# "William & Mary")
SEGMENT_SPLIT = re.compile(
    r"\s*(?:[,;()/]|\s-\s|\s–\s|\s&\s(?=[^,;]*\b(?:University|Institute|Laborator(?:y|ies)|"
    r"Lab|College|Academy)\b))\s*"
)
# Words an affiliation may add around an institution's name without naming another one
# ("Stanford" in "Computer Science Department, Stanford University"); any other word makes
# it a different institution that shares the name ("National Tsing Hua University" for
# "Tsinghua", "MIT-IBM Watson AI Lab" for "MIT"), which is reported, not counted.
GENERIC_WORDS = _GENERIC = frozenset(
    """university univ of the and department dept school college institute institution
    faculty center centre lab laboratory laboratories research inc ltd llc co corp corporation
    group division computer science sciences engineering electrical technology
    artificial intelligence ai data technologies limited company labs gmbh plc systems
    incorporated mlr ag corporate""".split()
)
# A country after the name ("Harbin Institute of Technology (Shenzhen), China") adds no
# institution; inside a name ("Korea University", "… of China") it is the name.
COUNTRIES = (
    r"China|USA|United States|UK|United Kingdom|Canada|Germany|France|Japan|(?:South )?Korea|"
    r"Singapore|Switzerland|Australia|India|Israel|Netherlands|Italy|Spain|Sweden|Belgium|"
    r"Austria|Denmark|Finland|Norway|Taiwan"
)
_TRAILING_COUNTRY = re.compile(
    rf",\s*(?:P\.?\s*R\.?\s*)?(?:{COUNTRIES}|U\.S\.A?\.?)\.?\s*$",
    re.I,
)
_FOLD_WORD = re.compile(r"[a-z0-9]+")
# Other names of a few institutions that neither words nor an acronym connect.
ALIASES = {
    "epfl": ("swiss federal institute of technology lausanne", "ecole polytechnique federale"),
    # the bare "Swiss Federal Institute of Technology" is ETH Zurich's (Lausanne says so)
    "eth zurich": (
        "swiss federal institute of technology zurich",
        "ethz",
        "swiss federal institute of technology",
    ),
    "swiss federal institute of technology": ("eth zurich", "ethz"),
    "new york university": ("nyu",),
    # Ghent is Gent in Dutch
    "ghent university": ("universiteit gent",),
    "university of ghent": ("universiteit gent", "ghent university"),
    "universiteit gent": ("ghent university",),
    "sysu": ("sun yat sen university",),
    # Genentech's machine-learning unit, written under its own name
    "genentech": ("prescient design",),
    # the ParisTech schools' names before 2019
    "telecom paris": ("telecom paristech",),
    "mines paris": ("mines paristech",),
    # the University of Mainz is Johannes Gutenberg University's short name
    "johannes gutenberg university mainz": (
        "university of mainz",
        "johannes gutenberg universitat mainz",
    ),
    "university of mainz": (
        "johannes gutenberg university mainz",
        "johannes gutenberg universitat mainz",
    ),
    # "IIT Bombay" is the Indian Institute of Technology there
    "iit": ("indian institute of technology",),
    # TU Wien's English name
    "tu wien": ("vienna university of technology", "technische universitat wien"),
    "vienna university of technology": ("tu wien", "technische universitat wien"),
    "lse": ("london school of economics", "london school of economics and political science"),
    "mila": ("montreal institute for learning algorithms", "quebec ai institute"),
    "fair": ("facebook ai research", "meta ai"),
    "caltech": ("california institute of technology",),
    "casia": (
        "institute of automation chinese academy of sciences",
        "institute of automation chinese academy of science",
        "institute of automation cas",
    ),
    "ai2": ("allen institute for ai", "allen institute for artificial intelligence"),
    "deepmind": ("google deepmind",),
    "meta": ("facebook", "meta platforms"),
    "imperial": ("imperial college london", "imperial college"),
    "facebook": ("meta",),
    "msr": ("microsoft research",),
    "aws": ("amazon web services",),
    "pku": ("peking university",),
    "ucsb": ("university of california santa barbara", "uc santa barbara"),
    "nwpu": ("northwestern polytechnical university",),
    "pontifical catholic university of chile": ("pontificia universidad catolica de chile",),
    "rice university": ("william marsh rice university",),
    "psu": ("pennsylvania state university", "penn state university"),
    "penn state": ("pennsylvania state university", "penn state university"),
    "zju": ("zhejiang university",),
    "upenn": ("university of pennsylvania",),
    "penn": ("university of pennsylvania",),
    "ut austin": ("university of texas at austin",),
    "mpi": ("max planck institute",),
    "washu": (
        "washington university in st louis",
        "washington university st louis",
        "washington university saint louis",
    ),
    "skoltech": ("skolkovo institute of science and technology",),
    "skolkovo institute of science and technology": ("skoltech",),
    "stony brook university": ("state university of new york at stony brook", "suny stony brook"),
    "university of tubingen": (
        "university of tuebingen",
        "eberhard karls universitat tubingen",
        "eberhard karls university of tubingen",
        "eberhard karls university tubingen",
    ),
    "dkfz": ("deutsches krebsforschungszentrum", "german cancer research center"),
    "german cancer research center": ("deutsches krebsforschungszentrum",),
    "cuhk": ("chinese university of hong kong",),
    "cas": ("chinese academy of sciences",),  # not the Center for AI Safety's initials
    "hku": ("university of hong kong",),
    "polyu": ("hong kong polytechnic university",),
    "tokyo tech": ("tokyo institute of technology",),
    "skku": ("sungkyunkwan university", "sung kyun kwan university"),
    "chalmers university": ("chalmers university of technology",),
    "usc": ("university of southern california",),
    "ucb": ("university of california berkeley",),
    "buaa": ("beihang university", "beijing university of aeronautics and astronautics"),
    "cityu": ("city university of hong kong",),
    "uiuc": ("university of illinois urbana champaign",),
    "university of illinois": ("uiuc",),
    "umass": ("university of massachusetts",),
    "umass amherst": ("university of massachusetts amherst",),
    "lmu": ("ludwig maximilians universitat munchen", "university of munich", "lmu munich"),
    "lmu munich": ("lmu", "ludwig maximilians universitat munchen", "university of munich"),
    "hebrew university": ("hebrew university of jerusalem",),
    "georgia tech": ("georgia institute of technology",),
    "virginia tech": ("virginia polytechnic institute and state university",),
    "hse": (
        "higher school of economics",
        "national research university higher school of economics",
    ),
    "sapienza": ("sapienza university of rome", "university of roma la sapienza"),
    "postech": ("pohang university of science and technology",),
    "sustech": ("southern university of science and technology",),
    "riken": ("riken aip", "riken center for advanced intelligence project"),
    "iisc": ("indian institute of science",),
    "william mary": ("college of william and mary", "william and mary"),
    "helmholtz munich": ("helmholtz zentrum munchen",),
    "rwth aachen university": (
        "rheinisch westfalische technische hochschule aachen",
        "rwth aachen",
    ),
    "rwth aachen": ("rheinisch westfalische technische hochschule aachen",),
    "unc": ("university of north carolina chapel hill",),  # not UNC Charlotte
    "unc chapel hill": ("university of north carolina chapel hill",),
    "sjtu": ("shanghai jiao tong university", "shanghai jiaotong university"),
    "xjtu": ("xi an jiaotong university", "xi an jiao tong university"),
    "ecole des ponts": (
        "ecole nationale des ponts et chaussees",
        "ecole nationale des ponts et chausees",
    ),
    "xidian university": ("xi an university of electronic science and technology",),
    "ens": ("ecole normale superieure", "ecole normale superieure de paris", "ens paris"),
    "army research laboratory": (
        "us army research laboratory",
        "devcom army research laboratory",
        "us devcom army research laboratory",
    ),
}
# Names as affiliations write them in their own language and users translate them ("TU
# Darmstadt", "Karlsruher Institut für Technologie", "München", "Sorbonne Université")
_OTHER_LANGUAGE = (
    (re.compile(r"^(?:tu|technical university(?: of)?) (\w+)$"), r"technische universitat \1"),
    (re.compile(r"^(?:tu|technische universitat) (\w+)$"), r"technical university \1"),
    # "TU Delft" is "Delft University of Technology" (the Dutch TU), and back
    (re.compile(r"^tu (\w+)$"), r"\1 university of technology"),
    (re.compile(r"^(\w+) university of technology$"), r"tu \1"),
    (re.compile(r"^(\w+?)e? institute of technology$"), r"\1er institut fur technologie"),
    (re.compile(r"^university of (\w+)$"), r"universitat \1"),
    # "University of Montreal" is written "Université de Montréal" too, and back
    (re.compile(r"^university of (\w+)$"), r"universite de \1"),
    (re.compile(r"^universite de (\w+)$"), r"university of \1"),
    (re.compile(r"^universitat (\w+)$"), r"university of \1"),  # "Universität Basel"
    # "Aix-Marseille University" is written "Université d'Aix-Marseille" too
    (re.compile(r"^([aeiou]\w*(?: \w+)?) university$"), r"universite d \1"),
    (re.compile(r"^([b-df-hj-np-tv-z]\w*(?: \w+)?) university$"), r"universite de \1"),
    (re.compile(r"^(\w+) university$"), r"universitat \1"),  # "Heidelberg University"
    # "Universidad de Stanford" (asked in Spanish): the University of X, or X University
    (re.compile(r"^universidad de (\w+)$"), r"university of \1"),
    (re.compile(r"^universidad de (\w+)$"), r"\1 university"),
    # "UC Merced" is the University of California, Merced (not a German name, but a short one)
    (re.compile(r"^uc (\w+(?: \w+)?)$"), r"university of california \1"),
    (re.compile(r"\bmunich\b"), "munchen"),
    # a city's own-language name: "University of Cologne" is the "Universität zu Köln"
    *(
        (re.compile(rf"\b{english}\b"), own)
        for english, own in (
            ("cologne", "koln"),
            ("vienna", "wien"),
            ("prague", "praha"),
            ("warsaw", "warszawa"),
            ("milan", "milano"),
            ("turin", "torino"),
            ("rome", "roma"),
            ("florence", "firenze"),
            ("naples", "napoli"),
            ("geneva", "geneve"),
            ("lisbon", "lisboa"),
            ("copenhagen", "kobenhavn"),
            ("gothenburg", "goteborg"),
            ("brussels", "bruxelles"),
        )
    ),
    (re.compile(r"^university of (\w+)$"), r"universitat zu \1"),
    (re.compile(r"\buniversity\b"), "universite"),  # "Sorbonne University": "Sorbonne Université"
    (
        re.compile(r"\b(\w+) university (\w+)$"),
        r"\1 universitat \2",
    ),  # "Leibniz University Hannover"
)
# Given names people shorten ("Mike Matthews" for Michael Matthews): the long forms to try.
NICKNAMES = {
    "mike": ("michael",), "bill": ("william",), "will": ("william",), "bob": ("robert",),
    "rob": ("robert",), "jim": ("james",), "jimmy": ("james",), "tom": ("thomas",),
    "dave": ("david",), "chris": ("christopher", "christian", "christina"),
    "alex": ("alexander", "alexandre", "alexandra", "alexey", "alexei"),
    "ben": ("benjamin",), "dan": ("daniel",), "sam": ("samuel", "samantha"),
    "nick": ("nicholas", "nicolas"), "matt": ("matthew", "matthias"), "steve": ("steven", "stephen"),
    "joe": ("joseph",), "tony": ("anthony",), "andy": ("andrew", "andreas"),
    "kate": ("katherine", "kathryn", "katharina"), "liz": ("elizabeth",), "jen": ("jennifer",),
    "greg": ("gregory",), "jon": ("jonathan",), "josh": ("joshua",), "max": ("maximilian",),
    "fred": ("frederick", "frederic"), "pete": ("peter",), "rich": ("richard",),
    "rick": ("richard",), "ed": ("edward",), "vic": ("victor",), "zach": ("zachary",),
}  # fmt: skip

# A given name's other spellings ("Steven Wright" for Stephen Wright): read as the one
# catalogue person they fit, and said so
SPELLINGS = {
    "steven": ("stephen",), "stephen": ("steven",), "john": ("jon",), "jon": ("john",),
    "philip": ("phillip",), "phillip": ("philip",),
}  # fmt: skip
GIVEN_VARIANTS = {k: tuple(dict.fromkeys((*NICKNAMES.get(k, ()), *SPELLINGS.get(k, ()))))
                  for k in {*NICKNAMES, *SPELLINGS}}  # fmt: skip
# Words users shorten, spelled both ways ("Allen Institute for AI" is "… for Artificial
# Intelligence" in most affiliations).
_SHORTENED = {"ai": "artificial intelligence", "ml": "machine learning", "lab": "laboratory"}


# Letters Unicode does not decompose into a base letter and an accent ("Miłoś" is "Milos").
_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
     "Æ": "Ae", "œ": "oe", "Œ": "Oe", "ı": "i", "þ": "th", "ð": "d"}
)  # fmt: skip


@lru_cache(maxsize=200_000)  # names repeat across papers; folding them dominates the index build
def fold(text: str) -> str:
    """Lower case, accents dropped, punctuation as spaces: the form names are compared in."""
    if text.isascii():  # no accents to drop: the decomposition and filter change nothing
        return " ".join(_FOLD_WORD.findall(text.lower()))
    plain = without_accents(text.translate(_UNDECOMPOSED))
    return " ".join(_FOLD_WORD.findall(plain.casefold()))


@lru_cache(maxsize=65_536)  # each affiliation part is read for every name it is a candidate of
def acronym(name: str) -> str:
    """'Massachusetts Institute of Technology' → 'mit' (first letters, small words skipped)."""
    words = [w for w in fold(name).split() if w not in _ACRONYM_SKIP]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


def token_fits(typed: str, written: str) -> bool:
    return typed == written or (len(typed) == 1 and written.startswith(typed))


def name_fits(typed: tuple[str, ...], written: tuple[str, ...]) -> bool:
    """Do the typed name's words fit the written name, in order? The family names must be
    equal; other words may be initials; the written name may have extra middle names and
    the typed one extra middle initials ("Michael I. Jordan" fits "Michael Jordan")."""
    if not typed or not written or typed[-1] != written[-1]:
        return False
    rest_typed, rest_written = list(typed[:-1]), list(written[:-1])
    if rest_typed and (not rest_written or not token_fits(rest_typed[0], rest_written[0])):
        return False
    position = 1
    for word in rest_typed[1:]:
        while position < len(rest_written) and not token_fits(word, rest_written[position]):
            position += 1
        if position < len(rest_written):
            position += 1
        elif len(word) > 1:  # a whole middle name the written name lacks
            return False
    return True


_NOUNS = ("university", "institute", "college")
# an institution's full name → the initials it is also written with, after a unit's name
_ACRONYM_OF = {
    longs[0]: short
    for short, longs in ALIASES.items()
    if " " not in short and short.upper() == acronym(longs[0]).upper()
}


@lru_cache(maxsize=4096)  # a question's spans are looked up again and again while reading it
def spellings(key: str) -> tuple[str, ...]:
    """The typed name, its known other names, its other word orders ("Tokyo University" is
    "University of Tokyo", "Bosch Center for AI" "Bosch AI Center"), its name words run
    together ("PengCheng Lab"), short words spelled out and its own-language spelling."""
    names = [key, *ALIASES.get(key, ())]
    head, _, rest = key.partition(" ")
    if rest and head in ALIASES:  # "MPI for Intelligent Systems"
        names += [f"{alias} {rest}" for alias in ALIASES[head]]
    for long, short in _ACRONYM_OF.items():  # "Institute of Software, CAS": its initials
        if key.endswith(f" {long}"):
            names.append(f"{key[: -len(long)]}{short}")
    padded = f" {key} "
    for short, long in _SHORTENED.items():
        if f" {short} " in padded:
            names.append(padded.replace(f" {short} ", f" {long} ").strip())
        elif f" {long} " in padded:
            names.append(padded.replace(f" {long} ", f" {short} ").strip())
    for pattern, written in _OTHER_LANGUAGE:
        names += [pattern.sub(written, n) for n in names if pattern.search(n)]
    suny = re.fullmatch(r"(?:university at|suny|state university of new york(?: at)?) (\w+)", key)
    if suny:  # "University at Buffalo" is SUNY's campus there, however it is written
        place = suny.group(1)
        names += [
            f"state university of new york at {place}",
            f"state university of new york {place}",
        ]
        names += [f"university at {place}", f"suny {place}"]
    words = key.split()
    if len(words) >= 2 and words[-1] in _NOUNS:
        names.append(f"{words[-1]} of {' '.join(words[:-1])}")
    elif len(words) >= 3 and words[0] in _NOUNS and words[1] == "of":
        names.append(f"{' '.join(words[2:])} {words[0]}")
        names.append(f"{words[0]} {' '.join(words[2:])}")  # "University Lille"
    # "Bosch Center for AI" is written "Bosch Artificial Intelligence Center" too
    for name in list(names):
        found = re.fullmatch(r"(.+) (center|centre|institute|lab|laboratory) for (.+)", name)
        if found:
            names.append(f"{found.group(1)} {found.group(3)} {found.group(2)}")
    # "Peng Cheng Lab" is written "PengCheng Lab" too: two name words run together
    for name in list(names):
        parts = name.split()
        names += [
            " ".join([*parts[:i], parts[i] + parts[i + 1], *parts[i + 2 :]])
            for i in range(len(parts) - 1)
            if not {parts[i], parts[i + 1]} & (_GENERIC | _ACRONYM_SKIP)
        ]
    if len(words) == 2 and set(words).isdisjoint(_NOUNS):  # "Borealis AI" as "BorealisAI"
        names.append("".join(words))
    return tuple(dict.fromkeys(names))


@lru_cache(maxsize=65_536)  # the same candidates are judged for every span of a name
def names_institution(affiliation: str, names: tuple[str, ...]) -> bool | None:
    """True: a part of `affiliation` is one of `names`; False: a part contains a name but
    adds distinctive words (another institution); None: no part mentions any name."""
    if not _may_name(affiliation, names):
        return None
    verdict: bool | None = None
    own_words = {w for name in names for w in name.split()}  # "ETHZ - ETH Zurich" is one
    affiliation = _TRAILING_COUNTRY.sub("", affiliation)
    segments = SEGMENT_SPLIT.split(affiliation)
    # "University of Massachusetts, Amherst": a name cut by a comma is two segments
    paired = [f"{a} {b}" for a, b in pairwise(segments)]
    # "… of Massachusetts at Amherst"; "National Labs" is one national lab
    typed_names = [(name, _typed(name)) for name in names]
    typed_names = [(name, typed) for name, typed in typed_names if typed]  # "AT" names nothing
    typed_words = {w for _, typed in typed_names for w in typed}
    short = {names[0]: acronym(names[0])} if acronym_named(names[0]) else {}  # as typed
    if names[0] not in ALIASES.get(short.get(names[0], ""), (names[0],)):
        short = {}  # "City University of Hong Kong" is no "CUHK": that is another's
    # "MMLab of CUHK": a lab of the institution, named by its acronym
    for part in [affiliation, *segments, *paired]:
        words = _typed(fold(part))
        # "Shanghai Jiao Tong" where the name runs the words together ("Jiaotong")
        readings = [words, *_run_together(words, typed_words)]
        part_initials = acronym(part)
        for name, typed in typed_names:
            # "UCLA Computer Science Department" spells "ucsd": a department is no acronym's
            initials = part_initials == name and not _DEPARTMENT_PART.search(part)
            # an acronym with a known owner is only its owner's ("CUHK" is not City
            # University of Hong Kong's, "PSU" not Portland State's)
            owner = ALIASES.get(name)
            if initials and owner and not any(o in fold(part) for o in owner):
                initials = False
            if len(typed) == 1 and (initials or _spelled_out(part, name)):
                return True
            # "Tsinghua Shenzhen International Graduate School" is Tsinghua University's
            # (a string of its own: "Shenzhen … Graduate School, Tsinghua University" is not
            # Shenzhen University's)
            alone = len(segments) == 1 and typed[1:] == ["university"]
            if alone and words[:1] == typed[:1] and _graduate_school(words):
                return True
            # "UIUC" alone names the University of Illinois Urbana-Champaign ("CUHK(SZ)" is a
            # campus of its own)
            if len(segments) == len(words) == 1 and words[0] == short.get(name):
                return True
            acronym_said = short.get(name) or (name if len(typed) == 1 and name in ALIASES else "")
            if 3 <= len(words) <= 4 and acronym_said and words[-2:] == ["of", acronym_said]:
                return True
            # "Harvard Medical School" is Harvard's ("Geneva School of Business …" is not)
            stem = typed[:-1] if typed[-1:] == ["university"] else typed
            if stem and words[len(stem) :] in _SCHOOLS and words[: len(stem)] == stem:
                return True
            for seen in readings:
                for start in range(len(seen) - len(typed) + 1):
                    if seen[start : start + len(typed)] == typed:
                        after = seen[start + len(typed) :]
                        extra = seen[:start] + after
                        # "Nanjing University of Science and Technology" is not "Nanjing
                        # University": generic words after the noun make another name.
                        renamed = typed[-1] in _NOUNS and after[:1] == ["of"]
                        # "CSIRO's Data61": one named unit of the institution (not "King's
                        # College London", "Women's Hospital", "Noah's Ark Lab")
                        unit = after[1:] if after[:1] == ["s"] else []
                        named_unit = len(unit) == 1 and unit[0] not in _GENERIC
                        if start == 0 and named_unit and unit[0] not in _NOT_UNITS:
                            return True
                        if not renamed and all(w in _GENERIC or w in own_words for w in extra):
                            return True
                        # "University of Illinois Urbana-Champaign": a campus of the system
                        campus = typed[:2] == ["university", "of"] and len(typed) > 2
                        before = all(w in _GENERIC for w in seen[:start])
                        if campus and before and after[:1] not in (["of"], ["for"], ["and"]):
                            return True
                        # "Rheinische Friedrich-Wilhelms Universität Bonn" is the University
                        # of Bonn: a patron's name before it (a "Technische" or "Freie" one
                        # is another university)
                        patron = typed[:1] == ["universitat"] and 0 < start <= 4 and not after
                        if patron and not set(seen[:start]) & _NOT_PATRONS:
                            return True
                        verdict = False
    return verdict


_ONE = {"labs": "lab", "laboratories": "laboratory"}
# words a string's own word may be read as (_one) without writing them
_READ_AS = frozenset({"lab", "laboratory", "university"})


@lru_cache(maxsize=4096)  # one question's candidates share their names
def _needed(names: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """(for each name, the words a string must hold, spaces aside, for the name to be in
    it: its typed words but those _one reads other words as, and the acronym as typed;
    the names of one word, which a string's initials may spell instead)."""
    needed: list[tuple[str, ...]] = []
    initials: list[str] = []
    for name in names:
        typed = _typed(name)
        if len(typed) == 1:
            initials.append(typed[0])
        if typed:
            needed.append(tuple(w for w in typed if w not in _READ_AS))
    if acronym_named(names[0]):
        needed.append((acronym(names[0]),))
    return tuple(needed), tuple(initials)


def _may_name(affiliation: str, names: tuple[str, ...]) -> bool:
    """Can a part of `affiliation` name one of `names`? Checked on its letters alone (a
    word run together is still in them) and its words' initials, in which every part's
    acronym is spelled in order, before names_institution reads its parts."""
    needed, one_word = _needed(names)
    folded = fold(affiliation)
    letters = folded.replace(" ", "")
    if any(all(w in letters for w in words) for words in needed):
        return True
    firsts = "".join(w[0] for w in folded.split())
    return any(_in_order(name, firsts) for name in one_word)


def _typed(name: str) -> list[str]:
    """A name's words as compared ("… of Massachusetts at Amherst": no "at")."""
    return [_one(w) for w in name.split() if w != "at"]


def _in_order(letters: str, within: str) -> bool:
    rest = iter(within)
    return all(letter in rest for letter in letters)


_SCHOOLS = (["medical", "school"], ["business", "school"], ["law", "school"])
# words before "Universität X" that make another university than the University of X
_NOT_PATRONS = frozenset({"technische", "freie", "katholische", "medizinische", "private"})
# the catalogue's own ways of writing "university" (not another language's word for it)
_NOT_UNIVERSITY = frozenset(
    {"universita", "universitat", "universite", "universiti", "universitas", "universitet"}
)
_UNIVERSITY_SWAPS = neighbour_swaps("university")


def acronym_named(name: str) -> bool:
    """Is a string of this name's initials alone the name? Only for an institution named
    as one, of three words or more ("Miltiadis Allamanis is second" is no "MAIS")."""
    words = name.split()
    return len(words) >= 3 and not _SPELLED_NOUNS.isdisjoint(words) and len(acronym(name)) >= 3


def _graduate_school(words: list[str]) -> bool:
    """ "<name> [city] [international] graduate school": a university's school elsewhere."""
    return len(words) <= 5 and words[-2:] == ["graduate", "school"] and not {*_NOUNS} & {*words}


@lru_cache(maxsize=65_536)  # a few thousand distinct words, judged for every candidate
def _one(word: str) -> str:
    """The word as compared: plurals of lab words made one, a mistyped "university"
    ("Univeristy", "Unibersity", "Univeresity") read as it."""
    word = _ONE.get(word, word)
    if 8 <= len(word) <= 11 and word[:2] == "un" and word != "university":
        typo = edits_within_one(word, "university") or word in _UNIVERSITY_SWAPS
        if typo and word not in _NOT_UNIVERSITY:
            return "university"
    return word


def _run_together(words: list[str], typed: set[str]) -> list[list[str]]:
    """The part's words with two neighbours run together where that gives a typed word."""
    return [
        [*words[:i], words[i] + words[i + 1], *words[i + 2 :]]
        for i in range(len(words) - 1)
        if words[i] + words[i + 1] in typed
    ]


_DEPARTMENT_PART = re.compile(r"\b(?:department|dept|school|faculty|division)\b", re.I)
_SPELLED_OUT = re.compile(r"^\s*(?P<acronym>[A-Z]{2,})\s+[A-Z][a-z]")
_SPELLED_NOUNS = {*_NOUNS, "center", "centre", "laboratory", "school", "academy"}
_NOT_UNITS = frozenset({*_SPELLED_NOUNS, "hospital"})  # "King's College", "Women's Hospital"


def _spelled_out(part: str, name: str) -> bool:
    """An acronym followed by the name it stands for: "KTH Royal Institute of Technology",
    "CISPA Helmholtz Center for Information Security" (not "MIT-IBM Watson AI Lab")."""
    found = _SPELLED_OUT.match(part)
    if found is None or found.group("acronym").lower() != name:
        return False
    # "ENS Lyon", "ENS Paris-Saclay": the acronym's campus in a city
    city = re.fullmatch(r"\s*[A-Z]{2,}\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?\s*", part) is not None
    return city or not _SPELLED_NOUNS.isdisjoint(fold(part).split()[1:])


def affiliation_entries(paper: Paper) -> list[str]:
    """The paper's affiliation entries in the corpus's order (an extra field; one per
    author where the source aligned them), empty ones kept as ""."""
    raw = paper.extra.get("affiliations") or []
    if isinstance(raw, str):
        raw = raw.split(";")
    return [str(a).strip() for a in raw]


def entries_by_author(paper: Paper) -> list[str] | None:
    """The paper's affiliation entries, one per author in byline order, where the source
    listed them author by author (empty ones kept as ""); None where it did not."""
    listed = affiliation_entries(paper)
    return listed if len(listed) == len(paper.authors) else None


def affiliations_of(paper: Paper) -> set[str]:
    """The paper's distinct affiliation strings."""
    return {a for a in affiliation_entries(paper) if a}


def lookup_keys(affiliation: str) -> set[str]:
    """The words and acronyms a look-up of the affiliation starts from: those of the whole
    string and of each of its parts ("Google DeepMind, London": "google", "deepmind", "gd")."""
    keys: set[str] = set()
    for part in [affiliation, *SEGMENT_SPLIT.split(affiliation)]:
        keys |= {*fold(part).split(), acronym(part)}
    return keys - {""}
