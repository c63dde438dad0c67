"""Request and response bodies of the HTTP API: OpenAI Chat Completions shapes and our own.

Limits that depend on settings (question length, history turns) are applied through
per-app subclasses (`RequestModels.for_limits`), so /openapi.json states the real limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from rag.settings import InputLimits, RetrievalMode
from rag.types import (
    Aggregate,
    Answer,
    Citation,
    Filters,
    QueryPlan,
    Related,
    RetrievedPaper,
    SuggestedTopic,
)

MODEL_ID = "icml-rag"
# Something must survive `clean_text` (which drops control characters and folds spaces),
# so a question made only of blanks/controls is rejected by the schema, not by a 4xx surprise.
# A visible character: not a space, a control or a format character (zero-width space,
# joiners, the BOM, direction marks).
QUESTION_PATTERN = r"[^\s\x00-\x1f\x7f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]"


def _no_bool_or_text(value: object) -> object:
    # JSON Schema counts 5.0 as an integer but not `true` or "5"; lax pydantic takes all three.
    if isinstance(value, bool | str):
        raise ValueError("Input should be a valid integer")
    return value


TopK = Annotated[int, Field(ge=1, le=50), BeforeValidator(_no_bool_or_text)]


# --- our own endpoints ------------------------------------------------------------------
class RetrievalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    top_k: TopK | None = Field(None, description="Papers to retrieve (1..50).")
    mode: RetrievalMode | None = Field(None, description="dense, bm25 or hybrid.")
    filters: Filters | None = Field(None, description="Restrict which papers may be used.")


class RetrieveRequest(RetrievalOptions):
    question: str = Field(min_length=1, pattern=QUESTION_PATTERN)


class HistoryMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system"]
    content: str


class AskRequest(RetrieveRequest):
    history: list[HistoryMessage] = Field(
        default_factory=list, description="Earlier turns, oldest first."
    )


class AskResponse(Answer):
    """The `rag ask --json` Answer plus the text to show where nothing typesets LaTeX."""

    plain_text: str = Field(
        description=(
            "The answer and its numbered references as plain text, LaTeX shown as Unicode "
            "(~3.7×, O(d√(NKT))); `answer`, titles and snippets keep the abstracts' LaTeX."
        )
    )


class RetrieveResponse(BaseModel):
    question: str
    mode: RetrievalMode
    top_k: int
    papers: list[RetrievedPaper] = Field(description="Best first.")


class HealthResponse(BaseModel):
    ok: bool
    backend: str
    papers: int | None = None
    error: str | None = None


class ErrorInfo(BaseModel):
    message: str = Field(description="What was wrong; names the offending field when there is one.")
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(BaseModel):
    """OpenAI's error shape, so OpenAI clients show the message."""

    error: ErrorInfo


# --- OpenAI Chat Completions ------------------------------------------------------------
class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["text"]
    text: str


Content = str | list[TextPart]


class SystemMessage(BaseModel):
    """System/developer instructions: accepted and ignored (the assistant's prompt is fixed)."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer"]
    content: Content | None = None


class UserTextPart(TextPart):
    text: str = Field(pattern=QUESTION_PATTERN)


class UserMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["user"]
    # A user turn must say something: blank questions are refused by the schema.
    content: (
        Annotated[str, Field(pattern=QUESTION_PATTERN)]
        | Annotated[list[UserTextPart], Field(min_length=1)]
    )


class AssistantMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["assistant"]
    content: Content | None = None


def message_text(content: str | list[TextPart] | list[UserTextPart] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content)


ChatMessageIn = Annotated[
    SystemMessage | UserMessage | AssistantMessage, Field(discriminator="role")
]


# The last user message is the question, so at least one must be there (JSON Schema
# `contains`); `split_conversation` enforces the same rule.
NEEDS_USER_MESSAGE: dict[str, Any] = {
    "contains": {"type": "object", "properties": {"role": {"const": "user"}}, "required": ["role"]}
}


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = Field(False, strict=True)


class ChatCompletionRequest(BaseModel):
    # OpenAI clients send many generation knobs (temperature, max_tokens, n, user, ...);
    # they are accepted and ignored so any client works unchanged.
    model_config = ConfigDict(extra="ignore")

    model: str = Field(
        MODEL_ID,
        description=f"Any value is accepted (clients often send their own default); "
        f"responses always name '{MODEL_ID}'.",
    )
    messages: list[ChatMessageIn] = Field(min_length=1, json_schema_extra=NEEDS_USER_MESSAGE)
    stream: bool = Field(False, strict=True)
    stream_options: StreamOptions | None = None
    n: int = Field(1, ge=1, le=1, strict=True, description="Choices: only 1 is produced.")
    top_k: TopK | None = Field(None, description="Extension: papers to retrieve (1..50).")
    mode: RetrievalMode | None = Field(None, description="Extension: dense, bm25 or hybrid.")
    filters: Filters | None = Field(None, description="Extension: restrict the papers used.")


class Usage(BaseModel):
    """Approximate: whitespace-separated words, not model tokens."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class CompletionMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str = Field(
        description="The answer with [n] markers, then its numbered references; LaTeX as Unicode."
    )
    refusal: None = None
    citations: list[Citation] = Field(description="Extension: the sources behind each [n].")
    abstained: bool = Field(description="Extension: true when the corpus cannot answer.")
    related: list[Related] = Field(description="Extension: nearby papers shown with abstentions.")
    plan: QueryPlan | None = Field(None, description="Extension: how the question was understood.")
    aggregate: Aggregate | None = Field(
        None, description="Extension: set questions' count and every member (all rows)."
    )
    suggested_topics: list[SuggestedTopic] = Field(
        default_factory=list,
        description="Extension: named topics offered for a topic described in other words.",
    )


class CompletionChoice(BaseModel):
    index: int = 0
    message: CompletionMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str = MODEL_ID
    choices: list[CompletionChoice]
    usage: Usage


class ChunkDelta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None
    citations: list[Citation] | None = Field(
        default=None, description="Extension, final chunk only."
    )
    abstained: bool | None = Field(default=None, description="Extension, final chunk only.")
    related: list[Related] | None = Field(default=None, description="Extension, final chunk only.")
    plan: QueryPlan | None = Field(default=None, description="Extension, final chunk only.")
    aggregate: Aggregate | None = Field(default=None, description="Extension, final chunk only.")
    suggested_topics: list[SuggestedTopic] | None = Field(
        default=None, description="Extension, final chunk only."
    )


class ChunkChoice(BaseModel):
    index: int = 0
    delta: ChunkDelta
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


class ChatCompletionChunk(BaseModel):
    """One SSE event of a streamed completion (serialised without unset fields)."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = Field(None, description="Last chunk, with stream_options.include_usage.")
    citations: list[Citation] | None = Field(
        default=None, description="Extension, final chunk only."
    )
    abstained: bool | None = Field(default=None, description="Extension, final chunk only.")
    related: list[Related] | None = Field(default=None, description="Extension, final chunk only.")
    plan: QueryPlan | None = Field(default=None, description="Extension, final chunk only.")
    aggregate: Aggregate | None = Field(default=None, description="Extension, final chunk only.")
    suggested_topics: list[SuggestedTopic] | None = Field(
        default=None, description="Extension, final chunk only."
    )


# One server-sent event as OpenAPI 3.1 tools read `text/event-stream` schemas: its `data`
# is a chunk, an error object, or the final `[DONE]`.
SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "event": {"type": "string"},
        "id": {"type": "string"},
        "data": {
            "anyOf": [
                {"const": "[DONE]"},
                {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {
                        "anyOf": [
                            {"$ref": "#/components/schemas/ChatCompletionChunk"},
                            {"$ref": "#/components/schemas/ErrorResponse"},
                        ]
                    },
                },
            ]
        },
    },
}


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = MODEL_ID


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


def answer_extras(answer: Answer) -> dict[str, Any]:
    """The structured fields added to OpenAI messages and final stream chunks."""
    return {
        "citations": [c.model_dump(mode="json") for c in answer.citations],
        "abstained": answer.abstained,
        "related": [r.model_dump(mode="json") for r in answer.related],
        "plan": answer.plan.model_dump(mode="json") if answer.plan else None,
        "aggregate": answer.aggregate.model_dump(mode="json") if answer.aggregate else None,
        "suggested_topics": [s.model_dump(mode="json") for s in answer.suggested_topics],
    }


SYSTEM_MESSAGES_ALLOWED = 4  # system/developer messages are ignored but still sent by clients


@dataclass(frozen=True)
class RequestModels:
    """The request bodies of one app, with its settings' limits in their schemas."""

    retrieve: type[RetrieveRequest]
    ask: type[AskRequest]
    chat: type[ChatCompletionRequest]

    @classmethod
    def for_limits(cls, limits: InputLimits) -> RequestModels:
        max_chars, max_turns = limits.max_question_chars, limits.max_history_turns

        class LimitedRetrieveRequest(RetrieveRequest):
            question: str = Field(min_length=1, max_length=max_chars, pattern=QUESTION_PATTERN)

        class LimitedAskRequest(AskRequest):
            question: str = Field(min_length=1, max_length=max_chars, pattern=QUESTION_PATTERN)
            history: list[HistoryMessage] = Field(default_factory=list, max_length=max_turns)

        class LimitedUserMessage(UserMessage):
            content: (
                Annotated[str, Field(max_length=max_chars, pattern=QUESTION_PATTERN)]
                | Annotated[list[UserTextPart], Field(min_length=1)]
            )

        class LimitedChatRequest(ChatCompletionRequest):
            messages: list[
                Annotated[
                    SystemMessage | LimitedUserMessage | AssistantMessage,
                    Field(discriminator="role"),
                ]
            ] = Field(  # type: ignore[assignment]  # a narrower list, as pydantic allows
                min_length=1,
                max_length=max_turns + 1 + SYSTEM_MESSAGES_ALLOWED,
                json_schema_extra=NEEDS_USER_MESSAGE,
            )

        return cls(LimitedRetrieveRequest, LimitedAskRequest, LimitedChatRequest)
