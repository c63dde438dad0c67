"""Superlatives over the figures abstracts report: "Which paper on speculative decoding
reports the largest speedup?", "the biggest memory reduction any quantization paper claims".
No single abstract answers these, and the figure of whichever paper retrieval ranks first is
no maximum. The answer ranks the papers of the topic whose abstracts state a figure of
that measure, largest first, each with its sentence, and says the figures come from
different setups; where none states one, it says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from rag.catalogue.catalogue import Catalogue
from rag.sets.answer_rows import citation, plain, plural, row, set_answer, statuses_said
from rag.sets.judgement import TopicJudge
from rag.sets.selection import papers_of
from rag.text import split_sentences
from rag.types import Aggregate, AggregatePaper, Answer, Filters, Paper, QueryPlan

SHOWN = 10
OWN_STEM = 7  # letters of a measure's own word its forms share ("compres" of "compresses")
NEAR = 8  # words between a figure and the word in its clause that says what it measures

# what a dataset is counted in: "100M molecules", "582M video clips", "2 million … pairs"
_UNITS = (
    r"molecules?|(?:video\s+)?clips?|videos?|images?|examples?|samples?|problems?|questions?|"
    r"pairs?|documents?|proteins?|structures?|trajectories|demonstrations?|games?"
)
# measure families: the words that name one near a figure, and the figures they take
_FAMILIES: dict[str, tuple[str, str]] = {
    # family: (words naming it near a figure, the noun the answer says)
    "speedup": (
        r"speed\w*|faster|acceler\w*|throughput|latency|wall-?clock|runtime|run-time",
        "speedup",
    ),
    "reduction": (
        r"reduc\w*|sav\w*|less|fewer|lower|smaller|compress\w*|memory|footprint|VRAM",
        "reduction",
    ),
    "accuracy": (r"accuracy|accurac\w+|win|success|pass@\d+", "accuracy"),
    "sparsity": (r"sparsit\w*", "sparsity"),
    "size": (r"parameters?|params|models?", "model size"),
    "count": (
        rf"GPUs?|TPUs?|tokens?|languages?|tasks?|environments?|agents?|nodes?|(?:{_UNITS})(?![\w-])",
        "number",
    ),
    "rate": (r"(?:FPS|fps|frames?|real-?time)(?![\w-])", "frame rate"),
    "context": (r"context|windows?|sequences?|lengths?", "context length"),
    "lower": (r"FID|FVD|perplexity|errors?|WER|MAE|MSE|RMSE", "score"),
    "improvement": (r"improv\w*|gains?|outperform\w*|boost\w*", "improvement"),
}
_ASKED_MEASURE = [
    # "the largest model", "the most parameters": a model's size in parameters (the size
    # only right after "largest"/"biggest"/"most": "the most accurate model" is no size)
    (
        "size",
        r"(?<=largest\s|biggest\s)models?(?:\s+sizes?)?|(?<=most\s)parameters|"
        r"(?<=largest\s|biggest\s)(?:parameter\s+counts?|number\s+of\s+parameters)",
    ),
    # "the most GPUs", "the largest number of languages", "the biggest dataset in tokens":
    # how many of something an abstract says it used
    (
        "count",
        r"(?:number\s+of\s+|datasets?\s+\(?in\s+|(?<=most\s))(?:GPUs|TPUs|tokens|languages|"
        rf"tasks|environments|agents|nodes|datasets|{_UNITS})",
    ),
    # "the longest context length", "the largest context window": tokens a model reads
    ("context", r"context(?:\s+(?:lengths?|windows?|sizes?))?|sequence\s+lengths?"),
    # "the best FID", "the lowest perplexity": a score where lower is better
    ("lower", r"FID|FVD|perplexity|(?:test\s+)?error(?:\s+rates?)?|WER|MAE|MSE|RMSE"),
    ("speedup", r"speed-?ups?|speed\s+gains?|accelerations?|throughput(?:\s+gains?)?"),
    # "the highest frame rate", "the most fps": frames a second
    ("rate", r"frame\s+rates?|fps|frames\s+per\s+second"),
    (
        "reduction",
        r"reductions?|savings?|compression(?:\s+(?:ratios?|rates?))?|cuts?|drops?|"
        r"decreases?",
    ),
    ("improvement", r"(?:accuracy\s+|performance\s+)?(?:gains?|improvements?|boosts?)"),
    # "the biggest win rate", "the highest success rate", "the highest pass@1"
    ("accuracy", r"accuracy|win\s+rates?|success\s+rates?|pass@\d+"),
    ("sparsity", r"sparsity(?:\s+levels?)?"),
]
_MEASURE = "|".join(p for _, p in _ASKED_MEASURE)
_SUPERLATIVE = (
    r"(?:largest|biggest|highest|greatest|most|best|strongest|maximum|max|top|lowest|smallest|"
    r"longest)"
)
# "extends the context window the furthest": the longest context window
_FURTHEST = re.compile(
    r"\b(?:extends?|extending|stretch(?:es)?|scales?|pushes)\s+(?:the\s+)?(?:[\w-]+\s+)?"
    r"(?P<what>context(?:\s+(?:windows?|lengths?))?)(?P<of>\s+of\s+[\w-]+)?\s+(?:the\s+)?"
    r"(?:furthest|farthest|most)\b",
    re.I,
)
# words between a superlative and its measure that make it no measure of a paper's figure
# ("the most papers on model compression", "the best models of")
_NOT_MEASURED = r"papers?|works?|authors?|institutions?|labs?|on|about|of|in|for|likelihood"
_ASKED = re.compile(
    rf"\b(?:the\s+)?(?P<sup>{_SUPERLATIVE})\s+(?:reported\s+|stated\s+|claimed\s+)?"
    # "the biggest inference speedup", "the largest memory reduction": what is measured
    rf"(?P<mod>(?:(?!(?:{_MEASURE}|{_NOT_MEASURED})\b)[\w-]+\s+(?:(?:or|and|/)\s+)?){{0,3}}?)"
    rf"(?P<measure>{'|'.join(f'(?P<{f}>{p})' for f, p in _ASKED_MEASURE)})\b"
    # "throughput or speed gain": the same measure said twice
    rf"(?:\s+(?:or|and|/)\s+(?:[\w-]+\s+)?(?:{_MEASURE})\b)?"
    # "the largest reduction in communication", "… compression of the preconditioner": what
    # is reduced ("the longest context window of LLMs": a topic)
    rf"(?:\s+(?(reduction)(?:in|of)|in)\s+(?:the\s+|an?\s+)?(?P<of>(?!terms\b|all\b|any\b|papers?\b|abstracts?\b)[\w-]+"
    rf"(?:\s+(?!(?:of|for|on|among|by|from|any|in)\b)[\w-]+)?))?"
    # "the highest accuracy reported on ImageNet": the benchmark the figure is measured on
    r"(?:\s+(?:reported\s+|achieved\s+|stated\s+)?on\s+(?P<bench>(?-i:[A-Z])[\w.-]*(?-i:[A-Z0-9])"
    r"[\w.-]*)(?![\w-]))?",
    re.I,
)
# a paper asked for: "which paper …", "what's the biggest speedup any … paper claims",
# "biggest speedup reported at ICML 2024?"
_ASKS_PAPER = re.compile(
    rf"\b(?:which|what)\s+(?:[\w'’-]+\s+){{0,6}}?(?:papers?|works?|abstracts?|one|ones)\b"
    # "who reports the largest …", "… anyone reports", "which claims the largest …"
    r"|\bwho\s+(?:reports?|claims?|states?|achieves?|shows?|gets?|has|trained)\b|\b(?:anyone|anybody)\b"
    r"|\bwhich\s+(?:claims?|reports?|states?|achieves?|shows?|has|gets?|gives?)\b"
    rf"|\bany\b(?:\s+[\w-]+){{0,6}}?\s+(?:papers?|works?|abstracts?|systems?|methods?|approach(?:es)?|"
    rf"frameworks?)\b|^\s*(?:the\s+)?{_SUPERLATIVE}\b"
    # "What is the largest speedup reported for LLM inference?" (not "… GaLore reports")
    rf"|\bwhat(?:['’]?s|\s+is|\s+was)\s+the\s+{_SUPERLATIVE}\b[^?]*\b(?:reported|claimed|stated|"
    r"mentioned|used|described)\b",
    re.I,
)
# what frames the question and names no topic (whole words: "mixture-of-experts" stays)
_FRAME = re.compile(
    r"(?<![\w-])(?:which|what|what['’]s|whats|who|is|are|was|were|the|a|an|any|of|among|all|"
    r"icml|2024|papers?|works?|abstracts?|reports?|reported|reporting|claims?|claimed|claiming|"
    r"states?|stated|achieves?|achieved|shows?|showed|gives?|gave|has|have|had|gets?|got|"
    r"does|do|did|one|ones|conference|proposes?|proposed|introduces?|introduced|uses?|used|"
    r"trains?|trained|builds?|built|presents?|presented|covers?|covered|supports?|handles?|"
    r"systems?|methods?|approach(?:es)?|frameworks?|"
    r"mentioned|described|anyone|anybody|someone|folks|tests?\s+on|tested\s+on|these|those|"
    r"(?:pre-?)?trains?\s+on|(?:pre-?)?trained\s+on|pretrains?|please|parameter\s+counts?|"
    r"and\s+co|etc|evaluates?\s+on|evaluated\s+on|"
    r"in\s+terms\s+of(?:\s+(?:parameters?|size|model\s+size))?)(?![\w-])|['’]s\b|[?.!,:;()—–]",
    re.I,
)
_STATUS = re.compile(r"\b(oral|spotlight|poster)s?\b", re.I)
_RESTATED = re.compile(
    r"\(\s*(?:in\s+)?(?:parameters?|parameter\s+count|number\s+of\s+parameters|model\s+size|size)\s*\)"
    r"|\b(?:in|from|of)\s+(?:any|an|the)\s+(?:icml\s+(?:20)?24\s+)?(?:abstracts?|papers?)\b"
    r"|\b(?:mentioned|reported|stated)\s+(?:in|by)\s+(?:any|an|the)\s+(?:icml\s+(?:20)?24\s+)?"
    r"(?:abstracts?|papers?)\b",
    re.I,
)
_EDGE = re.compile(
    r"^(?:on|about|for|in|from|to|with|by|at)(?:\s+|$)|\s+(?:on|about|for|in|from|to|with|by|at)$",
    re.I,
)
# measure words too common to pin what is measured ("the largest reported gain")
_GENERIC = frozenset(
    "reported stated claimed overall total relative absolute percent percentage points".split()
)
_TIMES = r"(?:\$?\s*\\times\s*\$?|×|x(?![\w])|\s?-?fold\b|\s+times\b)"
_FIGURE = re.compile(
    rf"(?<![\w.])(?P<value>\d+(?:,\d{{3}})*(?:\.\d+)?)\s*(?:\$\s*)?(?:(?P<times>{_TIMES})|"
    rf"(?P<percent>\s?(?:\\?%|percent\b)))"
    # "by a factor of 1.6 to 2.5": the larger
    rf"|\bfactor\s+of\s+(?:up\s+to\s+)?(?:\d+(?:\.\d+)?\s*(?:to|-|–)\s*)?(?P<factor>\d+(?:\.\d+)?)"
    # "by up to two orders of magnitude": a factor of 100
    r"|\b(?P<orders>one|two|three|four|five|six|\d)\s+orders?\s+of\s+magnitude\b",
    re.I,
)


@dataclass
class Asked:
    family: str  # "speedup"
    noun: str  # the measure as the question says it ("speedup", "memory reduction")
    topic: str  # what the papers are about ("speculative decoding"); "" for every paper
    statuses: list[str]
    measured: list[str]  # what is measured, written near the figure ("memory"); may be none
    bench: str = ""  # the benchmark the figure must be on ("ImageNet"), written in its clause
    counted: str = ""  # what a count counts ("GPUs")
    # the measure's own word must stand near each figure ("win rate", "pass@10",
    # "compression"): no other figure of its family answers
    own: str = ""

    @property
    def own_stem(self) -> str:
        """The start of the measure's own word that all its forms share ("compres")."""
        return self.own[:OWN_STEM]


@dataclass
class Figure:
    paper: Paper
    value: float  # in the family's unit: a factor (×) or a percentage
    said: str  # the figure as written ("3.6×")
    sentence: str
    written: float = 0.0  # the number as written (70 of "70%", where `value` is 3.3×)


# a ranking of people or places, not of papers by a figure
_RANKS_OTHERS = re.compile(
    r"\b(?:which|what|who)\s+(?:[\w-]+\s+)?(?:authors?|researchers?|people|persons?|"
    r"institutions?|universit(?:y|ies)|labs?|compan(?:y|ies)|countr(?:y|ies)|groups?)\b",
    re.I,
)
# a topic that is no topic: the papers of the chat's last answer
_POINTER_TOPIC = re.compile(r"^(?:them|those|these|they|it|ones)$", re.I)


# a remark around the question: "i'm writing a green-AI survey.", "? just want the biggest …"
_REMARK_BEFORE = re.compile(
    r"^\s*(?:i|i['’]m|im|we|we['’]re|my|our|hi|hello|hey)\b[^?]*?[.!]\s+", re.I
)
_REMARK_AFTER = re.compile(
    r"(?<=[?.!])\s+(?:just|need|looking|i|i['’]m|want|it['’]s|thanks|please|for\s+a)\b[^?]*$"
    r"|(?<=\?)\s*\([^()]*\)\s*$",  # "…? (error rate of the detector)": the measure glossed
    re.I,
)
# "— memory is my bottleneck.": the asker's own remark between the topic and the question
_REMARK_WITHIN = re.compile(
    r"(?:\s+[—–]\s+|(?<=[.!])\s+)(?P<said>[^?.!—–]*\b(?:my|i|i['’]m|we|our)\b[^?.!—–]*[.!])", re.I
)
# "biggest math training set … how many problems does it have?": the number of problems
_SET_SIZE = re.compile(
    r"\b(?P<sup>largest|biggest)\s+(?P<what>(?:[\w-]+\s+){0,2}?)(?:(?:pre-?)?training\s+)?"
    r"(?:data\s*sets?|sets?|corpus|corpora)\b(?P<rest>[^?]*?)[\s—–-]*(?:\bhow\s+many\s+(?P<unit>\w+)"
    r"(?:\s+(?:does|did|do)\s+(?:it|they)\s+(?:have|hold|contain))?"
    # "the largest dataset (number of images)", "… in terms of number of molecules"
    r"|\(\s*(?:number|count)\s+of\s+(?P<unit2>\w+)\s*\)|\bin\s+terms\s+of\s+(?:the\s+)?(?:number|count)\s+"
    r"of\s+(?P<unit3>\w+))",
    re.I,
)
# "… paper that reports memory savings? which one saves the most?": the measure said first
_SAID_FIRST = re.compile(
    r"\s+(?:that|which)\s+(?:reports?|claims?|states?)\s+(?P<m>(?:[\w-]+\s+){0,2}?(?:savings?|"
    r"reductions?|speed-?ups?))\b",
    re.I,
)
_VERB_MOST = re.compile(
    r"\b(?P<verb>saves?|reduces?|cuts?|speeds?\s+up|accelerates?)\s+(?:the\s+)?most\b", re.I
)
_VERB_MEASURE = {"save": "savings", "reduce": "reduction", "cut": "reduction"}


def _plainly(question: str) -> str:
    """The superlative without the remarks around it, its measure said where it is asked."""
    question = _REMARK_AFTER.sub("", _REMARK_BEFORE.sub("", question))
    question = _REMARK_WITHIN.sub(" ", question)
    sized = _SET_SIZE.search(question)
    if sized:
        what = sized.group("what").strip()
        unit = sized.group("unit") or sized.group("unit2") or sized.group("unit3")
        said = f"{sized.group('sup')} number of {unit}{f' in {what},' if what else ''}"
        question = (
            f"{question[: sized.start()]}{said}{sized.group('rest')}{question[sized.end() :]}"
        )
    most = _VERB_MOST.search(question)
    if most:
        first = _SAID_FIRST.search(question[: most.start()])
        verb = most.group("verb").lower().split()[0].rstrip("s")
        measure = first.group("m") if first else _VERB_MEASURE.get(verb, "speedup")
        said = f"reports the largest {measure}"
        question = f"{question[: most.start()]}{said}{question[most.end() :]}"
        if first:
            question = f"{question[: first.start()]}{question[first.end() :]}"
    return question


def asked(question: str) -> Asked | None:
    """The measure and topic of a superlative over reported figures, or None."""
    question = _plainly(question)
    question = _FURTHEST.sub(
        lambda m: f"reports the longest {m.group('what')}{m.group('of') or ''}", question
    )
    # "the biggest model (parameter count)", "… in any abstract": the measure said again,
    # or where, no topic
    asks = _ASKS_PAPER.search(question)
    question = _RESTATED.sub(" ", question)
    found = _ASKED.search(question)
    if found is None or not asks or _RANKS_OTHERS.search(question):
        return None  # "…, and how big was the best gain?": one paper's figure
    family = next(f for f, _ in _ASKED_MEASURE if found.group(f))
    least = found.group("sup").lower() in ("lowest", "smallest")
    if least != (family == "lower") and not (family == "lower" and found.group("sup") == "best"):
        return None  # "the smallest model", "the highest FID": not the ranking read here
    mod = [
        w
        for w in (found.group("mod") or "").split() + (found.group("of") or "").split()
        if w.lower() not in ("or", "and", "/")
    ]
    # "the highest GSM8K accuracy": a benchmark named before its measure
    named = [w for w in mod if re.search(r"[A-Z].*\d|\d.*[A-Z]|^[A-Z]{3,}$|^[A-Z][a-z]+[A-Z]", w)]
    mod = [w for w in mod if w not in named]
    quiet = _SPEED_WORDS if family == "speedup" else frozenset()  # "inference speedup"
    measured = [w for w in mod if w.lower() not in _GENERIC and w.lower() not in quiet]
    after = re.sub(r"^\s*\([^()]{1,20}\)", " ", question[found.end() :])  # "… emissions (CO2)"
    rest = f"{question[: found.start()]} {after}"
    statuses = sorted({s.capitalize() for s in _STATUS.findall(rest)})
    rest = _STATUS.sub(" ", rest)
    topic = " ".join(_FRAME.sub(" ", rest).split())
    while (shorter := _EDGE.sub("", topic).strip()) != topic:
        topic = shorter
    noun = (
        " ".join([*measured, found.group("measure").lower()])
        if measured
        else found.group("measure").lower()
    )
    if family == "size":  # "the largest model", "the most parameters": a model size
        noun = "model size"
    if family == "lower":  # "FID", as written
        noun = found.group("measure")
    counted = ""
    if family == "count":  # "the largest number of GPUs": GPUs, counted
        counted = found.group("measure").split()[-1]
        noun = f"number of {counted}"
    if family == "context":  # "the longest context window": the tokens it reads
        noun = "context length"
    bench = found.group("bench") or (named[0] if named else "")
    topic = topic or bench
    if _POINTER_TOPIC.match(topic):
        return None  # "Which of them reports …": the chat's papers, not a topic
    said = found.group("measure").lower()
    own = ""
    if family == "accuracy" and said != "accuracy":  # "win rate", "success rate", "pass@10"
        own = said.split()[0]
    if family == "reduction" and re.match(r"compression\s+(?:ratio|rate)", said):  # as such
        own = "compress"
    return Asked(family, noun, topic, statuses, measured, bench, counted, own)


# words that only say which speed ("inference speedup", "latency speedup")
_SPEED_WORDS = frozenset("inference latency training wall-clock decoding generation".split())


# "1.5 trillion parameters", "PaLM-540B", "a 7B model": a size, read as a count
_SIZE = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)\s*-?\s*(?P<unit>(?-i:[BMT])(?![\w-])|billion|trillion|"
    r"million)(?P<after>\s+(?:parameters?|params)\b)?",
    re.I,
)
_SCALE = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
    "t": 1e12, "trillion": 1e12,
}  # fmt: skip


def _sizes(paper: Paper, clause: str, sentence: str) -> list[Figure]:
    """Model sizes a clause states: "with 1.5 trillion parameters", "Llama-2 70B"; a
    count of tokens or examples ("260B tokens") is no size."""
    out = []
    for found in _SIZE.finditer(clause):
        rest = clause[found.end() : found.end() + 12].lower()
        if not found.group("after") and re.match(
            r"\s*(?:tokens?|examples?|samples?|images?)", rest
        ):
            continue
        # "PaLM-540B", "Llama-2 70B" where the clause speaks of models (not "DRCT-2M", a
        # dataset)
        if not found.group("after") and not re.search(
            r"\b(?:parameters?|params|models?|LLMs?)\b", clause, re.I
        ):
            continue
        value = float(found.group("value")) * _SCALE[found.group("unit").lower()]
        said = f"{found.group('value')}{'' if len(found.group('unit')) == 1 else ' '}{found.group('unit')}"
        out.append(Figure(paper, value, said, sentence, float(found.group("value"))))
    return out


# one paper named: "the largest speedup reported in the Medusa paper", "… claimed by EAGLE"
_ONE_PAPER = re.compile(
    r"\bthe\s+(?-i:[A-Z])[\w-]*(?:\s+[\w-]+)?\s+paper\b|\b(?:reported|claimed|stated|achieved|"
    r"shown)\s+(?:by|in)\s+(?:the\s+)?(?-i:[A-Z])",
    re.I,
)


def one_paper(question: str, top: Asked, headed: Callable[[str], Paper | None]) -> bool:
    """Whether the superlative is asked of one paper the question names (its own figures,
    for the cited answer): "… in the Medusa paper", a title's opening name in the topic."""
    if _ONE_PAPER.search(question):
        return True
    names = re.findall(r"(?<![\w-])[\w-]*[A-Z][\w-]*", top.topic)
    return any(headed(n) is not None for n in names)


def _scores(paper: Paper, noun: str, clause: str, sentence: str) -> list[Figure]:
    """A score where lower is better, written beside its name ("an FID of 7.42", "FID
    1.75", "perplexity of 5.6"); its value negated, so that the ranking's largest is the
    lowest."""
    word = re.escape(noun.split()[-1].rstrip("s"))
    pattern = re.compile(
        rf"\b{word}s?\b(?:\s+(?:score|rate|of|is|was|=|:|reaches|drops\s+to|to)){{0,3}}\s*\$?"
        rf"(?P<value>\d+(?:\.\d+)?)(?!\w|\.\d|\s*(?:%|×|x\b|\\times|times|-?fold))"
        rf"|(?P<value2>\d+(?:\.\d+)?)\s+{word}s?\b",
        re.I,
    )
    out = []
    for found in pattern.finditer(clause):
        number = found.group("value") or found.group("value2")
        out.append(Figure(paper, -float(number), number, sentence, float(number)))
    return out


def _counts(paper: Paper, counted: str, clause: str, sentence: str) -> list[Figure]:
    """How many of `counted` a clause says ("128 NVIDIA A100 GPUs", "over 1T tokens", "200
    languages"): a number, a scale, up to two words, then the noun."""
    noun = re.escape(counted.rstrip("s"))
    # datasets, tasks and languages come in tens, not millions ("1.4B across … datasets")
    scale = (
        ""
        if noun in _FEW
        else r"(?P<unit>(?-i:[KMBT])(?![\w-])|thousand|million|billion|trillion)?"
    )
    pattern = re.compile(
        rf"(?<![\w./-])\$?(?P<value>\d+(?:,\d{{3}})*(?:\.\d+)?|{_NUMBER_WORDS})\$?\s*{scale}\s+"
        rf"(?:(?!(?:across|of|from|in|on|per|for|with)\b)[\w.-]+\s+){{0,2}}?"
        rf"(?:{noun}s?|{_ALIKE.get(noun, noun)})\b"
        r"(?![\s-]*(?:days?|hours?|seconds?|years?|budget))",  # "0.4 GPU days" counts no GPUs
        re.I,
    )
    out = []
    for found in pattern.finditer(clause):
        unit = (found.groupdict().get("unit") or "").lower()
        typed = found.group("value").lower()
        number = float(_WORD_NUMBERS.get(typed, 0) or typed.replace(",", ""))
        if noun in _FEW and 1990 <= number <= 2030:
            continue  # "the ImageNet 2012 dataset": a year
        said = found.group(0).strip()
        out.append(Figure(paper, number * _SCALE.get(unit, 1.0), said, sentence, number))
    return out


_FEW = frozenset("dataset task language environment benchmark domain".split())
_WORD_NUMBERS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())
}
_NUMBER_WORDS = "|".join(list(_WORD_NUMBERS)[1:])
# a dataset's items, said other ways: "problems" are its "question-answer pairs"
_ALIKE = {
    n: r"problems?|questions?|(?:question-answer\s+)?pairs?|examples?|samples?|instances?"
    for n in ("problem", "question", "pair", "example", "sample", "instance")
}


# "2048k tokens", "2 million tokens", "128K context", "a 1M-token context window"
_CONTEXT = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<unit>[kKmM](?![\w])|thousand|million)?"
    r"[\s-]*(?:tokens?|context)\b",
    re.I,
)


def _contexts(paper: Paper, clause: str, sentence: str) -> list[Figure]:
    """Context lengths a clause states, where the sentence speaks of a context, window or
    sequence length ("extends the context window … to 2048k tokens")."""
    if not re.search(
        r"context|window|sequence\s+length|long[- ](?:context|input|sequence)", sentence, re.I
    ):
        return []
    out = []
    for found in _CONTEXT.finditer(clause):
        unit = (found.group("unit") or "").lower()
        value = float(found.group("value").replace(",", "")) * _SCALE.get(unit, 1.0)
        if value < 1000:
            continue  # "100 tokens per step": no context length
        out.append(Figure(paper, value, found.group(0).strip(), sentence, value))
    return out


def figures(paper: Paper, top: Asked) -> list[Figure]:
    """The figures of the asked measure the abstract states: each a number with × (or %)
    in a clause whose nearest measure word is that family's (and, where the question says
    what is measured, "memory", with that word near it too; "sample efficiency gain", in
    the abstract)."""
    text = f"{paper.title} {paper.abstract}".lower()
    if top.family != "reduction" and not all(w.lower()[:5] in text for w in top.measured):
        return []
    if top.own and top.own_stem not in text:
        return []  # "the highest pass@5": an abstract that writes none
    if top.family == "reduction" and top.measured:  # "false positives": the abstract's "FPR" too
        stems = [w.lower()[:4] for w in top.measured]
        short = [
            d.group("short")
            for d in _DEFINED.finditer(paper.abstract)
            if all(any(w.lower().startswith(st) for w in d.group("long").split()) for st in stems)
        ]
        top = replace(top, measured=[*top.measured, *short]) if short else top
    out = []
    for sentence in split_sentences(paper.abstract):
        text = re.sub(r"\b(e\.g|i\.e)\.,", r"\1.", sentence)  # "(e.g., +6.8% on …)": one clause
        for part in _respectively(text):
            for clause in _CLAUSES.split(part):
                out += _clause_figures(paper, top, clause, sentence)
    return out


# "False Positive Rate (FPR)": a short name the abstract defines
_DEFINED = re.compile(r"(?P<long>(?:[A-Za-z][\w-]*\s+){1,4})\((?P<short>[A-Z]{2,6})s?\)")


# "reducing the memory and computation cost by up to 1,098× and 7.68×, respectively"
_RESPECTIVELY = re.compile(
    r"^(?P<before>.*?)\s+(?P<verb>(?:by|of|to)(?:\s+(?:up\s+to|over|about|around|almost|nearly))?)"
    r"\s+(?P<first>(?:[^\s,;]|,(?=\d{3}))+)\s*,?\s+and\s+(?P<second>(?:[^\s,;]|,(?=\d{3}))+)\s*,?\s+"
    r"respectively\b(?P<after>.*)$",
    re.I,
)
_MEASURE_WORD = re.compile(
    r"\b(?:reduc\w*|sav\w*|accelerat\w*|speed\w*|improv\w*|lower\w*|cut\w*)\b", re.I
)


def _respectively(text: str) -> list[str]:
    """A sentence pairing two things with two figures, "respectively", as two: the first
    thing with the first figure, the second (after the measure's verb) with the second."""
    found = _RESPECTIVELY.match(text)
    joined = found and re.search(r"^(?P<a>.*)\s+and\s+(?P<b>[^,;]+)$", found.group("before"))
    if not found or not joined:
        return [text]
    verb = found.group("verb")
    first = f"{joined.group('a')} {verb} {found.group('first')}"
    said = list(_MEASURE_WORD.finditer(joined.group("a")))
    lead = said[-1].group(0) if said else ""
    second = f"{lead} {joined.group('b')} {verb} {found.group('second')}".strip()
    return [first, second, found.group("after")]


# a figure of another quantity ("4x larger batch size", "10x more data"), or one only hedged
# about ("SOTA is nearly 100%")
_OTHER_SIZE = re.compile(
    r"\s*(?:larger|bigger|more|longer|wider|deeper|higher)\s+(?!(?:speed|throughput|"
    r"accuracy|compression|reduction|savings?|efficien)\w*)[\w-]+",
    re.I,
)
_HEDGED = re.compile(r"\b(?:nearly|almost|close\s+to|about|around)\s*\$?\s*$", re.I)
# "… by (up to / almost) 470 times": the figure a verb before it reaches
_BY_FIGURE = re.compile(
    r"\bby\s+(?:up\s+to\s+|almost\s+|nearly\s+|about\s+|around\s+|over\s+|more\s+than\s+)?\$?\s*$",
    re.I,
)
_SPEED_VERB = re.compile(r"\b(?:accelerat\w*|speed(?:s|ing)?\s+up|sped\s+up|speeds?-?ups?)\b", re.I)
# "speeds up fine-tuning by up to 8× and reduces memory by up to 70%": a figure goes with
# the measure of its own clause
_CLAUSES = re.compile(r"[,;:]\s+|\s+(?:and|while|whereas|but)\s+")


_RATE = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?:FPS|fps|frames?\s+(?:per|a)\s+second|"
    r"frames?/s)\b"
)


def _rates(paper: Paper, clause: str, sentence: str) -> list[Figure]:
    """Frame rates a clause states ("runs at 49 FPS")."""
    return [
        Figure(paper, value, f.group(0), sentence, value)
        for f in _RATE.finditer(clause)
        if (value := float(f.group("value").replace(",", ""))) > 0
    ]


def _clause_figures(paper: Paper, top: Asked, clause: str, sentence: str) -> list[Figure]:
    family = top.family
    tokens = clause.split()
    if family == "rate":
        return _rates(paper, clause, sentence)
    if family == "size":
        return _sizes(paper, clause, sentence)
    if family == "count":
        return _counts(paper, top.counted, clause, sentence)
    if family == "context":
        return _contexts(paper, clause, sentence)
    if family == "lower":
        return _scores(paper, top.noun, clause, sentence)
    places = {  # sizes are read apart: "a 13B model" says no accuracy
        f: [i for i, t in enumerate(tokens) if re.match(rf"(?:{words})", t, re.I)]
        for f, (words, _) in _FAMILIES.items()
        if f != "size"
    }
    # what is reduced must be said ("memory", "communication"); "proof accuracy" only names it
    stems = [m.lower()[:5] for m in top.measured] if family == "reduction" else []
    measured = [i for i, t in enumerate(tokens) if any(t.lower().startswith(s) for s in stems)]
    owned = [i for i, t in enumerate(tokens) if top.own and t.lower().startswith(top.own_stem)]
    if stems:
        places[family] = sorted(set(places[family]) | set(measured))
    out: list[Figure] = []
    bench = re.escape(top.bench)
    if bench and not re.search(rf"(?<![\w-]){bench}(?![\w-])", clause):
        # "83.82% on ImageNet and 93.79% on SST-2": the asked benchmark's only; "on ImageNet-1K
        # … achieves 90.0% top-1 accuracy": its sentence's, where the clause names no other
        other = re.search(r"\bon\s+(?:the\s+)?(?-i:[A-Z])[\w.-]*", clause)
        if other or not re.search(rf"(?<![\w-]){bench}(?!\w)", sentence):
            return out
    # "accuracy … on GSM8K from 53% to 65%": on the asked benchmark, the clause's measure
    reach = len(tokens) if top.bench and places[family] else NEAR
    for found in _FIGURE.finditer(clause):
        at = len(clause[: found.start()].split())
        near = {f: min((abs(i - at) for i in p), default=99) for f, p in places.items()}
        best = min(near, key=lambda f: (near[f], f != family))
        if family == "improvement" and best == "accuracy" and near[family] <= NEAR:
            best = family  # "improves accuracy by up to 30%": a gain in accuracy
        # "accelerates the generation of … by 300 times": the clause's verb says the measure
        verb_said = (
            family == "speedup"
            and _BY_FIGURE.search(clause[: found.start()]) is not None
            and _SPEED_VERB.search(clause[: found.start()]) is not None
        )
        if (best != family or near[best] > reach) and not verb_said:
            continue
        if stems and min((abs(i - at) for i in measured), default=99) > NEAR:
            continue  # "the largest memory reduction": a reduction of something else
        if top.own and min((abs(i - at) for i in owned), default=99) > NEAR:
            continue  # "the highest pass@10": a success rate is none
        after = clause[found.end() : found.end() + 40]
        by = _BY_FIGURE.search(clause[: found.start()])
        if _OTHER_SIZE.match(after) or (_HEDGED.search(clause[: found.start()]) and not by):
            continue  # "4x larger batch size", "nearly 100% accuracy": no figure of the measure
        if found.group("times") and re.match(r"\s*\$?\s*\d", after):
            continue  # "1024×1024": a resolution, no factor
        if found.group("percent") and re.match(r"\s*of\s+(?!the\s+(?:baseline|original))\w", after):
            continue  # "for 98.08% of arithmetic operations": a share of something, no change
        orders = found.group("orders")
        number = found.group("value") or found.group("factor") or ""
        if orders:  # "two orders of magnitude": a factor of 100
            number = str(
                10 ** _WORD_NUMBERS.get(orders.lower(), int(orders) if orders.isdigit() else 0)
            )
        value = float(number.replace(",", ""))
        percent = bool(found.group("percent"))
        if family == "speedup" and percent:
            continue  # "speeds up by 40%": no factor
        if family in ("accuracy", "improvement", "sparsity") and not percent:
            continue
        said = found.group(0).strip() if orders else f"{number}{'%' if percent else '×'}"
        if family == "reduction" and percent:
            if value >= 100:
                continue
            value = 100 / (100 - value)  # "reduces memory by 70%": 3.3× less
        out.append(Figure(paper, value, said, sentence, float(number.replace(",", ""))))
    return out


def answer(
    question: str,
    standalone: str,
    plan: QueryPlan,
    top: Asked,
    papers: list[Paper],
    topic_said: str,
    clear: set[str] | None = None,
    closest: set[str] | frozenset[str] = frozenset(),
    stated: dict[str, list[Figure]] | None = None,
) -> Answer:
    """The papers among `papers` stating a figure of the measure, largest first; those
    `clear`ly about the topic before those only touching on it, and those only `closest`
    to it (not judged about it) last. `stated`: the figures of papers already read."""
    stated = {} if stated is None else stated
    best: dict[str, Figure] = {}
    for paper in papers:
        for figure in _stated(paper, top, stated):
            if paper.id not in best or figure.value > best[paper.id].value:
                best[paper.id] = figure
    ranked = sorted(
        best.values(),
        key=lambda f: (
            f.paper.id in closest,
            clear is not None and f.paper.id not in clear,
            -f.value,
            f.paper.id,
        ),
    )
    noun = top.noun
    where = f"{len(papers):,} {topic_said}"
    if len(papers) == 1:
        where = where.replace("papers", "paper", 1)
    if not ranked:
        # the figure reader may miss a figure written unusually: found none, not "none"
        text = (
            f"I found no figure for {noun} in the abstracts of the {where}, so I can't say "
            f"which reports the {'lowest' if top.family == 'lower' else 'largest'}."
        )
        aggregate = Aggregate(kind="list", count=0, exact=False, papers=[])
        return set_answer(question, standalone, plan, text, [], aggregate)
    rows: list[AggregatePaper] = [
        row(n, f.paper, f.sentence) for n, f in enumerate(ranked, start=1)
    ]
    first = ranked[0]
    lines = [
        f"Of the {where}, {plural(len(ranked), 'abstract')} "
        f"{'states' if len(ranked) == 1 else 'state'} a figure for {noun}; the "
        f"{'lowest' if top.family == 'lower' else 'largest'} stated"
        f"{' by a paper clearly about it' if clear and first.paper.id in clear else ''} is "
        f"{first.said} in *{plain(first.paper.title)}* [1]. The figures "
        "come from different models, baselines and setups, so they rank what each abstract "
        "claims, not which method is best:"
    ]
    lines += [
        f"- {f.said}: *{plain(f.paper.title)}* [{n}]"
        + (
            " (close to the topic, not judged about it)"
            if f.paper.id in closest
            else " (touches on the topic)"
            if clear is not None and f.paper.id not in clear
            else ""
        )
        for n, f in enumerate(ranked[:SHOWN], 1)
    ]
    if len(ranked) > SHOWN:
        lines.append(f"- … and {len(ranked) - SHOWN} more (every paper is in the full list)")
    aggregate = Aggregate(
        kind="list", count=len(ranked), exact=False, papers=rows, value=first.written
    )
    return set_answer(
        question, standalone, plan, "\n".join(lines), [citation(r) for r in rows], aggregate
    )


def ranked(
    catalogue: Catalogue,
    judge: Callable[[], TopicJudge],
    question: str,
    standalone: str,
    top: Asked,
    filters: Filters | None,
) -> Answer | None:
    """The papers of the asked topic, person or institution (and status) ranked by the
    figure they report; None where the question names one paper or no paper is about the
    topic (the cited answer reads the question). `judge`: the topic judge, built when a
    topic is asked."""
    if one_paper(standalone, top, catalogue.headed):
        return None  # "the largest speedup reported in the Medusa paper": that paper's
    allowed = catalogue.matching(filters) if filters is not None else None
    if top.statuses:
        status = catalogue.matching(Filters(status=top.statuses))
        allowed = status if allowed is None else allowed & status
    kind = statuses_said(top.statuses) + " " if top.statuses else ""
    clear: set[str] | None = None
    closest: set[str] = set()
    stated: dict[str, list[Figure]] = {}  # each paper's figures, read once
    if top.topic and catalogue.knows(top.topic):  # "Which Google papers …": its papers
        ids = papers_of(catalogue, top.topic)
        papers = catalogue.papers.many(ids if allowed is None else ids & allowed)
        said = f"{kind}papers listing {top.topic}"
    elif top.topic:
        # a paper touching on the topic may state its figure too: each is listed with it
        judgement = judge().judge(top.topic, allowed)
        papers = [m.paper for m in judgement.members]
        clear = {m.paper.id for m in judgement.members if m.clearly}
        said = f"{kind}papers judged about “{top.topic}” ({judgement.clearly} clearly)"
        if top.bench and top.bench != top.topic:
            # "the highest GSM8K accuracy of a paper on math reasoning": those naming GSM8K too
            named = catalogue.mentioning(top.bench) - {p.id for p in papers}
            named = named if allowed is None else named & allowed
            papers += catalogue.papers.many(named)
            # those naming the benchmark only touch on the topic: its own papers first
            said = f"{said} or naming {top.bench}"
        if not papers:  # none judged about it: the closest, said as such
            papers = [m.paper for m in judgement.closest]
            clear = None
            said = f"{kind}papers closest to “{top.topic}” (none judged about it)"
        elif not any(_stated(p, top, stated) for p in papers):
            # none judged about it states one: the closest papers too, each said as such
            judged = {p.id for p in papers}
            near = [m.paper for m in judgement.closest if m.paper.id not in judged]
            if any(_stated(p, top, stated) for p in near):
                papers += near
                closest = {p.id for p in near}
                said = f"{said} or closest to it"
    else:
        ids = allowed if allowed is not None else set(catalogue.papers)
        papers = catalogue.papers.many(ids)
        said = f"{kind}papers at ICML 2024"
    if not papers:
        return None
    plan = QueryPlan(kind="list", topic=top.topic)
    return answer(question, standalone, plan, top, papers, said, clear, closest, stated)


def _stated(paper: Paper, top: Asked, stated: dict[str, list[Figure]]) -> list[Figure]:
    """The paper's figures of the asked measure, read once per answer."""
    if paper.id not in stated:
        stated[paper.id] = figures(paper, top)
    return stated[paper.id]
