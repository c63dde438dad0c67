"""Plain-text / Markdown renderings of an answer, shared by the CLI, the API and the UI.

The numbered reference list is also what the chat rule reads back from history
(`rag.chat.previous_references`), so its line shape is part of the contract.
"""

from __future__ import annotations

from rag.types import Answer


def short_authors(authors: list[str], limit: int = 3) -> str:
    if not authors:
        return "unknown authors"
    if len(authors) <= limit:
        return ", ".join(authors)
    return f"{', '.join(authors[:limit])} et al."


def reference_lines(answer: Answer) -> list[str]:
    lines = [
        f"[{c.n}] {c.title} — {short_authors(c.authors)} — {c.url or c.paper_id}"
        for c in answer.citations
    ]
    if answer.related:
        lines.append("Related papers (not support for an answer):")
        lines += [
            f"- {r.title} — {short_authors(r.authors)} — {r.url or r.paper_id}"
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
