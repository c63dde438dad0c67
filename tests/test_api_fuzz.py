"""Property-based fuzzing of the live API from its OpenAPI schema (schemathesis 4): no 5xx,
documented status codes and content types, bodies that match the schema, schema-invalid
input refused and schema-valid input accepted. Bounded (25 examples a phase) and
derandomized.

`schemathesis.pytest.from_fixture` breaks on pytest 9 (it writes `Function._nodeid`), so the
schema is taken at import time from an app built with the test settings, and the test checks
that the live server publishes exactly that schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from rag.api.app import create_api
from tests.support.api import serve
from tests.support.settings import make_settings


def _schema_app() -> Any:
    # Building routes touches no assistant attribute; the schema depends on settings only.
    return create_api(None, make_settings(Path("unused"), backend="extractive"))  # type: ignore[arg-type]


OPENAPI = _schema_app().openapi()
schema = schemathesis.openapi.from_dict(OPENAPI)


@pytest.fixture(scope="module")
def live_url(assistant: Any) -> Iterator[str]:
    with serve(create_api(assistant, assistant.settings)) as url:
        assert httpx.get(f"{url}/openapi.json").json() == OPENAPI
        yield url


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_api_conforms_to_its_schema(case: Any, live_url: str) -> None:
    case.call_and_validate(base_url=live_url, timeout=60)
