"""bench/scale.png: retrieval latency and memory against the number of chunks (log x)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rag.settings import RETRIEVAL_MODES

BACKEND_COLOURS = {"embedded": "tab:blue", "server": "tab:red"}


def _size_axis(ax: Any, rows: list[dict[str, Any]]) -> None:
    """Log x with one labelled tick per measured size: "5,397\n1×"."""
    sizes = sorted({(r["chunks"], r["scale"]) for r in rows})
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks([c for c, _ in sizes])
    ax.set_xticklabels([f"{c:,}\n{s}×" for c, s in sizes], fontsize=8)
    ax.set_xlabel("chunks in the store (log scale)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


COLOURS = {"dense": "tab:blue", "bm25": "tab:orange", "hybrid": "tab:green"}


def plot_scale(rows: list[dict[str, Any]], target: Path) -> bool:
    """Write the plot; False (and nothing written) when there are no rows."""
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    backends = sorted({r["backend"] for r in rows})
    fig, axes = plt.subplots(1, len(backends) + 1, figsize=(5.2 * (len(backends) + 1), 4.2))
    for ax, backend in zip(axes, backends, strict=False):
        mine = sorted((r for r in rows if r["backend"] == backend), key=lambda r: r["chunks"])
        x = [r["chunks"] for r in mine]
        for mode in RETRIEVAL_MODES:
            for stat, style in (("p50", "-"), ("p95", "--")):
                y = [r["latency_ms"][mode][stat] for r in mine]
                ax.plot(x, y, style, marker="o", color=COLOURS[mode], label=f"{mode} {stat}")
        _size_axis(ax, rows)
        ax.set_ylabel("retrieval latency (ms)")
        ax.set_title(f"retrieval, {backend} Chroma (solid p50, dashed p95)")
        ax.legend(fontsize=7, ncol=2)
    memory = axes[-1]
    for backend in backends:
        mine = sorted((r for r in rows if r["backend"] == backend), key=lambda r: r["chunks"])
        x = [r["chunks"] for r in mine]
        colour = BACKEND_COLOURS.get(backend)
        memory.plot(
            x,
            [r["query_process_peak_rss_mb"] for r in mine],
            "-",
            marker="o",
            color=colour,
            label=f"{backend}: app process (peak)",
        )
        if any(r.get("server_rss_mb") for r in mine):
            memory.plot(
                x,
                [r.get("server_rss_mb") or 0 for r in mine],
                ":",
                marker="s",
                color=colour,
                label=f"{backend}: chroma run process",
            )
    _size_axis(memory, rows)
    memory.set_ylabel("resident memory (MB)")
    memory.set_title("resident memory")
    memory.legend(fontsize=7)
    fig.tight_layout()
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target, dpi=110)
    plt.close(fig)
    return True
