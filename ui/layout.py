"""The chat page's layout and wiring (Gradio Blocks), and mounting it on the API app.

Behaviour lives in `ui.app.ChatController`; this module only places widgets and connects
their events to it.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import gradio as gr
from fastapi import FastAPI
from starlette.routing import Mount

from rag.assistant import Assistant
from rag.settings import RETRIEVAL_MODES, Settings
from ui import conversations, render, table
from ui.app import FOLLOW_UPS, SUGGESTED, ChatController, new_state
from ui.conversation_panel import ConversationPanel
from ui.set_panel import SetPanel

EXAMPLES = [
    "Which ICML 2024 papers explain why feedback alignment works, and what do they find?",
    "What is GraphsGPT and what was it pretrained on?",
    "How can large language models be quantized to very low bit widths?",
    "Are explanations of graph neural networks robust to small changes of the graph?",
    "Does the order of premises matter when language models reason?",
]
STATUSES = ["Oral", "Spotlight", "Poster"]
CLEAR_JS = "(question) => ['', question]"  # runs in the page: (box, sent)
STATIC = Path(__file__).parent / "static"  # the page's own script and styles
# The machine's own fonts: nothing is fetched (the default theme asks Google Fonts for one,
# which offline leaves headings in two fonts).
SYSTEM_FONTS = ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Noto Sans", "sans-serif"]
THEME = gr.themes.Default(
    font=SYSTEM_FONTS, font_mono=["ui-monospace", "DejaVu Sans Mono", "monospace"]
)


@dataclass
class ChatWidgets:
    chatbot: Any
    question: Any
    send: Any
    stop: Any
    comment: Any
    feedback_status: Any
    suggestions: Any  # the "Did you mean" row
    suggested: list[Any]  # its buttons
    follow_row: Any  # the "Follow up" row
    follow: list[Any]  # its buttons
    regenerate: Any  # hidden: the last message's own buttons click these (ui/static/chat.js)
    edit: Any
    sent: Any  # hidden: the question as sent, while the box is already empty


@dataclass
class PanelWidgets:
    mode: Any
    top_k: Any
    statuses: Any
    author: Any
    title: Any
    info: Any


@dataclass
class ConversationWidgets:
    stored: Any  # BrowserState: every conversation, in the browser's localStorage
    listed: Any
    new: Any
    delete: Any
    markdown: Any
    bibtex: Any

    @property
    def saved(self) -> list[Any]:  # the order of ChatController.save
        return [self.stored, self.listed, self.markdown, self.bibtex]


@dataclass
class SetWidgets:
    column: Any
    summary: Any
    sort: Any
    direction: Any
    bib: Any
    csv: Any
    table: Any
    label: Any
    previous: Any
    next: Any
    header_sort: Any  # hidden: a click on a column header writes "key:direction:…" here

    @property
    def page_outputs(self) -> list[Any]:  # the order of SetPanel._page, without the state
        return [self.table, self.label, self.previous, self.next]

    @property
    def outputs(self) -> list[Any]:  # the order of SetPanel.show, without the state
        return [self.column, self.summary, self.sort, self.direction, self.bib, self.csv]


def _set_panel() -> SetWidgets:
    # Hidden until an answer is a set with papers; the table scrolls sideways in its box.
    with gr.Column(visible=False, elem_id="set-panel") as column:
        summary = gr.HTML(elem_id="set-summary")
        with gr.Row(equal_height=True):
            sort = gr.Dropdown(
                [(table.SORT_LABELS[k], k) for k in table.SORT_KEYS],
                value="n",
                label="Sort by",
                elem_id="set-sort",
                scale=1,
                min_width=140,
            )
            direction = gr.Radio(
                [table.ASCENDING, table.DESCENDING],
                value=table.ASCENDING,
                label="Order",
                elem_id="set-direction",
                scale=1,
                min_width=140,
            )
            bib = gr.DownloadButton("Export BibTeX", elem_id="set-bib", size="md", scale=0)
            csv = gr.DownloadButton("Export CSV", elem_id="set-csv", size="md", scale=0)
        rows = gr.HTML(elem_id="set-table")
        with gr.Row(equal_height=True):
            previous = gr.Button("◀ Previous", elem_id="set-previous", size="sm", scale=1)
            label = gr.Markdown(elem_id="set-page")
            following = gr.Button("Next ▶", elem_id="set-next", size="sm", scale=1)
        header_sort = gr.Textbox(visible="hidden", elem_id="set-sort-request", show_label=False)
    return SetWidgets(
        column, summary, sort, direction, bib, csv, rows, label, previous, following, header_sort
    )


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


def _button_row(elem_id: str, heading: str, count: int) -> tuple[Any, list[Any]]:
    with gr.Row(visible=False, elem_id=elem_id, elem_classes="rag-offer-row") as row:
        gr.Markdown(heading, elem_classes="rag-offer-label")
        buttons = [
            gr.Button(visible=False, size="sm", elem_id=f"{elem_id}-{i}", elem_classes="rag-offer")
            for i in range(count)
        ]
    return row, buttons


def _examples(question: Any) -> None:
    """Example questions: a click puts one in the box (in the page, so a box that is still
    waiting for the stored conversation keeps its state), Enter sends it."""
    with gr.Row(elem_id="examples", elem_classes="rag-offer-row"):
        gr.Markdown("Examples:", elem_classes="rag-offer-label")
        for example in EXAMPLES:
            button = gr.Button(example, size="sm", elem_classes="rag-example")
            button.click(None, None, question, js=f"() => {json.dumps(example)}")


def _chat_column(settings: Settings) -> tuple[ChatWidgets, SetWidgets]:
    with gr.Row(elem_id="masthead"):
        gr.Markdown(
            "## Ask the ICML 2024 abstracts\n"
            "Answers quote or summarise the indexed abstracts and cite them as [n]; "
            "when the abstracts do not answer, it says so.",
            elem_id="intro",
        )
        gr.Button("◐ Light / dark", elem_id="theme-toggle", size="sm", scale=0, min_width=120)
    chatbot = gr.Chatbot(
        elem_id="chat",
        label="Conversation",
        height=560,  # ui/static/chat.css fits it to the window
        autoscroll=False,  # the page's script shows a new answer from its start instead
        render_markdown=False,  # our HTML is final: no Markdown second pass
        sanitize_html=True,
        allow_tags=False,
        latex_delimiters=render.LATEX_DELIMITERS,  # KaTeX typesets the formulas (ui.render)
        buttons=[],  # its copy button would copy our HTML; each answer has its own
        feedback_options=("Like", "Dislike"),
        placeholder="Ask about ICML 2024 papers, or pick an example below.",
    )
    with gr.Row(elem_id="ask-row", equal_height=True):
        # Both start disabled: the page's stored conversation is restored first (`_wire`).
        question = gr.Textbox(
            elem_id="question",
            show_label=False,
            placeholder="Ask a question and press Enter",
            scale=5,
            min_width=160,
            interactive=False,
        )
        send = gr.Button(
            "Ask", elem_id="send", variant="primary", scale=0, min_width=70, interactive=False
        )
        stop = gr.Button(
            "Stop", elem_id="stop", variant="stop", scale=0, min_width=70, visible=False
        )
    limit = settings.max_question_chars
    gr.HTML(
        f'<div class="rag-count" title="characters / limit">0 / {limit:,}</div>',
        elem_id="question-count",
    )
    # Named topics the last answer offered (a topic described in other words): each asks it.
    suggestions, suggested = _button_row("suggestions", "Did you mean:", SUGGESTED)
    follow_row, follow = _button_row("follow-ups", "Follow up:", FOLLOW_UPS)
    sets = _set_panel()  # right under the answer that filled it
    sent = gr.Textbox(visible="hidden", elem_id="sent", show_label=False)
    regenerate = gr.Button("Regenerate", visible="hidden", elem_id="regenerate")
    edit = gr.Button("Edit", visible="hidden", elem_id="edit-last")
    _examples(question)
    comment = gr.Textbox(
        elem_id="feedback-comment", label="Optional comment, sent with your next thumbs up/down"
    )
    feedback_status = gr.Markdown(elem_id="feedback-status")
    chat = ChatWidgets(
        chatbot,
        question,
        send,
        stop,
        comment,
        feedback_status,
        suggestions,
        suggested,
        follow_row,
        follow,
        regenerate,
        edit,
        sent,
    )
    return chat, sets


def _conversations(settings: Settings) -> ConversationWidgets:
    stored = gr.BrowserState(
        conversations.empty(),
        storage_key=conversations.STORAGE_KEY,
        secret=conversations.browser_secret(settings.data_dir),
    )
    with gr.Accordion("Conversations", open=True, elem_id="conversations"):
        listed = gr.Radio(
            [], label="Kept in this browser", elem_id="conversation-list", interactive=True
        )
        with gr.Row():
            new = gr.Button("New", elem_id="new-conversation", size="sm", min_width=60)
            delete = gr.Button("Delete", elem_id="delete-conversation", size="sm", min_width=60)
        with gr.Row():
            markdown = gr.DownloadButton(
                "Markdown", elem_id="export-markdown", size="sm", interactive=False, min_width=60
            )
            bibtex = gr.DownloadButton(
                "BibTeX", elem_id="export-bibtex", size="sm", interactive=False, min_width=60
            )
    return ConversationWidgets(stored, listed, new, delete, markdown, bibtex)


def _side_panel(settings: Settings, controller: ChatController) -> PanelWidgets:
    with gr.Accordion("Retrieval and filters", open=True, elem_id="options"):
        mode = gr.Radio(
            ["hybrid", *(m for m in RETRIEVAL_MODES if m != "hybrid")],
            value=settings.retrieval_mode,
            label="Mode",
            elem_id="mode",
        )
        top_k = gr.Slider(
            1,
            max(20, settings.top_k),
            value=settings.top_k,
            step=1,
            label="Papers retrieved (top-k)",
            elem_id="top-k",
        )
        statuses = gr.CheckboxGroup(STATUSES, label="Status (none ticked: all)", elem_id="status")
        author = gr.Textbox(label="Author contains", elem_id="author")
        title = gr.Textbox(label="Title contains", elem_id="title-filter")
    with gr.Accordion("Backend and corpus", open=False, elem_id="backend"):
        info = gr.HTML(controller.side_panel(), elem_id="corpus-info")
    return PanelWidgets(mode, top_k, statuses, author, title, info)


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
                chat, sets = _chat_column(settings)
            with gr.Column(scale=1, min_width=260, elem_id="side"):
                talks = _conversations(settings)
                panel = _side_panel(settings, controller)
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
