"""The chat app in a real browser: Debian chromium through Playwright, against `python -m ui`
started as a real server on a copy of the fixture store (extractive backend, offline).

Also measures time from starting the server to the first complete answer and the median
time to a complete answer; both go to tests/artifacts/ui_timings.json and the test output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    XSS_IMG,
    XSS_LINK,
    XSS_SCRIPT,
    AppServer,
    Chat,
    start_on_copy,
    stop_app,
)
from tests.support.paths import ARTIFACTS

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

GRAPHSGPT_ID = "zxxSJAVQPc"  # "A Graph is Worth $K$ Words" (GraphsGPT), in the fixture corpus
FA_ID = "qklMNNub0H"
FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
TIMINGS: dict[str, Any] = {}
# The text a reader sees: KaTeX also writes each formula as hidden MathML, which innerText keeps.
VISIBLE_TEXT_JS = """el => { const copy = el.cloneNode(true);
  copy.querySelectorAll('.katex-mathml, [hidden]').forEach(e => e.remove());
  return copy.innerText ?? copy.textContent; }"""
MUXSERVE_Q = "How much higher throughput does MuxServe achieve when serving multiple LLMs?"


@pytest.fixture(scope="module")
def app_server(
    built_store_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    server = start_on_copy(built_store_dir, tmp_path_factory.mktemp("browser-app"))
    yield server
    stop_app(server)
    TIMINGS.update(
        server_ready_s=round(server.ready_s, 2),
        start_to_first_answer_s=server.first_answer_s and round(server.first_answer_s, 2),
    )


@pytest.fixture(scope="module", autouse=True)
def write_timings() -> Iterator[None]:
    yield
    if TIMINGS:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "ui_timings.json").write_text(json.dumps(TIMINGS, indent=2) + "\n")
        print(f"\nUI timings: {json.dumps(TIMINGS)}")


@pytest.fixture
def chat(browser: Any, app_server: AppServer) -> Iterator[Chat]:
    tab = Chat(browser, app_server)
    yield tab
    tab.close()


def test_named_method_answer_streams_in_with_linked_reference(chat: Chat) -> None:
    page = chat.page
    # Watch the chat for the streaming placeholder before the question is sent.
    page.evaluate(
        """() => { window.__sawStreaming = false;
        new MutationObserver(() => { if (document.querySelector('#chat .rag-streaming'))
          window.__sawStreaming = true; }).observe(document.body,
          {subtree: true, childList: true, attributes: true}); }"""
    )
    example = "What is GraphsGPT and what was it pretrained on?"
    page.get_by_role("button", name=example).click()  # the example fills the question box
    page.wait_for_function(
        "q => document.querySelector('#question textarea').value === q", arg=example
    )
    answer = chat.ask(example)
    assert page.evaluate("window.__sawStreaming") is True
    assert "pretrain GraphsGPT on 100M molecules" in answer.evaluate(VISIBLE_TEXT_JS)
    ref = answer.locator(".rag-ref", has=page.locator(f'a[href*="{GRAPHSGPT_ID}"]')).first
    title = ref.locator("a.rag-ref-title")
    # "$K$" in the title: typeset by KaTeX, no dollar signs left
    assert (
        title.evaluate(VISIBLE_TEXT_JS)
        == "A Graph is Worth K Words: Euclideanizing Graph using Pure Transformer"
    )
    assert title.locator(".rag-math .katex-html").inner_text() == "K"
    assert title.get_attribute("href") == f"https://openreview.net/forum?id={GRAPHSGPT_ID}"
    assert title.get_attribute("target") == "_blank"
    assert "noopener" in (title.get_attribute("rel") or "")
    assert "Zhangyang Gao, Daize Dong, Cheng Tan et al." in ref.inner_text()
    assert "score" not in ref.inner_text()  # a relevance label at most, never a raw score
    # The sentence it rests on: kept for the citation card (shown under the reference only
    # when the answer text does not already quote it).
    assert ref.locator(".rag-quote").text_content().strip()

    ref_id = ref.get_attribute("id")
    marker = answer.locator(f'a.rag-cite[href="#{ref_id}"]').first
    page.evaluate("document.querySelector('#chat [role=log], #chat').scrollTop = 0")
    marker.click()
    page.wait_for_function("id => location.hash === '#' + id", arg=ref_id)
    box = page.evaluate(
        "id => { const r = document.getElementById(id).getBoundingClientRect();"
        " return [r.top, r.bottom, innerHeight]; }",
        ref_id,
    )
    assert 0 <= box[0] < box[2], box  # the reference scrolled into view
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chat.png"), full_page=True)


def test_formulas_are_typeset_by_katex(chat: Chat) -> None:
    answer = chat.ask(MUXSERVE_Q)
    formulas = answer.locator(".rag-math")
    assert formulas.count() >= 2
    assert answer.locator(".rag-math .katex").count() == formulas.count()  # all typeset
    assert answer.locator(".katex-error").count() == 0
    shown = answer.evaluate(VISIBLE_TEXT_JS)
    assert "up to 1.8× higher throughput" in shown and "2.9× more requests" in shown
    assert "\\times" not in shown and "$" not in shown
    tex = answer.locator(".rag-math annotation").first.text_content()
    assert tex == "1.8\\times"  # the source rides along for copy and screen readers
    assert answer.locator("a.rag-cite").count() >= 1  # markers beside the math still link
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    chat.page.set_viewport_size({"width": 1100, "height": 900})
    box = chat.page.locator("#chat").bounding_box()
    assert box is not None
    chat.page.screenshot(path=str(ARTIFACTS / "answer-math.png"), clip=box)


def test_server_terminal_shows_only_its_own_lines(chat: Chat) -> None:
    """After answers (the first builds BM25 if needed), no library log or warning reached
    the terminal of `python -m ui`: its output is the app's own "icml-rag:" lines."""
    chat.ask(FA_QUESTION)
    lines = chat.server.log.read_text(errors="replace").splitlines()
    foreign = [line for line in lines if line.strip() and not line.startswith("icml-rag:")]
    assert foreign == [], foreign


def test_follow_up_uses_the_previous_answer(chat: Chat) -> None:
    first = chat.ask(FA_QUESTION)
    assert FA_ID in first.inner_html()
    follow = chat.ask("What does the first one say about convergence?")
    assert FA_ID in follow.inner_html()
    assert "convergence" in follow.inner_text().lower()
    assert chat.page.locator("#chat .rag-question").count() == 2


def test_off_topic_question_abstains_without_references(chat: Chat) -> None:
    answer = chat.ask("How do I fix a flat bicycle tire?")
    text = answer.inner_text()
    assert "don't answer this question" in text
    assert "Related papers" not in text  # the nearest papers to a bicycle do not help
    assert answer.locator(".rag-ref").count() == 0
    assert answer.locator("a.rag-cite").count() == 0
    assert answer.locator(".rag-refs").count() == 0


def test_status_filter_is_applied(chat: Chat) -> None:
    chat.page.locator("#status label", has_text="Oral").click()
    answer = chat.ask(FA_QUESTION)
    statuses = answer.locator(".rag-status").all_inner_texts()
    assert statuses and set(statuses) == {"Oral"}, statuses
    assert FA_ID not in answer.inner_html()  # the Poster that answers unfiltered is gone


def test_author_filter_is_applied(chat: Chat) -> None:
    chat.page.fill("#author textarea, #author input", "Koyejo")
    answer = chat.ask(FA_QUESTION)
    authors = answer.locator(".rag-authors").all()
    assert authors
    for element in authors:
        assert "Koyejo" in (element.get_attribute("title") or ""), element.inner_text()


def test_thumbs_up_with_comment_is_recorded(chat: Chat) -> None:
    before = (
        chat.server.feedback_path.read_text().splitlines()
        if (chat.server.feedback_path.exists())
        else []
    )
    chat.ask(FA_QUESTION)
    chat.page.fill("#feedback-comment textarea", "exactly what I needed")
    chat.page.locator('#chat button[aria-label="Like"]').last.click()
    chat.page.wait_for_function(
        "() => (document.querySelector('#feedback-status')?.innerText || '')"
        ".includes('Feedback recorded')"
    )
    lines = chat.server.feedback_path.read_text().splitlines()
    assert len(lines) == len(before) + 1
    record = json.loads(lines[-1])
    assert record["vote"] == "up"
    assert record["comment"] == "exactly what I needed"
    assert record["question"] == FA_QUESTION
    assert FA_ID in [c["paper_id"] for c in record["citations"]]
    assert record["backend"] == "extractive"
    assert chat.page.input_value("#feedback-comment textarea") == ""


def test_copy_answer_as_markdown_and_start_a_new_conversation(chat: Chat) -> None:
    chat.context.grant_permissions(["clipboard-read", "clipboard-write"])
    answer = chat.ask(FA_QUESTION)
    answer.locator("button.rag-copy").click()
    chat.page.wait_for_function("() => navigator.clipboard.readText().then(t => t.length > 0)")
    copied = chat.page.evaluate("navigator.clipboard.readText()")
    assert "References:" in copied
    assert re.search(r"^\[1\] .+ — .+ — https://openreview\.net/forum\?id=", copied, re.M), copied
    assert answer.locator("button.rag-copy").inner_text() in ("Copied", "Copy")
    chat.page.click("#new-conversation")
    chat.page.wait_for_function("() => !document.querySelector('#chat .rag-answer')")
    assert chat.page.locator("#chat .rag-question").count() == 0


def test_answers_complete(chat: Chat) -> None:
    """Every example question gets a complete answer (how fast: `python -m eval bench`)."""
    questions = [
        FA_QUESTION,
        "What is GraphsGPT and what was it pretrained on?",
        "How can large language models be quantized to very low bit widths?",
        "Are explanations of graph neural networks robust to small changes of the graph?",
        "Does the order of premises matter when language models reason?",
    ]
    for question in questions:
        answer = chat.ask(question)
        assert answer.locator("a.rag-cite").count() >= 1 or "rag-abstained" in (
            answer.get_attribute("class") or ""
        )
    assert chat.page.locator("#chat .rag-question").count() == len(questions)


def test_payloads_in_corpus_and_question_never_run(browser: Any, xss_server: AppServer) -> None:
    tab = Chat(browser, xss_server)
    try:
        page = tab.page
        answer = tab.ask("How do quokka transformers compress marsupial vocalizations?")
        question = f"Tell me more about quokka codecs {XSS_IMG} {XSS_SCRIPT} {XSS_LINK}"
        second = tab.ask(question)
        page.wait_for_timeout(500)  # give any injected handler the chance to fire
        assert page.evaluate("typeof window.__xss") == "undefined"
        assert tab.dialogs == []
        text = answer.inner_text()
        assert "xssQuokka" in answer.inner_html()  # the payload papers were cited
        assert XSS_SCRIPT in text and XSS_IMG in text and XSS_LINK in text  # shown as text
        user_text = page.locator("#chat .rag-question").last.inner_text()
        assert XSS_IMG in user_text and XSS_SCRIPT in user_text and XSS_LINK in user_text
        chat_html = page.inner_html("#chat")
        assert "<script" not in chat_html.lower()
        assert page.locator("#chat img[onerror], #chat img[src='x']").count() == 0
        hrefs = page.eval_on_selector_all(
            "#chat a[href]", "els => els.map(e => e.getAttribute('href'))"
        )
        assert hrefs and all(h.startswith(("#", "https://", "http://")) for h in hrefs), hrefs
        # the javascript: URL of the first paper is not linked at all
        assert not any("javascript" in h.lower() for h in hrefs)
        markdown = page.locator("#chat .rag-md").first.text_content() or ""
        assert "Quokka" in markdown or "quokka" in markdown
        assert second.count() == 1
    finally:
        tab.close()
