"""How papers and chunks are written into Chroma's records, and read back.

A chunk is a llama-index `TextNode` whose embedded text is `title\\ntext` and whose
metadata cites its paper; a paper record keeps everything else (authors as JSON, the
extra source fields, its content hash and chunk count) beside the abstract.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag.types import Paper

if TYPE_CHECKING:  # imported when a node is made: reading records needs no llama-index
    from llama_index.core.schema import TextNode


@dataclass(frozen=True)
class ChunkRecord:
    """What the integrity check of ingest needs to know about one stored chunk."""

    id: str
    paper_id: str
    paper_hash: str


def chunk_node(
    chunk_id: str, text: str, paper: Paper, index: int, n_chunks: int, paper_hash: str
) -> TextNode:
    """A llama-index node whose embedded text is `title\\ntext` and whose metadata cites."""
    metadata = {
        "paper_id": paper.id,
        "title": paper.title,
        "authors": "; ".join(paper.authors),
        "url": paper.url,
        "status": paper.status,
        "chunk_index": index,
        "n_chunks": n_chunks,
        "paper_hash": paper_hash,
    }
    return _node(chunk_id, text, metadata)


def _node(chunk_id: str, text: str, metadata: dict[str, Any]) -> TextNode:
    from llama_index.core.schema import TextNode

    hidden = [k for k in metadata if k != "title"]
    return TextNode(
        id_=chunk_id,
        text=text,
        metadata=metadata,
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=hidden,
        metadata_template="{value}",
        text_template="{metadata_str}\n{content}",
    )


def node_from_record(chunk_id: str, text: str, meta: dict[str, Any]) -> TextNode:
    """A stored chunk back as the node it was written from (for the BM25 index): the
    metadata `chunk_node` wrote, without building a Paper for it (a validation per hit)."""
    metadata = {
        "paper_id": str(meta["paper_id"]),
        "title": str(meta.get("title", "")),
        "authors": "; ".join(a for a in str(meta.get("authors", "")).split("; ") if a),
        "url": str(meta.get("url", "")),
        "status": str(meta.get("status", "")),
        "chunk_index": int(meta.get("chunk_index", 0)),
        "n_chunks": int(meta.get("n_chunks", 1)),
        "paper_hash": str(meta.get("paper_hash", "")),
    }
    return _node(chunk_id, text, metadata)


def chunk_record(chunk_id: str, meta: dict[str, Any]) -> ChunkRecord:
    return ChunkRecord(chunk_id, str(meta.get("paper_id", "")), str(meta.get("paper_hash", "")))


def paper_metadata(paper: Paper, n_chunks: int) -> dict[str, Any]:
    """A paper record's metadata: Chroma keeps scalars only, so lists go in as JSON."""
    return {
        "title": paper.title,
        "authors": json.dumps(paper.authors, ensure_ascii=False),
        "url": paper.url,
        "status": paper.status,
        "hash": paper.content_hash(),
        "n_chunks": n_chunks,
        "extra": json.dumps(paper.extra, ensure_ascii=False, default=str),
    }


def paper_from_record(paper_id: str, abstract: str, meta: dict[str, Any]) -> Paper:
    return Paper(
        id=paper_id,
        title=str(meta.get("title", "")),
        authors=json.loads(str(meta.get("authors") or "[]")),
        abstract=abstract,
        url=str(meta.get("url", "")),
        status=str(meta.get("status", "")),
        extra=json.loads(str(meta.get("extra") or "{}")),
    )
