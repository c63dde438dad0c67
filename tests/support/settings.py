"""Settings for tests: built explicitly, never from the developer's environment or .env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.paths import FIXTURE_CORPUS


def make_settings(data_dir: Path, **overrides: Any) -> Any:
    from rag.settings import Settings

    overrides.setdefault("corpus_paths", [FIXTURE_CORPUS])
    # Test servers take hundreds of requests from one address; the admission tests set it.
    overrides.setdefault("rate_limit_per_minute", 0)
    return Settings(_env_file=None, data_dir=data_dir, **overrides)
