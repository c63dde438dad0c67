"""Log lines a terminal or a log reader can trust: anything a request put into a message
(a path, a header) has its control characters shown as escapes, so a carriage return or
an ANSI sequence cannot forge or hide a line."""

from __future__ import annotations

import logging
import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def escaped(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


class SafeFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        # Newlines are kept only where a traceback put them (exc_text comes last).
        head, sep, tail = text.partition("\nTraceback") if record.exc_info else (text, "", "")
        return escaped(head).replace("\n", "\\n") + sep + tail


def setup_logging(level: int, fmt: str | None = None) -> None:
    """basicConfig with the escaping formatter on every handler, each set to `level`
    (bm25s sets its own logger to DEBUG on import; the handler filters it too)."""
    logging.basicConfig(level=level, format=fmt or logging.BASIC_FORMAT)
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
        handler.setFormatter(SafeFormatter(fmt or logging.BASIC_FORMAT))
