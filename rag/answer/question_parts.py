"""What a question asks for, part by part (`supplied` checks whether an abstract gives it).

"How many GPUs were used to train Medusa's heads, and for how many hours?" asks two
things, each of a type: a number of GPUs, a number of hours. An answer quoting a Medusa
sentence that holds neither answers nothing; the honest answer names what the abstract
does not state. Deterministic and cheap (regular expressions and stemmed terms), so the
same check runs on the extractive writer's choice and on an LLM's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.answer.citations import MARKER
from rag.text import SPELLED_NUMBER, content_terms, split_sentences

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
    r"number|amount|size|count|reduction|improvement|gain|learning\s+rate|batch\s+size|seed|range|"
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
    # "what score does it reach on BIG-Bench Hard": "achieves 84% on BIG-Bench Hard"
    r"score|share|proportion|(?:exact\s+|closed[- ]form\s+)?(?:expression|formula)",
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
EVALUATED = frozenset(
    content_terms(
        "evaluate experiments benchmark dataset outperforms surpasses beats compared baseline "
        "tested"
    )
)
# What a method is tested on: a name for one of these comes from a sentence about testing.
TESTED_ON = frozenset(content_terms("dataset datasets benchmark benchmarks environments suites"))
REPORTED = EVALUATED | frozenset(
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
_TIMES_WORDS = frozenset("twice double triple half single".split())


def is_number_word(word: str) -> bool:
    """ "sixteen", "forty-two", "hundreds", "twice": a quantity said in words."""
    if word.lower() == "zero":
        return False  # "zero-shot", "zero-knowledge": no count
    return bool(SPELLED_NUMBER.fullmatch(word)) or word.lower() in _TIMES_WORDS


# A quantity as abstracts write it: "33", "3.7x", "2-30X", "260B", "1.3B-parameter", "93%",
# "$2\\times$", "$O(N)$", "five". Digits inside a name ("GPT-4", "CIFAR-10", "3D", "H100")
# are not quantities.
# "45--50%", "45–50%": a range is one quantity, however its dash is typed
_QUANTITY = re.compile(
    r"\d[\d,.]*(?:\s*(?:-{1,2}|–|—)\s*\d[\d,.]*)?(?:%|x|×|[kmbt]|-?fold|[kmbt]-[a-z]+|[kmgt]i?b|ms|s|h|hrs?|min)?"
    r"|\d+:\d+|\d+/\d+",  # "57Gb", "1:1", "about 1/50 training cost"
    re.I,
)
_QUOTED = re.compile(r"[\"“][^\"”]+[\"”]|(?<!\w)['‘][^'’]+['’](?!\w)")
ENUMERATOR = re.compile(r"\(?(?:\d{1,2}|[ivx]{1,4}|[a-h])\)", re.I)
MULTIPLIERS = frozenset("twice double triple thrice half".split())
MATH_QUANTITY = re.compile(r"\\times|×|\$|\bO\(")
TOKEN_EDGES = "()[]{},;:.~≈!?\"'*"  # "**41 days**": markdown around a number


def is_quantity(token: str) -> bool:
    """Whether one whitespace-separated token of a sentence states a quantity."""
    if MARKER.search(token):  # "[1]" cites a source, it states no number
        return False
    if MATH_QUANTITY.search(token):
        return True
    # "Vina score (-9.07)": a signed value; "30%+", "100+": at least that much
    bare = token.strip(TOKEN_EDGES).lstrip("-−+").rstrip("+")
    return bool(_QUANTITY.fullmatch(bare)) or is_number_word(bare)


NUMBER_WINDOW = 5  # words between a quantity and the thing it counts
SAVED_WINDOW = 8  # "reduces memory usage by up to 65.5%": the verb a few words off
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

_SPEED = frozenset(content_terms("speedup speedups faster accelerate acceleration"))
# a setting or a comparison after the measure asked: the figure must be of it
_QUALIFIED = re.compile(
    r"\b(?:on|in|for|with|when|compared|than|over|versus|vs|relative|against|across)\b", re.I
)


# The asker's own request ("I'd like to know how many …", "tell me"), not a statement about
# the work ("Perdomo's work asks how much …", "when you don't know how many clusters …").
_REQUESTING = re.compile(
    r"\b(?:i|i['’]m|i['’]d|we|we['’]d|we['’]re)\b[^.?!]{0,40}?\b(?:know|wonder\w*|curious|"
    r"ask\w*|find out|want|need|interested|understand)\b"
    r"|\b(?:tell|remind|explain\w*\s+to)\s+(?:me|us)\b"
    r"|(?:^|[.!]\s+)(?:tell|explain|curious|wondering|please|need\s+to)\b|\?",
    re.I,
)


def _asked(text: str) -> str:
    """The sentence of a part that asks: statements before it set its scene ("Steering how
    much weight vectors rotate lessens warmup. What else …?"), unless they make a request."""
    sentences = split_sentences(text)
    if len(sentences) < 2 or _REQUESTING.search(" ".join(sentences[:-1])):
        return text
    return sentences[-1]


def classify(text: str, context: frozenset[str] = frozenset()) -> QuestionPart:
    """The answer type one question part asks for, and the words it is about.

    `context`: the whole question's words, for a part that only points back ("and how
    large were they?").
    """
    focus = frozenset(t for t in content_terms(text) if t not in _QUESTION_WORDS) or context
    # "Steering how much weight vectors rotate lessens warmup. What else does it provide?":
    # a statement before the question sets its scene and asks nothing
    ask = _asked(text)
    if (
        _EMBEDDED.search(ask)
        or _KINDS_OF.search(ask)
        or _WHAT_ABOUT.match(ask)
        or _GUARANTEE_ON.search(ask)
    ):
        # "a method that works out how much of the data is corrupted": what the method finds,
        # not a number asked of the abstract; "what kinds of models": kinds, not names
        return QuestionPart(text, "other", focus, focus)
    if _WHICH_YEAR.search(ask):  # "between which years": "between 2026 and 2032"
        return QuestionPart(text, "number", focus, focus, window=SENTENCE_WINDOW)
    how = _HOW_NUMBER.search(ask)
    if how and how.group(1).lower() in ("many", "much"):
        phrase = _noun_phrase(how.group(2))
        counted = frozenset(content_terms(phrase)) - _QUESTION_WORDS
        kinds = re.match(
            r"\s*(?:[\w-]+\s+){0,2}?(?:ways?|kinds?|types?|sorts?|forms?)\s+of\s+", how.group(2)
        )
        if kinds and counted <= KIND_WORDS | _WAYS:
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
            after = how.group(2)[len(phrase) :]
            saved = _SAVED.search(after)
            if saved:
                counted |= frozenset(content_terms(saved.group(0)))
            # the wider window only without a setting ("… save compared to GaLore")
            plain_ = saved and not _QUALIFIED.search(after[saved.end() :])
            near = SAVED_WINDOW if plain_ else NUMBER_WINDOW
            return QuestionPart(text, "number", counted, focus, near, degree=much)
    if how or _BY_HOW.search(ask):
        # "How much faster …", "by how much …": the quantity sits somewhere in a sentence
        # about the part, not next to one noun; a comparison's is a magnitude ("2.5x")
        compared = bool(_BY_HOW.search(ask)) or bool(
            how and how.group(1).lower() == "much" and _COMPARATIVE.match(how.group(2))
        )
        degree = how is not None and how.group(1).lower() == "much" and not _BY_HOW.search(ask)
        return QuestionPart(text, "number", focus, focus, SENTENCE_WINDOW, compared, degree)
    unit = _IN_UNIT.search(ask)
    if unit:  # "… cost in US dollars": the unit must stand by a quantity
        return QuestionPart(text, "number", frozenset(content_terms(unit.group(1))), focus, 2)
    measure = _WHAT_MEASURE.search(ask)
    if measure and _DESCRIBED_MEASURE.search(measure.group(1)) and not _VALUE_ASKED.search(ask):
        measure = None  # "what p-values does it use": empirical ones, not a value
    if measure and _names_a_thing(ask[measure.end() :]):
        measure = None  # "what score function", "what cost function": a thing, not a number
    # "At what rate does it decay": an order ("of order $1/\sqrt{n}$") is no "rate" word
    if (measure and _GENERIC_MEASURE.fullmatch(measure.group(1))) or _AT_RATE.search(ask):
        # "What fraction of the model is recovered": "97% of the secret model".
        if focus <= CHANGE_WORDS | _POINTING:
            # "and to what value did it lower it": a new value of the bound asked before
            return QuestionPart(text, "number", focus | context, focus, SENTENCE_WINDOW, True)
        return QuestionPart(text, "number", focus, focus, window=SENTENCE_WINDOW)
    if measure:
        # "what top-1 accuracy": written in digits or maths, not "one of the first works"
        measured = frozenset(content_terms(measure.group(0))) - _QUESTION_WORDS
        if measured & _SPEED and not _QUALIFIED.search(ask[measure.end() :]):
            measured |= _SPEED  # "what speedup": "2.8x faster" (not "… on text generation")
        return QuestionPart(text, "number", measured, focus, 8, compared=True)
    options = _CHOICE.search(ask)
    if options:  # "is it written in PyTorch or JAX": one of them, as the abstract writes it
        chosen = frozenset(content_terms(f"{options.group(1)} {options.group(2)}"))
        return QuestionPart(text, "choice", chosen, focus, named=options.group(1, 2))
    if _ROLE_ASKED.search(ask) or _HAPPENS.search(ask):
        # "what job does the LLM do", "what happens to its Lipschitz constant": a description
        return QuestionPart(text, "other", focus, focus)
    valued = _VALUE_ASKED_OF.search(ask)
    if valued:  # "what do naive baselines get": "naive baselines obtain 48% and 60%"
        scored = frozenset(content_terms(valued.group(1))) - _QUESTION_WORDS
        return QuestionPart(text, "number", scored or focus, focus, compared=True)
    named = _WHICH_PRIOR.search(ask) or _WHICH_NAME.search(ask)
    if named:
        target = frozenset(content_terms(named.group(1)))
        if {"data", "set"} <= target:  # "which two data sets": datasets
            target |= TESTED_ON
        # "which Atari games" must write Atari; "Atari-style environments" need not
        family = tuple(
            n
            for n in re.findall(r"(?<![\w-])[A-Z][\w-]*", named.group(1))
            if n.lower() not in _NAME_KINDS and not _LIKENED.search(n)
        )
        return QuestionPart(text, "name", target, focus, named=family)
    return QuestionPart(text, "other", focus, focus)


# "what guarantee does it give on how often its sets miss": a guarantee, not a number
_GUARANTEE_ON = re.compile(
    r"\bwhat\s+(?:kind\s+of\s+)?(?:guarantees?|assurances?|assumptions?)\b[^?]*?\b(?:on|about|"
    r"over|for)\s+how\b",
    re.I,
)
_HAPPENS = re.compile(r"\bwhat\s+(?:happens|happened|changes)\b", re.I)
_ROLE_ASKED = re.compile(
    r"\bwhat\s+(?:job|role|part|purpose)s?\s+(?:does|do|did|is|are|was|were)\b", re.I
)
_VALUE_ASKED_OF = re.compile(
    r"\bwhat\s+(?:do|does|did)\s+((?:[\w-]+\s+){0,4}?[\w-]+)\s+(?:get|score|obtain)\W*$",
    re.I,
)
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


# "Does the HAMLET paper say which datasets it uses?": asks which datasets it uses
_SAYS_WHICH = re.compile(
    r"^\s*(?:does|did|do)\s+(?:the\s+)?(?:[^?,;]{1,80}?\s+)?(?:say|mention|state|specify|report|"
    r"name|list|tell\s+(?:us|me)|reveal|disclose)\s+(?=(?:which|what|how\s+many)\b)",
    re.I,
)


def question_parts(question: str) -> list[QuestionPart]:
    """The question's parts in order; a one-part question gives one."""
    question = _SAYS_WHICH.sub("", question)
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
    parts = [classify(p, context) for p in pieces] or [classify(question, context)]
    # "On how many datasets …, and what are they called?": the names of what was counted
    for i in range(1, len(parts)):
        if (
            parts[i].kind == "other"
            and _NAMES_THEM.match(parts[i].text)
            and parts[i - 1].target & _NAMED_KINDS
        ):
            asked = parts[i - 1].target
            parts[i] = QuestionPart(parts[i].text, "name", asked, parts[i].focus | asked)
    return parts


# Kinds whose members have names ("which datasets … what are they": ImageNet), not steps
# or tasks told in lower case
_NAMED_KINDS = frozenset(
    content_terms(
        "datasets benchmarks models llms environments gpus games languages baselines "
        "architectures simulators libraries suites corpora competitions tools frameworks "
        "solvers optimizers accelerators backbones"
    )
)
_NAMES_THEM = re.compile(
    r"\W*(?:and\s+)?(?:(?:what|which)\s+(?:are|were)\s+(?:they|these|those)(?:\s+called|"
    r"\s+named)?|what\s+(?:are|were)\s+(?:their|the)\s+names|name\s+(?:them|those|these)|"
    r"which\s+ones)\W*$",
    re.I,
)


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


# A size or change asked of nothing more specific: any reported margin answers it.
CHANGE_WORDS = frozenset(
    content_terms(
        "big large best biggest largest gain gains improvement improvements boost increase "
        "decrease drop reduction speedup margin much high low small points percent "
        "effectiveness"
    )
)
KIND_WORDS = frozenset(content_terms("types kinds sorts categories classes forms families"))
_WAYS = frozenset(content_terms("ways way"))
# A part made only of these words asks about what an earlier part named.
_POINTING = frozenset(
    content_terms("value values lower lowered raise raised improve improved bring brought push")
)
