"""How the asker puts a question, as against what it asks of a paper: verbs, describing
words, numbers in words and blanks; a word right after its subject; the asker's own clause
("I scribbled this down from a talk"); a half-remembered quoted title; a long word one
letter off the abstract's. The premise checks (rag.answer.premises) leave these out."""

from __future__ import annotations

import re
from functools import lru_cache

from rag.text import SPELLED_NUMBER, content_terms, edits_within_one

BLANK = re.compile(r"X{2,}", re.I)


@lru_cache(maxsize=8192)
def _readings(word: str) -> dict[str, tuple[str, ...]]:
    """The parts of speech English uses the word as, with its lemmas ({} if unknown)."""
    from lemminflect import getAllLemmas  # its lexicon loads on first use (~0.2 s)

    return dict(getAllLemmas(word))


def word_before(text: str) -> str:
    """The last word of `text` ("" when none)."""
    words = re.findall(r"[A-Za-z]+", text)
    return words[-1] if words else ""


@lru_cache(maxsize=8192)
def says_how(word: str) -> bool:
    """A lower-case word English uses only as a verb, adjective or adverb ("restate",
    "awkward", "juggle"): how the asker puts it, not a thing a paper would name. A
    comparative or superlative ("poorer", "hardest") says a direction and stays one."""
    if not word.islower():
        return False
    readings = _readings(word)
    if not readings:
        # "runnable", "learnable": a describing word the lexicon lacks, by its ending
        return len(word) > 7 and word.endswith(("able", "ible"))
    if not set(readings) <= {"VERB", "ADJ", "ADV"}:
        return False
    degree = "ADJ" in readings and word not in readings["ADJ"] and word.endswith(("er", "est"))
    return not degree


def doing(word: str) -> bool:
    """ "Jotting numbers for a table: …": a sentence opened by a verb in -ing."""
    return word.endswith("ing") and "VERB" in _readings(word)


def no_thing(word: str) -> bool:
    """A word of how the asker puts it, no thing a paper lacks: a number in words
    ("sixteen"), a verb or adjective ("restate", "awkward"), a blank to fill ("XXXXXX")."""
    # a number in words is checked as a number, not a word
    return bool(SPELLED_NUMBER.fullmatch(word) or says_how(word) or BLANK.fullmatch(word))


_PRONOUNS = frozenset("it he she they we you i".split())


def after_subject(before: str, word: str) -> bool:
    """A word right after a subject pronoun is its verb ("it hunts", "they threw"), and so
    is one after "both" that is no plural ("both squeeze", not "both datasets")."""
    said = word_before(before).lower()
    after = said in _PRONOUNS or (said == "both" and not word.endswith("s"))
    # "was it *combustion* data": a noun stays one
    return after and "VERB" in _readings(word.lower())


TYPO_CHARS = 8  # a word this long one letter off an abstract's word is that word misspelt


def one_letter_off(word: str, text: str) -> bool:
    """ "Rademacher" for "Radamacher", "Promptbreader" for "Promptbreeder": a long word
    one letter changed, added or dropped from a word of the text (either may be the typo),
    neither of them an English word ("adsorption" and "absorption" are two)."""
    if len(word) < TYPO_CHARS or not word.isalpha():
        return False
    key = word.lower()
    lexical = _in_lexicon(key)  # "adsorption" is no typo of "absorption": both are words
    for other in set(
        re.findall(rf"\b{re.escape(key[0])}[a-z]{{{len(key) - 2},{len(key)}}}\b", text.lower())
    ):
        if other == key or not edits_within_one(key, other):
            continue
        if other.replace("s", "z") == key.replace("s", "z"):
            return True  # "Generalization" for "generalisation": one word, two spellings
        if not lexical and not _in_lexicon(other):
            return True
    return False


def _in_lexicon(word: str) -> bool:
    return bool(_readings(word))


_QUOTED = re.compile(r'"([^"]{8,})"|“([^”]{8,})”')


def title_quoted(question: str, title: str) -> set[str]:
    """The words of a quoted title half-remembered ("Two Hands, One Heart" for "Two Fists,
    One Heart"): half of its words or more are the title's, so the others name no premise."""
    words: set[str] = set()
    titled = set(content_terms(title))
    for match in _QUOTED.finditer(question):
        quoted = match.group(1) or match.group(2)
        terms = content_terms(quoted)
        if terms and 2 * len(set(terms) & titled) >= len(set(terms)):
            words.update(re.findall(r"[\w-]+", quoted))
    return words


_CLAUSE_EDGE = re.compile(r"[.?!;:,\"“”(]|\s[-–—]+\s|\sbut\s")
# "I" the asker, not "Type I error" or "Phase I trials"; "my"; not "me" ("give me its …")
_ASKER = re.compile(r"\b(?:I(?!-)|[Mm]y)\b")
_NOT_ASKER = frozenset("type phase part stage class level category tier grade step world".split())
_REPORTED = re.compile(
    r"\b(?:that|heard|hear|read|recall|remember|think|thought|believe|saw|seen|told|noticed|"
    r"understand|understood|learned|learnt|gather|guess|assume|know|whether|if|how|what|which|"
    r"why|mention\w*|say|says|said|tell|tells|claim\w*|write|writes|wrote|suggest\w*|argu\w*|"
    r"note|notes|noted|state|states|stated|describe\w*|call\w*|list\w*|show\w*|report\w*)\b",
    re.I,
)


def asker_clause(before: str) -> bool:
    """ "I scribbled this down from a *talk*", "my *advisor* mentioned …": a word the asker
    says of themself, not of the paper; what they report ("I heard it uses *hospital* data")
    is the paper's premise."""
    clause = _CLAUSE_EDGE.split(before)[-1]
    for asker in _ASKER.finditer(clause):
        if word_before(clause[: asker.start()]).lower() in _NOT_ASKER:
            continue  # "Type I error", "Phase I trials": a numeral
        return not _REPORTED.search(clause[asker.end() :])
    return False


def opens_sentence(question: str, at: int) -> bool:
    """ "Restate how …", "Briefly, how …": the word starts the question or a sentence of it."""
    return not question[:at].strip() or question[:at].rstrip()[-1:] in ".?!:"
