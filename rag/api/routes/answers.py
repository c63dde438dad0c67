"""POST /v1/ask (the `rag ask --json` shape) and POST /v1/retrieve (papers, no answer)."""

# No `from __future__ import annotations`: FastAPI must resolve the per-app request models
# (made by RequestModels.for_limits) from real annotations, not strings.
from typing import TYPE_CHECKING, TypeAlias

from fastapi import APIRouter, Response

from rag.answer.unicode_math import plain_text
from rag.api.deps import AssistantDep, SettingsDep
from rag.api.routes.docs import ErrorDocs
from rag.api.schemas import (
    AskRequest,
    AskResponse,
    RequestModels,
    RetrieveRequest,
    RetrieveResponse,
)
from rag.types import Answer, ChatMessage


def server_timing(answer: Answer) -> str:
    """Time spent answering, as a `Server-Timing` header: the rest of a client's wait is
    HTTP, validation and serialisation (scripts/api_latency.py reports the split)."""
    total = answer.timings_ms.get("total", 0.0) + answer.timings_ms.get("condense", 0.0)
    return f"answer;dur={total:.1f}"


def router(models: RequestModels, docs: ErrorDocs) -> APIRouter:
    api = APIRouter(prefix="/v1")
    if TYPE_CHECKING:  # mypy reads the base models; FastAPI gets this app's subclasses
        RetrieveBody: TypeAlias = RetrieveRequest
        AskBody: TypeAlias = AskRequest
    else:
        RetrieveBody, AskBody = models.retrieve, models.ask

    @api.post("/retrieve", response_model=RetrieveResponse, responses=docs.body)
    def retrieve(
        body: RetrieveBody,
        assistant: AssistantDep,
        settings: SettingsDep,
    ) -> RetrieveResponse:
        mode = body.mode or settings.retrieval_mode
        top_k = body.top_k or settings.top_k
        papers = assistant.retrieve(body.question, top_k=top_k, mode=mode, filters=body.filters)
        return RetrieveResponse(question=body.question, mode=mode, top_k=top_k, papers=papers)

    @api.post("/ask", response_model=AskResponse, responses=docs.answer)
    def ask(
        body: AskBody,
        response: Response,
        assistant: AssistantDep,
    ) -> AskResponse:
        answer = assistant.ask(
            body.question,
            history=[ChatMessage(role=m.role, content=m.content) for m in body.history],
            top_k=body.top_k,
            mode=body.mode,
            filters=body.filters,
        )
        response.headers["Server-Timing"] = server_timing(answer)
        # `answer` keeps the abstracts' LaTeX for clients that typeset it; `plain_text` is
        # for those that show text as it is.
        return AskResponse(**dict(answer), plain_text=plain_text(answer))

    return api
