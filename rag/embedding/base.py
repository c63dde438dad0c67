"""What the rest of the pipeline asks of any embedding model beyond llama-index's interface."""

from __future__ import annotations

from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.corpus.chunking import TokenCounter, approximate_token_counts


def token_counter(embed_model: BaseEmbedding) -> TokenCounter:
    """The model's own word-piece counter (chunking must see what would be cut), or an
    approximation for models that keep their tokenizer to themselves (OpenAI)."""
    counter = getattr(embed_model, "count_tokens", None)
    return counter if callable(counter) else approximate_token_counts


def embed_dimension(embed_model: BaseEmbedding) -> int:
    dimension = getattr(embed_model, "dimension", None)
    if isinstance(dimension, int):
        return dimension
    return len(embed_model.get_query_embedding("dimension probe"))
