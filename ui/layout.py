"""The chat page's layout and wiring (Gradio Blocks), and mounting it on the API app.

Behaviour lives in `ui.app.ChatController`; this module only places widgets and connects
their events to it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import gradio as gr
from fastapi import FastAPI

from rag.assistant import Assistant
from rag.settings import RETRIEVAL_MODES, Settings
from ui import render, table
from ui.app import SUGGESTED, ChatController, new_state
from ui.set_panel import SetPanel

EXAMPLES = [
    "Which ICML 2024 papers explain why feedback alignment works, and what do they find?",
    "What is GraphsGPT and what was it pretrained on?",
    "How can large language models be quantized to very low bit widths?",
    "Are explanations of graph neural networks robust to small changes of the graph?",
    "Does the order of premises matter when language models reason?",
]
STATUSES = ["Oral", "Spotlight", "Poster"]


@dataclass
class ChatWidgets:
    chatbot: Any
    question: Any
    send: Any
    comment: Any
    clear: Any
    feedback_status: Any
    copy_md: Any
    suggestions: Any  # the "Did you mean" row
    suggested: list[Any]  # its buttons


@dataclass
class PanelWidgets:
    mode: Any
    top_k: Any
    statuses: Any
    author: Any
    title: Any
    info: Any


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

    @property
    def page_outputs(self) -> list[Any]:  # the order of SetPanel._page, without the state
        return [self.table, self.label, self.previous, self.next]

    @property
    def outputs(self) -> list[Any]:  # the order of SetPanel.show, without the state
        return [self.column, self.summary, self.sort, self.direction, self.bib, self.csv]


def _set_panel() -> SetWidgets:
    # Hidden until an answer is a set with papers; full width, since the table is wide.
    with gr.Column(visible=False, elem_id="set-panel") as column:
        summary = gr.HTML(elem_id="set-summary")
        with gr.Row(equal_height=True):
            sort = gr.Dropdown(
                [(table.SORT_LABELS[k], k) for k in table.SORT_KEYS],
                value="n",
                label="Sort by",
                elem_id="set-sort",
                scale=1,
            )
            direction = gr.Radio(
                [table.ASCENDING, table.DESCENDING],
                value=table.ASCENDING,
                label="Order",
                elem_id="set-direction",
                scale=1,
            )
            bib = gr.DownloadButton("Export BibTeX", elem_id="set-bib", size="md", scale=0)
            csv = gr.DownloadButton("Export CSV", elem_id="set-csv", size="md", scale=0)
        rows = gr.HTML(elem_id="set-table")
        with gr.Row(equal_height=True):
            previous = gr.Button("◀ Previous", elem_id="set-previous", size="sm", scale=1)
            label = gr.Markdown(elem_id="set-page")
            following = gr.Button("Next ▶", elem_id="set-next", size="sm", scale=1)
    return SetWidgets(column, summary, sort, direction, bib, csv, rows, label, previous, following)


def _wire_set_panel(panel: SetPanel, state: Any, widgets: SetWidgets) -> None:
    quick: dict[str, Any] = {"queue": False, "api_visibility": "private"}
    page = [*widgets.page_outputs, state]
    # .input, not .change: `show` sets both widgets back to n/ascending for a new set.
    for control in (widgets.sort, widgets.direction):
        control.input(panel.sort, [state, widgets.sort, widgets.direction], page, **quick)
    widgets.previous.click(panel.previous, [state], page, **quick)
    widgets.next.click(panel.next, [state], page, **quick)


def _chat_column() -> ChatWidgets:
    gr.Markdown(
        "## Ask the ICML 2024 abstracts\n"
        "Answers quote or summarise the indexed abstracts and cite them as [n]; "
        "when the abstracts do not answer, it says so."
    )
    chatbot = gr.Chatbot(
        elem_id="chat",
        label="Conversation",
        height=560,
        render_markdown=False,  # our HTML is final: no Markdown second pass
        sanitize_html=True,
        allow_tags=False,
        latex_delimiters=render.LATEX_DELIMITERS,  # KaTeX typesets the formulas (ui.render)
        buttons=[],  # its copy button would copy our HTML; see the Markdown box
        feedback_options=("Like", "Dislike"),
        placeholder="Ask about ICML 2024 papers, or pick an example below.",
    )
    with gr.Row():
        question = gr.Textbox(
            elem_id="question",
            show_label=False,
            placeholder="Ask a question and press Enter",
            scale=5,
            autofocus=True,
        )
        send = gr.Button("Ask", elem_id="send", variant="primary", scale=1)
    # Named topics the last answer offered (a topic described in other words): each asks it.
    with gr.Row(visible=False, elem_id="suggestions") as suggestions:
        gr.Markdown("Did you mean:", elem_id="suggestions-label")
        suggested = [
            gr.Button(
                visible=False, size="sm", elem_id=f"suggestion-{i}", elem_classes="rag-suggest"
            )
            for i in range(SUGGESTED)
        ]
    gr.Examples(examples=[[q] for q in EXAMPLES], inputs=[question], label="Examples")
    with gr.Row():
        comment = gr.Textbox(
            elem_id="feedback-comment",
            label="Optional comment, sent with your next thumbs up/down",
            scale=4,
        )
        clear = gr.Button("Clear conversation", elem_id="clear", scale=1)
    feedback_status = gr.Markdown(elem_id="feedback-status")
    copy_md = gr.Code(
        elem_id="answer-markdown",
        label="Last answer with references, as Markdown",
        language="markdown",
        interactive=False,
        buttons=["copy"],
        lines=4,
        max_lines=12,  # a set answer's Markdown runs to hundreds of lines; it scrolls
    )
    return ChatWidgets(
        chatbot, question, send, comment, clear, feedback_status, copy_md, suggestions, suggested
    )


def _side_panel(settings: Settings, controller: ChatController) -> PanelWidgets:
    gr.Markdown("### Retrieval")
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
    gr.Markdown("### Filters")
    statuses = gr.CheckboxGroup(STATUSES, label="Status (none ticked: all)", elem_id="status")
    author = gr.Textbox(label="Author contains", elem_id="author")
    title = gr.Textbox(label="Title contains", elem_id="title-filter")
    gr.Markdown("### Backend and corpus")
    info = gr.HTML(controller.side_panel(), elem_id="corpus-info")
    return PanelWidgets(mode, top_k, statuses, author, title, info)


def _wire(
    demo: gr.Blocks,
    controller: ChatController,
    state: Any,
    chat: ChatWidgets,
    panel: PanelWidgets,
    settings: Settings,
    sets: SetWidgets,
) -> None:
    set_panel = SetPanel()
    # After every answer or clear: the panel shows the new set, or hides.
    shown: dict[str, Any] = {"fn": set_panel.show, "inputs": [state], "api_visibility": "private"}
    shown["outputs"] = [*sets.outputs, *sets.page_outputs, state]
    answer_inputs = [chat.question, chat.chatbot, state, panel.mode, panel.top_k]
    answer_inputs += [panel.statuses, panel.author, panel.title]
    answer_outputs = [chat.chatbot, state, chat.question, chat.copy_md]
    offered: dict[str, Any] = {"fn": controller.suggestion_buttons, "inputs": [state]}
    offered |= {"outputs": [chat.suggestions, *chat.suggested], "api_visibility": "private"}
    answering: dict[str, Any] = {
        "fn": controller.respond,
        "inputs": answer_inputs,
        "outputs": answer_outputs,
        "concurrency_id": "answer",  # Enter, the button and the suggestions share one limit
        "concurrency_limit": settings.ui_concurrency,
        "show_progress": "minimal",
        "api_visibility": "private",
    }
    for trigger in (chat.question.submit, chat.send.click):
        trigger(**answering).then(**shown, queue=False).then(**offered, queue=False)
    for index, button in enumerate(chat.suggested):
        button.click(
            partial(controller.suggested, index), [state], [chat.question], queue=False
        ).then(**answering).then(**shown, queue=False).then(**offered, queue=False)
    quick: dict[str, Any] = {"queue": False, "api_visibility": "private"}
    chat.chatbot.like(
        controller.like, [state, chat.comment], [chat.feedback_status, chat.comment], **quick
    )
    cleared = [state, chat.question, chat.copy_md, chat.feedback_status]
    chat.clear.click(controller.clear, None, [chat.chatbot, *cleared], **quick).then(
        **shown, queue=False
    ).then(**offered, queue=False)
    # The chatbot's own trash icon empties the chat: forget the conversation with it.
    chat.chatbot.clear(lambda: controller.clear()[1:], None, cleared, **quick).then(
        **shown, queue=False
    ).then(**offered, queue=False)
    _wire_set_panel(set_panel, state, sets)
    demo.load(controller.side_panel, None, panel.info, **quick)


def build_ui(assistant: Assistant, settings: Settings) -> gr.Blocks:
    controller = ChatController(assistant, settings)
    with gr.Blocks(title="ICML 2024 paper QA", analytics_enabled=False) as demo:
        state = gr.State(new_state())
        with gr.Row():
            with gr.Column(scale=3):
                chat = _chat_column()
            with gr.Column(scale=1, min_width=260):
                panel = _side_panel(settings, controller)
        sets = _set_panel()
        _wire(demo, controller, state, chat, panel, settings, sets)
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
    return gr.mount_gradio_app(
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
        css=render.CSS + table.CSS,
    )
