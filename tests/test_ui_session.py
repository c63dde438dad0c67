"""The chat session's own behaviour, driven directly (real assistant over the fixture store):
sending (the box is never written by an answer; a refused question stays), one answer at a
time, stop, regenerate, edit, follow-up buttons, and conversations kept in the browser
(their stored form, restoring, exports)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from rag.types import Answer, Citation
from tests.support.settings import make_settings
from ui import conversations
from ui.app import BUSY_MESSAGE, ChatController, new_state
from ui.conversation_panel import ConversationPanel
from ui.followups import follow_ups

FA_QUESTION = "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
AUTHOR_QUESTION = "Which ICML 2024 papers did stan z. li co-author?"


@pytest.fixture
def controller(assistant: Any, tmp_path: Path) -> ChatController:
    settings = make_settings(tmp_path / "data", backend="extractive")
    return ChatController(assistant, settings, stream_interval=0.0)


@pytest.fixture
def panel() -> ConversationPanel:
    return ConversationPanel()


def send(
    controller: ChatController,
    question: str,
    state: dict[str, Any],
    chat: list[dict[str, Any]] | None = None,
    **options: Any,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """What the page does on Enter: `ask` accepts the question and answers it."""
    outputs = list(controller.ask(question, chat or [], state, **options))
    assert all(box == gr.skip() for _, _, box, _ in outputs)  # the server never empties it
    assert outputs[0][3] == gr.update(visible=True)  # Stop shows while it streams
    chat_after, state_after, _, _ = outputs[-1]
    return chat_after, state_after


# --- sending ------------------------------------------------------------------------------
def test_a_refused_question_goes_back_to_the_box(
    controller: ChatController, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned: list[str] = []
    monkeypatch.setattr(gr, "Warning", lambda message, **_: warned.append(message))
    long = "why " * 600
    box, pending, state = controller.accept(long, new_state())
    assert box == long and pending is None  # kept to trim and resend; nothing answered
    assert "question: 2,399 characters (limit 2,000)" in warned[0]
    assert state["busy"] is None
    outputs = list(controller.respond(pending, [], state))
    assert outputs == [([], state)]  # no bubble for a refused question
    asked = list(controller.ask(long, [], new_state()))
    assert len(asked) == 1 and asked[0][0] == [] and asked[0][2] == long  # the same, in one


def test_a_question_sent_while_one_streams_is_refused_and_kept(
    controller: ChatController, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned: list[str] = []
    monkeypatch.setattr(gr, "Warning", lambda message, **_: warned.append(message))
    state = new_state()
    _, first, state = controller.accept(FA_QUESTION, state)
    streaming = controller.respond(first, [], state)
    next(streaming)  # the first answer has started
    box, second, state = controller.accept("And the second question?", state)
    assert box == "And the second question?" and second is None and warned == [BUSY_MESSAGE]
    *_, (chat, state) = streaming  # the first answer finishes untouched
    assert len(chat) == 2 and "rag-refs" in chat[-1]["content"] and state["busy"] is None
    _, third, _ = controller.accept("And the second question?", state)
    assert third is not None and third["question"] == "And the second question?"


def test_a_pending_question_is_answered_once(controller: ChatController) -> None:
    _, pending, state = controller.accept(FA_QUESTION, new_state())
    chat, state = list(controller.respond(pending, [], state))[-1]
    # Another trigger (a refused follow-up) finds the same pending value: nothing happens.
    assert list(controller.respond(pending, chat, state)) == [(chat, state)]


# --- stop, regenerate, edit ------------------------------------------------------------------
def test_stop_keeps_what_arrived_and_frees_the_session(controller: ChatController) -> None:
    _, pending, state = controller.accept(FA_QUESTION, new_state())
    streaming = controller.respond(pending, [], state)
    shown: list[dict[str, Any]] = []
    for update in streaming:
        shown, state = update
        if state["streaming"]["text"]:
            break
    streaming.close()  # what Gradio's cancel does to the generator
    assert "Implicit Regularization" in state["streaming"]["text"]
    chat, state = controller.stop(shown, state)
    html = chat[-1]["content"]
    assert "rag-stopped" in html and "Stopped before the answer was complete" in html
    assert "rag-streaming" not in html and state["busy"] is None
    assert "<em>Implicit Regularization in Feedback Alignment" in html  # what had arrived
    assert state["history"] == []  # a stopped answer is not context for a follow-up
    chat2, pending2, state = controller.regenerate(chat, state)
    assert chat2 == [] and pending2["question"] == FA_QUESTION


def test_regenerate_asks_the_last_question_again_in_its_place(controller: ChatController) -> None:
    chat, state = send(controller, FA_QUESTION, new_state())
    chat, state = send(controller, AUTHOR_QUESTION, state, chat)
    assert len(chat) == 4 and len(state["history"]) == 4
    shorter, pending, state = controller.regenerate(chat, state)
    assert len(shorter) == 2 and len(state["history"]) == 2 and 3 not in state["records"]
    chat, state = list(controller.respond(pending, shorter, state))[-1]
    assert len(chat) == 4 and len(state["history"]) == 4
    assert state["history"][2]["content"] == AUTHOR_QUESTION


def test_edit_puts_the_last_question_back_and_removes_its_turn(
    controller: ChatController,
) -> None:
    chat, state = send(controller, FA_QUESTION, new_state())
    chat, box, state = controller.edit_last(chat, state)
    assert chat == [] and box == FA_QUESTION and state["history"] == []
    with pytest.raises(gr.Error, match="no answer to redo"):
        controller.edit_last(chat, state)


def test_a_failed_turn_can_be_regenerated(controller: ChatController) -> None:
    chat, state = list(controller.respond("x" * 5000, [], new_state()))[-1]
    assert 'class="rag-error"' in chat[-1]["content"] and "rag-regenerate" in chat[-1]["content"]
    shorter, pending, state = controller.regenerate(chat, state)
    assert shorter == [] and pending["question"] == "x" * 5000


# --- follow-ups ----------------------------------------------------------------------------
def test_follow_ups_offer_orals_comparison_and_neighbours(controller: ChatController) -> None:
    # MagicLens (an oral) and BAGEL (a poster): both named by the part before the colon.
    chat, state = send(controller, "Which ICML 2024 papers did Kenton Lee co-author?", new_state())
    offered = list(state["follow_ups"])
    labels = [f["label"] for f in offered]
    assert labels[0] == "Only orals" and labels[-1].startswith("Papers like ")
    assert "Compare MagicLens and BAGEL" in labels
    for index, chosen in enumerate(offered):
        asked = {**state, "follow_ups": offered, "history": list(state["history"])}
        asked["records"] = dict(state["records"])
        pending, asked = controller.follow_up(index, asked)
        reply_chat, asked = list(controller.respond(pending, chat, asked))[-1]
        question, reply = reply_chat[-2]["content"], reply_chat[-1]["content"]
        assert 'class="rag-error"' not in reply, reply[:400]
        if chosen["label"] == "Only orals":
            assert "(orals only)" in question and "Poster" not in reply
        elif chosen["label"].startswith("Compare "):
            assert "side by side" in reply
        else:
            assert "closest to" in reply  # the similar-papers route


def test_no_follow_ups_under_a_refusal_or_an_unnamed_paper() -> None:
    refusal = Answer(question="q", answer="No.", abstained=True, backend="x", mode="hybrid")
    assert follow_ups(refusal, "q", None, lambda name: None) == []
    cited = Citation(
        n=1,
        paper_id="p1",
        title="A Long Title Without A Name",
        authors=["A"],
        url="https://openreview.net/forum?id=p1",
        snippet="s",
        score=1.0,
        status="Oral",
    )
    answer = refusal.model_copy(update={"abstained": False, "citations": [cited]})
    offered = follow_ups(answer, "q", None, lambda name: None)
    # All orals: no "Only orals"; one paper without a short name: no comparison.
    assert [f.label for f in offered] == ["Papers like A Long Title Without A Name"]
    assert offered[0].question == "Which papers are similar to A Long Title Without A Name?"
    assert follow_ups(answer, "q", ["Oral"], lambda name: None)[0].statuses is None


# --- conversations ---------------------------------------------------------------------------
def test_a_conversation_survives_a_reload_with_its_table_and_exports(
    controller: ChatController, panel: ConversationPanel
) -> None:
    chat, state = send(controller, FA_QUESTION, new_state())
    chat, state = send(controller, AUTHOR_QUESTION, state, chat)
    # The chatbot hands its messages back to `save` as lists of typed parts.
    handed_back = [
        {"role": m["role"], "content": [{"type": "text", "text": m["content"]}]} for m in chat
    ]
    stored, listed, _md, _bib = panel.save(state, handed_back, None)
    stored = json.loads(json.dumps(stored))  # what the browser keeps is JSON
    assert listed["value"] == state["conversation"]
    assert listed["choices"][0][0].startswith("Which ICML 2024 papers explain why feedback")
    chat2, state2, _, md2, bib2, box, send_button = panel.restore(stored, new_state())
    assert box["interactive"] and send_button["interactive"]
    assert panel.restore(stored, state2) == (gr.skip(),) * 7  # its own later saves
    assert chat2 == chat and state2["history"] == state["history"]
    assert state2["records"].keys() == state["records"].keys()
    assert state2["table"]["aggregate"].count == 3  # the set panel comes back too
    text = Path(md2["value"]).read_text()
    assert text.startswith("# Which ICML 2024 papers explain why feedback")
    assert f"## 2. {AUTHOR_QUESTION}" in text and "References:" in text
    entries = Path(bib2["value"]).read_text()
    assert entries.count("@InProceedings{") == len(state["cited"]) >= 4
    assert "@InProceedings{gao24e," in entries  # keyed by PMLR key


def test_conversations_are_listed_opened_and_deleted(
    controller: ChatController, panel: ConversationPanel
) -> None:
    chat, state = send(controller, FA_QUESTION, new_state())
    stored, *_ = panel.save(state, chat, None)
    chat_b, state_b = send(controller, AUTHOR_QUESTION, panel.new_conversation(stored)[1])
    stored, listed, *_ = panel.save(state_b, chat_b, stored)
    assert [value for _, value in listed["choices"]] == [
        state_b["conversation"],
        state["conversation"],
    ]
    opened = panel.open_conversation(state["conversation"], stored, state_b)
    assert opened[0] == chat and opened[2]["current"] == state["conversation"]
    after = panel.delete_conversation(opened[2], opened[1])
    assert after[0] == [] and [i["id"] for i in after[2]["items"]] == [state_b["conversation"]]


def test_stored_conversations_are_checked_and_bounded(tmp_path: Path) -> None:
    assert conversations.checked({"version": 99, "items": [1]}) == conversations.empty()
    assert conversations.checked("not a store") == conversations.empty()
    odd = {"version": 1, "current": "x", "items": [{"id": "x", "chat": "<img>", "history": []}]}
    assert conversations.checked(odd)["items"] == []
    big = conversations.empty()
    for i in range(40):
        record = {
            "id": f"c{i}",
            "title": f"t{i}",
            "updated": i,
            "history": [],
            "chat": [{"role": "user", "content": "x" * 100_000}],
            "records": {},
            "cited": [],
        }
        big = conversations.saved_with(big, record)
    assert len(json.dumps(big["items"])) <= conversations.MAX_STORED_CHARS
    assert big["items"][0]["id"] == "c39"  # the newest first, the oldest dropped
    secret = conversations.browser_secret(tmp_path)
    assert conversations.browser_secret(tmp_path) == secret and len(secret) == 64
    assert oct((tmp_path / conversations.SECRET_FILE).stat().st_mode)[-3:] == "600"


def test_header_click_sorts_the_table(controller: ChatController, tmp_path: Path) -> None:
    from ui.set_panel import ExportFiles, SetPanel

    panel = SetPanel(ExportFiles(tmp_path / "exports"))
    _, state = send(controller, AUTHOR_QUESTION, new_state())
    sort, direction, html, *_ = panel.header_sort(state, "title:descending:123")
    assert sort["value"] == "title" and direction["value"] == "descending"
    titles = re.findall(r'class="rag-ref-title"[^>]*>([^<]+)', html) or re.findall(
        r"<a [^>]*>([^<]+)</a>", html
    )
    assert titles == sorted(titles, key=str.casefold, reverse=True), titles
    assert 'class="rag-key-title rag-sorted" aria-sort="descending"' in html
    assert "Membership" not in html  # an exact catalogue list has no score column
    ignored = panel.header_sort(state, "evil</th>:x")
    assert ignored[0] is gr.skip() or ignored[0] == gr.skip()
