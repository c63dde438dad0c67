"""One error model for every way in (CLI, HTTP API, chat UI, eval).

Each class carries what every interface needs to report it: the HTTP status and the
OpenAI-style error `kind` (API), the process exit code (CLI, `rag serve`, `python -m eval`)
and the heading the chat shows above the message (UI). The message itself is written
once, where the failure is understood, and says what failed and what to do.

Foreign errors (chromadb, httpx, openai, the OS) are turned into these classes in one
place, `translate()`, so their wording lives here and nowhere else.
"""

from __future__ import annotations

import errno
import json
from typing import Literal

EXIT_OK = 0
EXIT_FAILED = 1  # the command was fine, the world was not (store down, LLM failed)
EXIT_USAGE = 2  # the command or its input was wrong (bad option, bad corpus, bad question)
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT

Action = Literal["open", "read", "write", "query", "answer"]


class RagError(Exception):
    """Base of every error icml-rag reports to a user."""

    status: int = 500
    exit_code: int = EXIT_FAILED
    kind: str = "server_error"
    title: str = "Something went wrong:"

    def detail(self) -> str:
        """The message as the chat shows it under `title`."""
        return str(self)


class InputError(RagError, ValueError):
    """A question or option the assistant cannot take; the message reads "field: reason"."""

    status = 422
    exit_code = EXIT_USAGE
    kind = "invalid_request_error"
    title = "That question could not be taken:"

    @property
    def param(self) -> str | None:
        text = str(self)
        return text.split(":", 1)[0] if ":" in text else None


class CorpusError(RagError):
    """A corpus cannot be used at all (missing file, unknown format, strict failure)."""

    status = 422
    exit_code = EXIT_USAGE
    kind = "invalid_request_error"
    title = "The corpus cannot be read:"


class StoreError(RagError, RuntimeError):
    """The store cannot be reached or used as asked."""

    status = 503
    kind = "service_unavailable"
    title = "The paper store is unavailable:"


class EmptyStoreError(StoreError):
    """The store holds no papers yet (run `rag ingest`)."""

    title = "No papers are indexed yet:"


class ModelMismatchError(StoreError):
    """The store was embedded with another model than this process uses."""


class BackendError(RagError, RuntimeError):
    """A backend cannot be built from the settings (missing package, key, or model)."""

    title = "A backend cannot be started:"


class AnswerError(RagError, RuntimeError):
    """The answer could not be produced (LLM unreachable, timed out, broken stream)."""

    status = 502
    kind = "upstream_error"
    title = "The answer could not be completed:"

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status

    def detail(self) -> str:
        return f"{self}. Please try again in a moment."


class FeedbackError(RagError, RuntimeError):
    """Feedback could not be recorded; the message says where and why."""

    title = "Feedback was not recorded:"


class IncompleteReplyError(RuntimeError):
    """The model's stream stopped before the server said it was finished."""


def describe(exc: BaseException) -> tuple[str, str]:
    """(heading, detail) of any failure as a reader should see it: never a traceback."""
    if isinstance(exc, RagError):
        return exc.title, exc.detail()
    return (
        "Something went wrong while answering:",
        f"{type(exc).__name__}. The details are in the server log.",
    )


# --- foreign errors -----------------------------------------------------------------
# SQLite's words (Chroma's Rust core passes them on) and the errnos behind a failed write.
_FULL = ("database or disk is full", "(code: 13)", "no space left")
_READ_ONLY = ("readonly database", "read-only", "(code: 8)", "permission denied")
_IO = ("disk i/o error", "(code: 778)", "file too large")
# Chroma's embedded log took the write but could not fold it into its segments; with a
# full disk every later read retries (and fails) the same way until space is freed.
_LOG = ("failed to apply logs", "error in compaction")


def failure_reason(exc: BaseException) -> str:
    """Why a store operation failed, in words a reader can act on (raw message kept)."""
    raw = str(exc) or type(exc).__name__
    code = exc.errno if isinstance(exc, OSError) else None
    text = raw.lower()
    if code in (errno.ENOSPC, errno.EDQUOT) or any(s in text for s in _FULL):
        return f"the disk is full ({raw})"
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or any(s in text for s in _READ_ONLY):
        return f"the data directory is read-only or not writable ({raw})"
    if code == errno.EFBIG or any(s in text for s in _IO):
        # SQLite reports a write refused for size (EFBIG, RLIMIT_FSIZE) as an I/O error.
        return f"a disk write failed: the disk may be full or a file-size limit reached ({raw})"
    if any(s in text for s in _LOG):
        return f"Chroma cannot apply its write log: the disk may be full ({raw})"
    return raw


def outage_reason(exc: BaseException) -> str:
    """What went wrong reaching a server, without addresses or paths."""
    name = type(exc).__name__
    if "Timeout" in name:
        return "it did not answer in time"
    if "Connect" in name or isinstance(exc, ConnectionError):
        return "connection refused or lost"
    if type(exc).__module__.startswith("httpx"):
        return "the connection failed"
    return name


def llm_failure(exc: BaseException) -> tuple[str, int]:
    """(message, HTTP status) for a failed language-model call."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if "Timeout" in name:
        return "the language model did not answer in time", 504
    if status == 429:
        return "the language model is rate-limited (HTTP 429); try again shortly", 502
    if status:
        return f"the language model failed (HTTP {status})", 502
    if "Connection" in name:
        return "the language model server cannot be reached", 502
    if isinstance(exc, IncompleteReplyError):
        return "the language model's reply ended before it was complete (or was no stream)", 502
    if "Protocol" in name:
        return "the language model's reply broke off before it was complete", 502
    if isinstance(exc, json.JSONDecodeError):
        return "the language model sent a reply that is not valid JSON", 502
    return f"the language model failed ({name})", 502


def translate(exc: BaseException, action: Action, location: str = "") -> RagError:
    """The one mapping of a foreign error onto ours; `action` says what was being done.

    `location` (the store's path or address) goes into messages for the operator (CLI,
    ingest); `query` failures reach API clients and chat readers, so they never carry it.
    """
    if isinstance(exc, RagError):
        return exc
    if action == "answer":
        message, status = llm_failure(exc)
        return AnswerError(message, status)
    if action == "query":
        return StoreError(
            f"the paper store is unreachable right now ({outage_reason(exc)}); "
            "please try again in a moment"
        )
    reason = failure_reason(exc)
    if action == "open":
        return StoreError(f"cannot open the Chroma store ({location}): {reason}")
    if action == "read":
        return StoreError(f"cannot read the store ({location}): {reason}")
    return StoreError(
        f"cannot write to the store ({location}): {reason}; papers stored before this point "
        "are kept, and re-running `rag ingest` finishes the rest"
    )
