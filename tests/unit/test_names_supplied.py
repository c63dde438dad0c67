"""Which names answer a "which …" part: not a kind spelled out, not the question's own
name shortened; examples named in lower case do."""

from __future__ import annotations

from rag.answer.question_parts import question_parts
from rag.answer.supplied import check_abstract


def _missing(question: str, abstract: str, title: str = "A Study") -> list[str]:
    return check_abstract(question, question_parts(question), abstract, title, 1).descriptions


def test_a_kind_spelled_out_is_no_name_of_the_models() -> None:
    question = "How many Large Code Models did CACP evaluate, and which models were they?"
    abstract = (
        "Large Language Models' success in text generation has made them better at code. "
        "We evaluate CACP on ten Large Code Models."
    )
    assert _missing(question, abstract) == ["which models were they"]
    named = abstract + " The models are CodeLlama, StarCoder and others."
    assert _missing(question, named) == []


def test_the_questions_acronym_spelled_out_is_no_variant_name() -> None:
    question = "Which three GNN variants was the reverse process applied to?"
    abstract = "Graph Neural Network (GNN) resembles the diffusion process, applied to variants."
    assert _missing(question, abstract) == [
        "which three GNN variants was the reverse process applied to"
    ]
    assert (
        _missing(question, abstract + " We apply it to the GNN variants GCN, GAT and GraphSAGE.")
        == []
    )


def test_the_questions_name_shortened_answers_no_other_part() -> None:
    question = "Which GPU was TransNormerLLM benchmarked on?"
    abstract = "We introduce TransNormerLLM (TNL), a new architecture benchmarked for speed."
    assert _missing(question, abstract) == ["which GPU was TransNormerLLM benchmarked on"]


def test_examples_in_lower_case_name_the_asked_kind() -> None:
    question = "Which standard algorithm does the reduction allow?"
    abstract = (
        "We reduce the problem to a convex feasibility problem, allowing the use of standard "
        "algorithms such as alternating projections."
    )
    assert _missing(question, abstract) == []


def test_what_they_are_called_asks_the_names_of_what_was_counted() -> None:
    parts = question_parts("On how many datasets is it validated, and what are they called?")
    assert [p.kind for p in parts] == ["number", "name"]
    assert parts[1].target == parts[0].target


def test_a_figure_compared_with_the_baseline_is_not_the_baselines() -> None:
    question = "What predictive accuracy did the neural-network baseline reach?"
    compared = (
        "QORA achieves 100% predictive accuracy using far fewer observations than a "
        "neural-network baseline."
    )
    assert _missing(question, compared) == [
        "what predictive accuracy did the neural-network baseline reach"
    ]
    own = "The neural-network baseline reaches 71% predictive accuracy."
    assert _missing(question, own) == []
