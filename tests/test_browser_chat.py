"""The chat as a researcher keeps it open all day, in a real browser (Debian chromium through
Playwright) against `python -m ui` as a real server:

- on the fixture store with a slow scripted model (a real OpenAI-protocol server streaming a
  word every 0.15 s): typing while an answer streams, a second question during an answer,
  Stop;
- on the fixture store, extractive: the counter, a refused question, citation cards, the
  sources strip, copy / regenerate / edit, follow-up buttons, honest empty states,
  conversations kept over a reload (list, new, exports), the theme, the fonts, a phone;
- on the full corpus: a set answer as a summary pointing at its table, header sorting, the
  table scrolling sideways on a phone.

Screenshots for the README go to tests/artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import AppServer, Chat, download, start_on_copy, stop_app
from tests.support.openai_stub import Reply, ScriptedLLMServer
from tests.support.paths import ARTIFACTS
from tests.test_browser import FA_ID, FA_QUESTION
from tests.test_browser_sets import FEDERATED
from ui.conversations import STORAGE_KEY

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

SHOTS = ARTIFACTS / "screenshots"
KENTON = "Which ICML 2024 papers did Kenton Lee co-author?"  # MagicLens (Oral), BAGEL (Poster)
SLOW_TEXT = (
    "Feedback alignment works because a conservation law keeps the forward weights aligned "
    "with the fixed feedback weights, which acts as an implicit regularizer during "
    "training of the network [1]."
)
PHONE = {"width": 390, "height": 844}
ANSWERS = "#chat .rag-answer:not(.rag-streaming), #chat .rag-error"


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def slow_server(
    built_store_dir: Path, llm: ScriptedLLMServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    settings = {
        "llm_base_url": llm.base_url,
        "llm_model": "scripted",
        "llm_max_retries": "0",
        "llm_planner": "false",  # every scripted reply is an answer
        "llm_judge": "false",
    }
    root = tmp_path_factory.mktemp("browser-slow")
    server = start_on_copy(built_store_dir, root, settings, "openai-compatible")
    yield server
    stop_app(server)


@pytest.fixture(scope="module")
def fast_server(
    built_store_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    server = start_on_copy(built_store_dir, tmp_path_factory.mktemp("browser-chat"))
    yield server
    stop_app(server)


@pytest.fixture
def chat(browser: Any, fast_server: AppServer) -> Iterator[Chat]:
    tab = Chat(browser, fast_server)
    yield tab
    tab.close()


def answers(page: Any) -> int:
    return int(page.locator(ANSWERS).count())


def send(page: Any, question: str) -> int:
    """Types and sends the question without waiting; returns the answers before it."""
    before = answers(page)
    page.fill("#question textarea", question)
    page.press("#question textarea", "Enter")
    return before


def wait_answer(page: Any, before: int) -> Any:
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n",
        arg=[ANSWERS, before],
        timeout=120_000,
    )
    return page.locator(ANSWERS).last


def notice(page: Any) -> str:
    """The text of the notices (Gradio toasts) on the page."""
    page.wait_for_selector(".toast-body", timeout=10_000)
    return " ".join(page.locator(".toast-body").all_inner_texts())


# --- typing, sending, stopping (the slow model) ----------------------------------------------
def test_text_typed_while_an_answer_streams_is_kept(
    browser: Any, slow_server: AppServer, llm: ScriptedLLMServer
) -> None:
    llm.reset()
    llm.queue(Reply.text(SLOW_TEXT, delay=0.15), Reply.text(SLOW_TEXT, delay=0.05))
    tab = Chat(browser, slow_server)
    try:
        page = tab.page
        before = send(page, FA_QUESTION)
        page.wait_for_function("() => document.querySelector('#question textarea').value === ''")
        page.wait_for_selector("#chat .rag-streaming", timeout=60_000)
        second = "And what does it say about convergence?"
        page.type("#question textarea", second, delay=40)  # while the words arrive
        page.press("#question textarea", "Enter")  # a second question during the answer
        assert "still coming in" in notice(page)
        assert page.locator("#chat .rag-streaming").count() == 1  # still streaming
        wait_answer(page, before)
        assert page.input_value("#question textarea") == second  # nothing typed was lost
        assert page.locator("#chat .rag-question").count() == 1  # the second was not sent
        assert page.inner_text("#question-count .rag-count") == f"{len(second)} / 2,000"
        page.press("#question textarea", "Enter")  # now it goes
        wait_answer(page, before + 1)
        assert page.locator("#chat .rag-question").count() == 2
    finally:
        tab.close()


def test_stop_keeps_what_arrived(
    browser: Any, slow_server: AppServer, llm: ScriptedLLMServer
) -> None:
    llm.reset()
    llm.queue(Reply.text(SLOW_TEXT, delay=0.4))
    tab = Chat(browser, slow_server)
    try:
        page = tab.page
        send(page, FA_QUESTION)
        page.wait_for_selector("#stop", state="visible", timeout=60_000)
        page.wait_for_function(
            "() => (document.querySelector('#chat .rag-streaming')?.innerText || '').length > 40"
        )
        page.click("#stop")
        stopped = page.locator("#chat .rag-stopped")
        stopped.wait_for(timeout=10_000)
        assert "Stopped before the answer was complete" in stopped.inner_text()
        assert "Feedback alignment works because" in stopped.inner_text()
        assert page.locator("#chat .rag-streaming").count() == 0
        page.wait_for_selector("#stop", state="hidden")
        # a stopped answer is not rated: no thumbs under it
        assert not page.locator('#chat button[aria-label="Like"]').last.is_visible()
        llm.queue(Reply.text(SLOW_TEXT))
        answer = wait_answer(page, send(page, "Why does feedback alignment work?"))
        assert "answered by openai-compatible · scripted" in answer.inner_text()
        assert page.locator("#chat .rag-question").count() == 2
    finally:
        tab.close()


# --- the question box -------------------------------------------------------------------------
def test_counter_and_a_refused_question_stays_in_the_box(chat: Chat) -> None:
    page = chat.page
    page.type("#question textarea", "hello", delay=10)
    assert page.inner_text("#question-count .rag-count") == "5 / 2,000"
    long = "why " * 525
    page.fill("#question textarea", long)
    counter = page.locator("#question-count .rag-count")
    assert counter.inner_text() == "2,100 / 2,000" and "rag-over" in counter.get_attribute("class")
    page.press("#question textarea", "Enter")
    assert "(limit 2,000)" in notice(page)
    page.wait_for_function("() => document.querySelector('#question textarea').value.length > 0")
    assert page.input_value("#question textarea") == long  # kept, to trim and resend
    assert page.locator("#chat .rag-question").count() == 0  # no bubble for it


def test_fonts_are_the_systems_in_every_heading_and_button(chat: Chat) -> None:
    fonts = chat.page.evaluate(
        """() => ['#intro h2', '#send', '#question textarea'].map(sel =>
             getComputedStyle(document.querySelector(sel)).fontFamily)"""
    )
    assert all(f.startswith("system-ui") for f in fonts), fonts
    first_letters = chat.page.evaluate(
        "() => getComputedStyle(document.querySelector('#intro h2'), '::first-letter').fontFamily"
    )
    assert first_letters.startswith("system-ui")


# --- citations ----------------------------------------------------------------------------------
def test_hovering_a_citation_shows_its_card(chat: Chat) -> None:
    chat.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = chat.page
    answer = chat.ask(FA_QUESTION)
    strip = answer.locator(".rag-sources a.rag-source")
    assert strip.count() == answer.locator(".rag-ref").count() >= 1  # sources above the text
    marker = answer.locator('a.rag-cite[href$="-ref-1"]').first
    marker.hover()
    card = page.locator(".rag-card")
    card.wait_for(timeout=5_000)
    text = card.inner_text()
    ref = answer.locator(".rag-ref").first
    title = ref.locator(".rag-ref-title").inner_text()
    assert title in text
    assert any(status in text for status in ("Poster", "Oral", "Spotlight"))
    assert ref.locator(".rag-quote").text_content().strip()[:40] in text  # the quoted sentence
    assert (
        card.locator("a", has_text="OpenReview")
        .get_attribute("href")
        .startswith("https://openreview.net/forum?id=")
    )
    card.locator("button", has_text="Copy BibTeX").click()
    page.wait_for_function("() => navigator.clipboard.readText().then(t => t.includes('@In'))")
    bib = page.evaluate("navigator.clipboard.readText()")
    assert bib.startswith("@InProceedings{") and "booktitle = {Proceedings of the 41st" in bib
    SHOTS.mkdir(parents=True, exist_ok=True)
    box = card.bounding_box()
    page.screenshot(
        path=str(SHOTS / "citation-card.png"),
        clip={"x": 0, "y": max(0, box["y"] - 260), "width": 1000, "height": box["height"] + 300},
    )
    page.keyboard.press("Escape")
    card.wait_for(state="detached")


def test_reference_snippet_is_not_a_copy_of_the_answer(chat: Chat) -> None:
    answer = chat.ask("What is GraphsGPT and what was it pretrained on?")
    text = answer.locator("p").first.inner_text()
    for snippet in answer.locator(".rag-snippet").all_inner_texts():
        assert snippet.strip() not in text
    # A title with math ("Worth $K$ Words") reads once in its card and in a follow-up.
    answer.locator('a.rag-cite[href$="-ref-1"]').first.hover()
    card = chat.page.locator(".rag-card")
    card.wait_for(timeout=5_000)
    assert "A Graph is Worth K Words" in card.inner_text()
    labels = chat.page.locator("#follow-ups button.rag-offer:visible").all_inner_texts()
    assert "Papers like A Graph is Worth K Words" in labels and not any("$" in t for t in labels)


# --- per-message actions --------------------------------------------------------------------------
def test_copy_regenerate_and_edit_the_last_question(chat: Chat) -> None:
    page = chat.page
    chat.ask(FA_QUESTION)
    first = page.locator(ANSWERS).nth(0)
    assert first.locator("button.rag-regenerate").is_visible()
    chat.ask("What is GraphsGPT and what was it pretrained on?")
    # only the last answer offers to redo its question
    assert not first.locator("button.rag-regenerate").is_visible()
    last = page.locator(ANSWERS).last
    last.locator("button.rag-copy").click()
    copied = page.evaluate("window.__ragCopied")
    assert "GraphsGPT" in copied and "References:" in copied
    before = answers(page)
    last.evaluate("el => { el.dataset.old = '1'; }")  # the answer about to be replaced
    last.locator("button.rag-regenerate").click()
    page.wait_for_function(
        "() => { const a = document.querySelectorAll('#chat .rag-answer');"
        " return a.length === 2 && !a[1].dataset.old && !a[1].classList.contains('rag-streaming')"
        " && document.querySelectorAll('#chat .rag-question').length === 2; }",
        timeout=60_000,
    )
    assert answers(page) == before  # replaced in place, not added
    assert page.locator("#chat .rag-question").last.inner_text().startswith("What is GraphsGPT")
    page.locator(ANSWERS).last.locator("button.rag-edit").click()
    page.wait_for_function(
        "() => document.querySelector('#question textarea').value.startsWith('What is GraphsGPT')"
    )
    assert page.locator("#chat .rag-question").count() == 1
    before = send(page, "What is GraphsGPT?")
    wait_answer(page, before)
    assert page.locator("#chat .rag-question").last.inner_text() == "What is GraphsGPT?"


# --- follow-ups and empty states --------------------------------------------------------------------
def test_follow_up_buttons_ask_their_question(chat: Chat) -> None:
    page = chat.page
    chat.ask(KENTON)
    row = page.locator("#follow-ups")
    row.wait_for(state="visible", timeout=10_000)
    labels = page.locator("#follow-ups button.rag-offer:visible").all_inner_texts()
    assert labels[0] == "Only orals" and "Compare MagicLens and BAGEL" in labels
    assert labels[-1].startswith("Papers like ")
    before = answers(page)
    page.locator("#follow-ups button", has_text="Only orals").click()
    answer = wait_answer(page, before)
    assert page.locator("#chat .rag-question").last.inner_text() == f"{KENTON} (orals only)"
    assert "MagicLens" in answer.inner_text() and "BAGEL" not in answer.inner_text()
    chat.ask(KENTON)  # the orals-only answer has one paper: nothing to compare
    page.locator("#follow-ups button", has_text="Compare").wait_for(timeout=10_000)
    before = answers(page)
    page.locator("#follow-ups button", has_text="Compare").click()
    answer = wait_answer(page, before)
    assert "side by side" in answer.inner_text()


def test_empty_states_say_nothing_they_do_not_have(chat: Chat) -> None:
    refusal = chat.ask("What is the capital of France?")
    assert "don't answer" in refusal.inner_text()
    assert (
        "Related papers" not in refusal.inner_text() and refusal.locator(".rag-refs").count() == 0
    )
    unknown = chat.ask("Which ICML 2024 papers did Zyxwv Qwertyuiop co-author?")
    assert "References" not in unknown.inner_text()
    listed = chat.ask(KENTON)
    assert listed.locator(".rag-relevance").count() == 0  # exact: no relevance badges
    page = chat.page
    page.locator("#set-panel").wait_for(state="visible", timeout=10_000)
    headings = page.locator("#set-table th").all_inner_texts()
    assert not any(h.startswith(("Score", "Membership")) for h in headings), headings


# --- conversations ---------------------------------------------------------------------------------
def test_a_conversation_survives_a_reload_and_exports(chat: Chat) -> None:
    page = chat.page
    chat.ask(FA_QUESTION)
    page.wait_for_function(
        "() => document.querySelectorAll('#conversation-list label').length === 1"
    )
    first = page.evaluate(f"() => localStorage.getItem('{STORAGE_KEY}')")
    chat.ask(KENTON)
    page.locator("#set-panel").wait_for(state="visible", timeout=10_000)
    # The second turn is saved (the encrypted value changes) before the page reloads.
    page.wait_for_function(f"(first) => localStorage.getItem('{STORAGE_KEY}') !== first", arg=first)
    listed = page.locator("#conversation-list label")
    assert listed.count() == 1
    assert listed.first.inner_text().startswith("Which ICML 2024 papers explain why feedback")
    page.reload()
    page.wait_for_function(
        "() => document.querySelectorAll('#chat .rag-question').length === 2", timeout=30_000
    )
    assert FA_ID in page.inner_html("#chat")
    page.locator("#set-panel").wait_for(state="visible", timeout=10_000)  # its table too
    name, markdown = download(page, "#export-markdown")
    assert name == "icml-rag-conversation.md"
    assert markdown.startswith("# Which ICML 2024 papers explain why feedback")
    assert f"## 2. {KENTON}" in markdown and "References:" in markdown
    name, bib = download(page, "#export-bibtex")
    assert name == "icml-rag-conversation.bib" and bib.count("@InProceedings{") >= 3
    page.click("#new-conversation")
    page.wait_for_function("() => !document.querySelector('#chat .rag-question')")
    chat.ask("What is GraphsGPT?")
    page.wait_for_function(
        "() => document.querySelectorAll('#conversation-list label').length === 2"
    )
    page.locator("#conversation-list label", has_text="Which ICML 2024 papers explain").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#chat .rag-question').length === 2", timeout=30_000
    )
    page.click("#delete-conversation")
    page.wait_for_function(
        "() => document.querySelectorAll('#conversation-list label').length === 1"
    )
    assert page.locator("#chat .rag-question").count() == 0


def test_theme_toggle_is_remembered(chat: Chat) -> None:
    page = chat.page
    dark = page.evaluate("() => document.body.classList.contains('dark')")
    page.click("#theme-toggle")
    assert page.evaluate("() => document.body.classList.contains('dark')") is not dark
    page.reload()
    page.wait_for_selector("#question textarea", timeout=60_000)
    assert page.evaluate("() => document.body.classList.contains('dark')") is not dark


# --- a phone ------------------------------------------------------------------------------------------
def phone(browser: Any, server: AppServer) -> Any:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("#question textarea", timeout=60_000)
    return context, page


def test_phone_layout_puts_the_chat_first(browser: Any, fast_server: AppServer) -> None:
    context, page = phone(browser, fast_server)
    try:
        send_box = page.locator("#send").bounding_box()
        assert send_box["y"] + send_box["height"] <= PHONE["height"]  # Ask above the fold
        page.wait_for_function(  # the options, once in the page, start folded
            "() => { const w = document.querySelector('#options > .label-wrap');"
            " return w !== null && !w.classList.contains('open'); }"
        )
        before = send(page, FA_QUESTION)
        answer = wait_answer(page, before)
        assert page.evaluate(
            "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )  # nothing wider than the screen
        answer.locator("a.rag-cite").first.tap()  # a tap opens the card (no hover on a phone)
        page.locator(".rag-card").wait_for(timeout=5_000)
        card = page.locator(".rag-card").bounding_box()
        assert card["x"] >= 0 and card["x"] + card["width"] <= PHONE["width"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "phone.png"))
    finally:
        context.close()


# --- set answers (the full corpus) ---------------------------------------------------------------
def test_set_answer_is_a_summary_pointing_at_its_table(
    browser: Any, full_server: AppServer
) -> None:
    tab = Chat(browser, full_server)
    try:
        page = tab.page
        answer = tab.ask(FEDERATED)
        link = answer.locator("a.rag-open-table")
        total = int(re.match(r"(\d+) papers — open the table", link.inner_text())[1])
        assert total > 25
        assert answer.locator(".rag-ref").count() <= 5  # not every reference in the chat
        assert answer.inner_text().count("\n- ") <= 6
        # the new answer is read from its start, not scrolled to its end
        top = page.evaluate(
            """() => { const q = [...document.querySelectorAll('#chat .rag-question')].pop();
                 const box = q.closest('[role=log]') || document.querySelector('#chat');
                 return q.getBoundingClientRect().top - box.getBoundingClientRect().top; }"""
        )
        assert 0 <= top < 200, top
        link.click()
        page.wait_for_function(
            # the panel may not be in the page yet when the click returns: wait for it too
            "() => { const p = document.querySelector('#set-panel'); if (!p) return false;"
            " const r = p.getBoundingClientRect(); return r.top >= -2 && r.top < innerHeight / 2; }",
            timeout=5_000,
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "set-answer.png"))
        page.click("#set-table th.rag-key-title")
        page.wait_for_function(
            "() => document.querySelector('#set-table th.rag-sorted')?.innerText.trim() === 'Title ▲'"
        )
        page.click("#set-table th.rag-key-title")
        page.wait_for_function(
            "() => document.querySelector('#set-table th.rag-sorted')?.innerText.trim() === 'Title ▼'"
        )
        titles = page.locator("#set-table td.rag-set-title").all_inner_texts()
        folded = [t.casefold().strip() for t in titles]
        assert folded == sorted(folded, reverse=True)
        assert page.input_value("#set-sort input") == "Title"  # the menu follows
    finally:
        tab.close()
    context, page = phone(browser, full_server)
    try:
        before = send(page, FEDERATED)
        wait_answer(page, before)
        page.locator("#set-panel").wait_for(state="visible", timeout=30_000)
        scroll = page.evaluate(
            """() => { const box = document.querySelector('#set-table .rag-set-scroll');
                 return [box.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX]; }"""
        )
        assert scroll[0] > scroll[1] and scroll[2] == "auto", scroll  # scrolls sideways
        assert page.evaluate(
            "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    finally:
        context.close()


# --- a protected UI -------------------------------------------------------------------------------
def test_the_login_page_lets_a_key_in_and_the_chat_works(
    browser: Any, built_store_dir: Path, tmp_path: Path
) -> None:
    server = start_on_copy(built_store_dir, tmp_path, {"api_key": "page-key"})
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url)
        page.get_by_label("username").fill("me")
        page.get_by_label("password").fill("wrong")
        page.get_by_role("button", name="Login").click()
        page.get_by_text("Incorrect credentials").wait_for(timeout=15_000)
        page.get_by_label("username").fill("me")  # Gradio's form empties it after a failure
        page.get_by_label("password").fill("page-key")
        page.get_by_role("button", name="Login").click()
        page.wait_for_selector("#question textarea:enabled", timeout=60_000)
        page.fill("#question textarea", "What is GraphsGPT pretrained on?")
        page.press("#question textarea", "Enter")
        page.wait_for_selector("#chat .rag-answer:not(.rag-streaming)", timeout=60_000)
        assert "GraphsGPT" in page.inner_text("#chat .rag-answer")
    finally:
        context.close()
        stop_app(server)
