"""Settings in, chat model out: OpenAI or any OpenAI-compatible server, via llama-index.

None means the offline extractive backend. Imports are lazy so the offline default never
needs them, and a missing extra fails with a message naming the package to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rag.errors import BackendError
from rag.settings import Settings

if TYPE_CHECKING:
    from llama_index.core.llms import LLM


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
