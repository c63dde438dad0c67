"""What /openapi.json says beyond the routes: the SSE chunk schemas and bearer auth.

FastAPI builds the schema once, on first request; both additions are applied to that one
build, so there is one override of `app.openapi`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from pydantic.json_schema import models_json_schema

from rag.api.schemas import ChatCompletionChunk

Schema = dict[str, Any]


def _add_stream_chunks(schema: Schema) -> None:
    """Put the chunk schema that the SSE event schema refers to into the components."""
    _, defs = models_json_schema(
        [(ChatCompletionChunk, "serialization")], ref_template="#/components/schemas/{model}"
    )
    known = schema.setdefault("components", {}).setdefault("schemas", {})
    for name, definition in defs.get("$defs", {}).items():
        known.setdefault(name, definition)


def _add_bearer_auth(schema: Schema) -> None:
    """State the bearer requirement on every /v1 operation (enforced by `V1Guard`)."""
    schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
    schemes["bearer"] = {"type": "http", "scheme": "bearer"}
    for path, operations in schema.get("paths", {}).items():
        if path == "/v1" or path.startswith("/v1/"):
            for operation in operations.values():
                operation["security"] = [{"bearer": []}]


def document_api(app: FastAPI, bearer_auth: bool) -> None:
    additions: list[Callable[[Schema], None]] = [_add_stream_chunks]
    if bearer_auth:
        additions.append(_add_bearer_auth)
    build = app.openapi

    def openapi() -> Schema:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        for add in additions:
            add(schema)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
