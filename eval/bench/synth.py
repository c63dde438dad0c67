"""Synthetic stores at N× a real store's size, written through rag's own PaperStore.

Copy 0 is the real store (its chunks, vectors and paper records re-added as they are);
copy k ≥ 1 is every real paper again under a new id (`<id>~k`), with its sentences
shuffled and a share of its words swapped for words of other chunks, and every chunk
vector perturbed by Gaussian noise and renormalised. Nothing is embedded, so 100× the
corpus costs store writes only; the per-paper grouping, the paper catalogue and BM25
see N× distinct papers and chunks.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
SOURCE_VECTORS = "vectors.npy"
SOURCE_RECORDS = "records.json"


def export_source(store: Any, target: Path) -> dict[str, Any]:
    """Every chunk (vector, text, metadata) and paper record of a rag PaperStore, to files."""
    target.mkdir(parents=True, exist_ok=True)
    ids: list[str] = []
    documents: list[str] = []
    metadatas: list[dict[str, Any]] = []
    vectors: list[Any] = []
    offset = 0
    while True:
        page = store.chunks.get(
            limit=2_000, offset=offset, include=["embeddings", "documents", "metadatas"]
        )
        if not page["ids"]:
            break
        ids += page["ids"]
        documents += [d or "" for d in page["documents"]]
        metadatas += [
            {k: m[k] for k in ("paper_id", "chunk_index", "n_chunks")} for m in page["metadatas"]
        ]
        vectors.append(np.asarray(page["embeddings"], dtype=np.float32))
        offset += len(page["ids"])
    recorded = store.recorded_model()
    if not ids or recorded is None:
        raise ValueError(f"{store.settings.store_location()}: no chunks or no recorded model")
    papers = store.load_papers()
    np.save(target / SOURCE_VECTORS, np.concatenate(vectors))
    records = {
        "ids": ids,
        "documents": documents,
        "metadatas": metadatas,
        "papers": [p.model_dump() for p in papers.values()],
        "recorded_model": list(recorded),
    }
    (target / SOURCE_RECORDS).write_text(json.dumps(records, ensure_ascii=False))
    return {"chunks": len(ids), "papers": len(papers), "embedding": recorded[0]}


class Varier:
    """Deterministic text and vector variations of one source, copy by copy."""

    def __init__(self, documents: list[str], seed: int, swap_rate: float, sigma: float) -> None:
        self.pool = [w for d in documents for w in d.split()]
        self.rng = np.random.default_rng(seed)
        self.swap_rate = swap_rate
        self.sigma = sigma

    def text(self, text: str) -> str:
        sentences = SENTENCE_BREAK.split(text.strip())
        if len(sentences) > 1:
            sentences = [sentences[i] for i in self.rng.permutation(len(sentences))]
        words = " ".join(sentences).split()
        if not words:
            return text
        swaps = max(1, int(len(words) * self.swap_rate))
        for at, pick in zip(
            self.rng.integers(0, len(words), swaps),
            self.rng.integers(0, len(self.pool), swaps),
            strict=True,
        ):
            words[at] = self.pool[pick]
        return " ".join(words)

    def vectors(self, vectors: np.ndarray) -> np.ndarray:
        noisy = vectors + self.rng.normal(0.0, self.sigma, vectors.shape).astype(np.float32)
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def _copy(
    k: int,
    papers: dict[str, Any],
    by_paper: dict[str, list[int]],
    records: dict[str, Any],
    vectors: np.ndarray,
    varier: Varier,
) -> tuple[list[Any], list[tuple[Any, int]], float]:
    """Nodes and paper records of copy k; and the mean cosine of its vectors to the real ones."""
    from rag.store.nodes import chunk_node

    new_vectors = vectors if k == 0 else varier.vectors(vectors)
    cosine = float(np.mean(np.sum(new_vectors * vectors, axis=1)))
    nodes, paper_rows = [], []
    for pid, rows in by_paper.items():
        real = papers[pid]
        paper = (
            real
            if k == 0
            else real.model_copy(
                update={
                    "id": f"{pid}~{k}",
                    "title": varier.text(real.title),
                    "abstract": varier.text(real.abstract),
                }
            )
        )
        phash = paper.content_hash()
        for row in rows:
            meta = records["metadatas"][row]
            text = records["documents"][row]
            node = chunk_node(
                records["ids"][row] if k == 0 else f"{paper.id}::{meta['chunk_index']}",
                text if k == 0 else varier.text(text),
                paper,
                int(meta["chunk_index"]),
                len(rows),
                phash,
            )
            node.embedding = new_vectors[row].tolist()
            nodes.append(node)
        paper_rows.append((paper, len(rows)))
    return nodes, paper_rows, cosine


def run_build(payload: dict[str, Any]) -> dict[str, Any]:
    """Child side: write `copies` copies of the source into the payload's store."""
    from eval.run import build_settings
    from rag import Paper, PaperStore

    source = Path(payload["source"])
    vectors = np.load(source / SOURCE_VECTORS)
    records = json.loads((source / SOURCE_RECORDS).read_text())
    papers = {p["id"]: Paper(**p) for p in records["papers"]}
    by_paper: dict[str, list[int]] = defaultdict(list)
    for row, meta in enumerate(records["metadatas"]):
        if meta["paper_id"] in papers:
            by_paper[meta["paper_id"]].append(row)
    varier = Varier(records["documents"], payload["seed"], payload["swap_rate"], payload["sigma"])
    store = PaperStore(build_settings(**payload["settings"]))
    if store.chunks.count():
        raise ValueError(f"{store.settings.store_location()} is not empty")
    name, dim = records["recorded_model"]
    store.record_model(name, int(dim))
    generate_s = write_s = 0.0
    cosines = []
    started = time.perf_counter()
    for k in range(payload["copies"]):
        t0 = time.perf_counter()
        nodes, paper_rows, cosine = _copy(k, papers, by_paper, records, vectors, varier)
        t1 = time.perf_counter()
        store.add_chunk_nodes(nodes)
        store.upsert_papers(paper_rows)
        t2 = time.perf_counter()
        generate_s += t1 - t0
        write_s += t2 - t1
        if k:
            cosines.append(cosine)
        if (k + 1) % 10 == 0:
            print(f"copy {k + 1}/{payload['copies']}: {t2 - started:.0f} s", flush=True)
    papers_n, chunks_n = store.counts()
    return {
        "copies": payload["copies"],
        "papers": papers_n,
        "chunks": chunks_n,
        "build_s": round(time.perf_counter() - started, 2),
        "generate_s": round(generate_s, 2),
        "write_s": round(write_s, 2),
        "mean_cosine_to_real": round(float(np.mean(cosines)), 4) if cosines else 1.0,
    }
