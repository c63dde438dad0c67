"""One definition of "the store is complete and consistent", shared by the store tests,
and of "it still answers" and "it was left untouched", shared by the fault tests."""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rag.corpus.chunking import TokenCounter, chunk_paper
from rag.settings import Settings
from rag.store.chroma import PaperStore
from rag.types import Answer, Paper


def settings_for(data_dir: Path, corpus: Path, **overrides: Any) -> Settings:
    """Like conftest.make_settings, but reading `corpus` (no .env, no RAG_* leaks)."""
    return Settings(_env_file=None, data_dir=data_dir, corpus_paths=[corpus], **overrides)


def tiny_corpus(source: Path, target: Path, n: int, skip: int = 0) -> Path:
    """The first `n` papers of a JSONL file (after `skip`), as a new JSONL file."""
    lines = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    target.write_text("\n".join(lines[skip : skip + n]) + "\n", encoding="utf-8")
    return target


def child_env(data_dir: Path, **settings: str) -> dict[str, str]:
    """Environment for a `rag` child process: this one's, minus RAG_*/OpenAI variables,
    plus the data directory and `settings` as RAG_<NAME> variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    env.update(RAG_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.update({f"RAG_{name.upper()}": value for name, value in settings.items()})
    return env


def papers_not_in(source: Path, exclude: Path, target: Path, n: int) -> Path:
    """`n` papers of `source` (JSONL) whose ids are not in `exclude`, as a new JSONL file."""
    known = {json.loads(line)["id"] for line in exclude.read_text("utf-8").splitlines() if line}
    picked: list[str] = []
    with source.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip() and json.loads(line)["id"] not in known:
                picked.append(line.rstrip("\n"))
                if len(picked) == n:
                    break
    target.write_text("\n".join(picked) + "\n", encoding="utf-8")
    return target


StoreState = tuple[int, int, str, tuple[str, int] | None]


def store_state(store: PaperStore) -> StoreState:
    """What "untouched" compares: paper and chunk counts, the fingerprint of every complete
    paper (ids, content hashes, chunk counts) and the recorded embedding model."""
    papers, chunks = store.counts()
    return papers, chunks, store.fingerprint(), store.recorded_model()


def assert_answers(assistant: Any, question: str, paper_id: str) -> Answer:
    """The assistant answers `question` citing `paper_id`, and every [n] names a source."""
    answer: Answer = assistant.ask(question)
    cited = {c.paper_id for c in answer.citations}
    assert not answer.abstained and paper_id in cited, (answer.answer[:300], cited)
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
    assert numbers and numbers <= {c.n for c in answer.citations}, answer.answer[:300]
    return answer


def chunk_ids_by_paper(store: PaperStore) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for record in store.chunk_records():
        out[record.paper_id].append(record.id)
    return {pid: sorted(ids) for pid, ids in out.items()}


def assert_consistent(
    store: PaperStore,
    papers: Iterable[Paper],
    settings: Settings,
    count_tokens: TokenCounter | None = None,
    dim: int = 384,
) -> None:
    """Every expected paper once, with exactly its current chunks; nothing else.

    With `count_tokens`, each stored chunk text must also equal a fresh chunking of the
    paper, and every chunk's vector must be findable by a nearest-neighbour query.
    """
    expected = {p.id: p for p in papers}
    records = store.paper_hashes()
    assert set(records) == set(expected), (
        f"missing {sorted(set(expected) - set(records))[:5]}, "
        f"unexpected {sorted(set(records) - set(expected))[:5]}"
    )
    assert store.papers.count() == len(expected)

    chunk_records = store.chunk_records()
    ids = [c.id for c in chunk_records]
    assert len(ids) == len(set(ids)), "duplicate chunk ids"
    by_paper = Counter(c.paper_id for c in chunk_records)
    for pid, paper in expected.items():
        phash, n = records[pid]
        assert phash == paper.content_hash(), f"{pid}: stale record"
        assert by_paper[pid] == n, f"{pid}: record says {n} chunks, store has {by_paper[pid]}"
    assert set(by_paper) == set(expected), "orphan chunks of unknown papers"
    for chunk in chunk_records:
        assert chunk.paper_hash == records[chunk.paper_id][0], f"{chunk.id}: stale chunk"
        assert chunk.id.startswith(f"{chunk.paper_id}::")
    grouped = chunk_ids_by_paper(store)
    for pid, (_, n) in records.items():
        assert grouped[pid] == sorted(f"{pid}::{i}" for i in range(n))
    assert store.chunks.count() == sum(n for _, n in records.values())
    assert store.recorded_model() == (settings.embedding_id(), dim)

    if count_tokens is not None:
        _assert_chunks_are_current(store, expected, settings, count_tokens)


def _assert_chunks_are_current(
    store: PaperStore, expected: dict[str, Paper], settings: Settings, count: TokenCounter
) -> None:
    got = store.chunks.get(include=["documents", "embeddings"])
    stored: dict[str, Any] = dict(zip(got["ids"], got["documents"], strict=True))
    for paper in expected.values():
        for chunk in chunk_paper(
            paper, settings.chunk_max_tokens, settings.chunk_overlap_sentences, count
        ):
            assert stored[chunk.id] == chunk.text, f"{chunk.id}: text differs"
    # The vector index agrees with the records: each vector finds its own chunk.
    sample = list(range(0, len(got["ids"]), max(1, len(got["ids"]) // 25)))
    hits = store.chunks.query(
        query_embeddings=[got["embeddings"][i] for i in sample], n_results=1, include=[]
    )
    assert [h[0] for h in hits["ids"]] == [got["ids"][i] for i in sample]
