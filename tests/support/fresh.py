"""A fresh interpreter for what must be checked before anything is imported: which
modules a step loads, an import hook that acts only on a first import."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT


def fresh_python(script: str, *args: str, timeout: float = 120) -> str:
    """`script` run by a new `python -c` at the repo root (the environment inherited);
    its stdout, once it has exited 0."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
