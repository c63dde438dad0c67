"""Sentence splitting and text cleaning (rag/text.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.settings import BUNDLED_CORPUS
from rag.text import (
    clean_text,
    content_terms,
    first_sentence,
    normalise_for_match,
    split_sentences,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We use e.g. BERT and i.e. GPT. Next one.",
            ["We use e.g. BERT and i.e. GPT.", "Next one."],
        ),
        ("Smith et al. Showed it. Yes.", ["Smith et al. Showed it.", "Yes."]),
        (
            "Accuracy rose by 3.5 points. Then 2.0% more.",
            ["Accuracy rose by 3.5 points.", "Then 2.0% more."],
        ),
        # A period inside inline math is not a sentence end.
        (
            "We bound $O(n^{1.5}). T$ here. Next.",
            ["We bound $O(n^{1.5}). T$ here.", "Next."],
        ),
        (
            "The form $R(\\cdot) \\propto R_1(\\cdot) ... R_N(\\cdot)$ holds. Next.",
            ["The form $R(\\cdot) \\propto R_1(\\cdot) ... R_N(\\cdot)$ holds.", "Next."],
        ),
        # Abbreviations behind an opening bracket (14 abstracts of the corpus have "(e.g.").
        (
            "It works well (e.g. Transformers do). Next.",
            ["It works well (e.g. Transformers do).", "Next."],
        ),
        (
            "Data are i.i.d. Samples are drawn. Done.",
            ["Data are i.i.d. Samples are drawn.", "Done."],
        ),
        ("See Fig. 3 for it. Done.", ["See Fig. 3 for it.", "Done."]),
        ("It works! Does it? Yes.", ["It works!", "Does it?", "Yes."]),
        # An unpaired dollar is money, not math: splitting goes on after it.
        ("It costs $5. Then it rises. Next.", ["It costs $5.", "Then it rises.", "Next."]),
        ("An escaped \\$5. Then more.", ["An escaped \\$5.", "Then more."]),
        ("", []),
        ("   ", []),
        ("no final period", ["no final period"]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@given(st.text(alphabet=st.sampled_from(list("ab .!?$()eg1\n\t\x00")), max_size=80))
def test_split_sentences_loses_and_invents_nothing(text: str) -> None:
    sentences = split_sentences(text)
    assert all(s and s == s.strip() for s in sentences)
    assert "".join(sentences).replace(" ", "") == clean_text(text).replace(" ", "")


def test_no_sentence_of_the_bundled_corpus_ends_inside_math() -> None:
    checked = 0
    with BUNDLED_CORPUS.open(encoding="utf-8") as handle:
        for line in handle:
            abstract = json.loads(line)["abstract"]
            if abstract.replace("\\$", "").count("$") % 2:
                continue  # unpaired dollars: the math rule is off for this abstract
            for sentence in split_sentences(abstract):
                assert sentence.replace("\\$", "").count("$") % 2 == 0, sentence
                assert not sentence.endswith(("(e.g.", "(i.e.", " e.g.", " et al.")), sentence
                checked += 1
    assert checked > 15_000


def test_clean_text_drops_control_characters_and_keeps_latex_and_html() -> None:
    assert clean_text("a\x00b\x07c\x1f d\x7f") == "a b c d"
    assert clean_text("  two\n\n lines\tand\r\nspaces ") == "two lines and spaces"
    raw = "Bound $\\mathcal{O}(\\sqrt{T})$ with <b>bold</b> &amp; <br/>"
    assert clean_text(raw) == raw
    # NFC: a decomposed é becomes the composed one, so equal texts hash equally.
    assert clean_text("e\u0301") == "\u00e9"


def test_first_sentence_is_bounded() -> None:
    assert first_sentence("Short one. Second.") == "Short one."
    long = "word " * 60 + "end. Next."
    head = first_sentence(long)
    assert len(head) == 120 and head.endswith("…")
    assert first_sentence("") == ""


def test_content_terms_and_normalise_for_match() -> None:
    assert content_terms("The proposed methods are learning Transformers") == [
        "learn",
        "transform",
    ]
    assert normalise_for_match("Accuracy: 3.5%, (state-of-the-art).") == (
        "accuracy 3.5% state of the art"
    )
