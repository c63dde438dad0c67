"""Premises an abstract goes against: the question supposes one thing, a sentence says another.

"Why does X slow training down" against "X speeds training up", "three algorithms"
against "two algorithms are proposed", "90% accuracy" against "80.1% accuracy", "the first
to …" asked as "which earlier …", a rare word of the question written only about earlier
work. Each returns the sentence that says otherwise, which the answer quotes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answer.claims import CONTRASTING, EARLIER, YES_NO
from rag.answer.credited import (
    credited_elsewhere,
    first_credited,
    first_of_its_kind,
    none_exists,
    of_earlier_work,
)
from rag.answer.directions import turned
from rag.answer.misstated import (
    miscounted,
    misnumbered,
    misquoted,
    swapped_counts,
    swapped_values,
)
from rag.answer.scope import other_domain, other_testbed, overgeneral
from rag.answer.swapped import swapped_roles, swapped_subjects
from rag.text import content_terms, stems_match


def contradicted(
    question: str,
    sentences: list[str],
    title: str,
    doc_freq: Callable[[str], int] | None = None,
) -> str:
    """The abstract sentence (or title) that goes against the question's premise, or "":
    one that states the opposite (`directions.turned`) about the same words, a different count of
    the same things ("three algorithms" against "two algorithms are proposed"), or, given
    `doc_freq`, the only place a rare word of the question is written being about earlier
    work ("the RNN-based slot update in PSB" against "existing models … rely on RNN-based
    implementation")."""
    return (
        turned(question, sentences, title)
        or miscounted(question, sentences)
        or misnumbered(question, sentences)
        or misquoted(question, sentences)
        or swapped_values(question, sentences)
        or swapped_counts(question, sentences)
        or _negated(question, sentences)
        or credited_elsewhere(question, sentences)
        or first_credited(question, sentences, doc_freq)
        or swapped_roles(question, sentences, title)
        or swapped_subjects(question, sentences)
        or other_domain(question, sentences, title)
        or other_testbed(question, sentences, title)
        or first_of_its_kind(question, sentences)
        or none_exists(question, sentences)
        or overgeneral(question, sentences)
        or (of_earlier_work(question, sentences, title, doc_freq) if doc_freq else "")
    )


# "not only … but also" adds, it denies nothing; "don't" ends a word, no boundary before it
_NEGATION = re.compile(
    r"(?:\b(?:not|cannot|never|no longer|fails? to|without)\b|n['’]t\b)"
    r"(?!\s+(?:only|just|merely|simply|even)\b)",
    re.I,
)
# "How does D3S get distillation methods to scale …": the question asks how the paper
# overcomes what a sentence says earlier methods cannot do
_ENABLING = re.compile(
    r"\b(?:get|gets|make|makes|let|lets|help|helps|allow|allows|enable|enables)\b", re.I
)
NEGATED_SUBJECT = 2  # content words of what the sentence denies of, shared with the question
NEGATED_WINDOW = 6  # words between the subject and the predicate in the question


def _negated(question: str, sentences: list[str]) -> str:
    """A sentence denying what the question states: "volume-preserving flows are not
    universal" against "If volume-preserving flows are universal, …"."""
    if _NEGATION.search(question) or _ENABLING.search(question) or CONTRASTING.search(question):
        return ""
    if YES_NO.search(question):
        return ""  # "… plus did it need any pre-training?" asks; "without any" answers it
    asked = [content_terms(w) for w in re.findall(r"[\w-]+", question)]
    for sentence in sentences:
        if EARLIER.search(sentence):
            continue  # what earlier work cannot do is no denial of the question's claim
        for negation in _NEGATION.finditer(sentence):
            before = content_terms(
                " ".join(re.findall(r"[\w-]+", sentence[: negation.start()])[-4:])
            )
            after = content_terms(" ".join(re.findall(r"[\w-]+", sentence[negation.end() :])[:2]))
            if not after or len(before) < NEGATED_SUBJECT:
                continue
            predicate = after[0]
            for i, terms in enumerate(asked):
                # "is not known" against "knows": one word family
                if not any(stems_match(predicate, frozenset([t])) for t in terms):
                    continue
                # the subject before the predicate, or its object after ("knows the function")
                window = asked[max(0, i - NEGATED_WINDOW) : i + NEGATED_WINDOW + 1]
                near = {t for ts in window for t in ts} - set(terms)
                if sum(b in near for b in before) >= NEGATED_SUBJECT:
                    return sentence
    return ""
