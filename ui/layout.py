"""The chat page's wiring (Gradio Blocks), and mounting it on the API app.

Behaviour lives in `ui.app.ChatController`, the widgets in `ui.widgets`; this module
connects their events to it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gradio as gr
from fastapi import FastAPI
from starlette.routing import Mount

from rag.assistant import Assistant
from rag.settings import Settings
from ui import render, table
from ui.app import ChatController, new_state
from ui.conversation_panel import ConversationPanel
from ui.set_panel import SetPanel
from ui.widgets import (
    THEME,
    ChatWidgets,
    ConversationWidgets,
    PanelWidgets,
    SetWidgets,
    chat_column,
    conversation_widgets,
    side_panel,
)

CLEAR_JS = "(question) => ['', question]"  # runs in the page: (box, sent)
STATIC = Path(__file__).parent / "static"  # the page's own script and styles


def _wire_set_panel(panel: SetPanel, state: Any, widgets: SetWidgets) -> None:
    quick: dict[str, Any] = {"queue": False, "api_visibility": "private", "show_progress": "hidden"}
    page = [*widgets.page_outputs, state]
    # .input, not .change: `show` sets both widgets back to n/ascending for a new set.
    for control in (widgets.sort, widgets.direction):
        control.input(panel.sort, [state, widgets.sort, widgets.direction], page, **quick)
    widgets.previous.click(panel.previous, [state], page, **quick)
    widgets.next.click(panel.next, [state], page, **quick)
    widgets.header_sort.change(
        panel.header_sort,
        [state, widgets.header_sort],
        [widgets.sort, widgets.direction, *page],
        **quick,
    )


def _wire(
    demo: gr.Blocks,
    controller: ChatController,
    state: Any,
    chat: ChatWidgets,
    panel: PanelWidgets,
    talks: ConversationWidgets,
    settings: Settings,
    sets: SetWidgets,
) -> None:
    set_panel = SetPanel()
    talk_panel = ConversationPanel()
    pending = gr.State(None)
    private: dict[str, Any] = {"api_visibility": "private"}
    # No progress timers ("0.1s") over widgets that quick events update.
    quick: dict[str, Any] = {"queue": False, "show_progress": "hidden", **private}
    # After every answer, stop, redo or switch: the panel shows the new set (or hides), the
    # offered buttons follow, the conversation is written to the browser, Stop hides.
    shown: dict[str, Any] = {"fn": set_panel.show, "inputs": [state], **quick}
    shown["outputs"] = [*sets.outputs, *sets.page_outputs, state]
    offered: dict[str, Any] = {"fn": controller.offered_buttons, "inputs": [state], **quick}
    offered["outputs"] = [chat.suggestions, *chat.suggested, chat.follow_row, *chat.follow]
    saved: dict[str, Any] = {"fn": talk_panel.save, **quick}
    saved |= {"inputs": [state, chat.chatbot, talks.stored], "outputs": talks.saved}
    answer_inputs = [pending, chat.chatbot, state, panel.mode, panel.top_k]
    answer_inputs += [panel.statuses, panel.author, panel.title]
    answering: dict[str, Any] = {
        "fn": controller.respond,
        "inputs": answer_inputs,
        "outputs": [chat.chatbot, state],
        "concurrency_id": "answer",  # every way of asking shares one limit
        "concurrency_limit": settings.ui_concurrency,
        "show_progress": "minimal",
        # A stopped answer's event stays pending in the page until Gradio resets it; "once"
        # would drop the next question sent meanwhile (the session's busy flag guards).
        "trigger_mode": "multiple",
        **private,
    }
    # Stop shows while an answer streams; the steps after a stopped answer run late (after
    # Gradio resets the cancelled event), so each asks the session rather than hiding it.
    stop_button: dict[str, Any] = {"fn": controller.stop_button, "inputs": [state]}
    stop_button["outputs"] = [chat.stop]
    answers = []

    def answer_after(started: Any) -> None:
        running = started.then(**stop_button, **quick).then(**answering)
        answers.append(running)
        running.then(**stop_button, **quick).then(**shown).then(**offered).then(**saved)

    for trigger in (chat.question.submit, chat.send.click):
        # The box empties in the page as the question goes, before any server round trip;
        # then one queued event accepts it (or puts it back with a notice) and answers.
        sent = trigger(None, [chat.question], [chat.question, chat.sent], js=CLEAR_JS, **quick)
        asked = {**answering, "fn": controller.ask}
        asked |= {"inputs": [chat.sent, *answer_inputs[1:]]}
        asked |= {"outputs": [chat.chatbot, state, chat.question, chat.stop]}
        running = sent.then(**asked)
        answers.append(running)
        running.then(**stop_button, **quick).then(**shown).then(**offered).then(**saved)
    for index, button in enumerate(chat.suggested):
        answer_after(
            button.click(partial(controller.suggested, index), [state], [pending, state], **quick)
        )
    for index, button in enumerate(chat.follow):
        answer_after(
            button.click(partial(controller.follow_up, index), [state], [pending, state], **quick)
        )
    answer_after(
        chat.regenerate.click(
            controller.regenerate, [chat.chatbot, state], [chat.chatbot, pending, state], **quick
        )
    )
    chat.edit.click(
        controller.edit_last, [chat.chatbot, state], [chat.chatbot, chat.question, state], **quick
    ).success(**shown).then(**offered).then(**saved)
    chat.stop.click(
        controller.stop, [chat.chatbot, state], [chat.chatbot, state], cancels=answers, **quick
    ).then(**stop_button, **quick).then(**shown).then(**offered).then(**saved)
    chat.chatbot.like(
        controller.like, [state, chat.comment], [chat.feedback_status, chat.comment], **quick
    )
    opened = [chat.chatbot, state, *talks.saved]
    # The browser's store loads as its component mounts (a `change`, after the page's load
    # event): the conversation comes back then, and only then can a question be sent (it
    # would race the restore for the session).
    talks.stored.change(
        talk_panel.restore,
        [talks.stored, state],
        [chat.chatbot, state, talks.listed, talks.markdown, talks.bibtex, chat.question, chat.send],
        **quick,
    ).success(**shown).then(**offered)
    for event, fn, inputs in (
        (talks.listed.input, talk_panel.open_conversation, [talks.listed, talks.stored, state]),
        (talks.new.click, talk_panel.new_conversation, [talks.stored]),
        (talks.delete.click, talk_panel.delete_conversation, [talks.stored, state]),
        # The chatbot's own trash icon starts a new conversation; the old one stays listed.
        (chat.chatbot.clear, talk_panel.new_conversation, [talks.stored]),
    ):
        event(fn, inputs, opened, **quick).success(**shown).then(**offered)
    _wire_set_panel(set_panel, state, sets)
    demo.load(controller.side_panel, None, panel.info, **quick)


def build_ui(assistant: Assistant, settings: Settings) -> gr.Blocks:
    controller = ChatController(assistant, settings)
    with gr.Blocks(title="ICML 2024 paper QA", analytics_enabled=False) as demo:
        state = gr.State(new_state())
        with gr.Row(elem_id="page"):
            with gr.Column(scale=3, min_width=320, elem_id="main"):
                chat, sets = chat_column(settings)
            with gr.Column(scale=1, min_width=260, elem_id="side"):
                talks = conversation_widgets(settings)
                panel = side_panel(settings, controller)
        _wire(demo, controller, state, chat, panel, talks, settings, sets)
    demo.queue(default_concurrency_limit=settings.ui_concurrency)
    return demo


def _auth(settings: Settings) -> Callable[[str, str], bool] | None:
    """With an API key set, the UI login takes a key as its password, unless protect_ui is
    false: a server that guards its API should not leave the same answers open in a browser."""
    keys = settings.api_keys()
    if not keys or not settings.protect_ui:
        return None

    def check(username: str, password: str) -> bool:
        matches = [secrets.compare_digest(password.encode(), key.encode()) for key in keys]
        return any(matches)

    return check


def mount_ui(app: FastAPI, assistant: Assistant, settings: Settings) -> FastAPI:
    """Mounts the chat UI at "/" on the API app (after its routes, so /v1 keeps priority)."""
    demo = build_ui(assistant, settings)
    mounted = gr.mount_gradio_app(
        app,
        demo,
        path="/",
        server_name=settings.host,
        server_port=settings.port,
        auth=_auth(settings),
        auth_message="This server requires its API key: any user name, the key as password.",
        footer_links=[],
        run_history=False,
        show_error=False,  # errors are turned into chat messages; never show raw exceptions
        ssr_mode=False,
        mcp_server=False,
        css=render.CSS + table.CSS + _static("chat.css"),
        head=f"<script>{_static('chat.js')}</script>",
        theme=THEME,
    )
    # The API's edge guard (rag.api.edge) checks the UI's login against Gradio's sessions.
    app.state.gradio = next(
        route.app for route in mounted.routes if isinstance(route, Mount) and route.path == ""
    )
    return mounted


def _static(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")
