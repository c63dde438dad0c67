"""What a question asks for, part by part, and whether an abstract supplies it.

"How many GPUs were used to train Medusa's heads, and for how many hours?" asks two
things, each of a type: a number of GPUs, a number of hours. An answer quoting a Medusa
sentence that holds neither answers nothing; the honest answer names what the abstract
does not state. Deterministic and cheap (regular expressions and stemmed terms), so the
same check runs on the extractive writer's choice and on an LLM's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from rag.answer.citations import MARKER
from rag.text import NAME, content_terms, split_sentences, writes_name

PartKind = Literal["number", "name", "choice", "other"]

# A question splits into parts at ", and" / "and" / ";" followed by a new question word.
_PART_SPLIT = re.compile(
    r"(?:,\s*(?:and\s+|as\s+well\s+as\s+|plus\s+)?|;\s*|\s+and\s+|\s+as\s+well\s+as\s+|"
    r"\s+plus\s+)(?=(?:(?:on|in|from|for|with|by|to|at|under|at\s+most|at\s+least)\s+)?"
    r"(?:how|what|which|who|where|when|why|is|are|does|do|did|was|were)\b)",
    re.I,
)
_ASKS = re.compile(
    r"\b(?:how|what|which|who|where|when|why|whether)\b|(?:^|[,;]\s*)(?:is|are|does|do|did|was|"
    r"were|can|could|has|have)\b",
    re.I,
)
_HOW_NUMBER = re.compile(
    r"\bhow\s+(many|much|large|big|long|fast|often|small|high|low|far)\b(.*)", re.I
)
_BY_HOW = re.compile(
    r"\bby\s+(?:how\s+much|how\s+many|what\s+(?:factor|margin|percentage|amount|ratio))", re.I
)
# "What FID does …", "what speed-up …": a measure asked for is a number.
_MEASURES = (
    # "what significance level", "what cost limit"; not "what security level" (a quality)
    r"(?:(?:significance|confidence|noise|privacy|cvar|risk|sparsity|contamination|corruption)"
    r"\s+level|(?:cost|time|memory|token|length|context)\s+limit|"
    r"(?:false\s+positive\s+|true\s+positive\s+|error\s+|success\s+|win\s+|compression\s+)?"
    r"(?:rate|accuracy|fid|mos|bleu|auc|auroc|f1|perplexity|speed-?ups?|factor|percentage|"
    r"fraction|value|score|throughput|latency|margin|gap|ratio|regret\s+bound|cost|budget|"
    r"number|amount|size|count|reduction|improvement|gain|learning\s+rate|batch\s+size|seed|"
    r"memory|footprint|consumption|energy|emissions|runtime|time|p-?values?|share|proportion|"
    r"order(?=\s+of\s+(?:the\s+)?[\w-]+\s+(?:divergence|moment|polynomial|derivative)s?\b)|"
    r"(?:exact\s+|closed[- ]form\s+)?(?:expression|formula)))"
)
_AT_RATE = re.compile(r"\bat\s+what\s+rate\b", re.I)
# Measures as often named as valued ("what noise level does it estimate", "what proportion
# does it use as the reward"): a value only where the question asks for one.
_DESCRIBED_MEASURE = re.compile(r"level|limit|p-?values?|share|proportion", re.I)
_VALUE_ASKED = re.compile(
    r"\bat\s+what\b|\bwhat\s+(?:is|was|were|are)\s+the\b|\b(?:share|proportion)\s+of\b|"
    r"\bexperiments?\b|\b(?:back|backs|support|supports|justify|justifies)\b|\bset\s+to\b",
    re.I,
)
_GENERIC_MEASURE = re.compile(
    r"fraction|percentage|value|number|amount|size|count|reduction|improvement|gain|factor|"
    r"share|proportion|(?:exact\s+|closed[- ]form\s+)?(?:expression|formula)",
    re.I,
)
_IN_UNIT = re.compile(
    r"\bin\s+(?:us\s+)?(dollars|usd|euros|gigabytes|gb|megabytes|mb|terabytes|kwh|"
    r"joules|watts|gpu[\s-]hours|hours|days|minutes|seconds|milliseconds|ms|flops|petaflops)\b",
    re.I,
)
# "what does that cost": the verb, not the measure (no auxiliary before the measure word)
_WHAT_MEASURE = re.compile(
    rf"\b(?:what|which)\s+(?:(?:is|was|are)\s+the\s+)?"
    rf"(?:(?!(?:does|do|did|is|are|was|were|can|will|would)\b)[\w-]+\s+){{0,3}}?"
    rf"({_MEASURES})(?:e?s)?\b",
    re.I,
)
_NAMEABLE = (
    r"(?:data\s*sets?|datasets?|benchmarks?|models?|llms?|language\s+models?|environments?|"
    r"gpus?|hardware|proof\s+assistants?|platforms?|tasks?|games?|languages?|domains?|"
    r"architectures?|baselines?|jurisdictions?|countries|simulators?|librar(?:y|ies)|"
    r"families|model\s+families|robots?|suites?|corpora|corpus|competitions?|tools?|"
    r"frameworks?|metrics?|toolkits?|solvers?|optimi[sz]ers?|licen[cs]es?|accelerators?|variants?|"
    r"recogni[sz]ers?|backbones?|teachers?)"
)
# Words of a sentence that reports what a method was run on or against.
_EVALUATED = frozenset(
    content_terms(
        "evaluate experiments benchmark dataset outperforms surpasses beats compared baseline "
        "tested"
    )
)
# What a method is tested on: a name for one of these comes from a sentence about testing.
_TESTED_ON = frozenset(content_terms("dataset datasets benchmark benchmarks environments suites"))
_REPORTED = _EVALUATED | frozenset(
    content_terms(
        "results report experiments empirical evaluation achieves validates demonstrates "
        "obtains attains accuracy performance state-of-the-art state art"
    )
)
# "Which existing RL algorithms was it plugged into": others' methods, by name.
_WHICH_PRIOR = re.compile(
    r"\b(?:which|what)\s+((?:existing|prior|previous|earlier|other|competing|standard|"
    r"baseline)\s+(?:[\w-]+\s+){0,3}?(?:algorithms?|methods?|approach(?:es)?|models?|"
    r"techniques?|works?))\b",
    re.I,
)
_EMBEDDED = re.compile(
    r"\b(?:works?\s+out|estimat\w*|infer\w*|determin\w*|figures?\s+out|learns?|predicts?|"
    r"decides?|chooses?|adapts?|"
    # "did restricting how much experts could override it help": a policy, no number asked
    r"(?:restrict|limit|control|cap|constrain|regulat)\w*)\s+(?:by itself\s+|itself\s+|automatically\s+|"
    r"on its own\s+)?how\s+(?:much|many)\b",
    re.I,
)
_WHICH_YEAR = re.compile(r"\b(?:which|what)\s+(?:years?|decades?|dates?)\b", re.I)
_WHAT_ABOUT = re.compile(r"\W*(?:and\s+)?what about\b", re.I)  # turns to the next part
_KINDS_OF = re.compile(
    r"\b(?:what|which)\s+(?:(?:two|three|four|five|\d+)\s+)?(?:kinds?|types?|sorts?|classes|class)"
    r"\s+of\b",
    re.I,
)
_COMPARATIVE = re.compile(
    r"\s*(?:faster|slower|larger|smaller|bigger|higher|lower|better|worse|more|less|fewer|"
    r"greater|cheaper|longer|shorter|stronger|weaker|quicker|easier|harder)\b",
    re.I,
)
# "which base model", not "guess what the model would answer" (a clause, after "the")
_WHICH_NAME = re.compile(
    rf"\b(?:which|what)\s+(?!(?:the|a|an|this|that|its|their|his|her)\b)"
    rf"((?:[\w-]+\s+){{0,3}}?{_NAMEABLE})(?![\w-])",  # "robot-learning tasks", not "robot"
    re.I,
)
# Where the thing counted ends: "how many expert demonstrations | per task does …".
_NP_END = re.compile(
    r"(?<![\w-])(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|per|in|on|"
    r"suffices?|needed|required|necessary|enough|"
    r"of|for|from|with|by|to|at|when|that|it|they|there)(?![\w-])",
    re.I,
)
_QUESTION_WORDS = frozenset(
    content_terms(
        "how many much large big long fast often small high low what which who where when why "
        "by does did according paper abstract propose proposed use used method approach"
    )
)
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
    "forty fifty hundred hundreds thousand thousands million millions billion billions dozen "
    "dozens twice double triple half single".split()
)
# A quantity as abstracts write it: "33", "3.7x", "2-30X", "260B", "1.3B-parameter", "93%",
# "$2\\times$", "$O(N)$", "five". Digits inside a name ("GPT-4", "CIFAR-10", "3D", "H100")
# are not quantities.
_QUANTITY = re.compile(
    r"\d[\d,.]*(?:\s*-\s*\d[\d,.]*)?(?:%|x|×|[kmbt]|-?fold|[kmbt]-[a-z]+|[kmgt]i?b|ms|s|h|hrs?|min)?"
    r"|\d+:\d+|\d+/\d+",  # "57Gb", "1:1", "about 1/50 training cost"
    re.I,
)
_QUOTED = re.compile(r"[\"“][^\"”]+[\"”]|(?<!\w)['‘][^'’]+['’](?!\w)")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,2}|[ivx]{1,4}|[a-h])\)", re.I)
_MULTIPLIERS = frozenset("twice double triple thrice half".split())
_MATH_QUANTITY = re.compile(r"\\times|×|\$|\bO\(")
_TOKEN_EDGES = "()[]{},;:.~≈!?\"'*"  # "**41 days**": markdown around a number


def is_quantity(token: str) -> bool:
    """Whether one whitespace-separated token of a sentence states a quantity."""
    if MARKER.search(token):  # "[1]" cites a source, it states no number
        return False
    if _MATH_QUANTITY.search(token):
        return True
    bare = token.strip(_TOKEN_EDGES).lstrip("-−+")  # "Vina score (-9.07)": a signed value
    return bool(_QUANTITY.fullmatch(bare)) or bare.lower() in _NUMBER_WORDS


NUMBER_WINDOW = 5  # words between a quantity and the thing it counts
SENTENCE_WINDOW = 12  # "how much faster …": a quantity anywhere near the part's words


@dataclass(frozen=True)
class QuestionPart:
    """One thing the question asks: its words, the type of answer, what it is about."""

    text: str
    kind: PartKind
    target: frozenset[str]  # stemmed words of the thing asked for ("demonstr", "expert")
    focus: frozenset[str]  # stemmed content words of the part, question words removed
    window: int = NUMBER_WINDOW  # how near a quantity must be to a target word
    compared: bool = False  # "by how much", "what accuracy": a magnitude, not a count
    degree: bool = False  # "how much better / code": "dramatically better", "minimal code"
    named: tuple[str, ...] = ()  # "which Atari games": the name an answer must write

    def describe(self) -> str:
        """The part as asked, for "the abstract does not state …"."""
        text = self.text.strip(" ?.,;")
        first = text.split(" ", 1)[0]
        named = any(c.isupper() or c.isdigit() for c in first[1:])  # "FairGrad's", "GPT-4"
        return text if named else text[:1].lower() + text[1:]


def _noun_phrase(rest: str) -> str:
    end = _NP_END.search(rest)
    return rest[: end.start()] if end else rest


_MARGIN_UNITS = frozenset({"point", "percentag", "percent", "pp"})
_TAKING_PART = frozenset(content_terms("took part participated joined took taken involved"))
_SAVED = re.compile(
    r"\b(?:sav(?:e|es|ed|ing)|cut(?:s|ting)?|reduc(?:e|es|ed|ing)|shav(?:e|es|ed|ing))\b", re.I
)


def classify(text: str, context: frozenset[str] = frozenset()) -> QuestionPart:
    """The answer type one question part asks for, and the words it is about.

    `context`: the whole question's words, for a part that only points back ("and how
    large were they?").
    """
    focus = frozenset(t for t in content_terms(text) if t not in _QUESTION_WORDS) or context
    if _EMBEDDED.search(text) or _KINDS_OF.search(text) or _WHAT_ABOUT.match(text):
        # "a method that works out how much of the data is corrupted": what the method finds,
        # not a number asked of the abstract; "what kinds of models": kinds, not names
        return QuestionPart(text, "other", focus, focus)
    if _WHICH_YEAR.search(text):  # "between which years": "between 2026 and 2032"
        return QuestionPart(text, "number", focus, focus, window=SENTENCE_WINDOW)
    how = _HOW_NUMBER.search(text)
    if how and how.group(1).lower() in ("many", "much"):
        phrase = _noun_phrase(how.group(2))
        counted = frozenset(content_terms(phrase)) - _QUESTION_WORDS
        kinds = re.match(
            r"\s*(?:[\w-]+\s+){0,2}?(?:ways?|kinds?|types?|sorts?|forms?)\s+of\s+", how.group(2)
        )
        if kinds and counted <= _KIND_WORDS | _WAYS:
            # "how many ways of defining alignment": "8 such notions of alignment", where
            # the thing counted may be the title's word too
            counted |= frozenset(content_terms(_noun_phrase(how.group(2)[kinds.end() :])))
            return QuestionPart(text, "number", counted, focus, SENTENCE_WINDOW)
        comparative = re.search(r"\b(?:\w+er|more|less|fewer)\b", phrase, re.I)
        units = {u for u in counted if u in _UNIT_SHORT}
        if units and counted == units:
            # "how many milliseconds": "$2.4$ms less", "2 ms", "from four hours to two"
            # asked in minutes, written in hours: any unit of the same kind
            kin = [k for k in _UNIT_KINDS if units & k] or [frozenset(units)]
            short = frozenset(a for k in kin for u in k for a in (u, *_UNIT_SHORT[u]))
            return QuestionPart(text, "number", counted | short, focus, SENTENCE_WINDOW)
        if counted and counted <= _TAKING_PART:
            # "how many took part": people, wherever the sentence counts them
            return QuestionPart(text, "number", focus, focus, window=SENTENCE_WINDOW)
        if counted and counted <= _MARGIN_UNITS:
            # "by how many points": a margin, as abstracts write it ("by 1.22%")
            return QuestionPart(text, "number", focus, focus, SENTENCE_WINDOW, compared=True)
        if counted and not comparative:
            much = how.group(1).lower() == "much"  # "how much code": "minimal code addition"
            # "how much compute does it save": "a 26.7% FLOPs saving" (the verb, not the noun)
            saved = _SAVED.search(how.group(2)[len(phrase) :])
            if saved:
                counted |= frozenset(content_terms(saved.group(0)))
            return QuestionPart(text, "number", counted, focus, degree=much)
    if how or _BY_HOW.search(text):
        # "How much faster …", "by how much …": the quantity sits somewhere in a sentence
        # about the part, not next to one noun; a comparison's is a magnitude ("2.5x")
        compared = bool(_BY_HOW.search(text)) or bool(
            how and how.group(1).lower() == "much" and _COMPARATIVE.match(how.group(2))
        )
        degree = how is not None and how.group(1).lower() == "much" and not _BY_HOW.search(text)
        return QuestionPart(text, "number", focus, focus, SENTENCE_WINDOW, compared, degree)
    unit = _IN_UNIT.search(text)
    if unit:  # "… cost in US dollars": the unit must stand by a quantity
        return QuestionPart(text, "number", frozenset(content_terms(unit.group(1))), focus, 2)
    measure = _WHAT_MEASURE.search(text)
    if measure and _DESCRIBED_MEASURE.search(measure.group(1)) and not _VALUE_ASKED.search(text):
        measure = None  # "what p-values does it use": empirical ones, not a value
    if measure and _names_a_thing(text[measure.end() :]):
        measure = None  # "what score function", "what cost function": a thing, not a number
    # "At what rate does it decay": an order ("of order $1/\sqrt{n}$") is no "rate" word
    if (measure and _GENERIC_MEASURE.fullmatch(measure.group(1))) or _AT_RATE.search(text):
        # "What fraction of the model is recovered": "97% of the secret model".
        if focus <= _CHANGE_WORDS | _POINTING:
            # "and to what value did it lower it": a new value of the bound asked before
            return QuestionPart(text, "number", focus | context, focus, SENTENCE_WINDOW, True)
        return QuestionPart(text, "number", focus, focus, window=SENTENCE_WINDOW)
    if measure:
        # "what top-1 accuracy": written in digits or maths, not "one of the first works"
        measured = frozenset(content_terms(measure.group(0))) - _QUESTION_WORDS
        return QuestionPart(text, "number", measured, focus, 8, compared=True)
    options = _CHOICE.search(text)
    if options:  # "is it written in PyTorch or JAX": one of them, as the abstract writes it
        chosen = frozenset(content_terms(f"{options.group(1)} {options.group(2)}"))
        return QuestionPart(text, "choice", chosen, focus, named=options.group(1, 2))
    named = _WHICH_PRIOR.search(text) or _WHICH_NAME.search(text)
    if named:
        target = frozenset(content_terms(named.group(1)))
        if {"data", "set"} <= target:  # "which two data sets": datasets
            target |= _TESTED_ON
        # "which Atari games" must write Atari; "Atari-style environments" need not
        family = tuple(
            n
            for n in re.findall(r"(?<![\w-])[A-Z][\w-]*", named.group(1))
            if n.lower() not in _NAME_KINDS and not _LIKENED.search(n)
        )
        return QuestionPart(text, "name", target, focus, named=family)
    return QuestionPart(text, "other", focus, focus)


# "is it written in PyTorch or JAX", "does it use GPT-4 or Llama": a choice between names
_CHOICE = re.compile(
    r"(?:^|[,;]\s*)(?:is|are|was|were|does|do|did)\b[^?,]*?\b([A-Z][\w.+-]*)\s+or\s+"
    r"([A-Z][\w.+-]*)"
)
_NAME_KINDS = frozenset("llm llms gpu gpus nlp cv".split())  # "which LLMs": a kind, no family
_LIKENED = re.compile(r"-(?:style|like|type|esque|inspired|based)$", re.I)


_NEXT_WORD = re.compile(r"^[\s-]*([A-Za-z][\w-]*)")
_MEASURE_WORD = re.compile(rf"^{_MEASURES}$", re.I)


def _names_a_thing(rest: str) -> bool:
    """Whether a measure word is a modifier of the noun after it ("score function",
    "cost matrix", "rate schedule"): the question asks for that thing, not a quantity."""
    following = _NEXT_WORD.match(rest)
    if following is None:
        return False
    word = following.group(1)
    if word.lower() in _VERBS:  # "what p-value backs up the claim": the measure is asked
        return False
    if word.lower() in _SYMBOLS:  # "the CVaR level alpha", "the constant c": the value's symbol
        return False
    return not (_NP_END.fullmatch(word) or _MEASURE_WORD.match(word) or word.lower() in _AUX)


_AUX = frozenset("and or but than the a an of as".split())
_VERBS = frozenset(
    "back backs support supports show shows hold holds justify justifies reach reaches "
    "get gets come comes make makes give gives".split()
)
_SYMBOLS = frozenset(
    "alpha beta gamma delta epsilon eta theta kappa lambda mu rho sigma tau".split()
) | frozenset("bcdefghjklmnpqrstuvwxyz")


def question_parts(question: str) -> list[QuestionPart]:
    """The question's parts in order; a one-part question gives one."""
    context = frozenset(t for t in content_terms(question) if t not in _QUESTION_WORDS)
    pieces: list[str] = []
    # One space per run: the split pattern's `\s+and\s+` backtracks on long blank runs.
    # "…? I'm also curious what …": a question mark ends a part, whatever opens the next.
    # (not inside a quoted title: "In 'How Well Can LLMs Negotiate? NegotiationArena …'")
    plain = _QUOTED.sub(lambda m: m.group(0).replace("?", "\x00"), " ".join(question.split()))
    sentences = [s.replace("\x00", "?") for s in re.split(r"(?<=\?)\s+(?=\S)", plain)]
    for piece in (p for sentence in sentences for p in _PART_SPLIT.split(sentence)):
        if not piece.strip(" ?.,;"):
            continue
        if pieces and not _ASKS.search(pieces[-1]):
            # "For the watermarking defence, how much …": a preamble sets the part's scene.
            pieces[-1] = f"{pieces[-1]}, {piece}"
        else:
            pieces.append(piece)
    return [classify(p, context) for p in pieces] or [classify(question, context)]


def stems_match(stem: str, terms: frozenset[str]) -> bool:
    # Stems of one word family differ ("accur" / "accuraci", "fast" / "faster").
    return any(
        stem == t or (min(len(stem), len(t)) >= 4 and (stem.startswith(t) or t.startswith(stem)))
        for t in terms
    )


@lru_cache(maxsize=4096)
def _read(
    sentence: str,
) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...], tuple[int, ...]]:
    """Each token's stems, where the quantities are and which of them are magnitudes;
    abstracts' sentences recur."""
    tokens = sentence.split()
    stems = tuple(tuple(content_terms(t)) for t in tokens)
    listed = [i for i, t in enumerate(tokens) if _ENUMERATOR.fullmatch(t.strip(",;:."))]
    # "(1) … (4) …" numbers findings, not things; one "(5) seeds" is a count
    skipped = set(listed) if len(listed) >= 2 else set()
    numbers = tuple(i for i, tok in enumerate(tokens) if is_quantity(tok) and i not in skipped)
    magnitudes = [i for i in numbers if _magnitude(tokens, i)]
    # "an order of magnitude faster" says how much without a number
    magnitudes += [
        i for i, t in enumerate(tokens)
        if t.strip(_TOKEN_EDGES).lower() == "magnitude" and i >= 2
        and tokens[i - 1].lower() == "of" and tokens[i - 2].lower() in ("order", "orders")
    ]  # fmt: skip
    return stems, numbers, tuple(sorted(magnitudes))


def _magnitude(tokens: list[str], i: int) -> bool:
    """A quantity that can say how much bigger: digits ("2.5x", "40%"), maths, "twice",
    or a number word with "times" or "-fold" ("three times"), not "three steps"."""
    token = tokens[i].strip(_TOKEN_EDGES).lower()
    if re.fullmatch(r"(?:19|20)\d\d", token):
        return False  # "(FOCS 2012)": a year says no size
    if any(c.isdigit() for c in token) or _MATH_QUANTITY.search(token) or token in _MULTIPLIERS:
        return True
    after = tokens[i + 1].strip(_TOKEN_EDGES).lower() if i + 1 < len(tokens) else ""
    before = " ".join(t.lower() for t in tokens[max(0, i - 2) : i])
    return (
        after in ("times", "fold", "orders", "order", "percent", "points", "percentage")
        or after in _TIME_UNITS  # "from four hours to two hours"
        or token.endswith("fold")
        or before in ("factor of", "by a")  # "by a factor of two", "by a third"
    )


_TIME_UNITS = frozenset("seconds minutes hours days weeks months years".split())
# Units a number is asked in ("how many milliseconds"), which abstracts abbreviate ("ms"):
# words of the question's frame, no premise a paper must write
UNIT_WORDS = frozenset(
    "milliseconds millisecond seconds minutes hours gigabytes megabytes terabytes".split()
)
# A unit counted ("how many milliseconds"), as abstracts write it beside a quantity
_UNIT_SHORT = {
    "millisecond": ("ms",), "second": ("s", "sec", "secs"), "minut": ("min", "mins"),
    "hour": ("h", "hr", "hrs"), "gigabyt": ("gb",), "megabyt": ("mb",), "terabyt": ("tb",),
}  # fmt: skip
_UNIT_KINDS = (
    frozenset({"millisecond", "second", "minut", "hour"}),
    frozenset({"gigabyt", "megabyt", "terabyt"}),
)


def _has_number_near(
    sentence: str,
    terms: frozenset[str],
    window: int,
    magnitude: bool = False,
    asked: frozenset[str] = frozenset(),
) -> bool:
    """A quantity within `window` words of one of `terms` in `sentence`; "two types of
    agents" counts types, not agents. `magnitude`: only quantities that say how much.
    `asked`: the question's own quantities, which do not answer it."""
    stems, numbers, magnitudes = _read(sentence)
    if magnitude:
        numbers = magnitudes
    tokens = sentence.split() if asked else []
    numbers = tuple(
        j
        for j in numbers
        if not (asked and tokens[j].strip(_TOKEN_EDGES).lower() in asked)
        and not (
            j + 1 < len(stems)
            and set(stems[j + 1]) & _KIND_WORDS
            and not any(stems_match(s, terms) for s in stems[j + 1])
        )
    )
    if not numbers:
        return False
    near = [i for i, words in enumerate(stems) if any(stems_match(s, terms) for s in words)]
    return any(abs(i - j) <= window for i in near for j in numbers)


@lru_cache(maxsize=1024)
def _quantities(question: str) -> frozenset[str]:
    """The formulas a question writes ("$O(e^{-ct})$"); a plain value ("is it 2.3x?") is
    one the abstract may confirm."""
    return frozenset(
        t.strip(_TOKEN_EDGES).lower()
        for t in question.split()
        if is_quantity(t) and _MATH_QUANTITY.search(t) and "\\times" not in t and "×" not in t
    )


# A size or change asked of nothing more specific: any reported margin answers it.
_CHANGE_WORDS = frozenset(
    content_terms(
        "big large best biggest largest gain gains improvement improvements boost increase "
        "decrease drop reduction speedup margin much high low small points percent "
        "effectiveness"
    )
)
_KIND_WORDS = frozenset(content_terms("types kinds sorts categories classes forms families"))
_WAYS = frozenset(content_terms("ways way"))
# A part made only of these words asks about what an earlier part named.
_POINTING = frozenset(
    content_terms("value values lower lowered raise raised improve improved bring brought push")
)


def supplies(
    part: QuestionPart, sentence: str, question: str, name_terms: frozenset[str], title: str = ""
) -> bool:
    """Whether `sentence` gives the kind of answer `part` asks for, about its subject.

    A number part needs a quantity near the thing counted (or, for "by how much", in a
    sentence about the part); a name part needs a name the question does not already
    contain, in a sentence about the part. The paper's own name is not its subject.
    """
    if part.kind == "other":
        return True
    sentence = _URL.sub(" ", sentence)  # "github.com/Gank0078/FineSSL" names no model
    if part.kind == "choice":
        return any(writes_name(option, sentence) for option in part.named)
    if part.named and not any(_holds_name(n, sentence) for n in part.named):
        return False  # "which Atari games": games of another family do not answer it
    about = (part.target - name_terms) or part.target
    if part.degree and _said_in_degree(sentence, part):
        return True
    restated = _quantities(question)  # the question's own "$O(e^{-ct})$" does not answer it
    if part.kind == "number" and _CHOICES_LISTED.search(sentence):
        # "how many actions can each node choose between": "can choose to either `listen`,
        # `broadcast`, … or to `isolate`" counts them by naming them
        said = set(content_terms(sentence))
        if sum(any(stems_match(w, frozenset([f])) for w in said) for f in part.focus) >= 2:
            return True
    if part.kind == "number" and part.window >= SENTENCE_WINDOW:
        terms = part.target
        if terms <= _CHANGE_WORDS:  # "how big was the best gain": "up to N points"
            terms = terms | _CHANGE_WORDS | _EVALUATED
        return _has_number_near(sentence, terms, part.window, part.compared, restated)
    if part.kind == "number":
        return _has_number_near(sentence, about, part.window, part.compared, restated)
    words = content_terms(sentence)
    # "which base language model": "LLaMA-2 7B model" names it even though the paper's own
    # title says "language model"; "which datasets": "on ImageNet and COCO" names them.
    topical = any(
        stems_match(w, part.target | (part.focus - name_terms) | _EVALUATED) for w in words
    )
    # "which model writes the textual explanations" of a paper titled "… Textual
    # Explanations": two of the part's own words, the title's too, place the sentence
    if (
        not topical
        and sum(any(stems_match(w, frozenset([f])) for w in words) for f in part.focus) < 2
    ):
        return False
    # "which directed graph datasets": a name in a sentence about directed graphs is a
    # method's part ("Hermitian"), not a dataset, unless the sentence reports a test.
    tested = part.target & _TESTED_ON
    if tested and not any(stems_match(w, tested | _REPORTED) for w in words):
        return False
    # "on which NLP tasks": "experiments across question answering, summarization, and
    # classification" lists them in lowercase
    listed = part.target & _KINDS_LISTED and _LISTED.search(sentence)
    if listed and any(stems_match(w, _REPORTED) for w in words):
        return True
    asked = question.lower()
    # "Which model was built after …" asks for the paper's own name; otherwise a name the
    # question does not hold, and not the paper's own parts ("NF" and "DAE" in a paper
    # titled "… Denoising AutoEncoder and Normalizing Flow …").
    own_asked = _MADE.search(part.text) is not None
    return any(
        not re.search(rf"(?<![\w-]){re.escape(name.lower().rstrip('s'))}s?(?![\w-])", asked)
        and (own_asked or not _own_name(name, title))
        and folded(name).rstrip("s") not in FIELD_ACRONYMS
        for name in NAME.findall(sentence) + _CALLED.findall(sentence)
    )


# "an open source library called dclib": a name, though written in lower case
_CALLED = re.compile(
    r"(?<!so-)\b(?:called|dubbed|termed)\s+(?!(?:the|a|an|as|it|this|that|these|them)\b)"
    r"([A-Za-z][\w-]*[\w])",
    re.I,
)


# A field's or a kind of model's acronym names no particular thing ("on NLP tasks", "LLMs").
FIELD_ACRONYMS = frozenset("nlp ml ai rl cv llm vlm mllm sota".split())


def _holds_name(name: str, sentence: str) -> bool:
    """The sentence writes the name, inside a longer one too ("TinyLlama-1.1B", "LLaMA2"),
    or its initials ("GNN" for graph neural networks)."""
    key = name.lower().rstrip("s")
    return key in sentence.lower() or key in initials(sentence)


def _said_in_degree(sentence: str, part: QuestionPart) -> bool:
    """ "How much better": "dramatically better"; "how much code": "minimal code addition"."""
    words = [w.lower().strip(_TOKEN_EDGES) for w in sentence.split()]
    stems, _, _ = _read(sentence)  # each token's stems, read once per sentence
    near = [i for i, s in enumerate(stems) if any(stems_match(t, part.target) for t in s)]
    return any(words[j] in _DEGREE_WORDS for i in near for j in range(max(0, i - 2), i + 1))


_DEGREE_WORDS = frozenset(
    "dramatically significantly substantially considerably markedly vastly greatly slightly "
    "marginally minimal minimally negligible little few modest".split()
)
_URL = re.compile(r"https?://\S+|\bwww\.\S+|\S+\.github\.io\S*", re.I)


_CHOICES_LISTED = re.compile(
    r"\b(?:choose|chooses|select|selects|pick|picks)\s+(?:\w+\s+){0,2}?(?:either|one of|among|"
    r"between)\s+[^,.;]{1,40},\s+[^,.;]{1,40},(?:\s+[^,.;]{1,40},)*\s+(?:or|and)\b",
    re.I,
)
_KINDS_LISTED = frozenset(content_terms("tasks domains applications problems settings modalities"))
_LISTED = re.compile(
    r"\b[a-z][\w-]+(?: [a-z][\w-]+){0,2}, [a-z][\w-]+(?: [a-z][\w-]+){0,2},? (?:and|or) [a-z][\w-]+"
)
_MADE = re.compile(
    r"\b(?:was|were|is|are|got|gets)\s+(?:\w+\s+)?(?:built|proposed|introduced|developed|"
    r"designed|created|presented|devised|named|called)\b",
    re.I,
)


def _own_name(name: str, title: str) -> bool:
    """A name that is the paper's own or a part of it: in its title, as initials of title
    words ("NF" for Normalizing Flow) or as a variant of a title name ("Medusa-1")."""
    base = folded(re.split(r"[-\d]", name, maxsplit=1)[0]) or folded(name)
    spelled = folded(title)
    return folded(name).rstrip("s") in initials(title) or (len(base) >= 3 and base in spelled)


@dataclass
class Gaps:
    """What the question asked of one paper that its abstract does not give."""

    source: int  # 1-based source number of the paper checked
    missing: list[QuestionPart]
    supplied: dict[int, int]  # part index -> the sentence position supplying it
    unmentioned: list[str] = field(default_factory=list)  # question words the paper lacks
    unwritten: list[str] = field(default_factory=list)  # question words no abstract uses
    contradiction: str = ""  # the abstract's sentence stating the opposite of the premise

    @property
    def descriptions(self) -> list[str]:
        return [p.describe() for p in self.missing]

    def __bool__(self) -> bool:
        return bool(self.missing or self.unmentioned or self.unwritten or self.contradiction)


def check_abstract(
    question: str, parts: list[QuestionPart], abstract: str, title: str, source: int
) -> Gaps:
    """Which typed parts of the question `abstract` supplies, and with which sentence."""
    name_terms = frozenset(content_terms(title))
    sentences = split_sentences(abstract)
    missing: list[QuestionPart] = []
    supplied: dict[int, int] = {}
    for index, part in enumerate(parts):
        if part.kind == "other":
            continue
        found = next(
            (i for i, s in enumerate(sentences) if supplies(part, s, question, name_terms, title)),
            None,
        )
        if found is None:
            missing.append(part)
        else:
            supplied[index] = found
    return Gaps(source=source, missing=missing, supplied=supplied)


def answer_supplies(question: str, parts: list[QuestionPart], answer: str) -> list[QuestionPart]:
    """The typed parts an answer text (an LLM's) leaves without their kind of answer."""
    return [
        p
        for p in parts
        if p.kind != "other"
        and not any(supplies(p, s, question, frozenset()) for s in split_sentences(answer))
    ]


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
