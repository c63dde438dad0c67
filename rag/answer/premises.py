"""Premises a question brings to a paper: names and rare words the paper never writes.

"SNAP-DDM on *turbulent combustion*": when the question names a paper (its title, or a
name only that abstract writes) and adds words the paper does not use, the answer says
so. Words about the corpus itself (every paper here is an ICML 2024 paper with an
abstract and authors) and words any question may use are never such premises.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from rag.answer.question_parts import UNIT_WORDS
from rag.answer.scope import same_kind_of_data
from rag.answer.wording import (
    BLANK,
    after_subject,
    asker_clause,
    doing,
    no_thing,
    one_letter_off,
    opens_sentence,
    says_how,
    title_quoted,
    word_before,
)
from rag.text import (
    NAME,
    TITLE_CHARS,
    content_terms,
    folded,
    initials,
    stems_match,
    unaccented,
    writes_name,
)

# A name the corpus hardly uses points at one paper; a word that rare, absent from the
# paper, is a premise the paper does not share. Set on the hard dev questions.
RARE_NAME_DOCS = 5
RARE_WORD_DOCS = 2


def names_the_paper(
    question: str, title: str, abstract: str, doc_freq: Callable[[str], int]
) -> bool:
    """Whether the question refers to this paper by a name: its title, or a name (an
    acronym or coined word) that the paper writes and the corpus hardly uses."""
    head = folded(title.split(":")[0])
    if len(head) >= 4 and head in folded(question):
        return True
    text = f"{title} {abstract}"
    return any(
        writes_name(name, text) and doc_freq(name) <= RARE_NAME_DOCS
        for name in NAME.findall(question)
    )


TITLE_RUN = 3  # consecutive title words ("conditional common entropy") that name the paper
TITLE_RARE = 60  # papers using a word of the run, at most: rare enough to single out a title


def title_run(question: str, title: str, doc_freq: Callable[[str], int]) -> bool:
    """Whether the question writes TITLE_RUN consecutive words of the title, content words
    at both ends, TITLE_CHARS letters in all and one word few abstracts use: "the
    conditional common *entropy* approach", not "large language models"."""
    said = " " + " ".join(re.findall(r"[a-z0-9]+", question.lower())) + " "
    ws = re.findall(r"[a-z0-9]+", title.lower())
    for i in range(len(ws) - TITLE_RUN + 1):
        run = ws[i : i + TITLE_RUN]
        if (
            not (content_terms(run[0]) and content_terms(run[-1]))
            or len("".join(run)) < TITLE_CHARS
            or min(doc_freq(w) or TITLE_RARE + 1 for w in run) > TITLE_RARE
        ):
            continue
        if f" {' '.join(run)} " in said:
            return True
    return False


# Words that describe the corpus itself (every paper here is an ICML 2024 paper with an
# abstract and authors) or that any question may use: never a premise a paper lacks.
CORPUS_WORDS = frozenset(
    # the field itself: "What ML technique does X use" asks nothing about ML
    "ml ai "
    "icml icml2024 icml24 2024 paper papers abstract abstracts conference proceedings pmlr "
    "author authors accepted submission oral orals spotlight spotlights poster posters".split()
)
_PERCENT = frozenset({"percent", "percents", "percentage", "percentages"})
_CURRENCY = frozenset({"dollar", "dollars"})  # words of six letters and more are read
# A number said in words ("under a tenth of the storage" for "less than 10%"): no premise.
_FRACTIONS = (
    frozenset(
        "half halves third thirds quarter quarters fifth fifths sixth sixths seventh sevenths "
        "eighth eighths ninth ninths tenth tenths hundredth hundredths thousandth thousandths "
        "twice thrice tenfold hundredfold thousandfold twofold threefold fourfold".split()
    )
    | UNIT_WORDS
)
# The 1,000 words spoken English uses most (pyspellchecker's English frequencies, MIT):
# one the abstracts hardly write is how the asker talks ("a paper *saying* …"), not a
# premise the paper lacks. Not used for words no abstract writes (an absent topic).
EVERYDAY_WORDS = frozenset(
    (Path(__file__).with_name("everyday_words.txt")).read_text(encoding="utf-8").split()
)
COMMON_WORDS = frozenset(
    "cheap cheaper cheapest costly pricier easier easiest simpler simplest quicker quickest "
    "heavier lighter "
    # past participles of everyday verbs ("thrown away"), rare in abstracts
    "thrown broken chosen driven fallen forgotten frozen hidden spoken stolen bitten beaten "
    "brought bought caught fought sought taught thought understood "
    "anyone someone somebody anybody everyone everybody nobody people nowadays actually "
    "exactly really basically anywhere somewhere whatever whoever "
    "usually typically somehow anything something everything nothing "
    # how a paper is described ("Billed as the first proof …"), not what it is about
    "billed touted hailed dubbed marketed advertised pitched branded "
    # how the asker frames asking ("I'm also curious …")
    "curious wondering "
    # how one thing stands to another in the asker's words ("its sibling AdaMDOS", "the LLM
    # underneath", "a floor for every algorithm", "pinned down the risk"), not a topic
    "predecessor predecessors successor successors sibling siblings counterpart counterparts "
    "cousin cousins underneath beneath atop floor ceiling pinned nailed "
    # the asker's idiom around what is asked ("Ballpark, how much …", "what's the downside",
    # "a colleague keeps quoting …"), not what a paper is about
    "ballpark downside downsides upside upsides headroom knobs colleague colleagues "
    "coworker coworkers "
    # who the asker talks with and how they sum a result up ("my advisor mentioned …",
    # "what's the upshot", "any gotchas"): the conversation, not the paper
    "advisor advisors adviser advisers supervisor supervisors labmate labmates classmate "
    "classmates professor professors gist takeaway takeaways upshot punchline crux gotcha "
    "gotchas caveat caveats wrinkle wrinkles nutshell rundown lowdown recap hype "
    # "couldn't": the word before the apostrophe
    "couldn wouldn shouldn haven hasn doesn aren weren".split()
)


# How the asker wants the answer put ("ELI5:", "tl;dr of", "in plain words"): no premise.
_REQUEST = re.compile(
    # "I'm a biostatistician pooling …": who asks, not what about
    r"\b(?:i['’]m|i am|i work as)\s+an?\s+[\w-]+\b"
    r"|\b(?:eli5|tl;?\s?dr|explain (?:it )?like i['’]?m (?:five|5))\b[:,\s-]*(?:of\s+)?"
    r"|\b(?:in (?:plain|simple) (?:words|english|terms)|in a nutshell|fill in the blanks?)\b[:,]?"
    r"|\b(?:two|three)[- ]parter\b|\bQ\d:"  # "Two-parter on FedRank: …", "Q1: … Q2: …"
    # "Remind me —", "Double-check for me:", "In one line:", "True or false:"
    r"|\bremind\s+me\b|\bdouble[- ]check(?:\s+for\s+me)?\b|\bin\s+one\s+line\b|\btrue\s+or\s+false\b"
    r"|\bi\s+could(?:n['’]t|\s+not)\s+find(?:\s+(?:it\s+)?anywhere)?\b",
    re.I,
)


# A name made into a describing word: the name is what a paper would write.
_DESCRIBED = re.compile(
    r"-(?:inspired|based|like|style|driven|guided|aware|type|powered|specific|esque)$", re.I
)


# A field's acronym and what it stands for, as abstracts write them.
FIELD_NAMES = {
    "rl": ("reinforcement learning",),
    "nlp": ("natural language processing", "natural language"),
    "cv": ("computer vision",),
    "llm": ("large language model", "language model"),
    "vit": ("vision transformer",),
    "lm": ("language model",),
    "vlm": ("vision-language model", "vision language model"),
    "mllm": ("multimodal large language model", "multimodal LLM", "multi-modal LLM"),
    "sota": ("state of the art", "state-of-the-art"),
}


_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[\s-]+[A-Z][a-z]+){1,4}\b")
_TO_DO = re.compile(r"\bto\s+$")


def initials_of(phrase: str) -> str:
    return "".join(w[0] for w in re.split(r"[\s-]+", phrase) if w).upper()


def capitalised_spans(text: str) -> Iterator[list[str]]:
    """Every run of two or more capitalised words the text writes, and each run inside it
    ("During Direct Preference Optimization": … "Direct Preference Optimization", …)."""
    for run in _CAPITALISED_RUN.finditer(text):
        words = re.split(r"[\s-]+", run.group(0))
        for a in range(len(words)):
            for b in range(a + 2, len(words) + 1):
                yield words[a:b]


def spelled_capitals(text: str) -> set[str]:
    """Initials of the capitalised word runs a text writes ("Variational Inference" -> "vi"):
    an acronym that short names only what is spelled out with capitals."""
    return {initials_of(" ".join(span)).lower() for span in capitalised_spans(text)}


def without_request(question: str) -> str:
    return _REQUEST.sub(" ", question)


def unmentioned(
    question: str, title: str, abstract: str, doc_freq: Callable[[str], int]
) -> list[str]:
    """The question's names and rare words that the paper's title and abstract never use:
    a premise the paper does not share ("SNAP-DDM on *turbulent combustion*")."""
    text = f"{title} {abstract}"
    plain = unaccented(text)  # "DejaVu" for the title's "DéjàVu"
    spelled, shortened = folded(plain), initials(text)
    stems = set(content_terms(plain))
    absent: list[str] = []
    # "Direct Preference Optimization" for the abstract's "DPO": a spelled-out acronym
    spelled_out: set[str] = set()
    for span in capitalised_spans(question):
        if writes_name(initials_of(" ".join(span)), text):
            spelled_out.update(span)
    spelled_out.update(title_quoted(question, title))
    capitals: set[str] | None = None  # the abstract's spelled-out runs, read when needed
    for written in dict.fromkeys(NAME.findall(question)):
        if written in spelled_out or BLANK.fullmatch(written):
            continue  # "What goes in the XXX slots?": a blank to fill, no name
        if written.endswith("-ing"):
            continue  # "a course I'm TA-ing": a name made a verb
        name = _DESCRIBED.sub("", written)  # "UCRL2-inspired": the paper writes "UCRL2"
        key = folded(name)
        if key in CORPUS_WORDS:
            continue
        acronym = key.rstrip("s")
        if acronym in FIELD_NAMES:  # "RL" is reinforcement learning, not "representation learning"
            # "LLMs" is written "LLM-Style" too
            if not any(writes_name(n, text) for n in (name, acronym, *FIELD_NAMES[acronym])):
                absent.append(written)
            continue
        if len(acronym) < 3:
            capitals = spelled_capitals(text) if capitals is None else capitals
            if acronym in capitals:
                continue  # "VI" of an abstract's "Gaussian Variational Inference"
            acronym = ""  # "uc" fits any 2 words
        if writes_name(name, text) or acronym in shortened or (acronym and acronym in spelled):
            continue
        if "-" in name and not re.search(r"\d", name) and set(content_terms(name)) <= stems:
            continue  # "LLM-modified" of a paper on text "modified by LLMs" (not GPT-4 for GPT-3)
        if one_letter_off(name, plain):
            continue
        absent.append(written)
    for found in re.finditer(r"[A-Za-z][A-Za-z-]{5,}", question):
        word = found.group(0)
        if word in spelled_out:
            continue
        if _TO_DO.search(question[: found.start()]) and word.islower() and not word.endswith("s"):
            continue  # "… to stretch an LLM's context window": the asker's verb for its aim
        if _VERB_S.match(question[found.end() :]) and word.islower() and word.endswith("s"):
            previous = word_before(question[: found.start()]).lower()
            if previous and previous not in _DETERMINERS | _SUBJECT_BEFORE:
                continue  # "… vectors rotate *lessens* reliance": a verb, no thing asked of
        if word.endswith("-ing"):
            continue  # "TA-ing", "Zoom-ing": a noun made a verb
        if word.islower() and after_subject(question[: found.start()], word):
            continue  # "while it *hunts* for …", "both *squeeze* a model": a verb
        if asker_clause(question[: found.start()]):
            continue
        stem = next(iter(content_terms(word)), "")
        if folded(word) in CORPUS_WORDS | COMMON_WORDS | _FRACTIONS or no_thing(word):
            continue
        if opens_sentence(question, found.start()) and (
            says_how(word.lower()) or doing(word.lower())
        ):
            continue  # "Restate how …": the asker's verb, capitalised
        # "a paper *saying* …" is how the asker talks; "in *American* cities" names a thing
        if folded(word) in EVERYDAY_WORDS and not _names_a_thing(word, question[: found.start()]):
            continue
        common = (
            max(
                doc_freq(word), doc_freq(_american_word(word)), doc_freq(_degree_of(word, question))
            )
            > RARE_WORD_DOCS
        )
        if not stem or word in absent or stem in stems or common:
            continue
        if folded(word) in spelled or set(content_terms(_american_word(word))) & stems:
            continue
        if folded(word) in _PERCENT and "%" in text:
            continue  # "within a couple of percent": "within 2%"
        if folded(word) in _CURRENCY and re.search(r"\$\s?\d[\d,.]*(?![\d$])|\bUSD\b", text):
            continue  # "fifty dollars": "under $20 USD"
        if one_letter_off(word, plain):
            continue  # "Rademacher" for the abstract's "Radamacher": one name, a typo apart
        if same_kind_of_data(word, plain):
            continue
        if not any(stems_match(stem, frozenset([s])) for s in stems if len(s) >= 5):
            absent.append(word)
    return absent


def unwritten(
    question: str,
    paper_count: Callable[[str], int],
    prefixed: Callable[[str], bool],
    known: Callable[[str], bool] = lambda word: False,
) -> list[str]:
    """The question's words that no title or abstract of the corpus uses in any form
    ("Android", "traders"): what it asks about is not among the papers, however close
    the nearest one reads. Another ending of a word the corpus has ("chemists" beside
    "chemistry", "PARCv" beside "PARCv2") and British spellings are its words too."""
    found: list[str] = []
    said = _EXAMPLE.sub(" ", question)  # "e.g. for quad remeshing": an aside, not the subject
    for match in re.finditer(r"[^\W\d_]\w*(?:-\w+)*", said):
        word = match.group(0)
        terms = content_terms(word)
        if len(word) < 4 or not terms or folded(word) in CORPUS_WORDS | COMMON_WORDS | _FRACTIONS:
            continue
        if folded(word) in _CURRENCY | _PERCENT:
            continue  # "twenty dollars": abstracts write "$20", "40%"
        if no_thing(word):
            continue
        if word in found or not _names_a_thing(word, said[: match.start()]):
            continue
        if word.islower() and after_subject(said[: match.start()], word):
            continue
        if asker_clause(said[: match.start()]):
            continue
        terms += content_terms(_american_word(word)) + content_terms(_letters_for_digits(word))
        if any(paper_count(t) or (len(t) >= PREFIX_CHARS and prefixed(t)) for t in terms):
            continue
        if known(word):
            continue  # an author or institution is the catalogue's, not an abstract's word
        found.append(word)
    return found


# "How do quadrotors stabilize": after these, a word in -s is the subject, not a verb
_SUBJECT_BEFORE = frozenset(
    "do does did are were is was have has can could will would should may might how why what "
    "which when where whether".split()
)
# a bare noun right after a word in -s: the word is a verb ("lessens reliance"), not a
# plural ("models trained on", "graphs with")
_VERB_S = re.compile(
    r"\s+(?!(?:the|a|an|of|in|on|for|with|to|and|or|by|from|as|at|is|are|was|were|that|which|"
    r"than|like|when|while|where|how|what|it|its|their|this|these|those)\b)"
    r"[a-z][a-z-]*(?<!ed)(?<!ing)(?<!s)\b"
)
PREFIX_CHARS = 5  # a stem this long that starts a corpus word is that word's other ending
_EXAMPLE = re.compile(
    r"\([^()]*\)|\b(?:e\.g\.|i\.e\.|for example|for instance|such as)[^,;.?]*", re.I
)
_DETERMINERS = frozenset(
    "a an the of about for on in with from their its our my your this these".split()
)


def _names_a_thing(word: str, before: str) -> bool:
    """Whether a word reads as a thing (what a question is about) rather than how it is
    put: a name ("Android"), a plural ("traders"), or a word after an article or
    preposition ("the cricket world cup"); not a verb or adverb ("people *strip* out")."""
    previous = word_before(before).lower()
    capitalised = word[0].isupper() and bool(previous)  # not the question's first word
    plural = len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return capitalised or plural or previous in _DETERMINERS


def _degree_of(word: str, question: str) -> str:
    """ "faster and steadier", "noisier than": the adjective the corpus writes ("steady",
    "noisy"); a noun in -ier ("the supplier") stays itself."""
    plain = re.sub(r"(?<=[a-z]{3})i(?:er|est)$", "y", word)
    if plain == word:
        return word
    said = re.search(
        rf"(?:\b(?:and|or|more|most)\s+|,\s*){re.escape(word)}\b|"
        rf"\b{re.escape(word)}(?:\s+than\b|\s*[,.;?!]|$)",
        question,
    )
    return plain if said else word


def _american_word(word: str) -> str:
    # "specialised", "organisation", "analyse", "behaviour": the corpus mostly spells -ize.
    word = re.sub(r"(?<=[a-z])is(e|ed|es|ing|ation|ations|er|ers)$", r"iz\1", word)
    word = re.sub(r"(?<=[a-z])ys(e|ed|es|ing)$", r"yz\1", word)
    word = re.sub(r"^(lic|def|off)ence(s)?$", r"\1ense\2", word)  # "licences"
    word = re.sub(r"^(model|label|signal|travel)l(ed|ing)$", r"\1\2", word)  # "modelling"
    return re.sub(r"(?<=[a-z]{3})our(s|ed|ing|al)?$", r"or\1", word)


def _letters_for_digits(word: str) -> str:
    """A name typed with a zero for an O ("C3P0" for "C3PO"), a one for an l."""
    if not any(c.isalpha() for c in word):
        return word
    return re.sub(r"(?<=[A-Za-z])0|0(?=[A-Za-z])", "O", re.sub(r"(?<=[a-z])1(?=[a-z])", "l", word))
