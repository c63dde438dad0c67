"""Plain-text helpers shared by chunking, the extractive answerer and evaluation."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import Stemmer

# Abbreviations after which a period does not end a sentence.
_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "et al",
    "etc",
    "vs",
    "cf",
    "fig",
    "figs",
    "eq",
    "eqs",
    "sec",
    "resp",
    "approx",
    "dr",
    "mr",
    "ms",
    "prof",
    "no",
    "al",
    "viz",
    "w.r.t",
    "a.k.a",
    "ref",
    "i.i.d",
    "pp",
}
# Dotted initialisms ("u.s", "i.i.d"): the period after the last letter is not an end.
_INITIALISM = re.compile(r"(?:[a-z]\.)+[a-z]")
_MATH_DOLLAR = re.compile(r"(?<!\\)\$")
# Group 1: closing quotes/brackets after the end mark belong to the sentence they close.
_SENTENCE_END = re.compile(r"(?<=[.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9$\\])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WORD = re.compile(r"(?u)\b\w\w+\b")
_WHITESPACE = re.compile(r"\s+")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours paper papers work works propose
    proposed proposes show shows study studies approach method methods use using used based
    new novel via which icml 2024 does do did explain explains find finds found what whose
    any ones one two""".split()
)

_stemmer = Stemmer.Stemmer("english")


def unpaired_surrogate(text: str) -> tuple[int, int] | None:
    """(index, code point) of the first unpaired surrogate in `text`, or None.

    A JSON escape ("\\ud800") can carry one; no tokenizer, Chroma or JSON response can
    encode it, so inputs are refused with this position rather than failing later.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start, ord(text[exc.start])
    return None


def repeated_key(pairs: Sequence[tuple[str, Any]]) -> str | None:
    """The first key that appears twice among a JSON object's (key, value) pairs, or None.

    Python's json keeps the last of two equal keys without a word; a corpus record or an
    API body that says one thing to one reader and another to the next is refused instead.
    """
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def clean_text(text: str) -> str:
    """Drop control characters (NUL included) and fold whitespace; keep LaTeX and HTML as text."""
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(" ", text)
    return _WHITESPACE.sub(" ", text).strip()


def split_sentences(text: str) -> list[str]:
    """Split an abstract into sentences without breaking at `e.g.`, `et al.` or decimals."""
    text = clean_text(text)
    if not text:
        return []
    pieces: list[str] = []
    start = 0
    # Offsets of unescaped `$`: a boundary after an odd number of them is inside `$…$` math.
    dollars = [m.start() for m in _MATH_DOLLAR.finditer(text)]
    if len(dollars) % 2:  # an unpaired `$` ("costs $5") is not math: ignore them all
        dollars = []
    for match in _SENTENCE_END.finditer(text):
        end = match.end(1)
        candidate = text[start:end]
        # "(e.g." must look like "e.g": strip brackets and quotes on both sides.
        last_word = candidate.rsplit(" ", 1)[-1].strip(".!?\"'()[]").lower()
        if (
            last_word in _ABBREVIATIONS
            or (len(last_word) == 1 and last_word.isalpha())
            or _INITIALISM.fullmatch(last_word)
        ):
            continue
        if sum(1 for d in dollars if d < end) % 2:
            continue
        pieces.append(candidate.strip())
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def content_terms(text: str) -> list[str]:
    """Lower-cased, stemmed words of at least two characters, stopwords removed."""
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    return list(_stemmer.stemWords(words))


def topic_tokens(text: str) -> list[str]:
    """Lower case, hyphens as spaces, plural -s dropped: "Graph-Transformers" → graph
    transformer (how topic phrases are matched against titles and abstracts)."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("-", " "))
    return [w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def stem(word: str) -> str:
    """One lower-cased word's stem (the same stemmer as `content_terms`)."""
    return str(_stemmer.stemWord(word.lower()))


def normalise_for_match(text: str) -> str:
    """Loose form for key-fact matching: lower case, no punctuation, folded spaces."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^\w\s.%]", " ", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    return _WHITESPACE.sub(" ", text).strip()


def first_sentence(text: str, limit: int = 120) -> str:
    sentences = split_sentences(text)
    head = sentences[0] if sentences else clean_text(text)
    return head if len(head) <= limit else head[: limit - 1].rstrip() + "…"


# A name: an acronym, a CamelCase or hyphenated capitalised word, or a capitalised word
# inside a sentence ("on the Lean proof assistant", "LLaMA-2", "ServiceNow", "ImageNet").
NAME = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Za-z0-9]*[A-Z0-9][\w-]*|[A-Z][a-z]+[A-Z][\w-]*|"
    r"[A-Za-z]+-\d[\w-]*|(?<=[a-z,;:(] )[A-Z][a-z]{2,})"
)


# Numbers written as words, as questions and abstracts count ("three algorithms").
NUMBER_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_TEENS = "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# Every number up to 99 in words ("sixteen", "forty-two"), with its value.
SPELLED_VALUES = {
    **NUMBER_WORDS,
    **{w: 13 + k for k, w in enumerate(_TEENS)},
    **{w: 20 + 10 * k for k, w in enumerate(_TENS)},
    **{
        f"{t}-{u}": 20 + 10 * k + n
        for k, t in enumerate(_TENS)
        for u, n in NUMBER_WORDS.items()
        if 1 <= n <= 9
    },
}
# Places after the first, as questions say them ("second", "2nd" … "tenth", "10th"), with
# their number; and each number's word ("the third author")
ORDINALS = {
    w: n
    for n, (word, short) in enumerate(
        zip(
            "second third fourth fifth sixth seventh eighth ninth tenth".split(),
            "2nd 3rd 4th 5th 6th 7th 8th 9th 10th".split(),
            strict=True,
        ),
        start=2,
    )
    for w in (word, short)
}
ORDINAL_WORDS = {n: w for w, n in ORDINALS.items() if w.isalpha()}
# Places counted from the end of a list ("the second-to-last author", "penultimate")
FROM_THE_END = {"second-to-last": -2, "second to last": -2, "next-to-last": -2,
                "next to last": -2, "penultimate": -2, "third-to-last": -3,
                "third to last": -3}  # fmt: skip
# Superlatives that ask for the one paper ranked first ("the biggest speedup")
SUPERLATIVES = r"(?:largest|biggest|highest|greatest|best|fastest|lowest|smallest|fewest|longest)"
# A paper's status as a question writes it ("orals", "a spotlight")
STATUS_WORD = re.compile(r"\b(oral|spotlight|poster)s?\b", re.I)
# "How many papers from Tencent? Any orals?", "…, and are any orals?", "X papers? which are
# spotlights?": a status asked of the papers the first part asks for, said another way
_STATUS_ASKED_AFTER = re.compile(
    # (", and which of them are orals?" is already that form)
    r"(?:(?:\s*\?\s*|\s*[;—–]\s*|\s+-\s+)(?:and\s+)?(?:are|were)?\s*"
    r"(?:any|which(?:\s+ones)?|how\s+many)|\s*,?\s+and\s+(?:are\s+|were\s+)?any)"
    r"(?:\s+of\s+(?:them|those|these))?\s+"
    r"(?:(?:are|were|is|was|got|received)\s+)?(?:an?\s+)?(?P<status>orals?|spotlights?|posters?)"
    r"\s*[?.!]*\s*$",
    re.I,
)


_ASKS_PAPERS = re.compile(
    r"\b(?:papers|works|publications|how\s+many|list|show\s+me)\b|^\s*which\s+(?!paper\b|one\b)",
    re.I,
)


def asks_papers(text: str) -> bool:
    """Whether a question asks for papers (a set), not about one paper."""
    return _ASKS_PAPERS.search(text) is not None


def status_asked_after(question: str) -> str:
    """The question with a status asked after it in the form every reader knows ("…, and how
    many are orals?"); unchanged when it asks none or its first part names a status."""
    found = _STATUS_ASKED_AFTER.search(question)
    first = question[: found.start()] if found else ""
    if found is None or not first.strip() or STATUS_WORD.search(first):
        return question
    if not asks_papers(first):
        return question  # "What is the main finding of the Genie paper? Any orals?": one paper
    status = found.group("status").lower().rstrip("s")
    return f"{first.rstrip(' ?.,;:')}, and how many are {status}s?"


# A number in words, a scale included ("two hundred", "dozens", "thousands")
SPELLED_NUMBER = re.compile(
    rf"(?:{'|'.join(sorted(SPELLED_VALUES, key=len, reverse=True))}|"
    r"(?:hundred|thousand|million|billion|trillion|dozen)s?)",
    re.I,
)


# A coined name has a second capital or a digit ("CoxSig", "KIVI", "GPT-4"); a capitalised
# word ("Demystified", "Blender") is as often a title word or a place the question mentions.
COINED = re.compile(r"^[A-Z].*(?:[A-Z]|\d)")


def rare_names(text: str, doc_freq: Callable[[str], int], papers: int) -> list[str]:
    """The coined names of `text` ("CoxSig") that at most `papers` papers write."""
    return [
        name
        for name in dict.fromkeys(NAME.findall(text))
        if COINED.search(name) and 0 < doc_freq(name) <= papers
    ]


def writes_name(name: str, text: str) -> bool:
    """Whether the text writes the name as a word, spacing, hyphens and TeX aside ("GPT-4"
    is "GPT4", "IC50" is "$IC_{50}$"; "ALE" is not in "scalable")."""
    runs = re.findall(r"[a-z]+|[0-9]+", unaccented(name))
    if not runs:
        return False
    pattern = r"(?<![a-z0-9])" + r"[^a-z0-9]*".join(map(re.escape, runs)) + r"s?(?![a-z0-9])"
    return re.search(pattern, unaccented(text)) is not None


@lru_cache(maxsize=4096)
def unaccented(text: str) -> str:
    """Lower case without accents: "DejaVu" is the abstract's "DéjàVu"."""
    text = text.lower()
    return text if text.isascii() else without_accents(text)


def without_accents(text: str) -> str:
    """Each letter without its combining accents ("é" is "e"); case and the rest kept."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def listing(items: Sequence[str], conjunction: str) -> str:
    """ "a", "a or b", "a, b or c": items said in a sentence."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def stems_match(stem: str, terms: frozenset[str]) -> bool:
    # Stems of one word family differ ("accur" / "accuraci", "fast" / "faster").
    return any(
        stem == t or (min(len(stem), len(t)) >= 4 and (stem.startswith(t) or t.startswith(stem)))
        for t in terms
    )


def folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def initials(text: str) -> set[str]:
    """Initials of every run of 2–5 consecutive words ("large language model" -> "llm")."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)  # "AutoEncoder": two initials
    words = re.findall(r"[a-z0-9]+", spaced.lower().replace("-", " "))
    out: set[str] = set()
    for size in range(2, 6):
        out.update("".join(w[0] for w in words[i : i + size]) for i in range(len(words) - size + 1))
    return out


TITLE_CHARS = 12  # a title (or the part before its colon) this long or longer identifies a paper


def titled_in(question: str, title: str) -> bool:
    """Whether the question writes the paper's title, or the part before its colon
    ("Particle Denoising Diffusion Sampler", "the GraphsGPT paper")."""
    said = folded(question)
    whole, head = folded(title), folded(title.split(":")[0])
    return (len(whole) >= TITLE_CHARS and whole in said) or (
        len(head) >= TITLE_CHARS and head in said
    )


def edits_within_one(a: str, b: str) -> bool:
    """One letter changed, added or dropped (or none)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    return a[at + (len(a) == len(b)) :] == b[at + 1 :]


def neighbour_swaps(word: str) -> set[str]:
    """The word with two different neighbouring letters swapped, each way it can be."""
    return {
        word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        for i in range(len(word) - 1)
        if word[i] != word[i + 1]
    }


def title_head(title: str) -> str:
    """The name a title opens with: before its colon ("BiLLM: Pushing …"; after a position
    paper's "Position:"), or one word before a comma ("PARDEN, Can You Repeat That? …"); the title itself when neither."""
    if ":" in title:
        first, _, rest = title.partition(":")
        if first.strip() == "Position" and ":" in rest:  # "Position: TrustLLM: …" names TrustLLM
            return rest.split(":")[0].strip()
        return first.strip()
    first, _, rest = title.partition(",")
    return first.strip() if rest and " " not in first.strip() else title.strip()
