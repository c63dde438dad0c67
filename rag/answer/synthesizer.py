"""The one interface both answer writers implement, and the factory that picks one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from rag.answer.scored import Evidence
from rag.types import ChatMessage, RetrievedPaper

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from rag.settings import Settings


@runtime_checkable  # the engine (a pydantic model) checks its field with isinstance
class Synthesizer(Protocol):
    """Writes an answer over numbered sources, citing them as [n].

    `stream` yields raw text deltas (the engine validates every marker); `snippets` says
    which sentences of each source the answer quoted, where the writer knows (an empty
    map lets the engine show each cited source's best sentence instead).
    """

    name: str
    model: str | None

    def stream(
        self,
        question: str,
        sources: list[RetrievedPaper],
        evidence: Evidence,
        history: list[ChatMessage] | None = None,
    ) -> Iterator[str]: ...

    def snippets(self, evidence: Evidence) -> dict[int, list[str]]: ...


def build_synthesizer(settings: Settings, llm: LLM | None) -> Synthesizer:
    """The extractive writer without an LLM, the LLM writer with one."""
    if llm is None:
        from rag.answer.extractive import ExtractiveSynthesizer

        return ExtractiveSynthesizer(settings.answer_max_sentences)
    from rag.answer.generative import LLMSynthesizer

    return LLMSynthesizer(
        llm, settings.resolved_backend(), settings.llm_model, settings.llm_max_retries
    )
