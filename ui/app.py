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
from collections.abc import Generator, Iterator
from typing import Any

import gradio as gr

from rag.answer.references import answer_with_references
from rag.assistant import Assistant
from rag.errors import AnswerError, FeedbackError, RagError, describe
from rag.feedback import FeedbackWriter
from rag.settings import Settings
from rag.types import Answer, ChatMessage
from ui import render
from ui.inputs import check_question_text, make_filters, whole_top_k
from ui.set_panel import table_state

log = logging.getLogger(__name__)

# Re-render a streaming answer at most this often: an LLM emits hundreds of tiny deltas and
# each update re-sends the message to the browser.
STREAM_INTERVAL_S = 0.05
SUGGESTED = 3  # "Did you mean" buttons under the chat
Outputs = tuple[Any, ...]


def new_state() -> dict[str, Any]:
    """Per-session state: the plain-text conversation for follow-ups, what each assistant
    message answered (for its feedback line), keyed by chatbot message index, and the last
    answer's set table (`ui.set_panel.table_state`; None unless it was a set answer) and the
    named topics it offered ([(topic, count, question)]; buttons under the chat ask them)."""
    return {"history": [], "records": {}, "table": None, "suggestions": []}


def _citation_summary(answer: Answer) -> list[dict[str, Any]]:
    return [
        {"n": c.n, "paper_id": c.paper_id, "title": c.title, "url": c.url, "score": c.score}
        for c in answer.citations
    ]


class Turn:
    """One question and its reply in the chat: where it sits, and its page anchors."""

    def __init__(self, chat: list[dict[str, Any]], question: str) -> None:
        self.question = question
        self.index = len(chat) + 1  # the assistant message's index in the chatbot value
        self.anchor = f"a{self.index}-{secrets.token_hex(3)}"  # unique within the page
        # Shown with any unpaired surrogate as "?": Gradio cannot send one to the browser.
        printable = question.encode("utf-8", "replace").decode("utf-8")
        self.shown = [*chat, {"role": "user", "content": render.question_html(printable)}]

    def reply(self, html: str) -> list[dict[str, Any]]:
        # A new list per update: each yield is a snapshot, never mutated afterwards.
        return [*self.shown, {"role": "assistant", "content": html}]


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
        state = state if state is not None else new_state()
        question = (question or "").strip()
        if not question:
            yield list(chat or []), state, "", gr.skip()
            return
        turn = Turn(list(chat or []), question)
        yield turn.reply(render.streaming_html("", turn.anchor)), state, "", gr.skip()
        try:
            check_question_text(question)
            events = self.assistant.stream(
                question,
                history=self._history(state),
                top_k=whole_top_k(top_k),
                mode=mode or None,  # type: ignore[arg-type]
                filters=make_filters(statuses, author, title),
            )
            final = yield from self._streamed(events, turn, state)
        except Exception as exc:  # every failure becomes a readable message in the chat
            yield self._failed(exc, turn, state)
            return
        yield self._answered(final, turn, state)

    def _streamed(
        self, events: Iterator[Any], turn: Turn, state: dict[str, Any]
    ) -> Generator[Outputs, None, Answer]:
        """Re-render the partial answer at most every `stream_interval`; return the Answer."""
        text, final, last_emit = "", None, time.monotonic()
        for kind, payload in events:
            if kind == "delta":
                text += str(payload)
                if time.monotonic() - last_emit >= self.stream_interval:
                    last_emit = time.monotonic()
                    yield turn.reply(render.streaming_html(text, turn.anchor)), state, "", gr.skip()
            elif isinstance(payload, Answer):
                final = payload
        if final is None:
            raise AnswerError("the answer stream ended without an answer")
        return final

    def _failed(self, exc: Exception, turn: Turn, state: dict[str, Any]) -> Outputs:
        if isinstance(exc, RagError):
            log.warning("answering failed: %s", exc)
        else:
            log.exception("answering %r failed", turn.question[:200])
        heading, detail = describe(exc)
        state["table"] = None  # the panel shows the last answer's set; this one had none
        state["suggestions"] = []
        state["records"][turn.index] = {
            "question": turn.question,
            "answer": f"{heading} {detail}",
            "citations": [],
            "backend": self.assistant.synthesizer.name,
        }
        return turn.reply(render.error_html(heading, detail)), state, "", gr.skip()

    def _answered(self, final: Answer, turn: Turn, state: dict[str, Any]) -> Outputs:
        markdown = answer_with_references(final)
        state["history"] = [
            *state["history"],
            {"role": "user", "content": turn.question},
            {"role": "assistant", "content": markdown},
        ]
        state["records"][turn.index] = {
            "question": turn.question,
            "answer": markdown,
            "citations": _citation_summary(final),
            "backend": final.backend + (f" ({final.model})" if final.model else ""),
        }
        state["table"] = table_state(final)
        state["suggestions"] = [(s.topic, s.count, s.question) for s in final.suggested_topics]
        return turn.reply(render.answer_html(final, turn.anchor)), state, "", markdown

    # --- suggested topics -------------------------------------------------------------
    def suggestion_buttons(self, state: dict[str, Any] | None) -> Outputs:
        """The row of "Did you mean" buttons: one per topic the last answer offered."""
        offered = (state or {}).get("suggestions") or []
        buttons = [
            gr.update(visible=True, value=f"{topic} · {count:,} papers")
            if i < len(offered)
            else gr.update(visible=False)
            for i, (topic, count, _) in enumerate([*offered, *[("", 0, "")] * SUGGESTED])
        ][:SUGGESTED]
        return (gr.update(visible=bool(offered)), *buttons)

    def suggested(self, index: int, state: dict[str, Any] | None) -> str:
        """The question a suggestion button asks (the last answer's `index`-th topic)."""
        offered = (state or {}).get("suggestions") or []
        return offered[index][2] if index < len(offered) else ""

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
            if not self.assistant.settings.refresh_seconds:
                # No store watcher (rag serve starts one): a page load picks up an ingest.
                self.assistant.reload()
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
