"""The LLM question planner against the scripted OpenAI-protocol server: the model's plan
is used when it holds up against the catalogue, and every failure (server error, prose,
malformed JSON, a plan missing what its kind needs) falls back to the parser's plan."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.openai_stub import (
    Reply,
    ScriptedLLMServer,
)

DESCRIBED = "Which papers let many devices learn one model without sharing their data?"
STAN_LI = "Which ICML 2024 papers did Stan Z. Li co-author?"


def planner(llm_assistant: Callable[..., Any]) -> Any:
    return llm_assistant(llm_planner=True, llm_max_retries=0)


def draft(**fields: Any) -> Reply:
    return Reply.text(json.dumps(fields))


def test_a_described_topic_is_planned_by_its_name(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(draft(kind="list", topic="federated learning"))
    answer = planner(llm_assistant).ask(DESCRIBED)
    assert answer.plan.source == "llm"
    assert (answer.plan.kind, answer.plan.topic) == ("list", "federated learning")
    assert answer.aggregate is not None and answer.aggregate.count > 0
    assert any("FedSC" in p.title for p in answer.aggregate.papers)
    # the answer says which name it read the description as
    assert answer.answer.startswith("Read as: “federated learning”.")
    # the planner's request asks for the plan of this question, in the output schema
    (request,) = llm_server.requests
    sent = json.dumps(request.body)
    assert DESCRIBED.replace("?", "") in sent and "like_title" in sent
    assert llm_server.unexpected == 0 and llm_server.pending == 0


def test_the_planner_returns_facets_and_named_comparisons(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    question = "Which papers study attacks that fool graph networks?"
    facets = ["adversarial robustness", "graph neural networks"]
    llm_server.queue(draft(kind="list", topic="adversarial robustness of GNNs", facets=facets))
    answer = planner(llm_assistant).ask(question)
    assert answer.plan.source == "llm" and answer.plan.facets == facets
    assert "“adversarial robustness” and “graph neural networks”" in answer.answer
    llm_server.queue(draft(kind="compare", compared=["BiLLM", "AQLM"]))
    compared = planner(llm_assistant).ask("How do the two extreme LLM quantizers compare?")
    assert compared.plan.compared == ["BiLLM", "AQLM"]
    assert [p.paper_id for p in compared.aggregate.papers] == ["qOl2WWOqFg", "5mCaITRTmO"]
    assert llm_server.unexpected == 0


def test_names_are_resolved_against_the_catalogue(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(draft(kind="metadata", authors=["stan z. li"], statuses=["Poster"]))
    answer = planner(llm_assistant).ask(STAN_LI)
    assert answer.plan.source == "llm"
    assert answer.plan.constraints.authors == ["Stan Z. Li"]
    assert answer.plan.constraints.statuses == ["Poster"]
    assert answer.aggregate is not None and answer.aggregate.exact


def test_an_unknown_institution_is_said_not_guessed(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(draft(kind="count", affiliations=["Hogwarts School of Wizardry"]))
    answer = planner(llm_assistant).ask("How many papers come from Hogwarts?")
    assert answer.plan.kind == "metadata" and answer.plan.unresolved[0].kind == "institution"
    assert "No ICML 2024 paper lists an affiliation matching" in answer.answer


def test_papers_like_a_named_paper(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(draft(kind="similar", like_title="BiLLM"))
    answer = planner(llm_assistant).ask("Anything else in the spirit of BiLLM?")
    assert (answer.plan.kind, answer.plan.like_paper) == ("similar", "qOl2WWOqFg")
    assert answer.citations[0].paper_id == "qOl2WWOqFg" and answer.aggregate is not None


@pytest.mark.parametrize(
    "question",
    [
        "What was the acceptance rate at ICML 2024?",  # a field the catalogue does not record
        "Which papers did Stan Z. Li co-author without Zhangyang Gao?",  # an excluded name
        "Who are the top 3 authors by number of ICML 2024 papers?",  # a ranking's length
    ],
)
def test_a_reading_the_draft_cannot_hold_keeps_the_parser_plan(
    question: str, llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    # a model's draft has no field for these: asking it could only lose what was read
    answer = planner(llm_assistant).ask(question)
    assert answer.plan.source == "parser" and not llm_server.requests


@pytest.mark.parametrize(
    "reply",
    [
        Reply.error(500),
        Reply.text("I think this question is about a list of papers."),
        Reply.text('{"kind": "list", "topic": '),
        Reply.text('{"kind": "census"}'),
        Reply.text('{"kind": "list", "topic": ""}'),  # a list of what?
        Reply.text('{"kind": "metadata"}'),  # no author, institution or status
    ],
    ids=["server-error", "prose", "cut-json", "unknown-kind", "list-no-topic", "bare-metadata"],
)
def test_any_failure_falls_back_to_the_parser_plan(
    reply: Reply, llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    llm_server.queue(reply)
    answer = planner(llm_assistant).ask(STAN_LI)
    assert answer.plan.source == "parser" and answer.plan.kind == "metadata"
    assert answer.plan.constraints.authors == ["Stan Z. Li"]
    assert answer.aggregate is not None and answer.aggregate.count == 3
    assert llm_server.unexpected == 0 and llm_server.pending == 0


def test_the_planner_can_be_turned_off(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    answer = llm_assistant(llm_planner=False, llm_max_retries=0).ask(STAN_LI)
    assert answer.plan.source == "parser" and not llm_server.requests
