"""ui/app.py driven directly (real assistant, real store, real LLM protocol over HTTP) and
served for real (uvicorn in-process for auth/config; `python -m ui` as a subprocess)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import httpx
import pytest

from eval.bench.procs import free_port
from rag.answer.prompts import ABSTAIN_TEXT
from rag.answer.references import previous_references
from rag.assistant import Assistant
from rag.errors import AnswerError
from rag.feedback import read_feedback
from rag.store.chroma import PaperStore
from rag.types import ChatMessage
from tests.support.api import serve
from tests.support.openai_stub import Reply, ScriptedLLMServer
from tests.support.paths import ROOT
from tests.support.settings import make_settings
from ui.app import ChatController, new_state
from ui.conversation_panel import ConversationPanel

FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
FA_ID = "qklMNNub0H"
OFF_TOPIC = "How do I fix a flat bicycle tire?"


def run(
    controller: ChatController,
    question: str,
    state: dict[str, Any] | None = None,
    chat: list[dict[str, Any]] | None = None,
    **options: Any,
) -> list[tuple[Any, ...]]:
    return list(controller.respond(question, chat or [], state or new_state(), **options))


def last_content(outputs: list[tuple[Any, ...]]) -> str:
    return str(outputs[-1][0][-1]["content"])


@pytest.fixture
def controller(assistant: Any, tmp_path: Path) -> ChatController:
    # The shared read-only assistant; feedback goes to this test's own file.
    settings = make_settings(tmp_path / "data", backend="extractive")
    return ChatController(assistant, settings, stream_interval=0.0)


@pytest.fixture(scope="module")
def llm_server() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer().start()
    yield server
    server.stop()


def llm_controller(
    server: ScriptedLLMServer, store_dir: Path, embed_model: Any, tmp_path: Path, **overrides: Any
) -> ChatController:
    settings = make_settings(
        store_dir,
        backend="openai-compatible",
        llm_base_url=server.base_url,
        llm_model="scripted",
        llm_max_retries=0,
        llm_planner=False,  # the scripted replies are answers; the planner has its own tests
        **overrides,
    )
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    return ChatController(assistant, settings.model_copy(update={"data_dir": tmp_path}), 0.0)


# --- answering ----------------------------------------------------------------------------
def test_answer_is_shown_with_linked_references_and_markdown_copy(
    controller: ChatController,
) -> None:
    outputs = run(controller, FA_QUESTION)
    assert all(len(o) == 2 for o in outputs)  # (chat, state): never the question box
    chat, state = outputs[-1]
    markdown = state["history"][1]["content"]
    assert [m["role"] for m in chat] == ["user", "assistant"]
    html = last_content(outputs)
    assert "rag-refs" in html and "rag-streaming" not in html
    assert 'class="rag-copy"' in html and 'class="rag-md" hidden>' in html  # copy, per answer
    assert 'class="rag-sources"' in html  # the strip of sources above the text
    assert f"https://openreview.net/forum?id={FA_ID}" in html
    turn = re.search(r'id="(a1-[0-9a-f]+)-ref-1"', html)
    assert turn, html
    assert f'href="#{turn.group(1)}-ref-1"' in html  # the [1] marker jumps to reference 1
    assert re.search(
        r"^\[1\] Implicit Regularization in Feedback Alignment .* — https://openreview",
        markdown,
        re.M,
    )


def test_deltas_reach_the_chat_one_by_one(controller: ChatController) -> None:
    outputs = run(controller, FA_QUESTION)
    streaming = [o for o in outputs if "rag-streaming" in str(o[0][-1]["content"])]
    # the placeholder, then one update per delta (extractive: title, sentence, …)
    assert len(streaming) >= 4
    lengths = [len(str(o[0][-1]["content"])) for o in streaming]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
    assert all(len(o) == 2 for o in outputs)  # outputs keep their shape throughout


def test_follow_up_resolves_the_numbered_reference(controller: ChatController) -> None:
    first = run(controller, FA_QUESTION)
    chat, state = first[-1][0], first[-1][1]
    history = [ChatMessage(**m) for m in state["history"]]
    refs = previous_references(history)
    assert refs[1].startswith("Implicit Regularization in Feedback Alignment")
    second = run(controller, "What does the first one say about convergence?", state, chat)
    chat2, state2 = second[-1][0], second[-1][1]
    assert len(chat2) == 4 and len(state2["history"]) == 4
    html = last_content(second)
    assert "rag-refs" in html and f"id={FA_ID}" in html
    assert "convergence" in html.lower()
    assert re.search(r'id="a3-[0-9a-f]+-ref-1"', html)  # anchors unique per answer


def test_off_topic_question_abstains_without_unrelated_papers(controller: ChatController) -> None:
    outputs = run(controller, OFF_TOPIC)
    html = last_content(outputs)
    assert ABSTAIN_TEXT in html.replace("&#x27;", "'")
    # The nearest papers to a bicycle question help no one: neither shown nor copied.
    assert "Related papers" not in html and "References" not in html
    assert "rag-ref-n" not in html and 'class="rag-ref"' not in html and "rag-cite" not in html
    assert "Related papers" not in outputs[-1][1]["history"][1]["content"]


@pytest.mark.parametrize(
    ("options", "check"),
    [
        ({"statuses": ["Oral"]}, lambda p: p.status == "Oral"),
        ({"author": "koyejo"}, lambda p: any("koyejo" in a.lower() for a in p.authors)),
        ({"title": "Feedback"}, lambda p: "feedback" in p.title.lower()),
    ],
)
def test_filters_restrict_cited_papers(
    controller: ChatController, assistant: Any, options: dict[str, Any], check: Any
) -> None:
    outputs = run(controller, FA_QUESTION, **options)
    state = outputs[-1][1]
    record = state["records"][1]
    html = last_content(outputs)
    ids = [c["paper_id"] for c in record["citations"]] or re.findall(r"forum\?id=(\w+)", html)
    assert ids, html
    assert all(check(assistant.papers[pid]) for pid in ids), ids


def test_mode_and_top_k_are_passed_on(controller: ChatController) -> None:
    outputs = run(controller, FA_QUESTION, mode="bm25", top_k=2)
    html = last_content(outputs)
    assert "bm25 retrieval" in html
    assert not re.search(r"-ref-[3-9]\"", html)  # at most two sources to cite


def test_empty_question_changes_nothing(controller: ChatController) -> None:
    outputs = run(controller, "   ")
    assert len(outputs) == 1 and outputs[0][0] == []


# --- errors become chat messages -------------------------------------------------------------
def test_too_long_question_is_a_readable_message(controller: ChatController) -> None:
    outputs = run(controller, "why " * 1000)
    html = last_content(outputs)
    assert 'class="rag-error"' in html
    assert "That question could not be taken:" in html and "limit 2,000" in html
    assert "Traceback" not in html
    assert outputs[-1][1]["history"] == []  # a failed turn is not context for follow-ups


def test_empty_store_is_a_readable_message(embed_model: Any, tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "empty", backend="extractive")
    controller = ChatController(Assistant(settings, PaperStore(settings), embed_model), settings)
    html = last_content(run(controller, FA_QUESTION))
    assert "No papers are indexed yet:" in html and "rag ingest" in html
    assert "<th>Papers</th><td>0</td>" in controller.side_panel()


def test_llm_answer_streams_token_by_token(
    llm_server: ScriptedLLMServer, built_store_dir: Path, embed_model: Any, tmp_path: Path
) -> None:
    llm_server.reset()
    text = "Feedback alignment keeps alignment with the gradient through a conservation law [1]."
    llm_server.queue(Reply.text(text))
    controller = llm_controller(llm_server, built_store_dir, embed_model, tmp_path)
    outputs = run(controller, FA_QUESTION)
    streaming = [o for o in outputs if "rag-streaming" in str(o[0][-1]["content"])]
    assert len(streaming) >= len(text.split()) - 1  # one update per streamed word
    html = last_content(outputs)
    assert "conservation law" in html and "rag-refs" in html
    assert "openai-compatible · scripted" in html
    assert llm_server.unexpected == 0


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply.error(500), "the language model failed (HTTP 500)"),
        (Reply.hang(10), "the language model did not answer in time"),
    ],
)
def test_llm_failures_are_readable_messages(
    llm_server: ScriptedLLMServer,
    built_store_dir: Path,
    embed_model: Any,
    tmp_path: Path,
    reply: Reply,
    expected: str,
) -> None:
    llm_server.reset()
    llm_server.queue(reply)
    controller = llm_controller(
        llm_server, built_store_dir, embed_model, tmp_path, llm_timeout_s=1.0
    )
    started = time.monotonic()
    html = last_content(run(controller, FA_QUESTION))
    assert time.monotonic() - started < 8
    assert 'class="rag-error"' in html and AnswerError.title in html and expected in html
    assert "Traceback" not in html


def test_llm_server_down_is_a_readable_message(
    built_store_dir: Path, embed_model: Any, tmp_path: Path
) -> None:
    settings = make_settings(
        built_store_dir,
        backend="openai-compatible",
        llm_base_url=f"http://127.0.0.1:{free_port()}/v1",  # nothing listens there
        llm_max_retries=0,
    )
    controller = ChatController(Assistant(settings, PaperStore(settings), embed_model), settings)
    html = last_content(run(controller, FA_QUESTION))
    assert AnswerError.title in html and "cannot be reached" in html


# --- feedback ---------------------------------------------------------------------------------
def like(
    controller: ChatController, state: dict[str, Any], index: int, liked: Any, comment: str = ""
) -> tuple[str, Any]:
    data = gr.LikeData(None, {"index": index, "value": ["…"], "liked": liked})
    return controller.like(data, state, comment)


def test_votes_append_feedback_lines(controller: ChatController) -> None:
    outputs = run(controller, FA_QUESTION)
    state = outputs[-1][1]
    status, box = like(controller, state, 1, True, "  precise, thanks ")
    assert "recorded" in status and box == ""
    status, box = like(controller, state, 1, False)
    like(controller, state, 1, "")  # the thumb clicked again: vote withdrawn
    lines = read_feedback(controller.settings.feedback_path)
    assert [line["vote"] for line in lines] == ["up", "down", "cleared"]
    first = lines[0]
    assert set(first) == {
        "timestamp",
        "question",
        "answer",
        "citations",
        "backend",
        "vote",
        "comment",
    }
    assert first["question"] == FA_QUESTION
    assert first["comment"] == "precise, thanks"
    assert first["backend"] == "extractive"
    assert "References:" in first["answer"]
    assert FA_ID in [c["paper_id"] for c in first["citations"]]


def test_vote_on_a_question_writes_nothing(controller: ChatController) -> None:
    state = run(controller, FA_QUESTION)[-1][1]
    status, _ = like(controller, state, 0, True)
    assert status == "Only answers can be rated."
    assert read_feedback(controller.settings.feedback_path) == []


def test_new_conversation_is_empty_and_keeps_the_last_one_listed(
    controller: ChatController,
) -> None:
    chat, state = run(controller, FA_QUESTION)[-1]
    panel = ConversationPanel()
    stored, _listed, *_ = panel.save(state, chat, None)
    chat2, state2, stored2, listed2, markdown, bibtex = panel.new_conversation(stored)
    assert (
        chat2 == [] and state2["history"] == [] and state2["conversation"] != state["conversation"]
    )
    assert [item["id"] for item in stored2["items"]] == [state["conversation"]]
    assert listed2["value"] is None and len(listed2["choices"]) == 1
    assert markdown["interactive"] is False and bibtex["interactive"] is False


def test_set_answer_fills_the_table_and_other_answers_empty_it(
    controller: ChatController, tmp_path: Path
) -> None:
    from ui.set_panel import ExportFiles, SetPanel

    panel = SetPanel(ExportFiles(tmp_path / "exports"))
    state = run(controller, "Which ICML 2024 papers did stan z. li co-author?")[-1][1]
    assert state["table"]["aggregate"].count == 3
    column, _, _, _, bib, _, html, label, *_ = panel.show(state)
    assert column["visible"] is True and label == "page 1 of 1 · 3 papers"
    assert "zxxSJAVQPc" in html and Path(bib["value"]).read_text().count("@InProceedings") == 3
    state = run(controller, FA_QUESTION, state=state)[-1][1]
    assert state["table"] is None and panel.show(state)[0]["visible"] is False
    state["table"] = {"stale": True}
    assert run(controller, "x" * 100_000, state=state)[-1][1]["table"] is None  # a failure


def test_side_panel_names_backend_and_corpus(controller: ChatController) -> None:
    html = controller.side_panel()
    assert "extractive" in html and "152" in html and "all-MiniLM-L6-v2" in html


# --- served ------------------------------------------------------------------------------------


def served_app(assistant: Any, settings: Any) -> Any:
    from rag.api.app import create_api
    from ui.layout import mount_ui

    return mount_ui(create_api(assistant, settings), assistant, settings)


def test_mounted_ui_keeps_api_routes_and_its_settings(assistant: Any, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, backend="extractive", ui_concurrency=3)
    with serve(served_app(assistant, settings), lifespan="on") as url:
        assert httpx.get(f"{url}/healthz").json()["ok"] is True  # the API still answers
        page = httpx.get(f"{url}/")
        assert page.status_code == 200 and "gradio" in page.text.lower()
        config = httpx.get(f"{url}/config").json()
        chatbot = next(
            c for c in config["components"] if c.get("props", {}).get("elem_id") == "chat"
        )
        assert chatbot["props"]["render_markdown"] is False
        assert chatbot["props"]["sanitize_html"] is True
        visibility = {d["api_name"]: d["api_visibility"] for d in config["dependencies"]}
        assert visibility["like"] == visibility["new_conversation"] == "private"  # not public
        assert {visibility[name] for name in ("show", "sort", "previous", "next")} == {"private"}


def test_answers_share_one_queue_limit(assistant: Any, tmp_path: Path) -> None:
    from ui.app import FOLLOW_UPS, SUGGESTED
    from ui.layout import build_ui

    demo = build_ui(assistant, make_settings(tmp_path, backend="extractive", ui_concurrency=3))
    assert demo._queue.default_concurrency_limit == 3
    answer = [f for f in demo.fns.values() if f.name in ("ask", "respond")]
    # Enter, the Ask button, each suggested topic and follow-up, and regenerate
    assert len(answer) == 2 + SUGGESTED + FOLLOW_UPS + 1
    assert {(f.concurrency_id, f.concurrency_limit) for f in answer} == {("answer", 3)}


def test_with_an_api_key_the_ui_asks_for_it_by_default(assistant: Any, tmp_path: Path) -> None:
    # Secure by default: no protect_ui given. Each of several keys is a password.
    settings = make_settings(tmp_path, backend="extractive", api_key="s3cret-key,other-key")
    with serve(served_app(assistant, settings), lifespan="on") as url:
        for key in ("s3cret-key", "other-key"):
            with httpx.Client(base_url=url) as client:
                assert client.get("/config").status_code == 401
                bad = client.post("/login", data={"username": "me", "password": "wrong"})
                assert bad.status_code == 400
                both = client.post(
                    "/login", data={"username": "me", "password": "s3cret-key,other-key"}
                )
                assert both.status_code == 400  # the list is not a password
                assert client.get("/config").status_code == 401
                good = client.post("/login", data={"username": "me", "password": key})
                assert good.status_code == 200
                assert client.get("/config").status_code == 200


def test_protect_ui_false_opts_out_and_no_key_means_no_login(
    assistant: Any, tmp_path: Path
) -> None:
    opted_out = make_settings(
        tmp_path, backend="extractive", api_key="s3cret-key", protect_ui=False
    )
    with serve(served_app(assistant, opted_out), lifespan="on") as url:
        assert httpx.get(f"{url}/config").status_code == 200  # the UI is open
        assert httpx.post(f"{url}/v1/ask", json={"question": "x"}).status_code == 401
    keyless = make_settings(tmp_path, backend="extractive")  # protect_ui true, nothing to ask
    with serve(served_app(assistant, keyless), lifespan="on") as url:
        assert httpx.get(f"{url}/config").status_code == 200


def test_app_serves_on_an_empty_store(embed_model: Any, tmp_path: Path) -> None:
    # `rag serve` before any ingest: the page loads and says so instead of failing to start.
    settings = make_settings(tmp_path / "empty", backend="extractive")
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    with serve(served_app(assistant, settings), lifespan="on") as url:
        assert httpx.get(f"{url}/").status_code == 200
        config = httpx.get(f"{url}/config").json()
        panel = next(
            c for c in config["components"] if c.get("props", {}).get("elem_id") == "corpus-info"
        )
        assert "<th>Papers</th><td>0</td>" in panel["props"]["value"]


# `python -m ui` as a real server (flags, ready line) is exercised by tests/test_browser.py.
def test_bad_flag_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ui", "--port", "eighty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--port" in done.stderr
