"""The LLM judge of topic membership against the scripted OpenAI-protocol server: papers
near the cut-off are screened in batches, a "yes" counts only with a sentence the
abstract holds, verdicts are cached per (facet, paper), and a failed request leaves the
papers to the calibrated scan."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.openai_stub import (
    Recorded,
    Reply,
    ScriptedLLMServer,
)

QUESTION = "Which ICML 2024 papers are about large language models?"
SCREENED = 6
BATCH = 3


def papers_in(request: Recorded) -> list[tuple[str, str]]:
    """(title, abstract) of every paper the request lists, in order."""
    text = "\n".join(str(m.get("content")) for m in request.messages)
    return re.findall(r"Paper \d+: (.*)\nAbstract: (.*)", text)


def criteria_in(request: Recorded) -> list[str]:
    text = "\n".join(str(m.get("content")) for m in request.messages)
    block = text.split("Criteria", 1)[1].split("For every paper", 1)[0]
    return re.findall(r"^\d+\. (.+)$", block, re.M)


def verdicts(holds: Callable[[str, str], bool], invent: bool = False) -> Reply:
    """Every listed paper judged by `holds(title, abstract)` for every criterion, quoting
    the abstract's first sentence (or an invented one)."""

    def compute(request: Recorded) -> str:
        papers = []
        for n, (title, abstract) in enumerate(papers_in(request), start=1):
            sentence = "We invented this sentence." if invent else abstract.split(". ")[0]
            yes = holds(title, abstract)
            checks = [
                {"criterion": c, "holds": yes, "sentence": sentence if yes else ""}
                for c in range(1, len(criteria_in(request)) + 1)
            ]
            papers.append({"paper": n, "checks": checks})
        return json.dumps({"papers": papers})

    return Reply.computed(compute)


def judge(llm_assistant: Callable[..., Any], tmp_path: Any = None) -> Any:
    return llm_assistant(llm_judge=True, llm_judge_papers=SCREENED, llm_judge_batch=BATCH)


def writes_llm(title: str, abstract: str) -> bool:
    return "language model" in f"{title} {abstract}".lower()


def members(answer: Any) -> dict[str, Any]:
    rows = answer.aggregate.papers if answer.aggregate else []
    return {r.title: r for r in rows if r.membership != "closest"}


def test_papers_near_the_cut_off_are_screened_in_batches_and_cached(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    assistant = judge(llm_assistant)
    assistant._current().judge().screen.cache._db.execute("delete from verdicts")
    llm_server.queue(*(verdicts(writes_llm) for _ in range(SCREENED // BATCH)))
    answer = assistant.ask(QUESTION)
    screened = [p for r in llm_server.requests for p in papers_in(r)]
    assert len(screened) == SCREENED  # the papers nearest the cut-off, in batches
    assert {writes_llm(*p) for p in screened} == {True, False}  # the judge says yes and no
    assert all(len(papers_in(r)) <= BATCH for r in llm_server.requests)
    criteria = criteria_in(llm_server.requests[0])
    assert criteria == answer.plan.facets
    found = members(answer)
    for title, abstract in screened:
        # the judge decides the screened papers: a yes is a member, a no is not
        assert (title in found) == writes_llm(title, abstract), title
        if title in found:  # a yes from the judge is a member clearly about it
            assert found[title].membership == "clearly"
    # asked again: every verdict comes from the cache, no request is made
    requests = len(llm_server.requests)
    again = assistant.ask(QUESTION)
    assert len(llm_server.requests) == requests
    assert set(members(again)) == set(found)
    assert llm_server.unexpected == 0


def test_a_yes_without_a_sentence_of_the_abstract_is_a_no(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    assistant = judge(llm_assistant)
    assistant._current().judge().screen.cache._db.execute("delete from verdicts")
    llm_server.queue(*(verdicts(lambda t, a: True, invent=True) for _ in range(SCREENED // BATCH)))
    answer = assistant.ask(QUESTION)
    screened = {title for r in llm_server.requests for title, _ in papers_in(r)}
    assert screened and not screened & set(members(answer))


def test_a_failed_request_leaves_the_papers_to_the_scan(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any]
) -> None:
    offline = llm_assistant(llm_judge=False)
    assistant = judge(llm_assistant)
    assistant._current().judge().screen.cache._db.execute("delete from verdicts")
    llm_server.queue(*(Reply.error(500) for _ in range(3 * SCREENED)))
    answer = assistant.ask(QUESTION)
    assert llm_server.requests  # it tried
    assert set(members(answer)) == set(members(offline.ask(QUESTION)))


@pytest.mark.parametrize("question", ["Which ICML 2024 papers did Stan Z. Li co-author?"])
def test_exact_answers_never_call_the_judge(
    llm_server: ScriptedLLMServer, llm_assistant: Callable[..., Any], question: str
) -> None:
    judge(llm_assistant).ask(question)
    assert llm_server.requests == []
