"""Fresh processes for honest cold starts and peak memory, and a real `chroma run` server.

A child is `python -m eval.bench.child TASK PAYLOAD.json`; it writes its result as JSON
to the path the payload names, with its own peak resident memory (VmHWM, which the kernel
tracks, so no sampling can miss the peak).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent.parent


class BenchError(RuntimeError):
    """A benchmark step failed; the message names the step and carries its log tail."""


def bench_env(**extra: str) -> dict[str, str]:
    """The environment of every child: offline, no tokenizer threads fighting ours."""
    env = dict(os.environ)
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        }
    )
    env.update(extra)
    return env


def _tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


def run_child(task: str, payload: dict[str, Any], work: Path, timeout_s: float) -> dict[str, Any]:
    """Run one child task; return its JSON result plus wall_s (launch to exit)."""
    work.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{task}-", suffix=".json", dir=work)
    os.close(fd)
    result_path, log_path = Path(name), Path(name).with_suffix(".log")
    payload_path = result_path.with_suffix(".payload.json")
    payload_path.write_text(json.dumps({**payload, "result_path": str(result_path)}))
    command = [sys.executable, "-m", "eval.bench.child", task, str(payload_path)]
    with log_path.open("wb") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=bench_env())
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            stop(proc)
            raise BenchError(
                f"{task}: no result after {timeout_s:.0f} s\n{_tail(log_path)}"
            ) from exc
        wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise BenchError(f"{task}: exit code {proc.returncode}\n{_tail(log_path)}")
    result: dict[str, Any] = json.loads(result_path.read_text())
    result["wall_s"] = round(wall, 3)
    return result


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, timeout_s: float, proc: subprocess.Popen[Any] | None = None) -> None:
    """Return once `url` answers with a status under 500 (a server still loading says 503);
    fail early if `proc`, the server, exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise BenchError(f"server exited with {proc.returncode} before {url} answered")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise BenchError(f"{url} did not answer within {timeout_s:.0f} s")


@contextmanager
def running_server(
    command: list[str],
    ready_url: str,
    log_path: Path,
    timeout_s: float = 60.0,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """A real server process, ready when `ready_url` answers; stopped (then killed) after.

    If it never gets ready, the error carries the tail of its log.
    """
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    try:
        try:
            wait_http(ready_url, timeout_s, proc)
        except BenchError as exc:
            raise BenchError(f"{exc}\n{_tail(log_path)}") from exc
        yield proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def rss_mb(pid: int, with_children: bool = True) -> float:
    """Resident memory of a process (and its children, e.g. a server's workers) in MB."""
    process = psutil.Process(pid)
    total = process.memory_info().rss
    if with_children:
        for child in process.children(recursive=True):
            with suppress(psutil.Error):
                total += child.memory_info().rss
    return round(total / 1024**2, 1)


@contextmanager
def chroma_server(path: Path, log_path: Path, timeout_s: float = 60.0) -> Iterator[dict[str, Any]]:
    """A real `chroma run` on a free 127.0.0.1 port, persisting to `path`; stopped after."""
    exe = Path(sys.executable).parent / "chroma"
    if not exe.exists():
        raise BenchError(f"the `chroma` CLI is not installed next to {sys.executable}")
    port = free_port()
    command = [str(exe), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
    heartbeat = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    with running_server(command, heartbeat, log_path, timeout_s, bench_env()) as proc:
        yield {"host": "127.0.0.1", "port": port, "pid": proc.pid}
