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


def test_a_bound_weaker_than_sgds_goes_against_sharper_than_sgd() -> None:
    sentence = "We show that the derived generalization bounds of SWA are sharper than SGD."
    question = "Why do the generalization bounds derived for SWA come out weaker than plain SGD's?"
    assert contradicted(question, [sentence], "Stability of Weight Averaging") == sentence


def test_accuracy_said_to_fall_goes_against_accuracy_that_improves() -> None:
    sentence = "When humans are given conformal prediction sets their accuracy on tasks improves."
    question = "Why did participants' task accuracy fall when shown conformal prediction sets?"
    assert contradicted(question, [sentence], "A Randomized Trial") == sentence


def test_counts_of_two_kinds_of_one_noun_do_not_contradict() -> None:
    sentences = [
        "We use HarmBench for a comparison of 18 red teaming methods and 33 target LLMs.",
        "We tested our algorithm on three code generation benchmarks.",
    ]
    swapped = "HarmBench runs 33 automated red-teaming methods against 18 target models."
    assert contradicted(swapped, sentences, "HarmBench") == sentences[0]
    other_kind = "Which two target benchmarks is it tested on?"
    assert contradicted(other_kind, sentences, "HarmBench") == ""


def test_a_result_said_for_any_embedding_goes_against_one_for_a_kind() -> None:
    sentence = (
        "We show two different outcomes for the sparse regime with q-ary data tokens: (1) if "
        "the data is embedded with roots of unities, then a min-degree interpolator is learned, "
        "(2) if the data is not embedded as such, RF models may not learn minimal degree "
        "interpolators."
    )
    question = (
        "Why do random feature models trained on q-ary tokens converge to minimal-degree "
        "interpolators no matter how the tokens are embedded?"
    )
    assert contradicted(question, [sentence], "Random Features") == sentence


def test_an_error_that_drops_is_no_fall_against_improves() -> None:
    sentence = "Our method improves robustness and reduces the test error of the classifier."
    question = "Why does the test error of the classifier drop with the method?"
    assert contradicted(question, [sentence], "Robust Training") == ""
