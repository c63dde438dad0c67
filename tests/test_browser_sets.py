"""The "Papers in the last set answer" panel in a real browser (Debian chromium through
Playwright) against `python -m ui` started as a real server (extractive backend, offline):

- on the full bundled corpus (a copy of var/, or ingested here; 2,610 papers): an exact author set (7 papers)
  and a topic set of more than one page, paged, sorted and exported;
- on the fixture store plus two papers whose every field is a payload: shown as text.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import XSS_IMG, XSS_SCRIPT, AppServer, Chat, download
from tests.support.paths import ARTIFACTS

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")

SUGIYAMA = "Which ICML 2024 papers did Masashi Sugiyama co-author?"
FEDERATED = "Which ICML 2024 papers are about federated learning?"
LABEL = re.compile(r"page (\d+) of (\d+) · (\d+) papers?")


@pytest.fixture
def chat(browser: Any, full_server: AppServer) -> Iterator[Chat]:
    tab = Chat(browser, full_server)
    yield tab
    tab.close()


# --- reading the panel -----------------------------------------------------------------------
def label(page: Any) -> tuple[int, int, int]:
    """(page, pages, papers) from the "page X of Y · N papers" label."""
    match = LABEL.search(page.locator("#set-page").inner_text())
    assert match, page.locator("#set-page").inner_text()
    return int(match[1]), int(match[2]), int(match[3])


def ask_set(chat: Chat, question: str) -> tuple[int, int, int]:
    """Asks, then waits for the panel to show the new set on its first page."""
    chat.page.evaluate("() => { const e = document.querySelector('#set-table');"
                       " if (e) e.dataset.before = e.innerHTML; }")  # fmt: skip
    chat.ask(question)
    chat.page.wait_for_function(
        "() => { const e = document.querySelector('#set-table');"
        " return e && e.offsetParent !== null && e.querySelector('tbody tr')"
        " && e.innerHTML !== e.dataset.before; }",
        timeout=30_000,
    )
    return label(chat.page)


def rows(page: Any) -> list[dict[str, str]]:
    """The rows on the current page: paper id and the text of each cell."""
    return page.eval_on_selector_all(
        "#set-table tbody tr",
        """trs => trs.map(tr => ({id: tr.dataset.paper,
            n: tr.querySelector('.rag-set-n').innerText,
            title: tr.querySelector('.rag-set-title').innerText,
            status: tr.querySelector('.rag-set-status').innerText,
            why: tr.querySelector('.rag-set-why').innerText,
            score: tr.querySelector('.rag-set-score')?.innerText ?? ''}))""",
    )


def every_row(page: Any) -> list[dict[str, str]]:
    """Every row, clicking Next until the last page."""
    seen = rows(page)
    current, pages, _ = label(page)
    while current < pages:
        page.click("#set-next")
        page.wait_for_function(
            "n => document.querySelector('#set-page').innerText.startsWith(`page ${n} of`)",
            arg=current + 1,
        )
        seen += rows(page)
        current = label(page)[0]
    assert page.locator("#set-next").is_disabled()
    return seen


def sort_by(page: Any, column: str, direction: str, header: str | None = None) -> None:
    """Picks the sort column and direction; waits for the header (`header`, if it is not
    named as in the menu) to mark them."""
    page.locator("#set-sort input").click()
    page.locator(f'#set-sort [role=option][aria-label="{column}"]').click()
    page.locator("#set-direction label", has_text=direction).click()
    arrow = "▼" if direction == "descending" else "▲"
    page.wait_for_function(
        "want => document.querySelector('#set-table th.rag-sorted')?.innerText.trim() === want",
        arg=f"{header or column} {arrow}",
    )
    page.wait_for_function(
        "() => document.querySelector('#set-page').innerText.startsWith('page 1 of')"
    )


# --- the tests -------------------------------------------------------------------------------
def test_author_set_lists_all_seven_papers_and_exports_them(chat: Chat) -> None:
    page = chat.page
    assert not page.locator("#set-panel").is_visible()  # no set asked yet
    assert ask_set(chat, SUGIYAMA) == (1, 1, 7)
    shown = rows(page)
    assert [r["n"] for r in shown] == [str(n) for n in range(1, 8)]
    assert all(r["why"] == "Author: Masashi Sugiyama" for r in shown)
    assert "exact, from the catalogue" in page.locator("#set-summary").inner_text()
    assert page.locator("#set-previous").is_disabled() and page.locator("#set-next").is_disabled()
    name, bib = download(page, "#set-bib")
    assert name == "icml2024-papers.bib"
    assert bib.count("@InProceedings{") == 7 and bib.count("Masashi Sugiyama") == 7
    name, text = download(page, "#set-csv")
    assert name == "icml2024-papers.csv"
    exported = list(csv.DictReader(io.StringIO(text)))
    assert [r["paper_id"] for r in exported] == [r["id"] for r in shown]


def test_topic_set_pages_sorts_and_exports_every_row(chat: Chat) -> None:
    page = chat.page
    _, pages, total = ask_set(chat, FEDERATED)
    assert total > 25 and pages == -(-total // 25)
    assert len(rows(page)) == 25 and page.locator("#set-previous").is_disabled()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#set-panel").screenshot(path=str(ARTIFACTS / "set-table.png"))

    in_order = every_row(page)
    assert [int(r["n"]) for r in in_order] == list(range(1, total + 1))
    assert len({r["id"] for r in in_order}) == total
    # membership, with the answer's word for the row
    assert all(
        re.fullmatch(r"(0\.\d\d|1\.00) · (clearly|touches on it)", r["score"]) for r in in_order
    )

    sort_by(page, "Membership / similarity", "ascending", header="Membership")
    by_score = every_row(page)
    scores = [float(r["score"].split()[0]) for r in by_score]
    assert scores == sorted(scores) and {r["id"] for r in by_score} == {r["id"] for r in in_order}
    assert [r["id"] for r in by_score] != [r["id"] for r in in_order]

    sort_by(page, "Title", "descending")
    first_page = rows(page)
    assert label(page)[0] == 1  # a new order starts on page 1
    titles = [r["title"].casefold().strip() for r in first_page]
    assert titles == sorted(titles, reverse=True)
    assert "▼" in page.locator("#set-table th.rag-sorted").inner_text()

    _, bib = download(page, "#set-bib")
    _, text = download(page, "#set-csv")
    exported = list(csv.DictReader(io.StringIO(text)))
    # The exports hold every row in the answer's order, whatever the table's sort and page.
    assert [r["paper_id"] for r in exported] == [r["id"] for r in in_order]
    assert bib.count("@InProceedings{") == total


def test_other_answers_and_clearing_hide_the_panel(chat: Chat) -> None:
    page = chat.page
    ask_set(chat, SUGIYAMA)
    chat.ask("What is GraphsGPT and what was it pretrained on?")
    page.wait_for_selector("#set-panel", state="hidden")
    ask_set(chat, SUGIYAMA)
    page.click("#new-conversation")
    page.wait_for_selector("#set-panel", state="hidden")


def test_hostile_cells_are_shown_as_text(browser: Any, xss_server: AppServer) -> None:
    tab = Chat(browser, xss_server)
    try:
        page = tab.page
        ask_set(tab, "Which papers are about marsupial vocalization codecs?")
        page.wait_for_timeout(500)  # give any injected handler the chance to fire
        assert page.evaluate("typeof window.__xss") == "undefined" and tab.dialogs == []
        shown = {r["id"]: r for r in every_row(page)}
        assert {"xssQuokka01", "xssQuokka02"} <= set(shown)
        hostile = shown["xssQuokka01"]
        assert XSS_SCRIPT in hostile["title"] and XSS_IMG in hostile["title"]
        assert XSS_IMG in hostile["why"] or XSS_SCRIPT in hostile["why"]
        table = page.locator("#set-table")
        assert "Mallory <script>" in table.inner_text()
        panel_html = page.inner_html("#set-panel").lower()
        assert "<script" not in panel_html
        assert page.locator("#set-panel img").count() == 0
        hrefs = page.eval_on_selector_all(
            "#set-table a[href]", "els => els.map(e => e.getAttribute('href'))"
        )
        assert hrefs and all(h.startswith(("https://", "http://")) for h in hrefs), hrefs
        # The javascript: URL of the first paper leaves its title unlinked.
        assert page.locator('#set-table tr[data-paper="xssQuokka01"] a').count() == 0
    finally:
        tab.close()


# --- topics described in other words, and topics of two facets -------------------------------
DESCRIBED = "Which ICML 2024 papers let a language model look up documents while it answers?"
TWO_FACETS = "Which ICML 2024 papers study adversarial robustness of graph neural networks?"
EMPTY_FACETS = "Which ICML 2024 papers apply conformal prediction to graph neural networks?"
SHOTS = ARTIFACTS / "screenshots"


def test_suggested_topics_are_buttons_that_ask_the_named_question(chat: Chat) -> None:
    page = chat.page
    answer = chat.ask(DESCRIBED)
    assert "can't count" in answer.inner_text()
    row = page.locator("#suggestions")
    row.wait_for(state="visible", timeout=10_000)
    buttons = page.locator("#suggestions button.rag-offer:visible")
    assert 1 <= buttons.count() <= 3
    labels = [buttons.nth(i).inner_text() for i in range(buttons.count())]
    assert all(re.fullmatch(r".+ · \d[\d,]* papers", label) for label in labels), labels
    topic = labels[0].split(" · ")[0]
    page.locator("#suggestions").scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "suggested-topics.png"), full_page=False)
    done = page.locator("#chat .rag-answer:not(.rag-streaming)").count()
    buttons.first.click()
    page.wait_for_function(
        "n => document.querySelectorAll('#chat .rag-answer:not(.rag-streaming)').length > n",
        arg=done,
        timeout=120_000,
    )
    asked = page.locator("#chat .rag-question").last.inner_text()
    assert asked == f"Which ICML 2024 papers are about {topic}?"
    named = page.locator("#chat .rag-answer").last.inner_text()
    count = labels[0].split(" · ")[1].split()[0].replace(",", "")
    assert f"{count} " in named.splitlines()[0] or f"{count}–" in named.splitlines()[0]
    # a named topic offers nothing more: the row hides again
    page.locator("#suggestions").wait_for(state="hidden", timeout=10_000)


# The chat shows a window of its messages; for a picture of a whole answer it grows to fit.
UNBOXED_CHAT = "#chat, #chat * { height: auto !important; max-height: none !important; }"


def answer_shot(page: Any, answer: Any, path: Path) -> None:
    """A screenshot of the whole answer (the chat unboxed first: call it last)."""
    page.add_style_tag(content=UNBOXED_CHAT)
    path.parent.mkdir(parents=True, exist_ok=True)
    answer.screenshot(path=str(path))


def test_a_two_facet_answer_counts_the_intersection_and_shows_the_closest(chat: Chat) -> None:
    page = chat.page
    answer = chat.ask(TWO_FACETS)
    head = answer.inner_text().strip().splitlines()[0]
    # the handful of papers holding both facets (5 by reading), not every robustness paper;
    # a range when some only possibly do ("2–3 … 2 clearly, 1 possibly")
    found = re.match(
        r"(?:Only )?(?:\d+–)?(\d+) ICML 2024 (?:papers?|abstracts?) combines? “adversarial "
        r"robustness” and “graph",
        head,
    )
    assert found and 1 <= int(found.group(1)) <= 8, head
    page.locator("#set-panel").wait_for(state="visible", timeout=10_000)
    counted = [r for r in rows(page) if not r["score"].endswith("· closest")]
    assert len(counted) == int(found.group(1))  # closest papers are ranked, not counted
    SHOTS.mkdir(parents=True, exist_ok=True)
    answer.screenshot(path=str(SHOTS / "facet-answer.png"))  # the chat still boxed
    # an intersection no abstract holds is said plainly, the closest papers still ranked
    empty = chat.ask(EMPTY_FACETS)
    first = empty.inner_text().strip().splitlines()[0]
    assert (
        first
        == "No ICML 2024 abstract combines “conformal prediction” and “graph neural networks”."
    )
    assert "The closest papers, ranked (not counted as members):" in empty.inner_text()
    answer_shot(page, empty, SHOTS / "facet-none.png")
