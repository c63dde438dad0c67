"""Who a question names: authors, looked up as word spans in the catalogue.

"volkan cevher", typed in lower case, is still an author; a family name alone counts
after "by", "did" or "does"; a misspelt name close to one catalogue name is read as it
(and said so); any other is left unresolved with the people it fits. Also where the
author stands ("as first author", "a middle author") and whom the question rules out
("without Luca Arnaboldi").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from itertools import pairwise

from rag.catalogue.catalogue import Catalogue, NameMatch
from rag.catalogue.names import SPELLINGS, acronym, fold
from rag.text import FROM_THE_END, ORDINALS, edits_within_one
from rag.types import PlanConstraints, Unresolved

# A family name alone counts only right after "by", "did" or "does": elsewhere a capitalised
# word is far more often a method ("What does Adam …" asks about an optimiser).
# not "the framework proposed by Steinke and Zakynthinou" (a citation in a claim)
_AUTHOR_CUE = re.compile(
    r"(?<!proposed )(?<!introduced )(?<!developed )(?<!defined )(?<!described )(?<!studied )"
    r"\b(?:by|did|does)\s+(?P<name>[A-Za-zÀ-ÿ.'-]+)(?:['’]s)?\b(?!\s+et\s+al)",
    re.I,
)


_WITHOUT_CUE = (
    r"\b(?:without|excluding|except|not with|but not|not by|with no|"
    r"not co-?(?:written|authored) with|not (?:written|authored) (?:together )?with|"
    r"(?:didn['’]t|did not|don['’]t|do not|doesn['’]t|does not) (?:have|include|involve)|"
    # "leave out the ones with X", "excluding those with X", "minus anything with X"
    r"(?:(?:(?:leave|leaving|left) )?out|excluding|except|minus|without|skip(?:ping)?|drop(?:ping)?|"
    r"ignor(?:e|ing)) "
    r"(?:the ones|those|ones|papers|anything|any papers) (?:with|by))"
)

_WITHOUT = re.compile(rf"{_WITHOUT_CUE}$", re.I)

_FIRST_AUTHOR = re.compile(
    r"\b(?:as\s+(?:the\s+|their\s+)?first\s+author|first[- ]authored\s+by|"
    r"\blists?\s+first(?=\s*[?.!]*$)|"  # "Which papers list X first?" (the name taken out)
    # "listed first on the byline" (not "appeared first on arXiv")
    r"(?:listed|appears?|appeared|named|placed)\s+(?:as\s+)?(?:the\s+)?first"
    r"(?:\s+(?:on|in)\s+(?:the\s+|an?\s+)?(?:(?:ICML\s*(?:20)?24\s+)?byline|author\s+list)|"
    r"(?=\s*[?.!]*\s*$))|"
    # "On how many author lists does X come first?"
    r"\bc[oa]mes?\s+first(?=\s*[?.!]*\s*$)|"
    r"first[- ]author\s+(?:papers|works|publications)(?:\s+(?:of|by|from))?|"
    r"(?:is|was)\s+(?:ever\s+)?(?:the\s+)?first\s+author(?:\s+(?:of|on))?)\b",
    re.I,
)

_LAST_AUTHOR = re.compile(
    r"\b(?:(?:as|is|was)\s+(?:ever\s+)?(?:the\s+|their\s+)?(?:last|senior|final)\s+author|"
    # "listed last on a byline", "appears last in the author list"
    r"\blists?\s+last(?=\s*[?.!]*$)|"
    r"(?:listed|appears?|appeared|named|placed)\s+(?:as\s+)?(?:the\s+)?last"
    r"(?:\s+(?:on|in)\s+(?:the\s+|an?\s+)?(?:(?:ICML\s*(?:20)?24\s+)?byline|author\s+list)|"
    r"(?=\s*[?.!]*\s*$))|"
    r"(?:last|senior)[- ]authored\s+by|"
    r"(?:last|senior)[- ]author\s+(?:papers|works|publications)(?:\s+(?:of|by|from))?)\b",
    re.I,
)

# "X first author and Y last author": the two names in that order
_FIRST_THEN_LAST = re.compile(
    r"\b(?:as\s+)?(?:the\s+)?first[- ]author\s+and\s+(?:(?:is|as|was|the)\s+){0,2}"
    r"(?:last|senior)[- ]author\b",
    re.I,
)
# "neither as first nor as last author", "one is first author and the other last"
_NOT_EACH_PLACE = re.compile(r"\b(?:not|neither|nor|either|or|one|other|n['’]t)\b", re.I)

_HOW_MANY = re.compile(r"\bhow\s+many\b|\bcounts?\b|\bnumber\s+of\b", re.I)
_UNION = re.compile(r"\b(?:combined|in\s+total|altogether|between\s+them)\b", re.I)
# "co-authored in total", "joint papers … altogether": the papers of both, not either's
_JOINT = re.compile(
    r"\b(?:co-?author\w*|co-?wr[io]te|co-?written|joint(?:ly)?|both|together|shared?|"
    r"collaborat\w*|with\s+each\s+other|write\s+with|wrote\s+with)\b",
    re.I,
)
_EACH = re.compile(r"\b(?:each|respectively|separately|individually)\b", re.I)
_NOT_BOTH = re.compile(r",?\s*but\s+not\s+both\b", re.I)

_MIDDLE = re.compile(
    r"\b(?:(?:is\s+)?(?:he|she|they)?\s*neither\s+(?:the\s+)?first\s+nor\s+(?:the\s+)?last"
    r"(?:\s+author)?|(?:as\s+)?(?:an?\s+)?middle\s+author)\b",
    re.I,
)

_PLACES = {**ORDINALS, **FROM_THE_END}

_PLACED = re.compile(
    rf"\b(?:(?:is|as|was)\s+(?:the\s+)?(?P<place>{'|'.join(_PLACES)})[- ]author\b"
    # "does X appear second-to-last in the author list"
    rf"|(?:appears?|appeared|listed|placed|comes?|came|sits?|sat)\s+(?:as\s+)?(?:the\s+)?"
    rf"(?P<end>{'|'.join(p for p in _PLACES if _PLACES[p] < 0)})(?:[- ]author)?"
    r"(?:\s+(?:in|on)\s+(?:the\s+|an?\s+)?(?:author\s+list|byline|list\s+of\s+authors))?"
    # "shows up third in the byline": a place from the front needs the byline said
    rf"|(?:shows?\s+up|showed\s+up|appears?|appeared|listed|placed|comes?|came|sits?|sat)\s+"
    rf"(?:as\s+)?(?:the\s+)?(?P<front>{'|'.join(p for p in _PLACES if _PLACES[p] > 0)})"
    r"\s+(?:in|on)\s+(?:the\s+|an?\s+)?(?:author\s+list|byline|list\s+of\s+authors))",
    re.I,
)

_NOT_FIRST = re.compile(
    r",?\s*(?:but\s+)?not\s+(?:in\s+(?:the\s+)?first\s+(?:position|place|slot)|"
    r"as\s+(?:the\s+)?first\s+author|(?:the\s+)?first\s+author|first)\b",
    re.I,
)

_AS_COAUTHOR = re.compile(r"\bas\s+(?:an?\s+)?(?:co-?)?authors?\b", re.I)


def _spans(words: list[str], longest: int = 4) -> list[tuple[int, int]]:
    """Word spans, longest first, left to right."""
    return [
        (start, start + size)
        for size in range(longest, 0, -1)
        for start in range(len(words) - size + 1)
    ]


NAME_TYPO_RATIO = 0.9  # a misspelt full name ("Ghessemi") read as the one catalogue name this close

NAME_TYPO_MARGIN = 0.1  # and closer than the next name by this much


def record_author(
    name: str, match: NameMatch, constraints: PlanConstraints, unresolved: list[Unresolved]
) -> None:
    """A name that fits one person becomes a constraint; any other is left unresolved,
    with the people it fits (or the closest names) for the answer to offer."""
    if match.unique is not None:
        constraints.authors.append(match.unique.name)
        typed, found = fold(name).split(), fold(match.unique.name).split()
        if typed and typed[0] in SPELLINGS and typed[0] != found[0]:
            constraints.read_as[name] = match.unique.name  # "Steven Wright": said, not silent
        return
    ratios = sorted(
        (
            (difflib.SequenceMatcher(None, fold(name), fold(s)).ratio(), s)
            for s in match.suggestions
        ),
        reverse=True,
    )
    close = [s for r, s in ratios if r >= NAME_TYPO_RATIO or _slip(name, s)]
    margin = ratios[0][0] - ratios[1][0] if len(ratios) > 1 else 1.0
    if _slip(name, close[0] if close else ""):
        margin = 1.0  # two letters swapped or a family name's initial: this one name
    one_edit = [s for s in match.suggestions if _family_letter_off(name, s)]
    if len(one_edit) == 1 and one_edit == close[:1]:
        margin = 1.0  # "jing juang": Jing Jiang is one letter off, every other name more
    # "Yang Lui" is as close to Yang Li as to Yang Liu: asked, not guessed
    if not match.people and len(close) == 1 and margin >= NAME_TYPO_MARGIN:
        constraints.authors.append(close[0])  # "Marzyeh Ghessemi": one name this close
        constraints.read_as[name] = close[0]
        return
    unresolved.append(
        Unresolved(
            kind="author",
            text=name,
            candidates=[(p.name, len(p.papers)) for p in match.people],
            suggestions=list(match.suggestions),
        )
    )


TYPO_FAMILY = 5  # a shorter family name one letter off is as likely another person's


def _family_letter_off(typed: str, name: str) -> bool:
    """The catalogue name `name` typed with one letter of a long family name replaced,
    added or dropped ("jing juang", "Jieyu Zhanbg"); not "Bo Liu" for Bo Li, nor "Yan Chen"
    for Yang Chen: those are real names too."""
    a, b = fold(typed).split(), fold(name).split()
    return (
        len(a) == len(b) >= 2
        and a[:-1] == b[:-1]
        and min(len(a[-1]), len(b[-1])) >= TYPO_FAMILY
        and a[-1] != b[-1]
        and edits_within_one(a[-1], b[-1])
    )


def _slip(typed: str, name: str) -> bool:
    """The catalogue name `name` typed with two adjacent letters swapped ("Emiyl Fox"), or
    with its family name cut to an initial ("Armand J.")."""
    a, b = fold(typed).split(), fold(name).split()
    if len(a) != len(b) or not a:
        return False
    if len(a[-1]) == 1 and a[:-1] == b[:-1]:
        return b[-1].startswith(a[-1])
    diffs = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(diffs) != 1 or len(diffs[0][0]) != len(diffs[0][1]):
        return False
    x, y = diffs[0]
    at = [i for i in range(len(x)) if x[i] != y[i]]
    return len(at) == 2 and at[1] == at[0] + 1 and x[at[0]] == y[at[1]] and x[at[1]] == y[at[0]]


_NAMED_PERSON = re.compile(
    r"(?:\b(?:did|does|has|by|of|list)\s+)(?P<name>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){1,3})"
    r"(?=\s+(?:co-?author|author|write|wrote|publish|present|have|has|as|got|get|had)|\s*[?.]?$)"
)

# "Himabindu Lakkaaju paper count": a capitalised name right before what is counted
_NAME_BEFORE_PAPERS = re.compile(
    r"(?P<name>\b[A-Z][a-z]+(?:\s+[A-Z][\w'’-]+){1,2})\s+(?=(?:papers?|orals?|spotlights?|posters?|"
    r"publications?)\b)"
)
# "Dilkina papers", "ecnu orals count" (statuses already read as "papers")
# "Charles University ICML 2024", "akshay kumar jagdaish icml 2024 accepted papers": a name
# and nothing else (the venue is gone by now)
_SHORT_QUERY = re.compile(
    r"^\s*(?P<name>[\w.'’-]+(?:\s+[\w.'’-]+){0,3}?)"
    r"(?P<noun>(?:\s+(?:accepted|all|papers?|publications?|works?|count|list|number|how\s+many))*)"
    r"\s*[?.!]?\s*$",
    re.I,
)

_LOWER_DID = re.compile(
    r"\b(?:did|does|has)\s+(?P<name>[a-z][\w-]+(?:\s+[a-z][\w-]+){1,2})\s+"
    r"(?:present|publish|write|wrote|have|get|got|contribute|submit)\w*\b"
)
_LOWER_OWNER = re.compile(
    r"(?<![\w'’-])(?P<name>[a-z][\w-]+(?:\s+[a-z][\w-]+){1,2})['’]s\s+(?:icml\s*(?:20)?24\s+)?"
    r"(?:papers?|orals?|spotlights?|posters?|publications?|works?)\b"
)
# "papers by jing juang", "papers by sashank j. redi": a middle initial may stand between
_LOWER_BY = re.compile(
    r"\bby\s+(?P<name>[a-z][\w'’-]+(?:\s+[a-z]\.?)?\s+[a-z][\w'’-]+)\s*[?.!]*\s*$"
)

_JOINED_BY = re.compile(r"\bby\s+(?P<name>[a-z]{7,})\s*[?.!]*\s*$")

_NOT_NAMES = {"the", "a", "an", "which", "what", "papers", "paper", "icml", "many", "most"}


def _looks_like_name(words: list[str]) -> bool:
    """A span worth looking up as a person: no frame word in it (an initial, "A.", is fine)."""
    # a family name that is a frame word ("Bang An") is one only capitalised after a name
    kept = [
        w for i, w in enumerate(words) if not (i and w[:1].isupper() and words[0][:1].isupper())
    ]
    lowered = [w.lower().strip(".'’") for w in kept if not re.fullmatch(r"[A-Z]\.", w)]
    named = bool(words) and words[0].lower().strip(".'’") not in _NOT_NAMES | _FRAME_WORDS
    return named and not any(w in _NOT_NAMES or w in _FRAME_WORDS for w in lowered)


_FRAME_WORDS = {
    "how", "papers", "paper", "did", "does", "do", "is", "are", "have", "has", "by", "from",
    "at", "of", "on", "about", "list", "show", "which", "what", "author", "authors",
    "co-author", "coauthor", "publish", "published", "icml", "2024", "and", "or", "with",
    "in", "as", "an", "the", "to", "for", "me", "all", "many",
}  # fmt: skip


class PeopleReader:
    """Reads the people a question names into its constraints, with the catalogue."""

    def __init__(
        self,
        catalogue: Catalogue,
        fields_word: Callable[[str], bool] | None = None,
        doc_freq: Callable[[str], int] | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.doc_freq = doc_freq or (lambda word: 0)  # how many abstracts write a word
        # "Physics papers" at a question's start: the field, though a lab's name holds it
        self.fields_word = fields_word or (lambda name: False)

    def read(
        self, text: str, constraints: PlanConstraints, unresolved: list[Unresolved], typed: str
    ) -> str:
        """The authors the text names, into `constraints`; `typed`: the question as typed,
        whose capitals say whether a short query names a person."""
        # before the places took the "'s" away; "what did asaf caassel present"
        owner = _LOWER_OWNER.search(typed) or _LOWER_DID.search(typed)
        said = owner.group("name").split() if owner else []
        for name in (" ".join(said[-k:]) for k in (2, 3) if len(said) >= k):
            if said[-len(name.split())] in _FRAME_WORDS or name not in text:
                continue
            if self.catalogue.match_author(name, suggest=False).people:
                break  # a name as written: read below
            # "eric schul's icml 2024 papers": a misspelt name, typed in lower case
            if self._misspelt(name, constraints):
                text = text.replace(name, " ", 1)
                break
        text = re.sub(r"(\w)['’]s\b", r"\1", text)  # "Foerster's papers"
        words = re.findall(r"[\w.'’-]+", text)
        taken: list[tuple[int, int]] = []
        named: dict[tuple[int, int], str] = {}  # each author's words, as the catalogue has it
        for start, end in _spans(words):
            if any(s < end and start < e for s, e in taken) or end - start < 2:
                continue
            name = " ".join(words[start:end]).strip(".'’")
            if not _looks_like_name(words[start:end]):
                continue
            match = self.catalogue.match_author(name, suggest=False)
            if not match.people:
                continue
            taken.append((start, end))
            if _WITHOUT.search(" ".join(words[max(0, start - 4) : start])):
                # "Loureiro's papers without Luca Arnaboldi": a co-author ruled out
                kept = PlanConstraints()
                record_author(name, match, kept, unresolved)
                constraints.excluded += kept.authors
                continue
            before = len(constraints.authors)
            record_author(name, match, constraints, unresolved)
            if len(constraints.authors) > before:
                named[(start, end)] = constraints.authors[-1]
        for cue in _AUTHOR_CUE.finditer(text):  # a family name alone, after "by", "did", …
            name = cue.group("name").strip(".'’")
            if re.match(r"\s+[A-Z][a-z]", text[cue.end() :]):
                continue  # "did Alexander Korottin": a full name, misspelt or not
            if any(name in " ".join(words[s:e]) for s, e in taken) or len(name) < 2:
                continue
            # "by AI/ML influencers": an acronym is no family name ("Ai" is one), nor is a
            # coined name with capitals inside ("How does BiSHop achieve …")
            coined = re.search(r"[a-z][A-Z]", name) is not None
            if (
                name[0].isupper()
                and not name.isupper()
                and not coined
                and name.lower() not in _NOT_NAMES
            ):
                match = self.catalogue.match_author(name, suggest=False)
                said_by = cue.group(0).lower().startswith("by")
                if match.people and (said_by or not self._a_word(name, match)):
                    taken.append((0, 0))
                    record_author(name, match, constraints, unresolved)
                    text = text.replace(name, " ", 1)
        # "… Marcel Binz leads — … where Marcel Binz is last author": one person, said twice
        constraints.authors = list(dict.fromkeys(constraints.authors))
        # "Who had more papers, Haggai Maron or Ethan Fetaya?": one of them, each counted
        spans = sorted(named)
        gaps = [[w.lower() for w in words[a[1] : b[0]]] for a, b in pairwise(spans)]
        # "A, B or C" (commas are gone from `words`): a run of names ending in "or"
        run: list[tuple[int, int]] = []
        for (first, second), gap in zip(pairwise(spans), gaps, strict=True):
            if gap in ([], ["or"]):
                run = run or [first]
                run.append(second)
                if gap == ["or"]:
                    for span in run:
                        if named[span] in constraints.authors:
                            constraints.authors.remove(named[span])
                            constraints.any_of.append(named[span])
                    run = []
            else:
                run = []
        listed = [a for a in named.values() if a in constraints.authors]
        # "A and B each had how many papers?", not "their joint papers, the status of each"
        # "A and B each had how many papers?", "how many do A and B have combined?": either's
        if (
            len(listed) >= 2
            and (_EACH.search(text) or (_UNION.search(text) and not _JOINT.search(text)))
            and _HOW_MANY.search(text)
        ):
            constraints.authors = [a for a in constraints.authors if a not in listed]
            constraints.any_of += listed
            text = _UNION.sub(" ", text)
        if len(constraints.any_of) >= 2 and _NOT_BOTH.search(text):  # "…, but not both"
            constraints.only_one = True
            text = _NOT_BOTH.sub(" ", text)
        for start, end in taken:
            if end:  # "Luo, Yu" is taken as "Luo Yu": the words with what stands between
                spelled = r"[\s,]+".join(re.escape(w) for w in words[start:end])
                text = re.sub(rf"(?:{_WITHOUT_CUE}\s+)?{spelled}", " ", text, count=1, flags=re.I)
        placed = _PLACED.search(text) if len(constraints.authors) == 1 else None
        middle = _MIDDLE.search(text) if len(constraints.authors) == 1 else None
        if (
            len(constraints.authors) == 2
            and _FIRST_THEN_LAST.search(text)
            and not _NOT_EACH_PLACE.search(text)
        ):
            # "is X first author and Y last author"
            constraints.first_author, constraints.last_author = constraints.authors
            constraints.authors = []
            text = _FIRST_THEN_LAST.sub(" ", text)
        elif middle:  # "neither the first nor the last author", "a middle author"
            constraints.not_first = constraints.not_last = True
            text = _MIDDLE.sub(" ", text)
        elif placed:  # "is second author", "as the third author"
            said = placed.group("place") or placed.group("end") or placed.group("front")
            constraints.position = _PLACES[said.lower()]
            text = _PLACED.sub(" ", text)
        elif _NOT_FIRST.search(text) and len(constraints.authors) == 1:  # "but not first author"
            constraints.not_first = True
            text = _NOT_FIRST.sub(" ", text)
        elif _FIRST_AUTHOR.search(text) and len(constraints.authors) == 1:  # "X as first author"
            constraints.first_author = constraints.authors.pop()
            text = _FIRST_AUTHOR.sub(" ", text)
        elif _LAST_AUTHOR.search(text) and len(constraints.authors) == 1:
            constraints.last_author = constraints.authors.pop()
            text = _LAST_AUTHOR.sub(" ", text)
        text = _AS_COAUTHOR.sub(" ", text)
        if not taken:
            text = self._unknown_author(text, constraints, unresolved)
        if not (taken or unresolved or constraints.affiliations or constraints.any_of):
            text = self._short_query(text, constraints, typed, unresolved)
        return text

    def _a_word(self, name: str, match: NameMatch) -> bool:
        """A family name alone that abstracts write as a word more often than its people
        wrote papers ("Adam": the optimizer, 16 abstracts; Hartwig Adam, 1 paper)."""
        if " " in name:
            return False
        papers = sum(len(p.papers) for p in match.people)
        return self.doc_freq(name.lower()) > max(papers, 2)

    def _acronym(self, typed: str) -> bool:
        """Whether a lowercase word is an institution's acronym ("ecnu"), not a word ("park")."""
        variants = self.catalogue.match_institution(typed).variants
        return " " not in typed and any(
            acronym(a) == typed.lower() or re.search(rf"\b{re.escape(typed.upper())}\b", a)
            for a, _ in variants
        )

    def _short_query(
        self, text: str, constraints: PlanConstraints, typed: str, unresolved: list[Unresolved]
    ) -> str:
        """ "Dilkina papers", "ecnu orals count": a family name or an institution before
        what is counted, in a query of a few words."""
        found = _SHORT_QUERY.match(text)
        if found is None:
            return text
        name, noun = (
            found.group("name"),
            re.search(r"\b(?:papers?|publications?)\b", found.group(0)),
        )
        if not (noun or (len(name.split()) > 1 and all(w[:1].isupper() for w in name.split()))):
            return text  # a name alone only as a name is written: "machine learning" is none
        capital = re.search(rf"\b{re.escape(name)}\b", typed) is not None and name[:1].isupper()
        match = self.catalogue.match_author(name, suggest=False)
        # "Dilkina", not "adam papers" nor "Adam papers" (the optimizer abstracts write)
        if capital and match.people and not self._a_word(name, match):
            # "Levine papers": several people, asked back as "papers by Levine" is
            record_author(name, match, constraints, unresolved)
        elif (
            noun
            and len(name.split()) >= 3
            and not match.people
            and self._misspelt(name, constraints)
        ):
            pass  # "akshay kumar jagdaish … papers": read as the one name close to it
        # "uc irvine paper count": two words in lower case that name an institution
        elif (
            (capital or " " in name or self._acronym(name))
            and self.catalogue.knows_institution(name)
            and not self.fields_word(name)
        ):
            constraints.affiliations.append(name)
        elif corrected := self.catalogue.corrected_place(name):  # "uc irivne paper count"
            constraints.affiliations.append(corrected)
            constraints.read_as[name] = corrected
        else:
            return text
        return text.replace(name, " ", 1)

    def _unknown_author(
        self, text: str, constraints: PlanConstraints, unresolved: list[Unresolved]
    ) -> str:
        """A capitalised name where the question expects a person, that fits no one."""
        match = _NAMED_PERSON.search(text)
        if match is None:
            return self._misspelt_owner(text, constraints)
        name = match.group("name")
        if self.catalogue.knows_institution(name):
            return text
        # Initials the span search skipped ("A. G. Wilson") resolve here; a name that fits
        # no one is kept with the closest names, one close to no one's ("The Garden of
        # Earthly Delights") is no person's
        people = self.catalogue.match_author(name)
        authored = re.match(r"\s+(?:co-?author|author|write|wrote|publish)", text[match.end() :])
        if not (people.people or people.suggestions or authored or match.group(0).startswith("by")):
            return text
        record_author(name, people, constraints, unresolved)
        return text.replace(name, " ", 1)

    def _misspelt(self, name: str, constraints: PlanConstraints) -> bool:
        """A misspelt name read as the one catalogue name close to it, into `constraints`
        with how it was read; False (and nothing kept) when it is close to none or many."""
        read = PlanConstraints()
        record_author(name, self.catalogue.match_author(name), read, [])
        constraints.authors += read.authors
        constraints.read_as.update(read.read_as)
        return bool(read.authors)

    def _misspelt_owner(self, text: str, constraints: PlanConstraints) -> str:
        """ "What's Himabindu Lakkaaju's paper count": a capitalised name before what is
        counted; "papers by jing juang": two lower-case words ending the question after
        "by"; each taken only when, misspelt, it is one catalogue name (else a topic's)."""
        spans = [found.group("name").split() for found in _NAME_BEFORE_PAPERS.finditer(text)]
        spans += [[m.group("name")] for m in _LOWER_BY.finditer(text)]
        for joined in _JOINED_BY.finditer(text):  # "by fredericktung": the space left out
            word = joined.group("name")
            splits = [f"{word[:i]} {word[i:]}" for i in range(2, len(word) - 1)]
            # no suggestions asked: each split not a name would read every name for them
            people = {
                p.name
                for n in splits
                if (p := self.catalogue.match_author(n, suggest=False).unique)
            }
            if len(people) == 1:
                constraints.authors.append(people.pop())
                constraints.read_as[word] = constraints.authors[-1]
                return text.replace(word, " ", 1)
        for words in spans:
            for start in range(max(len(words) - 1, 1)):  # "What Himabindu Lakkaaju": the 2nd on
                name = " ".join(words[start:])
                if self._misspelt(name, constraints):
                    return text.replace(name, " ", 1)
        return text
