"""Whether an abstract supplies what a question's parts ask for, sentence by sentence: a
number of the asked thing within a few words of it, a name of the asked kind, one of the
choices listed. `check_abstract` gives the parts no sentence supplies (the "does not
state" note) and the sentence that supplies each of the rest."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rag.answer.question_parts import (
    CHANGE_WORDS,
    ENUMERATOR,
    EVALUATED,
    KIND_WORDS,
    MATH_QUANTITY,
    MULTIPLIERS,
    REPORTED,
    SENTENCE_WINDOW,
    TESTED_ON,
    TOKEN_EDGES,
    QuestionPart,
    is_number_word,
    is_quantity,
)
from rag.text import (
    NAME,
    content_terms,
    folded,
    initials,
    split_sentences,
    stems_match,
    writes_name,
)

_TIME_UNITS = frozenset("seconds minutes hours days weeks months years".split())
_OUTPERFORMING = frozenset(content_terms("outperforms surpasses beats exceeds improves"))
# what a gain is over ("its margin over earlier methods"): no quantity of its own
_GAIN_OVER = frozenset(
    content_terms("earlier prior previous existing baseline competitor state-of-the-art sota")
)
_GAIN_WORDS = frozenset(content_terms("gain improvement boost speedup margin"))
# a gain as abstracts state it, after the word for it: "outperforms … by up to 14.3%"
_GAIN_STATED = re.compile(
    r"\b(?:outperform|surpass|beat|exceed|improv|gain|margin|boost)\w*\b[^.;]{0,60}?"
    r"\d[\d.,]*\s*(?:%|x\b|×|points\b|pp\b|times\b)",
    re.I,
)
_HOW_FAR = re.compile(r"\bhow\s+far\b[^?]*\bfrom\b", re.I)
_GAP_SAID = re.compile(
    r"\b(?:(?:nearly|almost|exactly|closely)\s+match\w*|match\w*\s+(?:the\s+)?(?:known\s+)?"
    r"(?:lower|upper)\s+bounds?|(?:is|are)\s+tight|minimax[- ]optimal|optimal\s+up\s+to)\b",
    re.I,
)
_HOW_FAST = re.compile(r"\bhow\s+(?:fast|quickly)\b[^?]*\bconverg", re.I)
_RATE = r"(?:(?:optimal|linear|sublinear|superlinear|exponential|geometric|polynomial|fast|faster)\s+rates?|\\?O\()"
_RATE_SAID = re.compile(rf"\bconverg\w*\b[^.;]*{_RATE}|{_RATE}[^.;]*\bconverg", re.I)


@lru_cache(maxsize=4096)
def _read(
    sentence: str,
) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...], tuple[int, ...]]:
    """Each token's stems, where the quantities are and which of them are magnitudes;
    abstracts' sentences recur."""
    tokens = sentence.split()
    stems = tuple(tuple(content_terms(t)) for t in tokens)
    listed = [i for i, t in enumerate(tokens) if ENUMERATOR.fullmatch(t.strip(",;:."))]
    # "(1) … (4) …" numbers findings, not things; one "(5) seeds" is a count
    skipped = set(listed) if len(listed) >= 2 else set()
    numbers = tuple(i for i, tok in enumerate(tokens) if is_quantity(tok) and i not in skipped)
    magnitudes = [i for i in numbers if _magnitude(tokens, i)]
    # "an order of magnitude faster" says how much without a number
    magnitudes += [
        i for i, t in enumerate(tokens)
        if t.strip(TOKEN_EDGES).lower() == "magnitude" and i >= 2
        and tokens[i - 1].lower() == "of" and tokens[i - 2].lower() in ("order", "orders")
    ]  # fmt: skip
    return stems, numbers, tuple(sorted(magnitudes))


_NAMING = ("the", "namely", "i.e.,", "i.e.")
# "the reward model, the key component …", "a new model, the first of its kind": no name
_NOT_A_NAME = frozenset(
    "first second third last key main major core central same only new following most "
    "one other whole entire".split()
)


def _named_after(sentence: str, target: frozenset[str]) -> bool:
    """ "extend to a new privacy model, the continual observation setting": the thing asked
    for, named in lower case right after the words that ask for it (two or more of them:
    "popular models, namely …" may name a property, not the models)."""
    tokens = sentence.split()
    stems, _, _ = _read(sentence)
    for i, token in enumerate(tokens[:-2]):
        if not token.endswith(",") or not any(stems_match(t, target) for t in stems[i]):
            continue
        before = {t for s in stems[max(0, i - 3) : i + 1] for t in s}
        asked = len(target) >= 2 and all(
            any(stems_match(b, frozenset([t])) for b in before) for t in target
        )
        named = tokens[i + 2].lower().strip(",.;:()")
        if (
            asked
            and tokens[i + 1].lower() in _NAMING
            and named.isalpha()
            and not (named in _NOT_A_NAME or named.endswith("est"))
        ):
            return True
    return False


# "a logarithmic number of single-agent RL problems", "polynomially many samples": a count
# told by its growth ("a small number of" tells none)
_GROWTH_COUNT = re.compile(
    r"\b(?:(?:a|an)\s+(?:logarithmic|polylogarithmic|polynomial|constant|linear|exponential|"
    r"sublinear)\s+number\s+of|(?:logarithmically|polynomially|exponentially|linearly)\s+"
    r"many)\s+((?:[\w-]+\s+){0,3}[\w-]+)",
    re.I,
)


def _many_of(sentence: str, target: frozenset[str]) -> bool:
    return any(
        any(stems_match(t, target) for t in content_terms(m.group(1)))
        for m in _GROWTH_COUNT.finditer(sentence)
    )


# a list of two or more names after "on": "on CIFAR-10, SVHN and TinyImagenet-200"
_NAME_ITEM = r"[A-Z][\w.-]*[A-Z0-9][\w.-]*"
_TESTED_ON_NAMES = re.compile(
    rf"\b(?:on|across|over)\s+(?:the\s+)?{_NAME_ITEM}(?:,\s+{_NAME_ITEM})*,?\s+(?:and|or)\s+"
    rf"{_NAME_ITEM}"
)


_NO_COUNT = frozenset({"one", "single", "half"})  # "one-shot", "single-cell", "half-space"


def _counted_compound(sentence: str, target: frozenset[str]) -> bool:
    """ "how many stages": "a three-stage protocol", a count joined to what it counts."""
    for token in sentence.split():
        head, _, rest = token.strip(TOKEN_EDGES).lower().partition("-")
        counted = head.isdigit() or (is_number_word(head) and head not in _NO_COUNT)
        if (
            counted
            and rest[:1].isalpha()
            and any(stems_match(t, target) for t in content_terms(rest))
        ):
            return True
    return False


def _magnitude(tokens: list[str], i: int) -> bool:
    """A quantity that can say how much bigger: digits ("2.5x", "40%"), maths, "twice",
    or a number word with "times" or "-fold" ("three times"), not "three steps"."""
    token = tokens[i].strip(TOKEN_EDGES).lower()
    if re.fullmatch(r"(?:19|20)\d\d", token):
        return False  # "(FOCS 2012)": a year says no size
    if any(c.isdigit() for c in token) or MATH_QUANTITY.search(token) or token in MULTIPLIERS:
        return True
    after = tokens[i + 1].strip(TOKEN_EDGES).lower() if i + 1 < len(tokens) else ""
    before = " ".join(t.lower() for t in tokens[max(0, i - 2) : i])
    return (
        after in ("times", "fold", "orders", "order", "percent", "points", "percentage")
        or after in _TIME_UNITS  # "from four hours to two hours"
        or token.endswith("fold")
        or before in ("factor of", "by a")  # "by a factor of two", "by a third"
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
        if not (asked and tokens[j].strip(TOKEN_EDGES).lower() in asked)
        and not (
            j + 1 < len(stems)
            and set(stems[j + 1]) & KIND_WORDS
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
        t.strip(TOKEN_EDGES).lower()
        for t in question.split()
        if is_quantity(t) and MATH_QUANTITY.search(t) and "\\times" not in t and "×" not in t
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
    if part.kind == "number":
        return _supplies_number(part, sentence, question, about)
    words = content_terms(sentence)
    # "which base language model": "LLaMA-2 7B model" names it even though the paper's own
    # title says "language model"; "which datasets": "on ImageNet and COCO" names them.
    topical = any(
        stems_match(w, part.target | (part.focus - name_terms) | EVALUATED) for w in words
    )
    # "on which datasets is it shown": a results sentence names them ("achieves … on
    # CIFAR-10, SVHN and TinyImagenet-200") without the word "dataset"
    topical = topical or bool(
        part.target & TESTED_ON
        and _TESTED_ON_NAMES.search(sentence)
        and any(stems_match(w, REPORTED) for w in words)
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
    tested = part.target & TESTED_ON
    if tested and not any(stems_match(w, tested | REPORTED) for w in words):
        return False
    # "on which NLP tasks": "experiments across question answering, summarization, and
    # classification" lists them in lowercase
    listed = part.target & _KINDS_LISTED and _LISTED.search(sentence)
    if listed and any(stems_match(w, REPORTED) for w in words):
        return True
    asked = question.lower()
    # "Which model was built after …" asks for the paper's own name; otherwise a name the
    # question does not hold, and not the paper's own parts ("NF" and "DAE" in a paper
    # titled "… Denoising AutoEncoder and Normalizing Flow …").
    own_asked = _MADE.search(part.text) is not None
    # "standard algorithms such as alternating projections": named by example, lower case
    if any(
        any(stems_match(t, part.target) for t in content_terms(m.group(1)))
        for m in _SUCH_AS.finditer(sentence)
    ):
        return True
    if part.kind == "name" and _named_after(sentence, part.target):
        return True
    shortened, written = _question_acronyms(question)
    kinds = _spelled_kinds(sentence, written)
    return any(
        not re.search(rf"(?<![\w-]){re.escape(name.lower().rstrip('s'))}s?(?![\w-])", asked)
        and not _asked_name_made_word(name, asked)
        and (own_asked or not _own_name(name, title))
        and folded(name).rstrip("s") not in FIELD_ACRONYMS
        and name.lower().rstrip("s") not in shortened
        and name not in kinds
        for name in NAME.findall(sentence) + _CALLED.findall(sentence)
    )


def _supplies_number(
    part: QuestionPart, sentence: str, question: str, about: frozenset[str]
) -> bool:
    """A number part: a quantity near the thing counted, or a count, gap, rate or gain in
    the forms abstracts write them."""
    if _baselines_figure_asked(part.text, sentence):
        return False
    if _CHOICES_LISTED.search(sentence):
        # "how many actions can each node choose between": "can choose to either `listen`,
        # `broadcast`, … or to `isolate`" counts them by naming them
        said = set(content_terms(sentence))
        if sum(any(stems_match(w, frozenset([f])) for w in said) for f in part.focus) >= 2:
            return True
    if not part.compared and (_counted_compound(sentence, about) or _many_of(sentence, about)):
        return True
    if (
        # "how far is that from the best known": "nearly matches upper bounds"
        (_HOW_FAR.search(part.text) and _GAP_SAID.search(sentence))
        # "how fast do the estimates converge": "at a minimax optimal rate"
        or (_HOW_FAST.search(part.text) and _RATE_SAID.search(sentence))
    ):
        return any(stems_match(w, part.focus) for w in content_terms(sentence))
    restated = _quantities(question)  # the question's own "$O(e^{-ct})$" does not answer it
    gain = part.target - _GAIN_OVER  # "how many baselines" asks no gain
    if gain and gain <= CHANGE_WORDS:
        # "how big was the best gain", "what margins does it post": "outperforms … by 40%";
        # near the part's own words, a test's nouns ("on 3 datasets") count no gain
        wide = part.window >= SENTENCE_WINDOW
        terms = part.target | CHANGE_WORDS | (EVALUATED if wide else _OUTPERFORMING)
        return _has_number_near(sentence, terms, part.window, part.compared, restated)
    if part.target & _GAIN_WORDS and _GAIN_STATED.search(sentence):
        return True  # "how large are its accuracy gains": "outperforms … by up to 14.3%"
    near = part.target if part.window >= SENTENCE_WINDOW else about
    return _has_number_near(sentence, near, part.window, part.compared, restated)


@lru_cache(maxsize=256)
def _question_acronyms(question: str) -> tuple[frozenset[str], frozenset[str]]:
    """The question's names shortened ("tnl" for "TransNormerLLM") and the acronyms it
    writes ("gnn"), read once per question, not once per sentence."""
    written = {a.lower().rstrip("s") for a in re.findall(r"\b[A-Z]{2,}s?\b", question)}
    return frozenset(initials(question)), frozenset(written)


def _spelled_kinds(sentence: str, acronyms: frozenset[str]) -> set[str]:
    """Words of capitalised runs spelling a kind of model the question writes as an acronym,
    or a field's ("Graph Neural Network" for "GNN", "Large Language Models"): no name."""
    # "Perturbation Evaluation of Appending Knowledge" for "PEAK", "Mixed-Integer Linear
    # Programming" for "MILP": small words skipped, each part of a hyphenated word counted
    return {
        word
        for run in _SPELLED_RUN.finditer(sentence)
        if "".join(p[0] for p in re.findall(r"[A-Z][a-z]+", run[0])).lower()
        in FIELD_ACRONYMS | acronyms
        for word in {*run[0].split(), *re.split(r"[\s-]+", run[0])}
    }


_SPELLED_RUN = re.compile(
    r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)*(?:\s+(?:(?:of|for|and|the|to|in|on|with|via|by|from|a|an)\s+)?"
    r"[A-Z][a-z]+(?:-[A-Z][a-z]+)*){1,5}\b"
)


_SUCH_AS = re.compile(
    r"\b([\w-]+)\s+(?:such as|e\.g\.,?|namely|including)\s+"
    r"(?!(?:those|these|the|a|an|this|that|other|its|their|our|such|many|several|some|ones?)\b)"
    r"[a-z][\w-]*[a-z]",
    re.I,
)
# "an open source library called dclib": a name, though written in lower case
_CALLED = re.compile(
    r"(?<!so-)\b(?:called|dubbed|termed)\s+(?!(?:the|a|an|as|it|this|that|these|them)\b)"
    r"([A-Za-z][\w-]*[\w])",
    re.I,
)


def _asked_name_made_word(name: str, asked: str) -> bool:
    """ "MATRIX-simulated data" of a question on MATRIX: the question's name, described."""
    head, _, rest = name.partition("-")
    return (
        len(head) >= 2
        and rest.isalpha()  # "Llama-2-chat" is another name, "MATRIX-simulated" described
        and rest.islower()
        and re.search(rf"(?<![\w-]){re.escape(head.lower())}(?![\w-])", asked) is not None
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
    words = [w.lower().strip(TOKEN_EDGES) for w in sentence.split()]
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


# "What accuracy did the neural-network baseline reach" against "QORA achieves 100%
# accuracy … than a neural-network baseline": the figure is the paper's, not the baseline's
_BASELINE_ASKED = re.compile(
    r"\b(?:did|does|do|was|were|is|are)\s+(?:the|its|their)\s+"
    r"(?:(?!(?:outperform\w*|beat\w*|surpass\w*|exceed\w*|improv\w*|over|than|compared|"
    r"against|achiev\w*|get|gets|gain\w*|the|a|an)\b)[\w-]+\s+){0,3}?"
    r"(?:baselines?|competitors?|competing\s+methods?)\b",
    re.I,
)
_COMPARED_WITH = re.compile(
    r"\b(?:than|over|compared\s+(?:to|with)|relative\s+to|against|versus|vs\.?|outperform\w*)\b",
    re.I,
)


def _baselines_figure_asked(part: str, sentence: str) -> bool:
    """The part asks a baseline's figure, and the sentence names baselines only as what its
    figure is compared with."""
    if not _BASELINE_ASKED.search(part):
        return False
    mentions = [m.start() for m in re.finditer(r"\bbaselines?\b|\bcompet\w+", sentence, re.I)]
    return bool(mentions) and all(
        _COMPARED_WITH.search(sentence[max(0, i - 60) : i]) for i in mentions
    )
