"""`python -m eval.bench.child TASK PAYLOAD.json`: one measured step in a fresh process.

The payload names `result_path`; the task's result (a JSON object), with the process's
peak resident memory, is written there. The parent (eval.bench.procs.run_child) adds the
wall time from launch to exit.
"""

from __future__ import annotations

import time

PROCESS_STARTED = time.perf_counter()  # before any heavy import: imports count as cold start

import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _ingest(payload: dict[str, Any]) -> dict[str, Any]:
    from eval.bench.ingest import run_our_ingest

    return run_our_ingest(payload, PROCESS_STARTED)


def _baseline_ingest(payload: dict[str, Any]) -> dict[str, Any]:
    from eval.bench.baseline_ingest import run_baseline_ingest

    return run_baseline_ingest(payload, PROCESS_STARTED)


def _scale_build(payload: dict[str, Any]) -> dict[str, Any]:
    from eval.bench.synth import run_build

    return run_build(payload)


def _scale_query(payload: dict[str, Any]) -> dict[str, Any]:
    from eval.bench.scale_query import run_scale_queries

    return run_scale_queries(payload, PROCESS_STARTED)


TASKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "ingest": _ingest,
    "baseline-ingest": _baseline_ingest,
    "scale-build": _scale_build,
    "scale-query": _scale_query,
}


def peak_rss_mb() -> float:
    """This process's own peak resident memory. VmHWM, not ru_maxrss: the latter keeps
    the parent's size from before exec (a bench parent holding models would inflate it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in TASKS:
        print(
            f"usage: python -m eval.bench.child {{{','.join(TASKS)}}} PAYLOAD.json", file=sys.stderr
        )
        return 2
    payload = json.loads(Path(argv[1]).read_text())
    result = TASKS[argv[0]](payload)
    result["peak_rss_mb"] = peak_rss_mb()
    Path(payload["result_path"]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
