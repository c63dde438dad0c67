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

from rag.answer.inputs import checked_question
from rag.answer.references import answer_with_references
from rag.assistant import Assistant
from rag.errors import AnswerError, FeedbackError, InputError, RagError, describe
from rag.feedback import FeedbackWriter
from rag.settings import Settings
from rag.types import Answer, ChatMessage
from ui import conversations, render
from ui.followups import follow_ups
from ui.inputs import check_question_text, make_filters, whole_top_k
from ui.set_panel import table_state

log = logging.getLogger(__name__)

# Re-render a streaming answer at most this often: an LLM emits hundreds of tiny deltas and
# each update re-sends the message to the browser.
STREAM_INTERVAL_S = 0.05
SUGGESTED = 3  # "Did you mean" buttons under the chat
FOLLOW_UPS = 3  # "Follow up" buttons under the chat
# A session's answer that has not finished after this long (a lost queue event) no longer
# blocks its next question.
BUSY_EXPIRES_S = 300.0
BUSY_MESSAGE = (
    "An answer is still coming in. Your question is kept in the box: send it when the "
    "answer is done, or press Stop."
)
Outputs = tuple[Any, ...]


def new_state() -> dict[str, Any]:
    """Per-session state: the plain-text conversation for follow-ups, what each assistant
    message answered (for its feedback line, regenerating and editing), keyed by chatbot
    message index; the last answer's set table (`ui.set_panel.table_state`; None unless it
    was a set answer), the named topics and follow-ups it offered; the answer streaming now
    ("busy": its token and start; "streaming": its partial text); which stored conversation
    this is, its title, and every paper it cited (for its BibTeX)."""
    return {
        "history": [],
        "records": {},
        "table": None,
        "suggestions": [],
        "follow_ups": [],
        "busy": None,
        "streaming": None,
        "conversation": conversations.new_id(),
        "title": "",
        "cited": {},
        "restored": False,  # the browser's stored conversation is back (`restore`)
    }


def _citation_summary(answer: Answer) -> list[dict[str, Any]]:
    return [
        {"n": c.n, "paper_id": c.paper_id, "title": c.title, "url": c.url, "score": c.score}
        for c in answer.citations
    ]


class Turn:
    """One question and its reply in the chat: where it sits, and its page anchors."""

    def __init__(self, chat: list[dict[str, Any]], question: str, shown: str = "") -> None:
        self.question = question
        self.index = len(chat) + 1  # the assistant message's index in the chatbot value
        self.anchor = f"a{self.index}-{secrets.token_hex(3)}"  # unique within the page
        shown_html = render.question_html(printable(shown or question))
        self.shown = [*chat, {"role": "user", "content": shown_html}]

    def reply(self, html: str) -> list[dict[str, Any]]:
        # A new list per update: each yield is a snapshot, never mutated afterwards.
        return [*self.shown, {"role": "assistant", "content": html}]


def printable(text: str) -> str:
    """The text with any unpaired surrogate as "?": Gradio cannot send one to the page."""
    return text.encode("utf-8", "replace").decode("utf-8")


def busy(state: dict[str, Any]) -> bool:
    busy = state.get("busy")
    return busy is not None and time.monotonic() - float(busy[1]) < BUSY_EXPIRES_S


def _claimed(pending: Any, state: dict[str, Any]) -> bool:
    """Whether `pending` is the question this session is answering now (not one already
    answered or stopped: the pending slot keeps its last value)."""
    busy = state.get("busy")
    return (
        isinstance(pending, dict)
        and isinstance(pending.get("question"), str)
        and busy is not None
        and pending.get("token") == busy[0]
    )


def _pending(question: str, shown: str = "", statuses: list[str] | None = None) -> dict[str, Any]:
    return {"question": question, "shown": shown or question, "statuses": statuses}


class ChatController:
    """The chat's behaviour, separate from its layout so it can be driven directly in tests.

    The page empties the box as a question goes; `ask` (one queued event) accepts it or puts
    it back, then answers it, so nothing an answer streams ever writes to the box the user
    is typing in. Buttons (follow-ups, named topics, regenerate) claim a pending question
    and `respond` answers it. The conversations panel is `ui.conversation_panel`."""

    def __init__(
        self, assistant: Assistant, settings: Settings, stream_interval: float = STREAM_INTERVAL_S
    ) -> None:
        self.assistant = assistant
        self.settings = settings
        self.stream_interval = stream_interval
        self.feedback = FeedbackWriter(settings.feedback_path)

    # --- sending ------------------------------------------------------------------------
    def _claim(self, state: dict[str, Any], pending: dict[str, Any]) -> dict[str, Any]:
        """Marks the session busy with `pending`'s answer; refuses while another streams."""
        if busy(state):
            raise gr.Error(BUSY_MESSAGE, title="Still answering")
        token = secrets.token_hex(4)
        state["busy"] = (token, time.monotonic())
        return {**pending, "token": token}

    def accept(self, question: str | None, state: dict[str, Any] | None) -> Outputs:
        """(question box, pending question, state) for a sent question. The page empties
        the box as it sends (ui.layout CLEAR_JS), so nothing typed afterwards is touched;
        a refused question goes back into the box, with the reason in a notice."""
        state = state if state is not None else new_state()
        text = (question or "").strip()
        if not text:
            return gr.skip(), None, state  # Enter on an empty box: nothing happens
        try:
            check_question_text(text)
            checked_question(text, self.settings.limits)
            return gr.skip(), self._claim(state, _pending(text)), state
        except InputError as exc:
            gr.Warning(f"{exc}. Edit it and send it again.", title="Question not sent")
        except gr.Error as exc:
            gr.Warning(exc.message, title="Still answering")
        # Back as sent; an unpaired surrogate as "?" (Gradio cannot send one to the page).
        return printable(question or ""), None, state

    def ask(
        self,
        sent: str | None,
        chat: list[dict[str, Any]] | None,
        state: dict[str, Any] | None,
        mode: str | None = None,
        top_k: float | None = None,
        statuses: list[str] | None = None,
        author: str | None = None,
        title: str | None = None,
    ) -> Iterator[Outputs]:
        """(chat, state, question box, Stop) for a question sent from the box, in one event
        (each round trip before the first token costs): accepted or refused back into the
        box (`accept`), then answered as it streams (`respond`), Stop shown meanwhile."""
        box, pending, state = self.accept(sent, state)
        if pending is None:
            yield list(chat or []), state, box, gr.skip()
            return
        first = True
        answering = self.respond(pending, chat, state, mode, top_k, statuses, author, title)
        for shown, state in answering:
            yield shown, state, gr.skip(), gr.update(visible=True) if first else gr.skip()
            first = False

    def stop_button(self, state: dict[str, Any] | None) -> Any:
        """Stop shows while an answer of this session streams (its busy token is held)."""
        return gr.update(visible=bool(state and state.get("busy")))

    def follow_up(self, index: int, state: dict[str, Any] | None) -> Outputs:
        """(pending question, state) for the last answer's `index`-th follow-up button."""
        state = state if state is not None else new_state()
        offered = state.get("follow_ups") or []
        if index >= len(offered):
            raise gr.Error("That follow-up is no longer offered.", title="Nothing to send")
        chosen = offered[index]
        pending = _pending(chosen["question"], chosen["shown"], chosen["statuses"])
        return self._claim(state, pending), state

    def suggested(self, index: int, state: dict[str, Any] | None) -> Outputs:
        """(pending question, state) for the last answer's `index`-th named topic."""
        state = state if state is not None else new_state()
        offered = state.get("suggestions") or []
        if index >= len(offered):
            raise gr.Error("That topic is no longer offered.", title="Nothing to send")
        return self._claim(state, _pending(offered[index][2])), state

    def _drop_last_turn(
        self, chat: list[dict[str, Any]] | None, state: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The chat without its last question and reply; that turn's record."""
        chat = list(chat or [])
        record = state["records"].get(len(chat) - 1)
        if len(chat) < 2 or record is None:
            raise gr.Error("There is no answer to redo yet.", title="Nothing to redo")
        del state["records"][len(chat) - 1]
        if record.get("answered"):
            state["history"] = state["history"][:-2]
        return chat[:-2], record

    def regenerate(
        self, chat: list[dict[str, Any]] | None, state: dict[str, Any] | None
    ) -> Outputs:
        """(chat, pending question, state): the last question asked again in its place."""
        state = state if state is not None else new_state()
        if busy(state):
            raise gr.Error(BUSY_MESSAGE, title="Still answering")
        chat, record = self._drop_last_turn(chat, state)
        question = record["question"]
        pending = _pending(question, record.get("shown", ""), record.get("statuses"))
        return chat, self._claim(state, pending), state

    def edit_last(self, chat: list[dict[str, Any]] | None, state: dict[str, Any] | None) -> Outputs:
        """(chat, question box, state): the last question back in the box to edit and send."""
        state = state if state is not None else new_state()
        if busy(state):
            raise gr.Error(BUSY_MESSAGE, title="Still answering")
        chat, record = self._drop_last_turn(chat, state)
        return chat, record["question"], state

    def stop(self, chat: list[dict[str, Any]] | None, state: dict[str, Any] | None) -> Outputs:
        """(chat, state) once the streaming answer is cancelled: what had arrived stays,
        marked as stopped, and the session can ask again."""
        state = state if state is not None else new_state()
        chat = list(chat or [])
        streaming = state.get("streaming")
        state["busy"] = None
        state["streaming"] = None
        if streaming is None or len(chat) != streaming["index"] + 1:
            return chat, state
        chat[-1] = {
            "role": "assistant",
            "content": render.stopped_html(streaming["text"], streaming["anchor"]),
        }
        state["records"][streaming["index"]] = {
            "question": streaming["question"],
            "shown": streaming["shown"],
            "statuses": streaming["statuses"],
            "answer": streaming["text"] + " [stopped]",
            "citations": [],
            "backend": self.assistant.synthesizer.name,
        }
        return chat, state

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
        pending: dict[str, Any] | str | None,
        chat: list[dict[str, Any]] | None,
        state: dict[str, Any] | None,
        mode: str | None = None,
        top_k: float | None = None,
        statuses: list[str] | None = None,
        author: str | None = None,
        title: str | None = None,
    ) -> Iterator[Outputs]:
        """Yields (chat, state) as the answer to the pending question (from `accept`, or a
        question given directly) streams in."""
        state = state if state is not None else new_state()
        if isinstance(pending, str) and pending.strip():  # called directly: claimed here
            pending = {**_pending(pending.strip()), "token": secrets.token_hex(4)}
            state["busy"] = (pending["token"], time.monotonic())
        if not isinstance(pending, dict) or not _claimed(pending, state) or not pending["question"]:
            # Nothing sent, a refused question, or a pending one already answered.
            yield list(chat or []), state
            return
        token = pending["token"]
        question = str(pending["question"]).strip()
        turn = Turn(list(chat or []), question, str(pending.get("shown") or ""))
        statuses = pending.get("statuses") or statuses
        state["streaming"] = {
            "index": turn.index,
            "anchor": turn.anchor,
            "question": question,
            "shown": str(pending.get("shown") or question),
            "statuses": pending.get("statuses"),
            "text": "",
        }
        yield turn.reply(render.streaming_html("", turn.anchor)), state
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
            outputs = self._failed(exc, turn, state)
        else:
            outputs = self._answered(final, turn, state, statuses)
        # Released before the last update reaches the page. A cancelled answer never gets
        # here: Stop releases it, keeping what had arrived (`stop`).
        if state.get("busy") and state["busy"][0] == token:
            state["busy"] = None
            state["streaming"] = None
        yield outputs

    def _streamed(
        self, events: Iterator[Any], turn: Turn, state: dict[str, Any]
    ) -> Generator[Outputs, None, Answer]:
        """Re-render the partial answer at most every `stream_interval`; return the Answer."""
        text, final, last_emit = "", None, time.monotonic()
        for kind, payload in events:
            if kind == "delta":
                text += str(payload)
                if state.get("streaming") is not None:
                    state["streaming"]["text"] = text
                if time.monotonic() - last_emit >= self.stream_interval:
                    last_emit = time.monotonic()
                    yield turn.reply(render.streaming_html(text, turn.anchor)), state
            elif isinstance(payload, Answer):
                final = payload
        if final is None:
            raise AnswerError("the answer stream ended without an answer")
        return final

    def _record(self, turn: Turn, state: dict[str, Any], **fields: Any) -> None:
        streaming = state.get("streaming") or {}
        state["records"][turn.index] = {
            "question": turn.question,
            "shown": streaming.get("shown", turn.question),
            "statuses": streaming.get("statuses"),
            **fields,
        }

    def _failed(self, exc: Exception, turn: Turn, state: dict[str, Any]) -> Outputs:
        if isinstance(exc, RagError):
            log.warning("answering failed: %s", exc)
        else:
            log.exception("answering %r failed", turn.question[:200])
        heading, detail = describe(exc)
        state["table"] = None  # the panel shows the last answer's set; this one had none
        state["suggestions"] = []
        state["follow_ups"] = []
        self._record(
            turn,
            state,
            answer=f"{heading} {detail}",
            citations=[],
            backend=self.assistant.synthesizer.name,
        )
        return turn.reply(render.error_html(heading, detail, actions=True)), state

    def _answered(
        self, final: Answer, turn: Turn, state: dict[str, Any], statuses: list[str] | None
    ) -> Outputs:
        # The copy and the history hold what the chat shows: no unhelpful related papers.
        shown = final.model_copy(update={"related": render.helpful_related(final)})
        markdown = answer_with_references(shown)
        state["history"] = [
            *state["history"],
            {"role": "user", "content": turn.question},
            {"role": "assistant", "content": markdown},
        ]
        self._record(
            turn,
            state,
            answer=markdown,
            answered=True,
            citations=_citation_summary(final),
            backend=final.backend + (f" ({final.model})" if final.model else ""),
        )
        state["title"] = state.get("title") or conversations.title_of(turn.question)
        for paper in conversations.cited_papers(final):
            state["cited"].setdefault(paper["paper_id"], paper)
        state["table"] = table_state(final)
        state["suggestions"] = [(s.topic, s.count, s.question) for s in final.suggested_topics]
        offered = follow_ups(final, turn.question, statuses, self.assistant.catalogue.named_paper)
        state["follow_ups"] = [vars(f) for f in offered]
        return turn.reply(render.answer_html(final, turn.anchor, markdown)), state

    # --- the buttons under the chat -----------------------------------------------------
    def offered_buttons(self, state: dict[str, Any] | None) -> Outputs:
        """The "Did you mean" row and buttons (one per named topic the last answer offered),
        then the "Follow up" row and buttons."""
        state = state or {}
        topics = state.get("suggestions") or []
        labels = [f"{topic} · {count:,} papers" for topic, count, _ in topics]
        follow = [f["label"] for f in state.get("follow_ups") or []]
        return (*_button_row(labels, SUGGESTED), *_button_row(follow, FOLLOW_UPS))

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
            fields = {k: record.get(k) for k in ("question", "answer", "citations", "backend")}
            self.feedback.record(**fields, vote=vote, comment=comment or "")
        except FeedbackError as exc:
            log.warning("%s", exc)
            return render.esc(str(exc)), gr.skip()
        said = {"up": "thumbs up", "down": "thumbs down", "cleared": "vote withdrawn"}[vote]
        return f"Feedback recorded ({said}). Thank you!", ""

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


def _button_row(labels: list[str], slots: int) -> Outputs:
    """A row's visibility, then `slots` buttons: one per label, the rest hidden."""
    buttons = [
        gr.update(visible=True, value=labels[i]) if i < len(labels) else gr.update(visible=False)
        for i in range(slots)
    ]
    return (gr.update(visible=bool(labels)), *buttons)
