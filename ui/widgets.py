"""The chat page's widgets (Gradio Blocks): the chat column, the set table under it, the
stored conversations and the side panel, each returned as a record of its components for
`ui.layout` to wire to the controller.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import gradio as gr

from rag.settings import RETRIEVAL_MODES, Settings
from ui import conversations, render, table
from ui.app import FOLLOW_UPS, SUGGESTED, ChatController

EXAMPLES = [
    "Which ICML 2024 papers explain why feedback alignment works, and what do they find?",
    "What is GraphsGPT and what was it pretrained on?",
    "How can large language models be quantized to very low bit widths?",
    "Are explanations of graph neural networks robust to small changes of the graph?",
    "Does the order of premises matter when language models reason?",
]
STATUSES = ["Oral", "Spotlight", "Poster"]
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


def chat_column(settings: Settings) -> tuple[ChatWidgets, SetWidgets]:
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


def conversation_widgets(settings: Settings) -> ConversationWidgets:
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


def side_panel(settings: Settings, controller: ChatController) -> PanelWidgets:
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
