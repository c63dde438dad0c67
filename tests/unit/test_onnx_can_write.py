"""Which local models the ONNX runtime takes (rag.embedding.onnx_check.can_write): BERT in
safetensors; anything else goes through torch instead of failing in the graph writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.embedding.onnx_check import can_write


def _model(folder: Path, config: dict[str, object], weights: str = "model.safetensors") -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    (folder / weights).write_bytes(b"")
    return folder


BERT = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}


def test_bert_in_safetensors_is_written(tmp_path: Path) -> None:
    assert can_write(_model(tmp_path / "m", BERT))


@pytest.mark.parametrize(
    ("config", "weights"),
    [
        ({**BERT, "model_type": "mpnet"}, "model.safetensors"),
        ({**BERT, "hidden_act": "relu"}, "model.safetensors"),
        ({**BERT, "position_embedding_type": "relative_key"}, "model.safetensors"),
        (BERT, "pytorch_model.bin"),
    ],
)
def test_other_models_are_left_to_torch(
    tmp_path: Path, config: dict[str, object], weights: str
) -> None:
    assert not can_write(_model(tmp_path / "m", config, weights))


def test_a_folder_without_a_config_is_left_to_torch(tmp_path: Path) -> None:
    assert not can_write(tmp_path)
