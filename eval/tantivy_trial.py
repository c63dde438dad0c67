"""The lexical engine trial: the store's own BM25 index beside a tantivy index of the same
chunks, measured side by side in one run.

    python -m eval.tantivy_trial --store var [--scale 100] [--out bench/tantivy_trial.json]

Both index every chunk's text as the store's lexical index holds it. Measured: build time
and disk (tantivy: one writer, one commit; ours: the file `rag ingest` keeps, whose build
is part of ingest), open time, search latency p50/p95 over the dev and hard_dev questions
(k = the candidate chunks hybrid asks for), and retrieval quality: papers ranked by their
best chunk, alone and fused with the same dense ranking at the dense weight refitted for
each engine on dev (a grid of 0.05). tantivy's own English analyzer (stemming, no
stopwords) and its BM25 (k1 1.2, b 0.75) are used as they come. With --scale N, both
engines are also built over N copies of every chunk (copy 0 as it is; the others with
their sentences shuffled and 15 % of their words swapped for words of other chunks, under
new ids) and timed on the same questions: build, disk, open and search.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from eval.bench.samples import summarise

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "eval" / "datasets"
WEIGHTS = [round(0.05 * i, 2) for i in range(21)]


def _questions(name: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (DATASETS / name).read_text().splitlines() if x.strip()]
    return [r for r in rows if r.get("answerable") and r.get("gold_ids")]


def _disk(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _papers(hits: list[tuple[str, float]], owner: dict[str, str]) -> dict[str, tuple[float, int]]:
    """Chunk hits (best first) to paper -> (best chunk score, paper rank)."""
    ranking: dict[str, tuple[float, int]] = {}
    for chunk_id, score in hits:
        pid = owner.get(chunk_id, "")
        if pid and pid not in ranking:
            ranking[pid] = (score, len(ranking) + 1)
    return ranking


def _quality(rankings: list[list[str]], gold: list[set[str]]) -> dict[str, float]:
    r1 = statistics.mean(
        1.0 if r[:1] and r[0] in g else 0.0 for r, g in zip(rankings, gold, strict=True)
    )
    mrr = statistics.mean(
        next((1.0 / (i + 1) for i, pid in enumerate(r[:10]) if pid in g), 0.0)
        for r, g in zip(rankings, gold, strict=True)
    )
    return {"R@1": round(r1, 3), "MRR@10": round(mrr, 3)}


def synthetic(chunks: dict[str, str], copies: int, seed: int = 7) -> dict[str, str]:
    """Every chunk `copies` times: the real one, then altered copies under new ids."""
    import random

    rng = random.Random(seed)
    vocabulary = [w for text in chunks.values() for w in text.split()]
    out = dict(chunks)
    for c in range(1, copies):
        for chunk_id, text in chunks.items():
            sentences = re.split(r"(?<=[.!?])\s+", text)
            rng.shuffle(sentences)
            words = " ".join(sentences).split()
            for i in range(len(words)):
                if rng.random() < 0.15:
                    words[i] = rng.choice(vocabulary)
            out[f"{chunk_id}~{c}"] = " ".join(words)
    return out


def ours_built(folder: Path, chunks: dict[str, str], owner: dict[str, str]) -> Any:
    """The store's lexical index over `chunks`, written as sync writes it: paper by paper
    in batches (each a segment), merged as it goes."""
    from rag.lexical.index import LexicalIndex

    by_paper: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for chunk_id, text in chunks.items():
        base, _, copy = chunk_id.partition("~")
        pid = owner[base] + (f"~{copy}" if copy else "")
        by_paper.setdefault(pid, []).append((chunk_id, text, {"paper_id": pid}))
    index = LexicalIndex(folder)
    papers = list(by_paper.items())
    for start in range(0, len(papers), 2_610):
        batch = [(pid, "h", rows) for pid, rows in papers[start : start + 2_610]]
        index.replace_papers([], batch)
    return index


class Tantivy:
    def __init__(self, folder: Path, chunks: dict[str, str]) -> None:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("chunk", stored=True, tokenizer_name="raw")
        builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
        schema = builder.build()
        started = time.perf_counter()
        folder.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(schema, path=str(folder))
        writer = index.writer(heap_size=128_000_000, num_threads=1)
        for chunk_id, text in chunks.items():
            writer.add_document(tantivy.Document(chunk=chunk_id, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self.build_s = time.perf_counter() - started
        started = time.perf_counter()
        self.index = tantivy.Index.open(str(folder))
        self.index.reload()
        self.searcher = self.index.searcher()
        self.open_ms = (time.perf_counter() - started) * 1000

    def search(self, question: str, k: int) -> list[tuple[str, float]]:
        words = re.findall(r"\w+", question)
        if not words:
            return []
        query = self.index.parse_query(" ".join(words), ["text"])
        found = self.searcher.search(query, k).hits
        return [(self.searcher.doc(addr)["chunk"][0], float(score)) for score, addr in found]


def at_scale(
    chunks: dict[str, str], owner: dict[str, str], copies: int, asked: list[str], k: int
) -> dict[str, Any]:
    """Both engines over `copies` times the chunks, side by side on the same questions."""
    work = Path(tempfile.mkdtemp(prefix="lexical-scale-"))
    try:
        many = synthetic(chunks, copies)
        started = time.perf_counter()
        ours = ours_built(work / "ours", many, owner)
        ours_build = time.perf_counter() - started
        ours.close()
        started = time.perf_counter()
        from rag.lexical.index import LexicalIndex

        ours = LexicalIndex(work / "ours")
        ours_open = (time.perf_counter() - started) * 1000
        theirs = Tantivy(work / "tantivy", many)
        for q in asked[:20]:
            ours.search(q, k)
            theirs.search(q, k)
        times: dict[str, list[float]] = {"ours": [], "tantivy": []}
        for i, question in enumerate(asked):
            order = [
                ("ours", lambda q: ours.search(q, k)),
                ("tantivy", lambda q: theirs.search(q, k)),
            ]
            for name, search in order if i % 2 == 0 else order[::-1]:
                t0 = time.perf_counter()
                search(question)
                times[name].append((time.perf_counter() - t0) * 1000)
        ours.close()
        return {
            "copies": copies,
            "chunks": len(many),
            "latency_ms": {name: summarise(samples) for name, samples in times.items()},
            "build_s": {"ours": round(ours_build, 3), "tantivy": round(theirs.build_s, 3)},
            "open_ms": {"ours": round(ours_open, 1), "tantivy": round(theirs.open_ms, 1)},
            "disk_bytes": {"ours": _disk(work / "ours"), "tantivy": _disk(work / "tantivy")},
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(store: Path, out: Path, scale: int = 0) -> dict[str, Any]:
    from eval.run import build_settings
    from rag.lexical.index import open_index
    from rag.retrieval.fusion import fuse_rankings
    from rag.store.chroma import PaperStore

    settings = build_settings(data_dir=store, backend="extractive", warm_evidence=False)
    paper_store = PaperStore(settings)
    owner = {c.id: c.paper_id for c in paper_store.chunk_records()}
    started = time.perf_counter()
    ours = open_index(settings)
    ours_open_ms = (time.perf_counter() - started) * 1000
    rows = ours.chunk_rows(sorted(owner))
    chunks = {cid: text for cid, (text, _meta) in rows.items()}
    k = settings.candidate_chunks
    work = Path(tempfile.mkdtemp(prefix="tantivy-trial-"))
    try:
        theirs = Tantivy(work, chunks)
        questions = {name: _questions(name) for name in ("dev.jsonl", "hard_dev.jsonl")}
        asked = [q["question"] for qs in questions.values() for q in qs]
        for q in asked[:10]:  # warm both: first reads pay for page faults
            ours.search(q, k)
            theirs.search(q, k)
        times: dict[str, list[float]] = {"ours": [], "tantivy": []}
        hits: dict[str, dict[str, list[tuple[str, float]]]] = {"ours": {}, "tantivy": {}}
        for i, question in enumerate(asked):
            order: list[tuple[str, Any]] = [("ours", ours), ("tantivy", theirs)]
            for name, engine in order if i % 2 == 0 else order[::-1]:
                t0 = time.perf_counter()
                if name == "ours":
                    found = [(h.chunk_id, h.score) for h in engine.search(question, k)]
                else:
                    found = engine.search(question, k)
                times[name].append((time.perf_counter() - t0) * 1000)
                hits[name][question] = found
        dense = _dense_rankings(settings, paper_store, asked, k)
        quality: dict[str, Any] = {}
        for engine in ("ours", "tantivy"):
            per_set: dict[str, Any] = {}
            for set_name, qs in questions.items():
                gold = [set(q["gold_ids"]) for q in qs]
                lexical = [_papers(hits[engine][q["question"]], owner) for q in qs]
                alone = [sorted(r, key=lambda p: r[p][1]) for r in lexical]

                def fused(
                    weight: float,
                    qs: list[dict[str, Any]] = qs,
                    lexical: list[dict[str, tuple[float, int]]] = lexical,
                ) -> list[list[str]]:
                    out = []
                    for q, lex in zip(qs, lexical, strict=True):
                        scores = fuse_rankings(
                            {"dense": dense[q["question"]], "bm25": lex}, "zscore", weight
                        )
                        out.append(sorted(scores, key=lambda p: -scores[p]))
                    return out

                sweep = {w: _quality(fused(w), gold) for w in WEIGHTS}
                per_set[set_name] = {
                    "bm25_alone": _quality(alone, gold),
                    "hybrid_at_0.4": sweep[0.4],
                    "sweep": {str(w): v for w, v in sweep.items()},
                }
            dev_sweep = per_set["dev.jsonl"]["sweep"]
            best = max(WEIGHTS, key=lambda w: (dev_sweep[str(w)]["MRR@10"], -abs(w - 0.4)))
            per_set["refitted_weight"] = best
            per_set["hard_dev_at_refitted"] = per_set["hard_dev.jsonl"]["sweep"][str(best)]
            quality[engine] = per_set
        ours_dir = store / "lexical"
        result = {
            "store": str(store),
            "chunks": len(chunks),
            "k": k,
            "questions": len(asked),
            "latency_ms": {name: summarise(samples) for name, samples in times.items()},
            "open_ms": {"ours": round(ours_open_ms, 1), "tantivy": round(theirs.open_ms, 1)},
            "build_s": {"tantivy": round(theirs.build_s, 2)},
            "disk_bytes": {
                "ours": _disk(ours_dir) if ours_dir.exists() else None,
                "tantivy": _disk(work),
            },
            "quality": quality,
        }
        if scale > 1:
            result["scale"] = at_scale(chunks, owner, scale, asked, k)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        ours.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def _dense_rankings(
    settings: Any, store: Any, questions: list[str], k: int
) -> dict[str, dict[str, tuple[float, int]]]:
    """Each question's dense paper ranking (best chunk's cosine, rank), as hybrid sees it."""
    from rag.assistant import Assistant

    assistant = Assistant.from_settings(settings, store)
    out = {}
    for question in questions:
        papers = assistant.retrieve(question, top_k=50, mode="dense")
        out[question] = {
            p.paper.id: (float(p.dense_score or p.score), i + 1) for i, p in enumerate(papers)
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, default=ROOT / "var")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "tantivy_trial.json")
    parser.add_argument("--scale", type=int, default=0, help="also N copies of every chunk")
    args = parser.parse_args()
    result = run(args.store, args.out, args.scale)
    print(json.dumps({k: v for k, v in result.items() if k != "quality"}, indent=1))
    for engine, per in result["quality"].items():
        print(
            engine,
            "dev bm25 alone",
            per["dev.jsonl"]["bm25_alone"],
            "hybrid@0.4",
            per["dev.jsonl"]["hybrid_at_0.4"],
            "refitted",
            per["refitted_weight"],
            per["dev.jsonl"]["sweep"][str(per["refitted_weight"])],
            "hard_dev",
            per["hard_dev_at_refitted"],
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
