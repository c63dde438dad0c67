"""GET /healthz: is the store reachable (503 when not), and how many papers it holds."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from rag.api.deps import AssistantDep
from rag.api.schemas import HealthResponse

log = logging.getLogger(__name__)


def router() -> APIRouter:
    api = APIRouter()

    @api.get("/healthz", response_model=HealthResponse, responses={503: {"model": HealthResponse}})
    def healthz(assistant: AssistantDep) -> Any:
        backend = assistant.synthesizer.name
        try:
            papers, _ = assistant.store.counts()
        except Exception as exc:  # any failure to reach Chroma means "not healthy"
            log.warning("health check: store unreachable: %s", exc)
            unhealthy = HealthResponse(
                ok=False, backend=backend, error="the store cannot be reached"
            )
            return JSONResponse(unhealthy.model_dump(), status_code=503)
        return HealthResponse(ok=True, backend=backend, papers=papers)

    return api
