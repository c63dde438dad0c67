"""The ONNX graph written from the safetensors weights (rag.embedding.onnx_graph) computes
what transformers' BertModel computes, gives the same int8 vectors as the torch export it
replaces, and imports neither torch nor transformers."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rag.embedding.onnx_encoder import MAX_LENGTH
from rag.embedding.onnx_graph import write_bert_onnx
from rag.embedding.onnx_runtime import OnnxEmbedding, _quantize_int8
from tests.support.fresh import fresh_python

pytestmark = pytest.mark.slow
_ABSTRACT = (
    "We study in-context learning of linear regression by transformers and prove that a "
    "single linear attention layer implements one step of gradient descent on the "
    "least-squares loss, with a convergence rate that matches preconditioned descent. "
)
TEXTS = [
    "x",
    "A conservation law.",
    "Graph generation with transformers.",
    "Feedback alignment trains deep networks without symmetric weight transport.",
    "Diffusion models; score matching: Langevin dynamics?",
    "ICML 2024 — Vienna, Austria (naïve Bayes, café, Σ-algebra, 学习).",
    "What is the sample complexity of offline reinforcement learning with linear MDPs?",
    "Sparse mixture-of-experts layers route each token to k of E experts.",
    "Adam, AdamW, Lion, Sophia and Shampoo on GPT-2 small: a benchmark of optimisers.",
    "1234567890 3.14159 e^{iπ} + 1 = 0",
    _ABSTRACT,
    _ABSTRACT * 2,
    _ABSTRACT * 3,
    _ABSTRACT * 7,  # > MAX_LENGTH word pieces: truncated to 256
    "Privacy. " * 40,
    "Conformal prediction gives distribution-free coverage for any black-box predictor.",
    "Large language models as zero-shot planners for embodied agents.",
    "Equivariant neural networks for molecules and crystals under E(3) symmetry.",
    "a b c d e f g h i j k l m n o p",
    "Tokens:\n\tnew lines, tabs   and   runs of spaces.",
]


@pytest.fixture(scope="module")
def exports(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """fp32 + int8 of both paths, in a tmp dir (never the user's model cache)."""
    out = tmp_path_factory.mktemp("onnx")
    new = write_bert_onnx(model_dir, out / "new-fp32.onnx")
    old = _torch_export(model_dir, out / "old-fp32.onnx")
    return {
        "new-fp32": new,
        "new-int8": _quantize_int8(new, out / "new-int8.onnx"),
        "old-int8": _quantize_int8(old, out / "old-int8.onnx"),
    }


def _torch_export(model_dir: Path, fp32: Path) -> Path:
    """The export this module replaced (onnx_runtime._export_fp32 up to EXPORT v2), verbatim."""
    import torch
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

    class _Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = {
        "input_ids": torch.ones(2, 16, dtype=torch.long),
        "attention_mask": torch.ones(2, 16, dtype=torch.long),
        "token_type_ids": torch.zeros(2, 16, dtype=torch.long),
    }
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            _Wrapper().eval(),
            (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
            str(fp32),
            input_names=list(sample),
            output_names=["last_hidden_state"],
            dynamic_axes={**{k: axes for k in sample}, "last_hidden_state": axes},
            opset_version=17,
            dynamo=False,
        )
    return fp32


def _padded_batches(model_dir: Path) -> list[dict[str, np.ndarray]]:
    """Mixed lengths in every batch, so padding and its mask are exercised."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_LENGTH)
    tokenizer.no_padding()  # tokenizer.json pads to 128: the batches below pad themselves
    ids = [e.ids for e in tokenizer.encode_batch(TEXTS)]
    assert max(len(i) for i in ids) == MAX_LENGTH and min(len(i) for i in ids) == 3
    batches = []
    for start in range(0, len(ids), 5):
        rows = ids[start : start + 5]
        batch = np.zeros((len(rows), max(len(r) for r in rows)), dtype=np.int64)
        mask = np.zeros_like(batch)
        for row, piece in enumerate(rows):
            batch[row, : len(piece)], mask[row, : len(piece)] = piece, 1
        feeds = {"input_ids": batch, "attention_mask": mask, "token_type_ids": mask * 0}
        batches.append(feeds)
    batches[0]["token_type_ids"][0, 1:] = 1  # a second segment, so that table is checked too
    return batches


def test_fp32_graph_matches_transformers_bert(model_dir: Path, exports: dict[str, Path]) -> None:
    import onnxruntime as ort
    import torch
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    session = ort.InferenceSession(str(exports["new-fp32"]), providers=["CPUExecutionProvider"])
    worst = 0.0
    for feeds in _padded_batches(model_dir):
        ours = session.run(["last_hidden_state"], feeds)[0]
        with torch.no_grad():
            theirs = bert(**{k: torch.from_numpy(v) for k, v in feeds.items()})
        kept = feeds["attention_mask"].astype(bool)
        worst = max(worst, float(np.abs(ours - theirs.last_hidden_state.numpy())[kept].max()))
    print(f"max abs diff of last_hidden_state, new fp32 graph vs transformers: {worst:.3g}")
    assert worst < 1e-4


def test_int8_vectors_match_the_old_torch_export(model_dir: Path, exports: dict[str, Path]) -> None:
    new = OnnxEmbedding(model_dir, exports["new-int8"], embed_batch_size=8)
    old = OnnxEmbedding(model_dir, exports["old-int8"], embed_batch_size=8)
    batched = (new._encode(TEXTS) * old._encode(TEXTS)).sum(axis=1)
    # One text at a time too: how shipped.py re-embeds its sample to trust shipped vectors.
    alone = [float(new._encode([t])[0] @ old._encode([t])[0]) for t in TEXTS]
    print(f"min cosine new vs old int8: batched {batched.min():.8f}, alone {min(alone):.8f}")
    assert batched.min() >= 0.999 and min(alone) >= 0.999, (batched, alone)


def test_the_builder_imports_neither_torch_nor_transformers(
    model_dir: Path, tmp_path: Path
) -> None:
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from rag.embedding.onnx_graph import write_bert_onnx
        write_bert_onnx(Path({str(model_dir)!r}), Path({str(tmp_path / "m.onnx")!r}))
        loaded = sorted(m for m in ("torch", "transformers") if m in sys.modules)
        assert not loaded, loaded
    """)
    fresh_python(script, timeout=300)
    assert (tmp_path / "m.onnx").stat().st_size > 80e6  # the fp32 weights are all in it


def test_weights_saved_with_a_bert_prefix_give_the_same_graph(model_dir: Path) -> None:
    import json

    from safetensors.numpy import load_file

    from rag.embedding.onnx_graph import bert_model

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    weights = load_file(str(model_dir / "model.safetensors"))
    plain = bert_model(weights, config)
    prefixed = bert_model({f"bert.{k}": v for k, v in weights.items()}, config)
    assert plain.graph == prefixed.graph
    with pytest.raises(ValueError, match="hidden_act='relu'"):
        bert_model(weights, {**config, "hidden_act": "relu"})
