"""Premises that give the paper what its abstract gives earlier work: a first it credits
to cited work, and roles swapped between the paper and what came before."""

from __future__ import annotations

import pytest

from rag.answer.contradictions import contradicted
from rag.answer.credited import first_credited
from rag.answer.swapped import swapped_roles

BOLTE = (
    "We build upon the work by Bolte et al. (2022), who prove linear convergence of nonsmooth "
    "ITD under a piecewise Lipschitz smooth assumption."
)
NSID = [
    "We analyze two popular approaches: iterative differentiation (ITD) and approximate "
    "implicit differentiation (AID).",
    BOLTE,
    "In the deterministic case, we provide a linear rate for AID and an improved linear rate "
    "for ITD.",
]
CATAPULT = (
    'We provide evidence that the spikes in the training loss of SGD are "catapults", an '
    "optimization phenomenon originally observed in GD with large learning rates in "
    "Lewkowycz et al. (2020)."
)


def test_a_first_the_abstract_credits_to_cited_work_is_reported() -> None:
    question = (
        "How does the nonsmooth implicit differentiation paper manage to be the first to show "
        "that nonsmooth iterative differentiation (ITD) converges linearly?"
    )
    assert first_credited(question, NSID) == BOLTE
    assert contradicted(question, NSID, "Nonsmooth Implicit Differentiation") == BOLTE


def test_a_rare_word_alone_ties_the_first_to_the_cited_work() -> None:
    question = "As the study that first discovered catapult dynamics, where do catapults occur?"
    assert first_credited(question, [CATAPULT], lambda w: 3 if w == "catapult" else 900) == (
        CATAPULT
    )
    # a common word is not enough to say the claim and the sentence are one thing
    assert first_credited(question, [CATAPULT], lambda w: 900) == ""


@pytest.mark.parametrize(
    "question",
    [
        # asked, not claimed
        "Is the nonsmooth implicit differentiation paper the first to show that nonsmooth ITD "
        "converges linearly?",
        # "the first step" is an order, not a credit
        "What is the first step to show that nonsmooth ITD converges linearly?",
    ],
)
def test_a_first_asked_or_an_order_is_no_claim(question: str) -> None:
    assert first_credited(question, NSID) == ""


def test_a_first_the_abstract_claims_itself_stands() -> None:
    ours = "We give the first proof that nonsmooth ITD converges linearly for any contraction."
    question = "How is the paper the first to show that nonsmooth ITD converges linearly?"
    assert first_credited(question, [ours, BOLTE]) == ""


DSM = [
    "This paper introduces a novel deep-learning-based approach for numerical simulation of a "
    "time-evolving Schrödinger equation inspired by stochastic mechanics.",
    "Unlike existing approaches, which exhibit computational complexity that scales "
    "exponentially in the problem dimension, our method allows us to adapt to the latent "
    "low-dimensional structure of the wave function.",
    "Moreover, we propose novel equations for stochastic quantum mechanics, resulting in "
    "quadratic computational complexity with respect to the number of dimensions.",
]


def test_roles_swapped_between_the_paper_and_earlier_work_are_reported() -> None:
    question = (
        "Why does Deep Stochastic Mechanics scale exponentially with the problem dimension, "
        "while earlier approaches scale quadratically?"
    )
    assert swapped_roles(question, DSM, "Deep Stochastic Mechanics") == DSM[1]


def test_roles_given_the_right_way_round_stand() -> None:
    question = (
        "Why does Deep Stochastic Mechanics scale quadratically with the problem dimension, "
        "while earlier approaches scale exponentially?"
    )
    assert swapped_roles(question, DSM, "Deep Stochastic Mechanics") == ""


def test_a_name_earlier_work_uses_is_not_the_papers_side() -> None:
    # "NeRF" is named by the question's side of the paper but written of current methods
    sentences = [
        "Current methods mainly utilize NeRF-based methods to represent the static scene and "
        "an additional time-variant MLP to model scene deformations.",
        "We propose Superpoint Gaussian Splatting (SP-GS), which employs explicit 3D Gaussians "
        "to reconstruct the scene.",
    ]
    question = (
        "Compared with the 3D-Gaussian approaches it improves on, what does SP-GS gain by "
        "keeping a NeRF representation of the static scene plus a time-variant MLP?"
    )
    assert swapped_roles(question, sentences, "Superpoint Gaussian Splatting") == sentences[0]


def test_a_comparison_inside_one_clause_is_no_swap() -> None:
    sentences = [
        "We provide a refined stability analysis with generalization bounds which can be "
        "sqrt(n)-times faster than the previous results."
    ]
    question = (
        "By what factor, as a function of the sample size n, can the refined stability bounds "
        "be faster than earlier results?"
    )
    assert swapped_roles(question, sentences, "Stability Bounds") == ""


@pytest.mark.parametrize(
    "sentence",
    [
        "Zhang et al. (ICML 2021, PLMR 139) introduced probabilistic generating circuits (PGCs) "
        "to unify probabilistic circuits and DPPs.",
        "We improve a recent work of Woodruff and Yasuda (FOCS 2022) which introduced "
        "probabilistic generating circuits to unify probabilistic circuits and DPPs.",
        "Recent work introduced probabilistic generating circuits to unify probabilistic "
        "circuits and DPPs.",
    ],
)
def test_earlier_work_is_told_by_venue_citations_and_recent_work(sentence: str) -> None:
    question = (
        "As the work that first proposed probabilistic generating circuits to unify "
        "probabilistic circuits and DPPs, what gives them their power?"
    )
    assert first_credited(question, [sentence]) == sentence


def test_an_order_is_no_first_the_paper_claims() -> None:
    ordered = "In this paper, we first present an explanation of the catapults in SGD."
    question = "As the study that first discovered catapults, where do catapults occur in SGD?"
    rare = {"catapult": 3}
    assert first_credited(question, [ordered, CATAPULT], lambda w: rare.get(w, 900)) == CATAPULT


def test_a_prior_over_models_is_no_earlier_work_and_an_advantage_over_it_is_ours() -> None:
    sentences = [
        "Its main advantage over previous work is that it allows more flexibility in how "
        "knowledge is transferred between tasks.",
        "For previous approaches, this could only happen indirectly, by means of learning "
        "prior distributions over models.",
        "In contrast, the bounds we prove express meta-learning much more directly as learning "
        "the learning algorithm for future tasks.",
    ]
    question = (
        "The framework moves knowledge between tasks only indirectly, by learning a prior over "
        "models, whereas the earlier approaches it improves on already learned the learning "
        "algorithm for future tasks directly. What does it gain?"
    )
    assert swapped_roles(question, sentences, "Flexible Meta-Learning") == sentences[1]
