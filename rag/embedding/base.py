"""What the rest of the pipeline asks of any embedding model beyond llama-index's interface."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.callbacks import CallbackManager

from rag.corpus.chunking import TokenCounter, approximate_token_counts


def token_counter(embed_model: BaseEmbedding) -> TokenCounter:
    """The model's own word-piece counter (chunking must see what would be cut), or an
    approximation for models that keep their tokenizer to themselves (OpenAI)."""
    counter = getattr(embed_model, "count_tokens", None)
    return counter if callable(counter) else approximate_token_counts


@contextmanager
def bulk_embedding(embed_model: BaseEmbedding) -> Iterator[None]:
    """A bulk of embedding calls (an ingest): a model that can (the ONNX runtime) embeds large
    inputs in a worker process meanwhile; others, and a model behind the cache, as before."""
    model = getattr(embed_model, "inner", embed_model)
    bulk = getattr(model, "bulk", None)
    if not callable(bulk):
        yield
        return
    with bulk():
        yield


def embed_dimension(embed_model: BaseEmbedding) -> int:
    dimension = getattr(embed_model, "dimension", None)
    if isinstance(dimension, int):
        return dimension
    return len(embed_model.get_query_embedding("dimension probe"))


class UntracedCallbacks(CallbackManager):
    """llama-index's callback manager without its trace map when no handler would read it.

    Every embedding call files an event id under its parent trace, and the map is cleared
    only when a trace starts at the top: the process-wide model is called inside other
    objects' traces, or outside any (a question's own embedding), so its map grew by an
    entry per question for the life of the process."""

    def on_event_start(self, *args: Any, **kwargs: Any) -> str:
        event_id = super().on_event_start(*args, **kwargs)
        if not self.handlers:  # only handlers read the map (at a trace's end)
            self._trace_map.clear()
        return event_id
