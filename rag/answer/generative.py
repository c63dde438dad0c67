"""The LLM answer writer: an OpenAI(-compatible) chat model streams a cited answer.

The prompt (rag.answer.prompts) fences each source and asks for [n] on every claim; the
engine then validates the markers. Failures are retried where it is safe and otherwise
reported as an `AnswerError` with the wording of rag.errors.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rag.answer.prompts import SYSTEM_PROMPT, user_prompt
from rag.answer.scored import Evidence
from rag.errors import IncompleteReplyError, translate
from rag.types import ChatMessage, RetrievedPaper

if TYPE_CHECKING:
    from llama_index.core.llms import LLM


class LLMSynthesizer:
    """Streams an answer from an OpenAI(-compatible) chat model via llama-index."""

    name: str
    model: str | None

    def __init__(self, llm: LLM, name: str, model: str, max_retries: int) -> None:
        self.llm = llm
        self.name = name
        self.model = model
        self.max_retries = max_retries

    def messages(self, question: str, sources: list[RetrievedPaper]) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=SYSTEM_PROMPT),
            ChatMessage(role="user", content=user_prompt(question, sources)),
        ]

    def snippets(self, evidence: Evidence) -> dict[int, list[str]]:
        """The model says what it rests on in prose; each citation shows its source's best
        sentence for the question instead (the engine's default)."""
        return {}

    def stream(
        self,
        question: str,
        sources: list[RetrievedPaper],
        evidence: Evidence,
        history: list[ChatMessage] | None = None,
    ) -> Iterator[str]:
        from llama_index.core.llms import ChatMessage as LIChatMessage

        messages = [
            LIChatMessage(role=m.role, content=m.content) for m in self.messages(question, sources)
        ]
        attempt = 0
        while True:
            produced = False
            try:
                chunks = 0
                finished: bool | None = None
                for chunk in self.llm.stream_chat(messages):
                    chunks += 1
                    finished = _finished(chunk.raw, finished)
                    if chunk.delta:
                        produced = True
                        yield chunk.delta
                if not chunks or finished is False:
                    # A close-delimited stream that stops early, or a 200 reply that is no
                    # event stream at all, ends without an error: only the missing
                    # finish_reason tells a cut or empty reply from a complete one.
                    raise IncompleteReplyError("the stream ended without a finish_reason")
                return
            except Exception as exc:  # openai/httpx raise many types; all end the same way
                # The client already retried 429/5xx/timeouts/refused connections (with its
                # backoff); retrying those here too would multiply requests and waits. A
                # stream that broke before any text is retried here, one that broke midway
                # is reported.
                import openai  # here, not at module level: the offline path never needs it

                client_retried = isinstance(exc, openai.APIStatusError | openai.APIConnectionError)
                if produced or client_retried or attempt >= self.max_retries:
                    raise translate(exc, "answer") from exc
                attempt += 1
                time.sleep(min(4.0, 0.5 * 2**attempt))


def _finished(raw: object, previous: bool | None) -> bool | None:
    """True once an OpenAI-protocol chunk carried a finish_reason, False while none has;
    None when the chunks are not OpenAI-protocol (nothing to check)."""
    if previous:
        return True
    choices = raw.get("choices") if isinstance(raw, dict) else getattr(raw, "choices", None)
    if choices is None:
        return previous
    for choice in choices:
        reason = (
            choice.get("finish_reason")
            if isinstance(choice, dict)
            else getattr(choice, "finish_reason", None)
        )
        if reason:
            return True
    return False
