"""The store's lexical index (rag.lexical.index) against a fake store: bm25s' scores,
incremental add / replace / prune, merges, filters, and what a crash leaves behind."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from rag.lexical import index as lexical
from rag.lexical import reads as lexical_reads
from rag.lexical import tokens
from rag.lexical.index import LexicalIndex
from rag.types import Paper

TEXTS = {
    "A": ["graph transformers for molecules", "attention over graph edges"],
    "B": ["feedback alignment conserves a quantity", "random feedback weights"],
    "C": ["diffusion models generate molecules", "score matching and diffusion"],
}


class FakeChunks:
    def __init__(self, store: FakeStore) -> None:
        self.store = store

    def get(
        self, where: Any = None, limit: int | None = None, offset: int = 0, include: Any = None
    ) -> Any:
        rows = [
            (
                f"{pid}::{i}",
                text,
                {
                    "paper_id": pid,
                    "title": f"T{pid}",
                    "chunk_index": i,
                    "n_chunks": len(texts),
                    "paper_hash": self.store.hash(pid),
                },
            )
            for pid, texts in sorted(self.store.papers.items())
            for i, text in enumerate(texts)
        ]
        if where is not None:
            rows = [r for r in rows if r[2]["paper_id"] in where["paper_id"]["$in"]]
        rows = rows[offset : offset + limit if limit else None]
        return {
            "ids": [r[0] for r in rows],
            "documents": [r[1] for r in rows],
            "metadatas": [r[2] for r in rows],
        }


class FakeStore:
    def __init__(self, papers: dict[str, list[str]]) -> None:
        self.papers = dict(papers)
        self.gen = 1
        self.chunks = FakeChunks(self)

    def hash(self, pid: str) -> str:
        return str(abs(hash(tuple(self.papers[pid]))))

    def generation(self) -> tuple[str, int]:
        return "coll", self.gen

    def recorded_model(self) -> tuple[str, int]:
        return "m", 3

    def paper_hashes(self) -> dict[str, tuple[str, int]]:
        return {pid: (self.hash(pid), len(t)) for pid, t in self.papers.items()}

    def paper_records(self, pids: list[str]) -> dict[str, tuple[str, Paper]]:
        return {
            pid: (self.hash(pid), Paper(id=pid, title=f"T{pid}", abstract=" ".join(texts)))
            for pid, texts in self.papers.items()
            if pid in pids
        }


def ids(index: LexicalIndex, query: str, allowed: set[str] | None = None) -> list[str]:
    return [h.meta["paper_id"] for h in index.search(query, 10, allowed)]


def test_scores_are_bm25s_scores(tmp_path: Path) -> None:
    import bm25s

    index = LexicalIndex(tmp_path / "lex")
    index.sync(FakeStore(TEXTS))
    corpus = [f"T{pid}\n{t}" for pid, texts in sorted(TEXTS.items()) for t in texts]
    ref = bm25s.BM25()
    ref.index(
        bm25s.tokenize(corpus, stopwords="en", stemmer=tokens._stemmer, show_progress=False),
        show_progress=False,
    )
    query = "molecules diffusion graph"
    want = ref.get_scores(tokens.query_tokens(query))
    got = {h.chunk_id: h.score for h in index.search(query, 10)}
    names = [f"{pid}::{i}" for pid, texts in sorted(TEXTS.items()) for i in range(len(texts))]
    for name, score in zip(names, want, strict=True):
        assert got.get(name, 0.0) == pytest.approx(float(score), rel=1e-5)


def test_add_replace_prune_are_incremental(tmp_path: Path) -> None:
    store = FakeStore(TEXTS)
    index = LexicalIndex(tmp_path / "lex")
    assert index.sync(store).added == 3
    assert ids(index, "feedback alignment")[0] == "B"
    store.papers["D"] = ["spiking neural networks"]
    store.papers["B"] = ["protein folding"]
    del store.papers["C"]
    store.gen += 1
    report = index.sync(store)
    assert (report.added, report.removed) == (2, 1)  # D new, B replaced; C pruned
    assert ids(index, "feedback alignment") == []
    assert ids(index, "spiking") == ["D"]
    assert ids(index, "diffusion molecules") == ["A"]
    assert index.counts() == (3, 4)
    # The catalogue follows in the same commits: D new, B's record replaced, C gone.
    catalogue = LexicalIndex(tmp_path / "lex").papers()
    assert sorted(catalogue) == ["A", "B", "D"]
    assert catalogue["B"].abstract == "protein folding"
    assert index.synced_generation() == ("coll", 2)
    assert index.sync(store).skipped  # same generation: nothing read


def test_a_paper_rewritten_between_its_chunks_and_its_record_waits(tmp_path: Path) -> None:
    """Chunks read at one hash and a record at another: neither goes in until they agree."""
    store = FakeStore(TEXTS)
    real = store.paper_records
    store.paper_records = lambda pids: {  # type: ignore[method-assign]
        pid: ("other" if pid == "B" else h, paper) for pid, (h, paper) in real(pids).items()
    }
    index = LexicalIndex(tmp_path / "lex")
    index.sync(store)
    assert sorted(index.papers()) == ["A", "C"] and ids(index, "feedback alignment") == []


def test_an_index_of_an_older_layout_starts_afresh(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "lex")
    index.sync(FakeStore(TEXTS))
    with index._db:
        index._db.execute("update meta set value = '2' where key = 'schema'")
    index.close()
    reopened = LexicalIndex(tmp_path / "lex")
    assert reopened.counts() == (0, 0) and reopened.synced_generation() is None
    assert not list((tmp_path / "lex").glob("s*.npy"))
    reopened.sync(FakeStore(TEXTS))
    assert sorted(reopened.papers()) == ["A", "B", "C"]


def test_allowed_papers_limit_the_hits(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "lex")
    index.sync(FakeStore(TEXTS))
    assert set(ids(index, "molecules")) == {"A", "C"}
    assert set(ids(index, "molecules", {"C", "B"})) == {"C"}
    assert ids(index, "molecules", {"B"}) == []


def test_merges_keep_the_segment_count_small_and_drop_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexical, "MERGE_BASE_POSTINGS", 1)
    index = LexicalIndex(tmp_path / "lex")
    for n in range(40):
        index.replace_papers(
            [f"P{n - 1}"] if n % 3 == 0 and n else [],
            [(f"P{n}", "h", [(f"P{n}::0", f"word{n} shared", {"paper_id": f"P{n}"})])],
        )
    assert len(index._state.segments) < 12
    assert len(ids(index, "shared")) == 10
    assert ids(index, "word37") == ["P37"]
    assert ids(index, "word38") == []  # pruned when P39 came
    assert ids(index, "word2") == []  # pruned when P3 came


def test_a_sync_killed_half_way_is_resumed_and_orphans_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FakeStore({f"P{n}": [f"text {n} common"] for n in range(10)})
    monkeypatch.setattr(lexical_reads, "SYNC_BATCH", 3)
    monkeypatch.setattr(lexical_reads, "FULL_SCAN_SHARE", 2.0)  # read by id, 3 papers a batch
    index = LexicalIndex(tmp_path / "lex")
    real = index.replace_papers
    calls = []

    def dies_on_the_third(remove: Any, add: Any, records: Any = None) -> None:
        calls.append(1)
        if len(calls) == 3:
            (tmp_path / "lex" / "sdeadbeef.docs.npy").write_bytes(b"half")  # a write cut short
            raise KeyboardInterrupt
        real(remove, add, records)

    monkeypatch.setattr(index, "replace_papers", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        index.sync(store)
    started = time.perf_counter()
    reopened = LexicalIndex(tmp_path / "lex")
    assert time.perf_counter() - started < 1.0
    assert reopened.counts() == (6, 6)  # two whole batches, nothing half
    report = reopened.sync(store)  # the generation was never recorded: it resumes
    assert report.added == 4
    assert len(ids(reopened, "common")) == 10
    assert sorted(reopened.papers()) == sorted(store.papers)  # records came with the chunks
    assert not (tmp_path / "lex" / "sdeadbeef.docs.npy").exists()


def _counts(index: LexicalIndex, words: list[str]) -> dict[str, int]:
    count = index.paper_counter()
    return {w: count(w) for w in words}


def test_paper_word_counts_follow_add_replace_prune(tmp_path: Path) -> None:
    from rag.answer.term_stats import TermStats
    from rag.text import content_terms

    store = FakeStore(TEXTS)
    index = LexicalIndex(tmp_path / "lex")
    index.sync(store)
    words = content_terms("molecules diffusion feedback protein graph spiking")
    assert _counts(index, words) == {
        "molecul": 2, "diffus": 1, "feedback": 1, "protein": 0, "graph": 1, "spike": 0,
    }  # fmt: skip
    store.papers["B"] = ["protein folding"]
    store.papers["D"] = ["spiking graph molecules"]
    del store.papers["C"]
    store.gen += 1
    index.sync(store)
    want = TermStats.counted(index.papers())
    assert _counts(index, words) == {w: want.paper_count(w) for w in words}
    assert _counts(index, words)["molecul"] == 2 and _counts(index, words)["diffus"] == 0


def test_an_index_written_before_the_word_counts_fills_them_once(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "lex")
    index.sync(FakeStore(TEXTS))
    with index._db:
        index._db.execute("delete from paper_terms")
        index._db.execute("delete from meta where key = 'paper_terms'")
    index.close()
    assert _counts(LexicalIndex(tmp_path / "lex"), ["molecul", "feedback"]) == {
        "molecul": 2,
        "feedback": 1,
    }
