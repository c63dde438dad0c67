"""Embed a corpus's chunks once and write `<corpus>.vectors.npz` beside it (rag.embedding.shipped).

Run it again whenever the bundled corpus, the chunking or the embedding model changes
(tests/unit/test_shipped_vectors.py fails while the file is stale):

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/ship_vectors.py [data/icml2024.jsonl ...]

Default settings, not .env: the file must match what a newcomer's `make run` embeds.
The ONNX runtime embeds each text alone, so a chunk's vector is the one ingest computes
however the chunks are grouped; they go in ingest's own windows all the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from rag.corpus.records import load_corpus
from rag.embedding.factory import build_embed_model
from rag.embedding.shipped import build_shipped, header_for, vectors_path
from rag.ingestion import _nodes_for, embed_windows, embedded_texts
from rag.settings import BUNDLED_CORPUS, Settings


def ship(corpus: Path, settings: Settings) -> Path:
    loaded = load_corpus([corpus], strict=True)
    model = build_embed_model(settings)
    texts: list[str] = []
    vectors: list[list[float]] = []
    started = time.perf_counter()
    for window in embed_windows(loaded.papers):
        batches = [_nodes_for(papers, settings, model) for papers in window]
        part = embedded_texts([n for batch in batches for _, nodes in batch for n in nodes])
        texts += part
        vectors += model.get_text_embedding_batch(part)
        print(f"\r{len(texts):,} chunks, {time.perf_counter() - started:.0f} s", end="")
    shipped = build_shipped(
        texts, np.asarray(vectors, dtype=np.float32), header_for(settings), model.get_text_embedding
    )
    target = vectors_path(corpus)
    shipped.save(target)
    print(
        f"\n{target}: {len(shipped.keys):,} vectors × {shipped.vectors.shape[1]} "
        f"({target.stat().st_size / 1e6:.1f} MB)"
    )
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="*", type=Path, default=[BUNDLED_CORPUS])
    args = parser.parse_args()
    # The vectors must come from the model itself, never from this machine's cache.
    settings = Settings(_env_file=None, embed_cache=False)  # type: ignore[call-arg]
    for corpus in args.corpus:
        if not corpus.exists():
            print(f"ship_vectors: {corpus} does not exist", file=sys.stderr)
            return 2
        ship(corpus, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
