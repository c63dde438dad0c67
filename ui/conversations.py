"""Conversations kept in the browser (Gradio's BrowserState: localStorage, encrypted with a
server secret), so a reload or a restart loses nothing and no account is needed.

The stored value is {"version", "current", "items": [conversation, …]}, most recent first;
a conversation holds what the chat shows (its messages as HTML), what follow-ups read (the
plain history), what feedback needs (the per-message records), every paper it cited (for
its BibTeX) and its last set table. Whatever comes back from the browser is checked: a
value this code did not write is dropped, never trusted.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rag.sets.exports import bibtex_entry
from rag.types import Aggregate, Answer

log = logging.getLogger(__name__)

VERSION = 1
STORAGE_KEY = "icml-rag-conversations"
MAX_CONVERSATIONS = 30
# localStorage holds about 5 MB per site, and the value travels with every save: the oldest
# conversations go first past this many characters of JSON.
MAX_STORED_CHARS = 1_500_000
MAX_TABLE_CHARS = 300_000  # a set table larger than this is not kept (its answer still is)
TITLE_CHARS = 60
SECRET_FILE = "ui-secret"


def empty() -> dict[str, Any]:
    return {"version": VERSION, "current": "", "items": []}


def new_id() -> str:
    return secrets.token_hex(6)


def title_of(question: str) -> str:
    text = " ".join(question.split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def message_text(content: Any) -> str:
    """A chat message's text: the chatbot hands messages back as [{"type": "text", "text"}]."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text") or "") for part in content if isinstance(part, dict))
    return ""


def _valid_item(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("id"), str)
        and isinstance(item.get("chat"), list)
        and isinstance(item.get("history"), list)
        and all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in item["chat"])
        and all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in item["history"]
        )
    )


def checked(stored: Any) -> dict[str, Any]:
    """The stored value as written by `saved_with`, or an empty store (with a log line)."""
    if stored is None or stored == "":
        return empty()
    if not isinstance(stored, dict) or stored.get("version") != VERSION:
        log.warning("ignoring stored conversations of an unknown format")
        return empty()
    items = [item for item in stored.get("items") or [] if _valid_item(item)]
    current = stored.get("current") if isinstance(stored.get("current"), str) else ""
    return {"version": VERSION, "current": current, "items": items}


def record_of(state: dict[str, Any], chat: list[dict[str, Any]]) -> dict[str, Any]:
    """The conversation to store for the session `state` showing `chat`."""
    table = state.get("table")
    kept_table = None
    if table is not None:
        dumped = table["aggregate"].model_dump(mode="json")
        if len(json.dumps(dumped)) <= MAX_TABLE_CHARS:
            kept_table = dumped
    return {
        "id": state["conversation"],
        "title": state.get("title") or "New conversation",
        "updated": time.time(),
        "chat": [{"role": m["role"], "content": message_text(m["content"])} for m in chat],
        "history": list(state["history"]),
        "records": {str(k): v for k, v in state["records"].items()},
        "cited": list(state["cited"].values()),
        "table": kept_table,
    }


def saved_with(stored: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The store with `record` first (replacing its older copy) and the current one; an empty
    conversation is not kept; the oldest go past MAX_CONVERSATIONS or MAX_STORED_CHARS."""
    others = [item for item in stored["items"] if item["id"] != record["id"]]
    items = ([record] if record["chat"] else []) + others
    items = items[:MAX_CONVERSATIONS]
    while len(items) > 1 and len(json.dumps(items)) > MAX_STORED_CHARS:
        items.pop()
    return {"version": VERSION, "current": record["id"], "items": items}


def without(stored: dict[str, Any], conversation: str) -> dict[str, Any]:
    items = [item for item in stored["items"] if item["id"] != conversation]
    return {"version": VERSION, "current": "", "items": items}


def find(stored: dict[str, Any], conversation: str | None) -> dict[str, Any] | None:
    return next((item for item in stored["items"] if item["id"] == conversation), None)


def choices(stored: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, id) per stored conversation, most recent first: its title and date."""
    out = []
    for item in stored["items"]:
        when = time.strftime("%d %b %H:%M", time.localtime(float(item.get("updated") or 0)))
        out.append((f"{item.get('title') or 'Conversation'} · {when}", item["id"]))
    return out


def table_of(item: dict[str, Any]) -> Aggregate | None:
    """The conversation's last set table, or None (none kept, or not readable)."""
    if not item.get("table"):
        return None
    try:
        return Aggregate.model_validate(item["table"])
    except ValidationError:
        log.warning("ignoring a stored set table that does not read as one")
        return None


def cited_papers(answer: Answer) -> list[dict[str, Any]]:
    """Every paper the answer cites, as kept for the conversation's BibTeX."""
    return [
        {
            "paper_id": c.paper_id,
            "title": c.title,
            "authors": list(c.authors),
            "url": c.url,
            "pmlr_key": c.pmlr_key,
        }
        for c in answer.citations
    ]


def markdown(title: str, history: list[dict[str, str]]) -> str:
    """The conversation as Markdown: each question as a heading, each answer with its
    references (as `rag.answer.references` writes them)."""
    out = [f"# {title}", "", "Questions to the ICML 2024 abstracts (icml-rag).", ""]
    number = 0
    for message in history:
        if message["role"] == "user":
            number += 1
            out += [f"## {number}. {' '.join(message['content'].split())}", ""]
        else:
            out += [message["content"].strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def bibtex(cited: list[dict[str, Any]]) -> str:
    entries = [
        bibtex_entry(p["paper_id"], p["title"], p["authors"], p["url"], p.get("pmlr_key", ""))
        for p in cited
    ]
    return "\n\n".join(entries) + ("\n" if entries else "")


def browser_secret(data_dir: Path) -> str:
    """The key BrowserState encrypts with, kept in data_dir so conversations outlive a
    restart; a fresh one per process when data_dir cannot hold it (they then do not)."""
    path = data_dir / SECRET_FILE
    try:
        if path.exists():
            value = path.read_text(encoding="utf-8").strip()
            if len(value) >= 32:
                return value
        data_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_hex(32)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(value)
        return value
    except OSError as exc:
        log.warning("cannot keep the UI secret in %s (%s): conversations last one run", path, exc)
        return secrets.token_hex(32)
