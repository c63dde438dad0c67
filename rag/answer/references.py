"""The numbered reference list: written under every answer (CLI, API content, UI copy),
and read back from a conversation's history by the follow-up rule.

Writer and parser live together because the line shape, "[n] title — authors — url", is
the contract between them.
"""

from __future__ import annotations

import re

from rag.types import Answer, ChatMessage

SEPARATOR = " — "
_REFERENCE_LINE = re.compile(r"^\s*\[(\d+)\]\s+(.+?)\s*$", re.M)
_FIELD_SEPARATOR = re.compile(r"\s+[—–-]\s+")


def short_authors(authors: list[str], limit: int = 3) -> str:
    if not authors:
        return "unknown authors"
    if len(authors) <= limit:
        return ", ".join(authors)
    return f"{', '.join(authors[:limit])} et al."


def reference_lines(answer: Answer) -> list[str]:
    lines = [
        f"[{c.n}] {SEPARATOR.join([c.title, short_authors(c.authors), c.url or c.paper_id])}"
        for c in answer.citations
    ]
    if answer.related:
        lines.append("Related papers (not support for an answer):")
        lines += [
            f"- {SEPARATOR.join([r.title, short_authors(r.authors), r.url or r.paper_id])}"
            for r in answer.related
        ]
    return lines


def answer_with_references(answer: Answer) -> str:
    """The answer text followed by its numbered references, as one Markdown/plain block."""
    lines = reference_lines(answer)
    if not lines:
        return answer.answer
    heading = "References:" if answer.citations else ""
    body = "\n".join(lines)
    return f"{answer.answer}\n\n{heading}\n{body}".replace("\n\n\n", "\n\n")


def previous_references(history: list[ChatMessage]) -> dict[int, str]:
    """Titles from the numbered reference list of the last assistant message."""
    for message in reversed(history):
        if message.role == "assistant":
            return {
                int(n): _title(rest).strip(" *")
                for n, rest in _REFERENCE_LINE.findall(message.content)
            }
    return {}


def _title(reference: str) -> str:
    # `reference_lines` writes "title — authors — url"; titles may hold dashes of their own
    # ("Probabilistic Generating Circuits - Demystified"), so cut at the last two fields.
    fields = reference.split(SEPARATOR)
    if len(fields) >= 3:
        return SEPARATOR.join(fields[:-2])
    return _FIELD_SEPARATOR.split(reference, maxsplit=1)[0]
