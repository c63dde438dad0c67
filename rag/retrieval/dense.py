"""The dense side's view of the chunk collection: Chroma finds the nearest chunks, the
lexical index's rows say what they are.

Why: asked for documents and metadatas with its hits, Chroma reads them back from its own
SQLite per record, which would be most of a dense search. The store's lexical index holds
every synced chunk's text and the metadata it was written with, by chunk id, read in one
query. A hit it does not hold yet (a paper another process is writing, not committed, so
not synced) is read from Chroma. While another process rewrites a
paper, its chunks keep their ids: until that ingest commits and this process reloads, a
hit pairs the new vector's distance with the text the index holds, the version of the
paper the catalogue (and so the citation) still shows; chunks the new version adds beyond
the old count are read from Chroma, so one paper's hits may mix both versions until then.
A `--rebuild` resets the index.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from llama_index.core.schema import BaseNode
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
    VectorStoreQueryResult,
)
from llama_index.core.vector_stores.utils import metadata_dict_to_node
from llama_index.vector_stores.chroma import ChromaVectorStore
from pydantic import PrivateAttr

from rag.store.nodes import node_from_record

# chunk ids -> {chunk id: (text, metadata as written)} for those the reader holds
ChunkRows = Callable[[list[str]], dict[str, tuple[str, dict[str, Any]]]]


class DenseView(ChromaVectorStore):
    """ChromaVectorStore whose queries take ids and distances from Chroma and each hit's
    text and metadata from `rows` (Chroma's own copy for the hits `rows` lacks)."""

    _rows: ChunkRows | None = PrivateAttr(default=None)

    def __init__(self, collection: Any, rows: ChunkRows | None) -> None:
        super().__init__(chroma_collection=collection)
        self._rows = rows

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        # The public hook (VectorStoreIndex's retriever calls it); only similarity queries
        # with our own filters come here, and another kind goes to Chroma's view unchanged.
        plain = query.mode == VectorStoreQueryMode.DEFAULT and query.query_embedding
        if self._rows is None or not plain or kwargs:
            return super().query(query, **kwargs)
        found = self.client.query(
            query_embeddings=[query.query_embedding],
            n_results=query.similarity_top_k,
            where=chroma_where(query.filters),
            include=["distances"],
        )
        ids: list[str] = list(found["ids"][0])
        distances = dict(zip(ids, found["distances"][0], strict=True))
        nodes = self._nodes(ids)
        kept = [i for i in ids if i in nodes]  # a chunk deleted since the query: left out
        return VectorStoreQueryResult(
            nodes=[nodes[i] for i in kept],
            # what ChromaVectorStore reports: exp(-distance)
            similarities=[math.exp(-distances[i]) for i in kept],
            ids=kept,
        )

    def _nodes(self, ids: list[str]) -> dict[str, BaseNode]:
        assert self._rows is not None
        rows = self._rows(ids)
        nodes: dict[str, BaseNode] = {
            cid: node_from_record(cid, text, meta) for cid, (text, meta) in rows.items()
        }
        missing = [i for i in ids if i not in rows]
        if missing:
            got = self.client.get(ids=missing, include=["documents", "metadatas"])
            for cid, text, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
                nodes[cid] = metadata_dict_to_node(dict(meta), text=text)
        return nodes


_OPERATORS = {FilterOperator.EQ: "$eq", FilterOperator.IN: "$in"}


def chroma_where(filters: MetadataFilters | None) -> dict[str, Any] | None:
    """The Chroma `where` of the filters the dense retriever builds (equality and `in`,
    joined by AND), from llama-index's public filter types."""
    if filters is None or not filters.filters:
        return None
    if filters.condition not in (None, FilterCondition.AND):
        raise ValueError(f"dense filters: only AND is used, not {filters.condition}")
    parts = []
    for item in filters.filters:
        if not isinstance(item, MetadataFilter) or item.operator not in _OPERATORS:
            raise ValueError(f"dense filters: unsupported condition {item!r}")
        parts.append({item.key: {_OPERATORS[item.operator]: item.value}})
    return parts[0] if len(parts) == 1 else {"$and": parts}
