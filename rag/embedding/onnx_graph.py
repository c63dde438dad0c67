"""BERT's encoder written straight from its safetensors weights as an ONNX graph.

Why: exporting through `torch.onnx.export` needs torch and transformers (a long install)
and slow tracing, only to write a graph whose every op is known in advance. This module
writes that graph with the `onnx` package, op for op as the torch
export of `BertModel` (eager attention, opset 17) lays it out: ONNX Runtime gives the
torch export's outputs bit for bit, fp32 and int8 (tests/test_onnx_graph.py), so vectors
shipped or cached from it stay valid:

- embeddings: word + token type + position (0..seq-1), then LayerNormalization;
- an additive mask built once: (1 - attention_mask) * float32 min, as transformers adds;
- per layer: Q, K, V as MatMul with the weight stored transposed, plus bias (the int8
  quantiser quantises MatMul initializers, so they must stay MatMul), softmax(QKᵀ·scale +
  mask)·V, output dense, residual, LayerNorm; exact (erf) GELU FFN, residual, LayerNorm.

Inputs input_ids / attention_mask / token_type_ids (int64, batch × sequence), output
`last_hidden_state` (float32, batch × sequence × hidden): what `onnx_runtime` feeds and reads.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from rag.embedding.onnx_check import check_config

OPSET = 17
IR_VERSION = 8  # opset 17's IR: readable by every onnxruntime the app allows (>= 1.20)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"


class _Graph:
    """Nodes and initializers under unique names, so the builders below read as maths."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def const(self, value: Any, dtype: type = np.float32) -> str:
        self._count += 1
        name = f"const_{self._count}"
        self.initializers.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def weight(self, name: str, transpose: bool = False) -> str:
        """A checkpoint tensor; `transpose` stores nn.Linear's (out, in) as MatMul's (in, out)."""
        array = self.weights[name]
        if transpose:
            array, name = np.ascontiguousarray(array.T), f"{name}.T"
        self.initializers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def linear(self, x: str, prefix: str) -> str:
        # Add(bias, MatMul) in this order, as the torch export writes it.
        return self.op(
            "Add",
            self.weight(f"{prefix}.bias"),
            self.op("MatMul", x, self.weight(f"{prefix}.weight", True)),
        )

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        gamma, beta = self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")
        return self.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=eps)


def _embeddings(g: _Graph, eps: float) -> str:
    """word + token type + position embeddings, then LayerNorm (transformers' add order)."""
    words = g.op("Gather", g.weight("embeddings.word_embeddings.weight"), "input_ids")
    types = g.op("Gather", g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids")
    # Positions 0..seq-1 from the input's own length: the dynamic sequence axis.
    length = g.op("Gather", g.op("Shape", "input_ids"), g.const(1, np.int64), axis=0)
    positions = g.op("Range", g.const(0, np.int64), length, g.const(1, np.int64))
    positions = g.op("Unsqueeze", positions, g.const([0], np.int64))
    position = g.op("Gather", g.weight("embeddings.position_embeddings.weight"), positions)
    summed = g.op("Add", g.op("Add", words, types), position)
    return g.layer_norm(summed, "embeddings.LayerNorm", eps)


def _additive_mask(g: _Graph) -> str:
    """(batch, 1, 1, seq): 0 where attended, float32 min where padded, added to the scores."""
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask = g.op("Unsqueeze", mask, g.const([1, 2], np.int64))
    return g.op("Mul", g.op("Sub", g.const(1.0), mask), g.const(np.finfo(np.float32).min))


def _attention(g: _Graph, x: str, mask: str, prefix: str, heads: int, dims: list[str]) -> str:
    """Multi-head self-attention, laid out as the eager `BertSelfAttention` exports."""
    head_dim = int(g.weights[f"{prefix}.self.query.weight"].shape[0]) // heads
    split = g.op("Concat", *dims, g.const([-1, head_dim], np.int64), axis=0)

    def projected(name: str, perm: list[int]) -> str:
        projection = g.linear(x, f"{prefix}.self.{name}")
        return g.op("Transpose", g.op("Reshape", projection, split), perm=perm)

    query = projected("query", [0, 2, 1, 3])  # (batch, heads, seq, head_dim)
    key_t = projected("key", [0, 2, 3, 1])  # (batch, heads, head_dim, seq): Kᵀ directly
    value = projected("value", [0, 2, 1, 3])
    # Multiply by head_dim ** -0.5 (not divide by sqrt): what transformers' eager path does.
    scores = g.op("Mul", g.op("MatMul", query, key_t), g.const(head_dim**-0.5))
    probs = g.op("Softmax", g.op("Add", scores, mask), axis=-1)
    context = g.op("Transpose", g.op("MatMul", probs, value), perm=[0, 2, 1, 3])
    merge = g.op("Concat", *dims, g.const([-1], np.int64), axis=0)
    return g.linear(g.op("Reshape", context, merge), f"{prefix}.output.dense")


def _batch_and_sequence(g: _Graph) -> list[str]:
    """[batch], [seq] as runtime tensors, for the reshapes.

    Runtime shapes, not a constant [0, 0, hidden]: the torch export computes them so, and
    ORT's int8 fusions depend on what shape inference can see. A constant lets ORT fuse
    the attention residual into SkipLayerNormalization too, which moves int8 vectors too
    far for the shipped vectors' check; this layout gives the very same int8 vectors.
    """
    shape = g.op("Shape", "input_ids")
    axis = g.const([0], np.int64)
    return [
        g.op("Unsqueeze", g.op("Gather", shape, g.const(i, np.int64), axis=0), axis) for i in (0, 1)
    ]


def _gelu(g: _Graph, x: str) -> str:
    """Exact GELU, x · (1 + erf(x / √2)) · 0.5, in the torch export's op order."""
    erf = g.op("Erf", g.op("Div", x, g.const(math.sqrt(2.0))))
    return g.op("Mul", g.op("Mul", x, g.op("Add", erf, g.const(1.0))), g.const(0.5))


def _layer(
    g: _Graph, x: str, mask: str, dims: list[str], index: int, config: dict[str, Any]
) -> str:
    prefix, eps = f"encoder.layer.{index}", float(config["layer_norm_eps"])
    heads = int(config["num_attention_heads"])
    attended = _attention(g, x, mask, f"{prefix}.attention", heads, dims)
    x = g.layer_norm(g.op("Add", attended, x), f"{prefix}.attention.output.LayerNorm", eps)
    inner = _gelu(g, g.linear(x, f"{prefix}.intermediate.dense"))
    out = g.linear(inner, f"{prefix}.output.dense")
    return g.layer_norm(g.op("Add", out, x), f"{prefix}.output.LayerNorm", eps)


def bert_model(weights: dict[str, np.ndarray], config: dict[str, Any]) -> onnx.ModelProto:
    """The ONNX model of `BertModel(...).last_hidden_state` for these weights and config."""
    check_config(config)
    # Checkpoints saved from BertForX carry a "bert." prefix; BertModel's own do not.
    g = _Graph({name.removeprefix("bert."): array for name, array in weights.items()})
    eps = float(config["layer_norm_eps"])
    x = _embeddings(g, eps)
    mask, dims = _additive_mask(g), _batch_and_sequence(g)
    for index in range(int(config["num_hidden_layers"])):
        x = _layer(g, x, mask, dims, index, config)
    g.nodes.append(helper.make_node("Identity", [x], [OUTPUT]))
    axes: list[str | int] = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, axes) for n in INPUTS]
    output = helper.make_tensor_value_info(
        OUTPUT, TensorProto.FLOAT, [*axes, config["hidden_size"]]
    )
    graph = helper.make_graph(g.nodes, "bert", inputs, [output], g.initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="rag.onnx_graph"
    )
    model.ir_version = IR_VERSION
    return model


def write_bert_onnx(model_dir: Path, target: Path) -> Path:
    """Read `model.safetensors` + `config.json` from model_dir; write the fp32 graph to target."""
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    model = bert_model(load_file(str(model_dir / "model.safetensors")), config)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
    return target
