"""POST /v1/chat/completions: the OpenAI protocol, streamed or not, citations kept."""

# No `from __future__ import annotations`: FastAPI must resolve the per-app request model
# (made by RequestModels.for_limits) from a real annotation, not a string.
from typing import TYPE_CHECKING, Any, TypeAlias

from fastapi import APIRouter, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from rag.answer.engine import Event
from rag.api.deps import AssistantDep, SettingsDep
from rag.api.openai_compat import CompletionStream, completion, split_conversation, words
from rag.api.routes.answers import server_timing
from rag.api.routes.docs import ErrorDocs
from rag.api.schemas import (
    SSE_EVENT_SCHEMA,
    ChatCompletion,
    ChatCompletionRequest,
    RequestModels,
    message_text,
)
from rag.errors import AnswerError


def router(models: RequestModels, docs: ErrorDocs) -> APIRouter:
    api = APIRouter(prefix="/v1")
    if TYPE_CHECKING:  # mypy reads the base model; FastAPI gets this app's subclass
        ChatBody: TypeAlias = ChatCompletionRequest
    else:
        ChatBody = models.chat
    stream_doc: dict[int | str, dict[str, Any]] = {
        200: {
            "description": "A chat.completion, or with `stream: true` an SSE stream of "
            "chat.completion.chunk objects ending with `data: [DONE]`.",
            "content": {"text/event-stream": {"schema": SSE_EVENT_SCHEMA}},
        },
        **docs.answer,
    }

    @api.post("/chat/completions", response_model=ChatCompletion, responses=stream_doc)
    async def chat_completions(
        body: ChatBody,
        response: Response,
        assistant: AssistantDep,
        settings: SettingsDep,
    ) -> Any:
        question, history = split_conversation(body.messages, settings.limits)
        prompt_words = sum(words(message_text(m.content)) for m in body.messages)
        options: dict[str, Any] = {"top_k": body.top_k, "mode": body.mode}
        options |= {"filters": body.filters, "history": history}
        if not body.stream:
            answer = await run_in_threadpool(assistant.ask, question, **options)
            response.headers["Server-Timing"] = server_timing(answer)
            return completion(answer, prompt_words)
        events = assistant.stream(question, **options)
        # The first event is fetched before answering so bad input and an unusable store
        # still get a proper 4xx/503; later failures can only be reported in-band.
        first: Event | AnswerError | None
        try:
            first = await run_in_threadpool(next, events, None)
        except AnswerError as exc:
            first = exc
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        formatter = CompletionStream(prompt_words, include_usage)
        return StreamingResponse(
            iterate_in_threadpool(formatter.events(first, events)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return api
