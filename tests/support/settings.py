"""Settings for tests: built explicitly, never from the developer's environment or .env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.paths import FIXTURE_CORPUS


def make_settings(data_dir: Path, **overrides: Any) -> Any:
    from rag.settings import Settings

    overrides.setdefault("corpus_paths", [FIXTURE_CORPUS])
    return Settings(_env_file=None, data_dir=data_dir, **overrides)
