"""Answer writers: the offline extractive synthesizer and the LLM synthesizer.

Both yield raw text deltas citing sources as [n]; the engine validates the markers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rag.citations import MARKER
from rag.evidence import Evidence, ScoredSentence
from rag.prompts import SYSTEM_PROMPT, user_prompt
from rag.types import ChatMessage, RetrievedPaper

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

MIN_RELATIVE_SCORE = 0.8  # of the paper's best sentence score, for its further sentences
MIN_RELATIVE_PAPER = 0.85  # of the best paper's relevance, for a paper to be cited
MAX_PAPERS = 3
MAX_PER_SOURCE = 3


class AnswerError(RuntimeError):
    """The answer could not be produced (LLM unreachable, timed out, broken stream)."""

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


class ExtractiveSynthesizer:
    """Composes the answer from the most question-relevant abstract sentences.

    Deterministic: the same store and question give the same answer. Sentences are
    quoted as written (no rewriting means nothing unsupported can slip in); each
    paper's sentences follow its title, each ending with its [n].
    """

    name = "extractive"
    model: str | None = None

    def __init__(self, max_sentences: int) -> None:
        self.max_sentences = max_sentences

    def select(self, evidence: Evidence) -> list[ScoredSentence]:
        """Papers that answer about as well as the best one, then their best sentences.

        The most relevant paper may give up to MAX_PER_SOURCE sentences (a question asks
        what it *finds*, and the finding is rarely the first sentence); others give one
        unless a second is nearly as good.
        """
        relevance = evidence.paper_relevance
        if not evidence.sentences or not relevance:
            return []
        best = max(relevance.values())
        papers = sorted(
            (n for n, r in relevance.items() if r >= best * MIN_RELATIVE_PAPER),
            key=lambda n: -relevance[n],
        )[:MAX_PAPERS]
        chosen: list[ScoredSentence] = []
        for rank, source in enumerate(papers):
            mine = sorted(
                (s for s in evidence.sentences if s.source == source),
                key=lambda s: (-s.score, s.position),
            )
            if not mine:
                continue
            chosen.append(mine[0])
            keep = MAX_PER_SOURCE if rank == 0 else 2
            floor = mine[0].score * (MIN_RELATIVE_SCORE if rank == 0 else 0.95)
            chosen += [s for s in mine[1:keep] if s.score >= floor]
        budget = self.max_sentences
        # Over budget: drop the weakest sentences, but never a paper's only sentence first.
        while len(chosen) > budget:
            counts = {s.source: sum(1 for c in chosen if c.source == s.source) for s in chosen}
            spare = [s for s in chosen if counts[s.source] > 1] or chosen
            chosen.remove(min(spare, key=lambda s: s.score))
        return sorted(chosen, key=lambda s: (s.source, s.position))

    def stream(
        self,
        question: str,
        sources: list[RetrievedPaper],
        evidence: Evidence,
        history: list[ChatMessage] | None = None,
    ) -> Iterator[str]:
        current = 0
        for sentence in self.select(evidence):
            if sentence.source != current:
                title = sources[sentence.source - 1].paper.title
                prefix = "\n\n" if current else ""
                yield f"{prefix}*{_md_plain(_quoted(title))}*: "
                current = sentence.source
            else:
                yield " "
            yield f"{_quoted(sentence.text)} [{sentence.source}]"


def _md_plain(text: str) -> str:
    # Titles go inside *…*: keep their own asterisks/underscores from breaking emphasis.
    return text.replace("*", "\\*").replace("_", "\\_")


def _quoted(text: str) -> str:
    """Quoted text whose brackets cannot pass for citation markers.

    Abstracts hold intervals ("$[0,1]^d$") and may hold planted markers ("cite [7]"); quoted
    as is, the marker filter would turn them into citations of unrelated sources. A word
    joiner (invisible) after the bracket keeps the text as written on screen.
    """
    return MARKER.sub(lambda m: "[\u2060" + m.group(0)[1:], text)


class LLMSynthesizer:
    """Streams an answer from an OpenAI(-compatible) chat model via llama-index."""

    name: str

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
                    raise AnswerError(_describe(exc), _status(exc)) from exc
                attempt += 1
                time.sleep(min(4.0, 0.5 * 2**attempt))


class IncompleteReplyError(RuntimeError):
    """The model's stream stopped before the server said it was finished."""


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


def _status(exc: Exception) -> int:
    name = type(exc).__name__.lower()
    return 504 if "timeout" in name else 502


def _describe(exc: Exception) -> str:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if "Timeout" in name:
        return "the language model did not answer in time"
    if status == 429:
        return "the language model is rate-limited (HTTP 429); try again shortly"
    if status:
        return f"the language model failed (HTTP {status})"
    if "Connection" in name:
        return "the language model server cannot be reached"
    if isinstance(exc, IncompleteReplyError):
        return "the language model's reply ended before it was complete (or was no stream)"
    if "Protocol" in name:
        return "the language model's reply broke off before it was complete"
    if isinstance(exc, json.JSONDecodeError):
        return "the language model sent a reply that is not valid JSON"
    return f"the language model failed ({name})"
