"""`python -m eval scitldr`: known-item retrieval on SciTLDR (a human TLDR → its paper).

The abstracts of all three splits (3,229 papers) are indexed, through rag's own ingest,
into a store of their own (default var/scitldr, collection "scitldr"), never the ICML
store. Queries are every TLDR of the chosen split; gold is the paper it summarises.
`dev` is for tuning; `test` is held out: run it to report, never to choose settings.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.baseline import BASELINE_NAME, BaselineRetriever
from eval.metrics import bootstrap_ci, dedupe, mean, mrr_at, recall_at
from eval.run import build_settings
from rag import Assistant, PaperStore, ingest

SPLITS = ("train", "dev", "test")
KEYS = ("recall@1", "recall@5", "recall@10", "mrr@10")
# FINDINGS.md (shared): the numbers to beat, same protocol.
FINDINGS = {
    "dev": {"dense": 0.912, "bm25": 0.930, "hybrid": 0.949},
    "test": {"dense": 0.877, "bm25": 0.885, "hybrid": 0.922},
}
HELD_OUT_NOTE = (
    "dev is for tuning; test is held out (report it, never tune on it or read its failures)"
)


def load_split(scitldr_dir: Path, split: str) -> list[dict[str, Any]]:
    path = scitldr_dir / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: SciTLDR split not found (see --scitldr-dir)")
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_corpus(scitldr_dir: Path, target: Path) -> int:
    """All splits' abstracts as a rag corpus JSONL (id = paper_id); returns the count."""
    papers: dict[str, dict[str, str]] = {}
    for split in SPLITS:
        for row in load_split(scitldr_dir, split):
            papers[row["paper_id"]] = {
                "id": row["paper_id"],
                "title": row.get("title") or "",
                "abstract": " ".join(row["source"]),
            }
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for paper in papers.values():
            handle.write(json.dumps(paper, ensure_ascii=False) + "\n")
    tmp.replace(target)
    return len(papers)


def known_item_queries(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(t.strip(), row["paper_id"]) for row in rows for t in row["target"] if t.strip()]


def build_assistant(
    scitldr_dir: Path, data_dir: Path, collection: str, embed_model: Any = None
) -> Assistant:
    """Write the corpus, ingest it (incrementally) into its own store, open an Assistant."""
    corpus = data_dir / "scitldr_corpus.jsonl"
    n = write_corpus(scitldr_dir, corpus)
    settings = build_settings(
        data_dir=data_dir, collection=collection, corpus_paths=[corpus], backend="extractive"
    )
    if embed_model is None:
        assistant = Assistant.from_settings(settings)
    else:
        assistant = Assistant(settings, PaperStore(settings), embed_model)
    bar: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="paper", desc="embedding", file=sys.stderr)
        bar["bar"].n = done
        bar["bar"].refresh()

    report = ingest(
        settings,
        [corpus],
        prune=True,
        embed_model=assistant.embed_model,
        store=assistant.store,
        progress=progress,
    )
    if "bar" in bar:
        bar["bar"].close()
    print(f"SciTLDR store ({n:,} papers): {report.summary()}", file=sys.stderr)
    assistant.reload()
    return assistant


def evaluate(
    assistant: Assistant, queries: list[tuple[str, str]], modes: list[str], baseline: bool
) -> dict[str, list[list[str]]]:
    """config -> the de-duplicated top-10 paper ids of each query."""
    base = (
        BaselineRetriever(assistant.store.vector_store, assistant.embed_model) if baseline else None
    )
    names = [*modes, *([BASELINE_NAME] if base else [])]
    ranked: dict[str, list[list[str]]] = {name: [] for name in names}
    for query, _ in tqdm(queries, unit="query", desc="retrieving", file=sys.stderr):
        for mode in modes:
            papers = assistant.retrieve(query, top_k=10, mode=mode)  # type: ignore[arg-type]
            ranked[mode].append([p.paper.id for p in papers])
        if base is not None:
            ranked[BASELINE_NAME].append(dedupe(base.retrieve(query)[0])[:10])
    return ranked


def score(ranked: list[list[str]], queries: list[tuple[str, str]]) -> dict[str, Any]:
    per_key: dict[str, list[float | None]] = {
        "recall@1": [recall_at(r, [g], 1) for r, (_, g) in zip(ranked, queries, strict=True)],
        "recall@5": [recall_at(r, [g], 5) for r, (_, g) in zip(ranked, queries, strict=True)],
        "recall@10": [recall_at(r, [g], 10) for r, (_, g) in zip(ranked, queries, strict=True)],
        "mrr@10": [mrr_at(r, [g], 10) for r, (_, g) in zip(ranked, queries, strict=True)],
    }
    groups = [g for _, g in queries]  # TLDRs of one paper are resampled together
    block: dict[str, Any] = {k: round(mean(v) or 0.0, 4) for k, v in per_key.items()}
    block["ci95"] = {
        k: [round(x, 4) for x in (bootstrap_ci(v, groups=groups) or [])] for k, v in per_key.items()
    }
    return block


def render(summary: dict[str, Any]) -> str:
    split = summary["split"]
    lines = [
        f"# SciTLDR known-item retrieval: {split}",
        "",
        f"{summary['n_queries']:,} TLDR queries over {summary['n_papers']:,} indexed papers. "
        f"{HELD_OUT_NOTE}. Intervals: 95% bootstrap resampling papers.",
        "",
        "| config | R@1 | R@5 | R@10 | MRR@10 | FINDINGS R@10 |",
        "|---|---|---|---|---|---|",
    ]
    for name, block in summary["configs"].items():
        ref = FINDINGS.get(split, {}).get(name)
        ci = block["ci95"]["recall@10"]
        lines.append(
            f"| {name} | {block['recall@1']:.3f} | {block['recall@5']:.3f} | "
            f"{block['recall@10']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}] | {block['mrr@10']:.3f} | "
            f"{'–' if ref is None else f'{ref:.3f}'} |"
        )
    return "\n".join(lines) + "\n"


def run_scitldr(
    *,
    scitldr_dir: Path,
    split: str,
    modes: list[str],
    out_dir: Path | None,
    data_dir: Path,
    collection: str = "scitldr",
    baseline: bool = True,
    assistant: Assistant | None = None,
) -> dict[str, Any]:
    rows = load_split(scitldr_dir, split)
    queries = known_item_queries(rows)
    assistant = assistant or build_assistant(scitldr_dir, data_dir, collection)
    ranked = evaluate(assistant, queries, modes, baseline)
    summary = {
        "split": split,
        "held_out": split == "test",
        "note": HELD_OUT_NOTE,
        "n_queries": len(queries),
        "n_papers": len(assistant.papers),
        "store": str(assistant.settings.store_location()),
        "collection": assistant.settings.collection,
        "findings_recall@10": FINDINGS.get(split, {}),
        "configs": {name: score(r, queries) for name, r in ranked.items()},
    }
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = out_dir or Path("eval/out") / f"scitldr-{split}-{stamp}"
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "results.jsonl").open("w", encoding="utf-8") as handle:
        for i, (query, gold) in enumerate(queries):
            ranks = {
                name: (r[i].index(gold) + 1 if gold in r[i] else None) for name, r in ranked.items()
            }
            handle.write(json.dumps({"query": query, "paper_id": gold, "rank": ranks}) + "\n")
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    report = render(summary)
    (out_dir / "report.md").write_text(report, encoding="utf-8")
    print(report)
    print(f"wrote {out_dir}/summary.json, results.jsonl, report.md")
    return summary
