"""Whether an abstract supplies what a question's parts ask for, sentence by sentence: a
number of the asked thing within a few words of it, a name of the asked kind, one of the
choices listed. `check_abstract` gives the parts no sentence supplies (the "does not
state" note) and the sentence that supplies each of the rest."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rag.answer.numbers_given import read_tokens, supplies_number
from rag.answer.question_parts import (
    EVALUATED,
    REPORTED,
    TESTED_ON,
    TOKEN_EDGES,
    QuestionPart,
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
    stems, _, _ = read_tokens(sentence)
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


# a verb of saving, which says nothing of what is saved
SAVING_VERBS = frozenset(content_terms("save saves saving cut cuts reduce reduces lower decrease"))
# a list of two or more names after "on": "on CIFAR-10, SVHN and TinyImagenet-200"
_NAME_ITEM = r"[A-Z][\w.-]*[A-Z0-9][\w.-]*"
_TESTED_ON_NAMES = re.compile(
    rf"\b(?:on|across|over)\s+(?:the\s+)?{_NAME_ITEM}(?:,\s+{_NAME_ITEM})*,?\s+(?:and|or)\s+"
    rf"{_NAME_ITEM}"
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
    about = part.target - name_terms
    if not about or about <= SAVING_VERBS:  # GaLore "Memory-Efficient": memory is still asked
        about = part.target
    if part.degree and _said_in_degree(sentence, part):
        return True
    if part.kind == "number":
        return supplies_number(part, sentence, question, about)
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
FIELD_ACRONYMS = frozenset("nlp ml ai rl cv llm vlm mllm mmllm lmm sota".split())


def _holds_name(name: str, sentence: str) -> bool:
    """The sentence writes the name, inside a longer one too ("TinyLlama-1.1B", "LLaMA2"),
    or its initials ("GNN" for graph neural networks)."""
    key = name.lower().rstrip("s")
    return key in sentence.lower() or key in initials(sentence)


def _said_in_degree(sentence: str, part: QuestionPart) -> bool:
    """ "How much better": "dramatically better"; "how much code": "minimal code addition"."""
    words = [w.lower().strip(TOKEN_EDGES) for w in sentence.split()]
    stems, _, _ = read_tokens(sentence)  # each token's stems, read once per sentence
    near = [i for i, s in enumerate(stems) if any(stems_match(t, part.target) for t in s)]
    return any(words[j] in _DEGREE_WORDS for i in near for j in range(max(0, i - 2), i + 1))


_DEGREE_WORDS = frozenset(
    "dramatically significantly substantially considerably markedly vastly greatly slightly "
    "marginally minimal minimally negligible little few modest".split()
)
_URL = re.compile(r"https?://\S+|\bwww\.\S+|\S+\.github\.io\S*", re.I)


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
