"""Which local models the ONNX graph writer takes, decided without importing onnx.

The app asks this at every start (rag.embedding.factory); importing onnx is slow, and is
only needed when the graph is written (once per machine and model).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def can_write(model_dir: Path) -> bool:
    """Whether rag.embedding.onnx_graph can write the directory's model: BERT as `check_config` wants,
    weights as safetensors. Anything else is embedded through torch (the `torch` extra)."""
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        check_config(config)
    except (OSError, ValueError):
        return False
    return (model_dir / "model.safetensors").exists()


def check_config(config: dict[str, Any]) -> None:
    # Only what this graph implements: anything else would embed wrongly, not fail.
    wanted = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
    for field, value in wanted.items():
        if config.get(field, value) != value:
            raise ValueError(f"cannot write {field}={config.get(field)!r} as ONNX (only {value!r})")
