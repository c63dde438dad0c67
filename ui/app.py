"""The Gradio chat UI: streamed, cited answers with a side panel of retrieval options.

One `Assistant` per process, shared by every browser session (its reads are thread-safe);
Gradio's queue runs at most `settings.ui_concurrency` answers at once (RAG_UI_CONCURRENCY).
The embedded Chroma store (a PersistentClient in data_dir/chroma) can be opened by one
process only: to run several app processes, start `chroma run` and point every process at
it with RAG_CHROMA_HOST / RAG_CHROMA_PORT.

Messages are HTML built by `ui.render` (all corpus and user text escaped); the chatbot
shows them with Markdown rendering off so nothing re-interprets that text.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr
from fastapi import FastAPI

from rag import (
    AnswerError,
    Assistant,
    ChatMessage,
    EmptyStoreError,
    InputError,
    Settings,
    StoreError,
)
from rag.feedback import FeedbackError, FeedbackWriter
from rag.formatting import answer_with_references
from rag.prompts import ERROR_PREFIX
from rag.types import Answer
from ui import render
from ui.inputs import check_question_text, make_filters, whole_top_k

log = logging.getLogger(__name__)

EXAMPLES = [
    "Which ICML 2024 papers explain why feedback alignment works, and what do they find?",
    "What is GraphsGPT and what was it pretrained on?",
    "How can large language models be quantized to very low bit widths?",
    "Are explanations of graph neural networks robust to small changes of the graph?",
    "Does the order of premises matter when language models reason?",
]
STATUSES = ["Oral", "Spotlight", "Poster"]
# Re-render a streaming answer at most this often: an LLM emits hundreds of tiny deltas and
# each update re-sends the message to the browser.
STREAM_INTERVAL_S = 0.05
Outputs = tuple[Any, ...]


def new_state() -> dict[str, Any]:
    """Per-session state: the plain-text conversation for follow-ups, and what each
    assistant message answered (for its feedback line), keyed by chatbot message index."""
    return {"history": [], "records": {}}


def _citation_summary(answer: Answer) -> list[dict[str, Any]]:
    return [
        {"n": c.n, "paper_id": c.paper_id, "title": c.title, "url": c.url, "score": c.score}
        for c in answer.citations
    ]


def _describe_error(exc: Exception) -> tuple[str, str]:
    """(title, detail) of a failure as the reader should see it: never a traceback."""
    if isinstance(exc, InputError):
        return "That question could not be taken:", str(exc)
    if isinstance(exc, EmptyStoreError):
        return "No papers are indexed yet:", str(exc)
    if isinstance(exc, AnswerError):
        return ERROR_PREFIX, f"{exc}. Please try again in a moment."
    if isinstance(exc, StoreError):
        return "The paper store is unavailable:", str(exc)
    return (
        "Something went wrong while answering:",
        f"{type(exc).__name__}. The details are in the server log.",
    )


class ChatController:
    """The UI's behaviour, separate from its layout so it can be driven directly in tests."""

    def __init__(
        self, assistant: Assistant, settings: Settings, stream_interval: float = STREAM_INTERVAL_S
    ) -> None:
        self.assistant = assistant
        self.settings = settings
        self.stream_interval = stream_interval
        self.feedback = FeedbackWriter(settings.feedback_path)

    # --- answering --------------------------------------------------------------------
    def _history(self, state: dict[str, Any]) -> list[ChatMessage]:
        limit = self.settings.max_history_turns
        history = [ChatMessage(**m) for m in state["history"]]
        if limit <= 0:
            return []
        kept = history[-limit:]
        # Start on a user turn: a dangling assistant reply without its question misleads
        # the follow-up rule.
        while kept and kept[0].role != "user":
            kept = kept[1:]
        return kept

    def respond(
        self,
        question: str,
        chat: list[dict[str, Any]] | None,
        state: dict[str, Any] | None,
        mode: str | None = None,
        top_k: float | None = None,
        statuses: list[str] | None = None,
        author: str | None = None,
        title: str | None = None,
    ) -> Iterator[Outputs]:
        """Yields (chat, state, question box, Markdown copy) as the answer streams in."""
        chat = list(chat or [])
        state = state if state is not None else new_state()
        question = (question or "").strip()
        if not question:
            yield chat, state, "", gr.skip()
            return
        index = len(chat) + 1  # the assistant message's index in the chatbot value
        turn = f"a{index}-{secrets.token_hex(3)}"  # anchor prefix, unique within the page
        # Shown with any unpaired surrogate as "?": Gradio cannot send one to the browser.
        printable = question.encode("utf-8", "replace").decode("utf-8")
        shown = [*chat, {"role": "user", "content": render.question_html(printable)}]

        def with_reply(html: str) -> list[dict[str, Any]]:
            # A new list per update: each yield is a snapshot, never mutated afterwards.
            return [*shown, {"role": "assistant", "content": html}]

        yield with_reply(render.streaming_html("", turn)), state, "", gr.skip()

        text, final, last_emit = "", None, time.monotonic()
        try:
            check_question_text(question)
            events = self.assistant.stream(
                question,
                history=self._history(state),
                top_k=whole_top_k(top_k),
                mode=mode or None,  # type: ignore[arg-type]
                filters=make_filters(statuses, author, title),
            )
            for kind, payload in events:
                if kind == "delta":
                    text += str(payload)
                    if time.monotonic() - last_emit >= self.stream_interval:
                        last_emit = time.monotonic()
                        yield with_reply(render.streaming_html(text, turn)), state, "", gr.skip()
                elif isinstance(payload, Answer):
                    final = payload
            if final is None:
                raise AnswerError("the answer stream ended without an answer")
        except Exception as exc:  # every failure becomes a readable message in the chat
            if not isinstance(exc, InputError | EmptyStoreError | AnswerError | StoreError):
                log.exception("answering %r failed", question[:200])
            else:
                log.warning("answering failed: %s", exc)
            heading, detail = _describe_error(exc)
            state["records"][index] = {
                "question": question,
                "answer": f"{heading} {detail}",
                "citations": [],
                "backend": self.assistant.synthesizer.name,
            }
            yield with_reply(render.error_html(heading, detail)), state, "", gr.skip()
            return

        markdown = answer_with_references(final)
        state["history"] = [
            *state["history"],
            {"role": "user", "content": question},
            {"role": "assistant", "content": markdown},
        ]
        state["records"][index] = {
            "question": question,
            "answer": markdown,
            "citations": _citation_summary(final),
            "backend": final.backend + (f" ({final.model})" if final.model else ""),
        }
        yield with_reply(render.answer_html(final, turn)), state, "", markdown

    # --- feedback, clearing, side panel ------------------------------------------------
    def like(
        self, data: gr.LikeData, state: dict[str, Any] | None, comment: str | None
    ) -> tuple[str, Any]:
        """Appends one feedback line; returns (status text, new comment box value)."""
        raw_index = data.index
        index = raw_index if isinstance(raw_index, int) else raw_index[0]
        record = (state or new_state())["records"].get(index)
        if record is None:
            return "Only answers can be rated.", gr.skip()
        vote = "up" if data.liked is True else "down" if data.liked is False else "cleared"
        try:
            self.feedback.record(**record, vote=vote, comment=comment or "")
        except FeedbackError as exc:
            log.warning("%s", exc)
            return render.esc(str(exc)), gr.skip()
        said = {"up": "thumbs up", "down": "thumbs down", "cleared": "vote withdrawn"}[vote]
        return f"Feedback recorded ({said}). Thank you!", ""

    def clear(self) -> Outputs:
        return [], new_state(), "", "", ""

    def side_panel(self) -> str:
        """Backend and corpus facts as HTML (refreshed on every page load)."""
        try:
            self.assistant.reload()  # picks up an ingest into a shared Chroma server
            stats = self.assistant.stats()
        except Exception as exc:  # the panel must not break the page; answering reports it
            log.warning("reading store stats failed: %s", exc)
            return render.error_html("Store unavailable:", str(exc))
        backend = str(stats["backend"])
        if stats.get("llm_model"):
            backend += f" · {stats['llm_model']}"
        elif backend == "extractive":
            backend += " (offline: quotes abstract sentences)"
        dim = f" ({stats['embedding_dim']}-d)" if stats.get("embedding_dim") else ""
        rows = [
            ("Answers by", backend),
            ("Papers", f"{stats['papers']:,}"),
            ("Chunks", f"{stats['chunks']:,}"),
            ("Embeddings", f"{stats['embedding_model']}{dim}"),
            ("Store", f"{stats['store']} / {stats['collection']}"),
        ]
        cells = "".join(
            f"<tr><th>{render.esc(k)}</th><td>{render.esc(v)}</td></tr>" for k, v in rows
        )
        return f'<table class="rag-stats">{cells}</table>'


def build_ui(assistant: Assistant, settings: Settings) -> gr.Blocks:
    controller = ChatController(assistant, settings)
    with gr.Blocks(title="ICML 2024 paper QA", analytics_enabled=False) as demo:
        state = gr.State(new_state())
        with gr.Row():
            with gr.Column(scale=3):
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
                    latex_delimiters=[],
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
                )
            with gr.Column(scale=1, min_width=260):
                gr.Markdown("### Retrieval")
                mode = gr.Radio(
                    ["hybrid", "dense", "bm25"],
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
                statuses = gr.CheckboxGroup(
                    STATUSES, label="Status (none ticked: all)", elem_id="status"
                )
                author = gr.Textbox(label="Author contains", elem_id="author")
                title = gr.Textbox(label="Title contains", elem_id="title-filter")
                gr.Markdown("### Backend and corpus")
                info = gr.HTML(controller.side_panel(), elem_id="corpus-info")

        answer_inputs = [question, chatbot, state, mode, top_k, statuses, author, title]
        answer_outputs = [chatbot, state, question, copy_md]
        for trigger in (question.submit, send.click):
            trigger(
                controller.respond,
                answer_inputs,
                answer_outputs,
                concurrency_id="answer",  # Enter and the button share one limit
                concurrency_limit=settings.ui_concurrency,
                show_progress="minimal",
                api_visibility="private",
            )
        chatbot.like(
            controller.like,
            [state, comment],
            [feedback_status, comment],
            queue=False,
            api_visibility="private",
        )
        clear.click(
            controller.clear,
            None,
            [chatbot, state, question, copy_md, feedback_status],
            queue=False,
            api_visibility="private",
        )
        # The chatbot's own trash icon empties the chat: forget the conversation with it.
        chatbot.clear(
            lambda: controller.clear()[1:],
            None,
            [state, question, copy_md, feedback_status],
            queue=False,
            api_visibility="private",
        )
        demo.load(controller.side_panel, None, info, queue=False, api_visibility="private")
    demo.queue(default_concurrency_limit=settings.ui_concurrency)
    return demo


def _auth(settings: Settings) -> Callable[[str, str], bool] | None:
    """With an API key and protect_ui, the UI login takes the key as its password."""
    if settings.api_key is None or not settings.protect_ui:
        return None
    key = settings.api_key.get_secret_value()
    if not key:
        return None

    def check(username: str, password: str) -> bool:
        return secrets.compare_digest(password.encode(), key.encode())

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
        css=render.CSS,
    )
