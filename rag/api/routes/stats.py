"""GET /v1/stats: papers, chunks, embedding model, backend, warm-up progress."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter

from rag.api.deps import AssistantDep
from rag.api.routes.docs import ErrorDocs
from rag.errors import StoreError

log = logging.getLogger(__name__)


def router(docs: ErrorDocs) -> APIRouter:
    api = APIRouter(prefix="/v1")

    @api.get("/stats", response_model=dict[str, Any], responses=docs.plain(503))
    def stats(assistant: AssistantDep) -> dict[str, Any]:
        try:
            return assistant.stats()
        except Exception as exc:  # Chroma raises many types when it cannot be reached
            # The address stays in the log: callers only need to know to come back later.
            log.warning("stats: store %s unreachable: %r", assistant.store.location, exc)
            raise StoreError(
                "cannot read the store right now; please try again in a moment"
            ) from exc

    return api
