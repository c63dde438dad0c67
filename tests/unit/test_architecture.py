"""The layout's rules, checked on the code itself: one-way flow, no cycles, a cheap import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

RAG = ROOT / "rag"
# The stages in the order data flows; a stage may import only from itself, earlier stages
# and the shared top-level modules (settings, types, errors, text).
STAGES = [
    "corpus",
    "embedding",
    "catalogue",
    "store",
    "lexical",
    "retrieval",
    "plan",
    "answer",
    "sets",
    "api",
]
SHARED = {"settings", "types", "errors", "text", "__init__"}
# Interfaces sit on top of the facade: the API serves an Assistant.
FACADES = {"api": {"assistant"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every rag/ui/eval module a file imports (at any depth: lazy imports count too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.split(".")[0] in ("rag", "ui", "eval")}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in RAG.rglob("*.py")}


def test_rag_never_imports_ui_or_eval() -> None:
    offenders = {
        m: deps for m, deps in graph().items() if any(d.split(".")[0] != "rag" for d in deps)
    }
    assert offenders == {}


def stage_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "rag"


def test_stages_only_import_upstream() -> None:
    wrong = []
    for module, deps in graph().items():
        stage = stage_of(module)
        if stage not in STAGES:
            continue
        for dep in deps:
            target = stage_of(dep)
            if target in STAGES and STAGES.index(target) > STAGES.index(stage):
                wrong.append(f"{module} -> {dep}")
            if target not in STAGES and target not in SHARED and target != "rag":
                wrong.append(
                    f"{module} -> {dep}"
                )  # a stage reaching into a facade (cli, assistant…)
    assert wrong == [] or all(w.startswith("rag.api") and "rag.assistant" in w for w in wrong), (
        wrong
    )


def test_no_import_cycles() -> None:
    edges = {m: {d for d in deps if d in graph_modules} for m, deps in graph().items()}
    seen: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(module: str, stack: list[str]) -> None:
        seen[module] = 1
        for dep in edges.get(module, ()):
            if seen.get(dep) == 1:
                raise AssertionError(" -> ".join([*stack[stack.index(dep) :], dep]))
            if dep not in seen:
                visit(dep, [*stack, dep])
        seen[module] = 2

    for module in edges:
        if module not in seen:
            visit(module, [module])


graph_modules = {module_name(p) for p in RAG.rglob("*.py")}


def test_importing_rag_loads_no_heavy_library() -> None:
    code = (
        "import sys, rag\n"
        "from rag import Settings\n"
        "heavy = [m for m in ('chromadb', 'torch', 'gradio', 'llama_index.core', 'onnxruntime')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
