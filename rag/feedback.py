"""Append-only JSONL feedback: one line per vote on an answer, in `settings.feedback_path`.

Several threads (Gradio's worker pool) and several processes (app replicas sharing a data
directory) may append at once. Each record is encoded to one complete line first and
written with a single `os.write` on an `O_APPEND` descriptor while holding an exclusive
`flock`: O_APPEND alone makes each write land at the end, and the lock also covers the rare
short write (disk nearly full, signals) that would otherwise let another writer's bytes
land inside our line.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rag.errors import FeedbackError

Vote = Literal["up", "down", "cleared"]
VOTES: tuple[str, ...] = ("up", "down", "cleared")
MAX_COMMENT_CHARS = 2000
MAX_TEXT_CHARS = 20_000


def _clip(text: str, limit: int) -> str:
    # A pasted novel in the comment box must not become a multi-megabyte line.
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_record(
    *,
    question: str,
    answer: str,
    citations: Iterable[Mapping[str, Any]],
    backend: str,
    vote: str,
    comment: str = "",
    timestamp: datetime | None = None,
) -> dict[str, Any]:
    """The documented line shape: {timestamp, question, answer, citations, backend, vote, comment}."""
    if vote not in VOTES:
        raise ValueError(f"vote: '{vote}' is not one of {', '.join(VOTES)}")
    when = (timestamp or datetime.now(UTC)).astimezone(UTC)
    return {
        "timestamp": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "question": _clip(question, MAX_TEXT_CHARS),
        "answer": _clip(answer, MAX_TEXT_CHARS),
        "citations": [dict(c) for c in citations],
        "backend": backend,
        "vote": vote,
        "comment": _clip(comment.strip(), MAX_COMMENT_CHARS),
    }


class FeedbackWriter:
    """Appends records to one JSONL file; safe to share between threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _open(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise FeedbackError(
                    f"cannot record feedback: {self.path} is not writable "
                    f"({exc.strerror}); make the data directory (RAG_DATA_DIR) writable"
                ) from exc
            raise FeedbackError(self._describe(exc)) from exc

    def append(self, record: Mapping[str, Any]) -> None:
        # ensure_ascii=False keeps non-English comments readable; json never emits a raw
        # newline inside a string, so one record is always exactly one line.
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                start = os.fstat(fd).st_size  # under the lock, so the end is ours
                try:
                    view = memoryview(data)
                    while view:
                        written = os.write(fd, view)
                        view = view[written:]
                    os.fsync(fd)
                except OSError:
                    # A disk that fills mid-line leaves part of a record: cut it off, so
                    # the file stays whole lines that all parse.
                    os.ftruncate(fd, start)
                    raise
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as exc:
            raise FeedbackError(self._describe(exc)) from exc
        finally:
            os.close(fd)

    def _describe(self, exc: OSError) -> str:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return (
                f"cannot record feedback: the disk holding {self.path} is full (or a file-size "
                f"limit was reached: {exc.strerror}); nothing was written, earlier feedback "
                "is kept"
            )
        return f"cannot record feedback in {self.path}: {exc}"

    def record(self, **fields: Any) -> dict[str, Any]:
        """Build a record with `make_record` and append it; returns what was written."""
        record = make_record(**fields)
        self.append(record)
        return record


def read_feedback(path: Path) -> list[dict[str, Any]]:
    """Every record of a feedback file (empty if it does not exist yet)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]
