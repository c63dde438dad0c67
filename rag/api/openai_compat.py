"""OpenAI Chat Completions on top of the assistant: messages in, completions and
`chat.completion.chunk` SSE lines out, with citations kept as extra fields."""

from __future__ import annotations

import itertools
import json
import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from rag.answer.engine import Event
from rag.answer.references import answer_with_references
from rag.answer.unicode_math import ReadableStream, plain_text
from rag.api.schemas import (
    MODEL_ID,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChunkChoice,
    ChunkDelta,
    CompletionChoice,
    CompletionMessage,
    SystemMessage,
    Usage,
    UserMessage,
    answer_extras,
    message_text,
)
from rag.errors import AnswerError, InputError
from rag.settings import InputLimits
from rag.types import Answer, ChatMessage

log = logging.getLogger(__name__)
DONE = "data: [DONE]\n\n"


def words(text: str) -> int:
    return len(text.split())


def split_conversation(
    messages: Sequence[SystemMessage | UserMessage | AssistantMessage], limits: InputLimits
) -> tuple[str, list[ChatMessage]]:
    """The last user message is the question; earlier user/assistant turns are history.
    System/developer messages are ignored: the assistant's instructions are fixed."""
    turns = [m for m in messages if not isinstance(m, SystemMessage)]
    last = max((i for i, m in enumerate(turns) if isinstance(m, UserMessage)), default=None)
    if last is None:
        raise InputError("messages: no user message to answer")
    question = message_text(turns[last].content)
    if len(question) > limits.max_question_chars:
        raise InputError(
            f"messages: the last user message has {len(question):,} characters "
            f"(limit {limits.max_question_chars:,})"
        )
    history = [
        ChatMessage(role="user" if isinstance(m, UserMessage) else "assistant", content=text)
        for m in turns[:last]
        if (text := message_text(m.content))
    ]
    if len(history) > limits.max_history_turns:
        raise InputError(
            f"messages: {len(history)} earlier turns (limit {limits.max_history_turns})"
        )
    return question, history


class CompletionStream:
    """Formats assistant events as OpenAI `chat.completion.chunk` SSE lines."""

    def __init__(self, prompt_words: int, include_usage: bool) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())
        self.prompt_words, self.include_usage = prompt_words, include_usage

    def chunk(
        self, delta: ChunkDelta | None, finish: Literal["stop"] | None = None, **extra: Any
    ) -> str:
        choices = (
            []
            if delta is None
            else [ChunkChoice(index=0, delta=delta, finish_reason=finish, logprobs=None)]
        )
        chunk = ChatCompletionChunk(
            id=self.id,
            object="chat.completion.chunk",
            created=self.created,
            model=MODEL_ID,
            choices=choices,
            **extra,
        )
        # Unset fields are left out (a delta carries only what changed); explicit nulls such
        # as `finish_reason: null` stay, as OpenAI sends them.
        payload = chunk.model_dump(mode="json", exclude_unset=True)
        return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"

    def events(self, first: Event | AnswerError | None, rest: Iterator[Event]) -> Iterator[str]:
        yield self.chunk(ChunkDelta(role="assistant", content=""))
        # Clients show `content` as text: its LaTeX goes out as Unicode, delta by delta.
        readable = ReadableStream()
        streamed: list[str] = []
        answer: Answer | None = None
        try:
            if isinstance(first, AnswerError):
                raise first
            for _kind, payload in itertools.chain([first] if first else [], rest):
                if isinstance(payload, str):  # a ("delta", text) event
                    shown = readable.feed(payload)
                    if shown:
                        streamed.append(shown)
                        yield self.chunk(ChunkDelta(content=shown))
                elif isinstance(payload, Answer):
                    answer = payload
            if answer is None:
                raise AnswerError("the answer stream ended without an answer")
        except AnswerError as exc:
            log.warning("answer stream failed (%s): %s", exc.status, exc)
            yield self._error(str(exc), "upstream_error", exc.status)
            return
        except Exception:  # the HTTP status is already sent: report in-band, log the cause
            log.exception("answer stream failed")
            yield self._error("internal error; see the server log", "server_error", 500)
            return
        content = "".join(streamed)
        # The rest of the message: held-back text, the references, or (when the engine
        # replaced what was streamed, e.g. an uncited LLM answer became an abstention) the
        # final text in full, since sent deltas cannot be retracted.
        tail = readable.rest(answer_with_references(answer))
        if tail:
            yield self.chunk(ChunkDelta(content=tail))
        extras = answer_extras(answer)
        yield self.chunk(ChunkDelta(**extras), "stop", **extras)
        if self.include_usage:
            written = words(content + tail)
            usage = Usage(
                prompt_tokens=self.prompt_words,
                completion_tokens=written,
                total_tokens=self.prompt_words + written,
            )
            # OpenAI's shape: one last chunk with no choices that carries the usage.
            yield self.chunk(None, usage=usage)
        yield DONE

    def _error(self, message: str, kind: str, status: int) -> str:
        error = {"message": message, "type": kind, "param": None, "code": str(status)}
        return f"data: {json.dumps({'error': error})}\n\n{DONE}"


def completion(answer: Answer, prompt_words: int) -> ChatCompletion:
    content = plain_text(answer)
    completion = words(content)
    return ChatCompletion(
        id=f"chatcmpl-{uuid.uuid4().hex[:24]}",
        created=int(time.time()),
        choices=[
            CompletionChoice(
                message=CompletionMessage(
                    content=content,
                    citations=answer.citations,
                    abstained=answer.abstained,
                    related=answer.related,
                    plan=answer.plan,
                    aggregate=answer.aggregate,
                    suggested_topics=answer.suggested_topics,
                )
            )
        ],
        usage=Usage(
            prompt_tokens=prompt_words,
            completion_tokens=completion,
            total_tokens=prompt_words + completion,
        ),
    )
