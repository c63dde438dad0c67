"""What a question says in passing or asks whether is no premise: a yes/no question, a
quantity "more than two", a statement before the question, a verb in -s, a comparative."""

from __future__ import annotations

from rag.answer.contradictions import contradicted
from rag.answer.premises import unmentioned
from rag.answer.question_parts import question_parts

FOURIER = [
    "Empirically, our FourierFT method shows comparable or better performance with fewer "
    "parameters than LoRA on various tasks, including instruction tuning."
]


def test_asking_whether_it_falls_behind_claims_nothing() -> None:
    asked = "FourierFT trains only 0.064M parameters. Does it fall behind LoRA there?"
    assert contradicted(asked, FOURIER, "Fine-Tuning with Fourier") == ""
    claimed = "FourierFT trains only 0.064M parameters. Why does it fall behind LoRA there?"
    assert contradicted(claimed, FOURIER, "Fine-Tuning with Fourier") == FOURIER[0]


def test_more_than_a_number_is_a_quantity() -> None:
    sentences = [
        "Model fusion, the act of merging multiple models into one by combining their "
        "parameters reduces these costs but doesn't work as well in practice."
    ]
    question = "How does model fusion fare when more than two models are merged?"
    assert contradicted(question, sentences, "Harmony in Diversity") == ""


def test_a_statement_before_the_question_asks_no_number() -> None:
    parts = question_parts(
        "Steering how much weight vectors rotate lessens warmup. What else does it provide?"
    )
    assert [p.kind for p in parts] == ["other"]


def test_a_verb_in_s_and_a_comparative_are_no_premise() -> None:
    abstract = "We control the rotation of weight vectors, which reduces the need for warmup."

    def df(word: str) -> int:  # only these are rare in the corpus
        return 1 if word in ("lessens", "lessen", "steadier", "spikes", "spike") else 500

    question = "Directly steering how weight vectors rotate lessens reliance on warmup, right?"
    assert unmentioned(question, "Rotational Equilibrium", abstract, df) == []
    steadier = "Does controlling the rotation make training steadier?"
    assert unmentioned(steadier, "Rotational Equilibrium", abstract, df) == []
    # a rare thing after an article stays a premise the paper lacks
    assert unmentioned("How do the spikes arise?", "Rotational Equilibrium", abstract, df) == [
        "spikes"
    ]


def test_accuracy_said_to_fall_goes_against_accuracy_that_improves() -> None:
    sentence = "When humans are given conformal prediction sets their accuracy on tasks improves."
    question = "Why did participants' task accuracy fall when shown conformal prediction sets?"
    assert contradicted(question, [sentence], "A Randomized Trial") == sentence


def test_an_error_that_drops_is_no_fall_against_improves() -> None:
    sentence = "Our method improves robustness and reduces the test error of the classifier."
    question = "Why does the test error of the classifier drop with the method?"
    assert contradicted(question, [sentence], "Robust Training") == ""


def test_earlier_bounds_said_looser_agree_with_ours_tighter_than_them() -> None:
    sentence = (
        "We extend this to the user-level setting, rendering a tighter upper bound than the one "
        "proved by Ghazi et al. (2023)."
    )
    question = "Why was the user-level upper bound proved by Ghazi et al. (2023) looser?"
    assert contradicted(question, [sentence], "User-Level Privacy") == ""


def test_a_thing_compared_with_its_own_kind_is_still_turned() -> None:
    sentence = (
        "The observed utilities of candidates in some groups are biased--systematically lower "
        "than their true utilities."
    )
    question = "Some groups' observed utilities are inflated above their true values; why?"
    assert contradicted(question, [sentence], "Selection Under Bias") == sentence


def test_a_premise_inside_a_yes_no_question_is_still_read() -> None:
    sentence = "Large batches reduce the effective total gradient variance in DP-SGD."
    asked = "Is it because large batches increase the effective total gradient variance that DP-SGD needs them?"
    assert contradicted(asked, [sentence], "Batch Size in DP-SGD") == sentence


def test_a_bar_the_stated_value_clears_is_no_other_value() -> None:
    sentence = (
        "FALCON outperforms baselines by a large margin, achieving 22% improvement over the "
        "best baseline on the tieredImageNet dataset."
    )
    cleared = "Does FALCON beat the best baseline by more than 20% on tieredImageNet?"
    assert contradicted(cleared, [sentence], "Fine-grained Classes") == ""
    missed = "Does FALCON beat the best baseline by less than 10%?"
    assert contradicted(missed, [sentence], "Fine-grained Classes") == sentence
