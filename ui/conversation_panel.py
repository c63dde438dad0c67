"""The conversations panel: the session's conversation written to the browser's store
after every answer, restored after a reload, opened, started afresh or deleted from the
list, and exported as Markdown and BibTeX (`ui.conversations` holds the stored format)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from rag.types import Answer
from ui import conversations
from ui.app import BUSY_MESSAGE, Outputs, busy, new_state
from ui.set_panel import ExportFiles, table_state


class ConversationPanel:
    """Handlers of the panel's events; each returns what the layout wires as outputs."""

    def __init__(self, exports: ExportFiles | None = None) -> None:
        self.exports = exports or ExportFiles()

    def _exports(self, state: dict[str, Any]) -> tuple[Any, Any]:
        if not state["history"]:
            return gr.update(value=None, interactive=False), gr.update(
                value=None, interactive=False
            )
        title = state.get("title") or "Conversation"
        paths = self.exports.write_texts(
            {
                "md": ("icml-rag-conversation.md", conversations.markdown(title, state["history"])),
                "bib": (
                    "icml-rag-conversation.bib",
                    conversations.bibtex(list(state["cited"].values())),
                ),
            }
        )
        bib_ready = bool(state["cited"])
        return (
            gr.update(value=paths["md"], interactive=True),
            gr.update(value=paths["bib"] if bib_ready else None, interactive=bib_ready),
        )

    def save(
        self, state: dict[str, Any] | None, chat: list[dict[str, Any]] | None, stored: Any
    ) -> Outputs:
        """(stored conversations, list, Markdown file, BibTeX file) after an answer, a stop,
        a regenerate or an edit: the current conversation written to the browser's store."""
        state = state if state is not None else new_state()
        kept = conversations.checked(stored)
        if chat:
            kept = conversations.saved_with(kept, conversations.record_of(state, list(chat)))
        listed = gr.update(
            choices=conversations.choices(kept), value=state["conversation"] if chat else None
        )
        return (kept, listed, *self._exports(state))

    def _opened(self, kept: dict[str, Any], item: dict[str, Any] | None) -> Outputs:
        state = new_state()
        state["restored"] = True
        chat: list[dict[str, Any]] = []
        if item is not None:
            chat = [{"role": m["role"], "content": m["content"]} for m in item["chat"]]
            state["conversation"] = item["id"]
            state["title"] = str(item.get("title") or "")
            state["history"] = [
                {"role": m["role"], "content": str(m["content"])} for m in item["history"]
            ]
            state["records"] = {
                int(k): v for k, v in (item.get("records") or {}).items() if str(k).isdigit()
            }
            state["cited"] = {
                p["paper_id"]: p
                for p in item.get("cited") or []
                if isinstance(p, dict) and "paper_id" in p
            }
            aggregate = conversations.table_of(item)
            if aggregate is not None:
                state["table"] = table_state(Answer.model_construct(aggregate=aggregate))
        listed = gr.update(choices=conversations.choices(kept), value=item["id"] if item else None)
        return (chat, state, kept, listed, *self._exports(state))

    def restore(self, stored: Any, state: dict[str, Any] | None) -> Outputs:
        """(chat, state, list, Markdown file, BibTeX file, question box, Ask button) when the
        browser's store has loaded (its first `change`): the conversation it had open, if
        any, and the box enabled. Later changes are this session's own saves: skipped."""
        if state is not None and state.get("restored"):
            return (gr.skip(),) * 7
        kept = conversations.checked(stored)
        chat, state, _, listed, markdown, bibtex = self._opened(
            kept, conversations.find(kept, kept["current"])
        )
        enabled = gr.update(interactive=True)
        return (chat, state, listed, markdown, bibtex, enabled, enabled)

    def open_conversation(
        self, chosen: str | None, stored: Any, state: dict[str, Any] | None
    ) -> Outputs:
        """The same outputs as `restore`, for a conversation picked from the list."""
        if state is not None and busy(state):
            raise gr.Error(BUSY_MESSAGE, title="Still answering")
        kept = conversations.checked(stored)
        item = conversations.find(kept, chosen)
        if item is not None:
            kept = {**kept, "current": item["id"]}
        return self._opened(kept, item)

    def new_conversation(self, stored: Any) -> Outputs:
        """An empty chat; the conversation that was open stays in the list."""
        kept = conversations.checked(stored)
        return self._opened({**kept, "current": ""}, None)

    def delete_conversation(self, stored: Any, state: dict[str, Any] | None) -> Outputs:
        """The open conversation removed from the browser's store; an empty chat."""
        kept = conversations.checked(stored)
        if state is not None:
            kept = conversations.without(kept, state["conversation"])
        return self._opened(kept, None)
