"""gradio imported without its type-stub writer: a large share of every `rag serve` start.

gradio's `ComponentMeta` calls `create_or_modify_pyi` for each component class it creates,
at every import: it reads the class's source file, parses it and rewrites the `.pyi` stub
beside it when they differ. That is a tool for gradio's own developers (the stubs ship in
the wheel); for the ~60 classes gradio defines it is a large share of `import ui.layout`,
and it writes into site-packages when a stub is missing.

`install()` (called by `ui/__init__`, so before anything here imports gradio) lets
`gradio.component_meta` load as it is, then replaces that one function with a no-op:
classes, events and every runtime behaviour stay gradio's. A gradio release that renames
the function only makes the import slower again; one already imported is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

TARGET = "gradio.component_meta"
STUB_WRITER = "create_or_modify_pyi"


def skip_stub(*args: Any, **kwargs: Any) -> None:
    """What gradio's stub writer does here: nothing."""


def _patch(module: ModuleType) -> None:
    if callable(getattr(module, STUB_WRITER, None)):
        setattr(module, STUB_WRITER, skip_stub)


class _ThenPatch(importlib.abc.Loader):
    """gradio's own loader for the module, then the patch, before any class uses it."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... as gradio's
        return getattr(self._inner, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TARGET:
            return None
        # Once: the module is imported once. A new list, not .remove(): an import running
        # on another thread walks the old list and must not see it shift under it.
        sys.meta_path = [f for f in sys.meta_path if f is not self]
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenPatch(spec.loader)
        return spec


def install() -> None:
    if TARGET in sys.modules:  # too late for the classes already made; nothing to gain
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
