"""What the numbers were measured on: cores, CPU, memory, load, versions, commit."""

from __future__ import annotations

import os
import platform
import sys
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "llama-index-core",
    "llama-index-vector-stores-chroma",
    "llama-index-embeddings-huggingface",
    "chromadb",
    "onnxruntime",
    "torch",
    "sentence-transformers",
    "transformers",
    "numpy",
)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return None


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def describe_machine() -> dict[str, Any]:
    from eval.run import git_commit

    return {
        "cores": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "ram_gib": _mem_total_gib(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "git_commit": git_commit(),
        "started": datetime.now().isoformat(timespec="seconds"),
        "load_average_at_start": load_average(),
        "shared_machine_note": (
            "a shared 2-core machine (other engineers run tests on it at the same time): "
            "compare medians and side-by-side ratios from one run, not absolute values"
        ),
    }
