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

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.routing import Match, Mount
from starlette.types import Scope

from rag.api.admission import Admission, AdmissionPolicy, check_storage
from rag.api.edge import Edge, GradioSession
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
    _unmatched_v1(app)  # after every /v1 route: the UI mounted at "/" would answer instead
    document_api(app, bearer_auth=bool(api_keys))
    json_paths = {  # the POST routes that take JSON; the guard checks their bodies
        route.path
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute) and "POST" in (route.methods or ())
    }
    # Inside the guard: a caller without a valid key, or with a malformed body, is turned
    # away before it spends any of a client's budget or holds an answer slot.
    check_storage(settings.rate_limit_storage)
    app.add_middleware(Admission, policy=AdmissionPolicy.from_settings(settings))
    app.add_middleware(V1Guard, api_keys=api_keys, max_body=MAX_BODY_BYTES, json_paths=json_paths)
    if settings.cors_origins:  # added late, so it is outside: errors carry CORS headers too
        app.add_middleware(V1CORS, origins=settings.cors_origins)
    # Outermost: body limit, failed-auth throttle and the UI's login for every route; the
    # UI (ui.layout.mount_ui) leaves its Gradio app in app.state.gradio.
    app.state.gradio = None
    app.add_middleware(
        Edge,
        max_body=settings.max_request_bytes,
        api_keys=api_keys,
        cors_origins=settings.cors_origins,
        trust_proxy=settings.trust_proxy,
        session=GradioSession(lambda: app.state.gradio),
        storage=settings.rate_limit_storage,
    )
    return app


CATCH_ALL = "/v1/{rest:path}"
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _unmatched_v1(app: FastAPI) -> None:
    """Any other /v1 path, or a /v1 route asked with another method: the API's error body
    (404, or 405 with Allow), not the mounted UI's."""

    def allowed(scope: Scope) -> list[str]:
        found = []
        for method in METHODS:
            probe = {**scope, "method": method}
            for route in app.router.routes:
                if isinstance(route, Mount) or getattr(route, "path", "") == CATCH_ALL:
                    continue
                if route.matches(probe)[0] == Match.FULL:
                    found.append(method)
                    break
        return found

    async def unmatched(request: Request) -> JSONResponse:
        path, methods = request.url.path, allowed(request.scope)
        if methods:
            return error_response(
                405,
                f"Method Not Allowed: {request.method} {path} (allowed: {', '.join(methods)})",
                "invalid_request_error",
                headers={"Allow": ", ".join(methods)},
            )
        return error_response(404, f"Not Found: {path}", "invalid_request_error")

    app.add_api_route(CATCH_ALL, unmatched, methods=list(METHODS), include_in_schema=False)


__all__ = ["MAX_BODY_BYTES", "create_api", "error_response"]
