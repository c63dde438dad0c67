"""The error model: each class's status, exit code and heading; the one translator."""

from __future__ import annotations

import errno
import json

import httpx
import pytest

from rag.errors import (
    EXIT_FAILED,
    EXIT_USAGE,
    AnswerError,
    CorpusError,
    EmptyStoreError,
    IncompleteReplyError,
    InputError,
    StoreError,
    describe,
    failure_reason,
    translate,
)


@pytest.mark.parametrize(
    ("error", "status", "exit_code", "kind"),
    [
        (InputError("question: empty"), 422, EXIT_USAGE, "invalid_request_error"),
        (CorpusError("x.jsonl: empty file"), 422, EXIT_USAGE, "invalid_request_error"),
        (StoreError("down"), 503, EXIT_FAILED, "service_unavailable"),
        (EmptyStoreError("empty"), 503, EXIT_FAILED, "service_unavailable"),
        (AnswerError("slow", 504), 504, EXIT_FAILED, "upstream_error"),
    ],
)
def test_each_error_carries_what_every_interface_needs(
    error: Exception, status: int, exit_code: int, kind: str
) -> None:
    assert (error.status, error.exit_code, error.kind) == (status, exit_code, kind)  # type: ignore[attr-defined]


def test_input_errors_name_their_field() -> None:
    assert InputError("top_k: 99 is outside 1..50").param == "top_k"
    assert InputError("no field here").param is None


def test_headings_and_details_for_the_chat() -> None:
    assert describe(EmptyStoreError("run `rag ingest`"))[0] != describe(StoreError("x"))[0]
    title, detail = describe(AnswerError("the language model failed (HTTP 500)"))
    assert title == AnswerError.title and detail.endswith("Please try again in a moment.")
    title, detail = describe(KeyError("boom"))
    assert "KeyError" in detail and "boom" not in detail  # no internals on screen


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "the disk is full"),
        (RuntimeError("attempt to write a readonly database"), "read-only or not writable"),
        (OSError(errno.EFBIG, "File too large"), "file-size limit"),
        (RuntimeError("Failed to apply logs to the metadata segment"), "write log"),
        (RuntimeError("something else"), "something else"),
    ],
)
def test_store_failures_say_why(exc: Exception, words: str) -> None:
    assert words in failure_reason(exc)


def test_writes_name_the_store_and_say_nothing_is_lost() -> None:
    error = translate(OSError(errno.ENOSPC, "full"), "write", "embedded /data/chroma")
    assert isinstance(error, StoreError)
    assert "/data/chroma" in str(error) and "re-running `rag ingest`" in str(error)


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (httpx.ReadTimeout("read timed out"), "did not answer in time"),
        (httpx.ConnectError("refused"), "connection refused or lost"),
        (ConnectionResetError(), "connection refused or lost"),
        (httpx.RemoteProtocolError("bad"), "the connection failed"),
    ],
)
def test_query_outages_never_carry_the_address(exc: Exception, words: str) -> None:
    error = translate(exc, "query", "chroma server http://10.0.0.5:8000")
    assert isinstance(error, StoreError) and words in str(error)
    assert "10.0.0.5" not in str(error)


class _StatusError(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


class APITimeoutError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "message", "status"),
    [
        (
            _StatusError(429),
            "the language model is rate-limited (HTTP 429); try again shortly",
            502,
        ),
        (_StatusError(500), "the language model failed (HTTP 500)", 502),
        (APITimeoutError(), "the language model did not answer in time", 504),
        (
            IncompleteReplyError(),
            "the language model's reply ended before it was complete (or was no stream)",
            502,
        ),
        (
            json.JSONDecodeError("x", "doc", 0),
            "the language model sent a reply that is not valid JSON",
            502,
        ),
    ],
)
def test_language_model_failures(exc: Exception, message: str, status: int) -> None:
    error = translate(exc, "answer")
    assert isinstance(error, AnswerError) and (str(error), error.status) == (message, status)


def test_our_own_errors_pass_through_unchanged() -> None:
    original = InputError("question: empty")
    assert translate(original, "query") is original
