"""HTTP API (FastAPI): OpenAI-compatible chat completions that keep citations, plus JSON
endpoints. `create_api()` returns the app; `ui/` mounts the Gradio UI at `/` on it.

Routes: POST /v1/chat/completions, GET /v1/models[/{id}], POST /v1/ask, POST /v1/retrieve,
GET /v1/stats, GET /healthz; schema at /openapi.json, docs at /docs. Every error body is
OpenAI's `{"error": {"message", "type", "param", "code"}}`, never a stack trace.
"""

# No `from __future__ import annotations`: FastAPI must resolve the request-model classes
# defined inside create_api() from real annotations, not strings.
import logging
import time
from typing import Annotated, Any

from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import Field
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.exceptions import HTTPException

from rag.api_http import (
    V1CORS,
    V1Guard,
    document_bearer_auth,
    error_response,
    install_error_handlers,
)
from rag.api_models import (
    MODEL_ID,
    NEEDS_USER_MESSAGE,
    QUESTION_PATTERN,
    SSE_EVENT_SCHEMA,
    AskRequest,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionRequest,
    ErrorResponse,
    HealthResponse,
    HistoryMessage,
    ModelCard,
    ModelList,
    RetrieveRequest,
    RetrieveResponse,
    SystemMessage,
    UserMessage,
    UserTextPart,
    message_text,
)
from rag.api_openai import (
    CompletionStream,
    completion,
    document_stream_chunks,
    split_conversation,
    words,
)
from rag.assistant import Assistant
from rag.engine import Event
from rag.settings import Settings
from rag.store import StoreError
from rag.synthesis import AnswerError
from rag.types import Answer, ChatMessage

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_048_576  # 1 MiB: far above any real question plus a long chat history
SYSTEM_MESSAGES_ALLOWED = 4  # system/developer messages are ignored but still sent by clients


# --- the app ----------------------------------------------------------------------------
def _error_docs(*statuses: int) -> dict[int | str, dict[str, Any]]:
    reasons = {
        400: "Invalid JSON.",
        401: "Missing or wrong API key.",
        404: "Unknown model.",
        413: f"Body larger than {MAX_BODY_BYTES:,} bytes.",
        415: "Content-Type is not application/json.",
        422: "A field is invalid; the message names it.",
        502: "The language model failed.",
        503: "The paper store is unreachable or empty.",
        504: "The language model timed out.",
    }
    return {s: {"model": ErrorResponse, "description": reasons[s]} for s in statuses}


def server_timing(answer: Answer) -> str:
    """Time spent answering, as a `Server-Timing` header: the rest of a client's wait is
    HTTP, validation and serialisation (scripts/api_latency.py reports the split)."""
    total = answer.timings_ms.get("total", 0.0) + answer.timings_ms.get("condense", 0.0)
    return f"answer;dur={total:.1f}"


def create_api(assistant: Assistant, settings: Settings) -> FastAPI:
    app = FastAPI(
        title="icml-rag",
        version="0.1.0",
        description="Cited answers over ICML 2024 abstracts. `/v1/chat/completions` speaks "
        "the OpenAI protocol; `citations`, `abstained` and `related` are added to the message "
        "(and to the final stream chunk). Usage counts are words, not model tokens.",
    )
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    auth = (401,) if api_key else ()
    body_errors = _error_docs(400, *auth, 413, 415, 422, 503)
    answer_errors = _error_docs(400, *auth, 413, 415, 422, 502, 503, 504)
    started = int(time.time())
    max_chars, max_turns = settings.max_question_chars, settings.max_history_turns

    # Settings-dependent limits live in the schema, so clients (and fuzzers) see them.
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

    install_error_handlers(app)

    @app.get("/healthz", response_model=HealthResponse, responses={503: {"model": HealthResponse}})
    def healthz() -> Any:
        try:
            papers, _ = assistant.store.counts()
        except Exception as exc:  # any failure to reach Chroma means "not healthy"
            log.warning("health check: store unreachable: %s", exc)
            unhealthy = HealthResponse(
                ok=False, backend=assistant.synthesizer.name, error="the store cannot be reached"
            )
            return JSONResponse(unhealthy.model_dump(), status_code=503)
        return HealthResponse(ok=True, backend=assistant.synthesizer.name, papers=papers)

    @app.get("/v1/models", response_model=ModelList, responses=_error_docs(*auth))
    def models() -> ModelList:
        return ModelList(data=[ModelCard(id=MODEL_ID, created=started)])

    @app.get(
        "/v1/models/{model_id}", response_model=ModelCard, responses=_error_docs(*auth, 404, 422)
    )
    def model(model_id: str) -> ModelCard:
        if model_id != MODEL_ID:
            raise HTTPException(404, f"model: '{model_id[:80]}' does not exist; use '{MODEL_ID}'")
        return ModelCard(id=MODEL_ID, created=started)

    @app.get("/v1/stats", response_model=dict[str, Any], responses=_error_docs(*auth, 503))
    def stats() -> dict[str, Any]:
        try:
            return assistant.stats()
        except Exception as exc:  # Chroma raises many types when it cannot be reached
            # The address stays in the log: callers only need to know to come back later.
            log.warning("stats: store %s unreachable: %r", settings.store_location(), exc)
            raise StoreError(
                "cannot read the store right now; please try again in a moment"
            ) from exc

    @app.post("/v1/retrieve", response_model=RetrieveResponse, responses=body_errors)
    def retrieve(body: LimitedRetrieveRequest) -> RetrieveResponse:
        mode = body.mode or settings.retrieval_mode
        top_k = body.top_k or settings.top_k
        papers = assistant.retrieve(body.question, top_k=top_k, mode=mode, filters=body.filters)
        return RetrieveResponse(question=body.question, mode=mode, top_k=top_k, papers=papers)

    @app.post("/v1/ask", response_model=Answer, responses=answer_errors)
    def ask(body: LimitedAskRequest, response: Response) -> Answer:
        answer = assistant.ask(
            body.question,
            history=[ChatMessage(role=m.role, content=m.content) for m in body.history],
            top_k=body.top_k,
            mode=body.mode,
            filters=body.filters,
        )
        response.headers["Server-Timing"] = server_timing(answer)
        return answer

    stream_doc: dict[int | str, dict[str, Any]] = {
        200: {
            "description": "A chat.completion, or with `stream: true` an SSE stream of "
            "chat.completion.chunk objects ending with `data: [DONE]`.",
            "content": {"text/event-stream": {"schema": SSE_EVENT_SCHEMA}},
        },
        **answer_errors,
    }

    @app.post("/v1/chat/completions", response_model=ChatCompletion, responses=stream_doc)
    async def chat_completions(body: LimitedChatRequest, response: Response) -> Any:
        question, history = split_conversation(body.messages, settings)
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

    document_stream_chunks(app)
    if api_key:
        document_bearer_auth(app)
    json_paths = {
        r.path for r in app.routes if isinstance(r, APIRoute) and "POST" in (r.methods or ())
    }
    app.add_middleware(V1Guard, api_key=api_key, max_body=MAX_BODY_BYTES, json_paths=json_paths)
    if settings.cors_origins:  # added last, so it is outermost: errors carry CORS headers too
        app.add_middleware(V1CORS, origins=settings.cors_origins)
    return app


__all__ = ["MAX_BODY_BYTES", "create_api", "error_response"]
