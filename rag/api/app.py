"""The HTTP API (FastAPI): OpenAI-compatible chat completions that keep citations, plus
JSON endpoints. `create_api()` returns the app; `ui/` mounts the Gradio UI at `/` on it.

Routes (rag.api.routes, one router per resource): POST /v1/chat/completions,
GET /v1/models[/{id}], POST /v1/ask, POST /v1/retrieve, GET /v1/stats, GET /healthz;
schema at /openapi.json, docs at /docs. Every error body is OpenAI's
`{"error": {"message", "type", "param", "code"}}`, never a stack trace (rag.api.errors).
Answer routes pass admission control first (rag.api.admission): a per-client rate limit
and a bound on answers in flight, 429 with Retry-After beyond either.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute

from rag.api.admission import Admission, AdmissionPolicy
from rag.api.errors import error_response, install_error_handlers
from rag.api.middleware import V1CORS, V1Guard
from rag.api.openapi import document_api
from rag.api.routes import answers, chat, health, models, stats
from rag.api.routes.docs import MAX_BODY_BYTES, ErrorDocs
from rag.api.schemas import RequestModels
from rag.assistant import Assistant
from rag.settings import Settings

DESCRIPTION = (
    "Cited answers over ICML 2024 abstracts. `/v1/chat/completions` speaks the OpenAI "
    "protocol; `citations`, `abstained` and `related` are added to the message (and to the "
    "final stream chunk). Usage counts are words, not model tokens."
)


def create_api(assistant: Assistant, settings: Settings) -> FastAPI:
    """The API app over one assistant; the routers read both from `app.state`."""
    app = FastAPI(title="icml-rag", version="0.1.0", description=DESCRIPTION)
    app.state.assistant, app.state.settings = assistant, settings
    api_keys = settings.api_keys()
    docs = ErrorDocs(auth=bool(api_keys))
    request_models = RequestModels.for_limits(settings.limits)
    install_error_handlers(app)
    routers = [
        health.router(),
        models.router(docs),
        stats.router(docs),
        answers.router(request_models, docs),
        chat.router(request_models, docs),
    ]
    for router in routers:
        app.include_router(router)
    document_api(app, bearer_auth=bool(api_keys))
    json_paths = {  # the POST routes that take JSON; the guard checks their bodies
        route.path
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute) and "POST" in (route.methods or ())
    }
    # Inside the guard: a caller without a valid key, or with a malformed body, is turned
    # away before it spends any of a client's budget or holds an answer slot.
    app.add_middleware(Admission, policy=AdmissionPolicy.from_settings(settings))
    app.add_middleware(V1Guard, api_keys=api_keys, max_body=MAX_BODY_BYTES, json_paths=json_paths)
    if settings.cors_origins:  # added last, so it is outermost: errors carry CORS headers too
        app.add_middleware(V1CORS, origins=settings.cors_origins)
    return app


__all__ = ["MAX_BODY_BYTES", "create_api", "error_response"]
