"""GET /v1/models and /v1/models/{id}: the one model name OpenAI clients may send."""

from __future__ import annotations

import time

from fastapi import APIRouter
from starlette.exceptions import HTTPException

from rag.api.routes.docs import ErrorDocs
from rag.api.schemas import MODEL_ID, ModelCard, ModelList


def router(docs: ErrorDocs) -> APIRouter:
    api = APIRouter(prefix="/v1")
    started = int(time.time())

    @api.get("/models", response_model=ModelList, responses=docs.plain())
    def models() -> ModelList:
        return ModelList(data=[ModelCard(id=MODEL_ID, created=started)])

    @api.get("/models/{model_id}", response_model=ModelCard, responses=docs.plain(404, 422))
    def model(model_id: str) -> ModelCard:
        if model_id != MODEL_ID:
            raise HTTPException(404, f"model: '{model_id[:80]}' does not exist; use '{MODEL_ID}'")
        return ModelCard(id=MODEL_ID, created=started)

    return api
