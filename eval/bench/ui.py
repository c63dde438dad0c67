"""Section 7: the chat page in a real Chromium, this commit's UI beside an earlier commit's.

Both UIs serve private copies of the same store (`python -m ui`, extractive backend); the
earlier one runs from `git archive <ref>`. Every question is asked once on each side in
alternating order, each in a fresh browser context (no stored conversation). The page
itself times the answer: from the moment Enter is pressed to the first answer text shown
(time to first token) and to the finished answer (the streaming marker gone).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

from eval.bench.procs import BenchError, bench_env, free_port, running_server
from eval.bench.samples import ratio, summarise

ROOT = Path(__file__).resolve().parent.parent.parent
# The last commit before the chat was rebuilt (issue 30): the UI a user had before.
UI_BASELINE_REF = "7be403c"
# Set answers fill the page differently from cited ones; both kinds are timed.
FIXED_QUESTIONS = (
    "Which ICML 2024 papers are about federated learning?",
    "Which papers did Kenton Lee publish at ICML 2024?",
)
ANSWERS = "#chat .rag-answer, #chat .rag-error"
# In the page: start the clock, then watch the chat for the new answer's first text and
# for its end. `n`: the answers already shown; `answers`: their selector.
WATCH_JS = """([n, answers]) => {
  const t = {start: performance.now(), first: null, done: null};
  window.__ragTimes = t;
  const check = () => {
    const shown = document.querySelectorAll(answers);
    if (shown.length <= n) return;
    const last = shown[shown.length - 1];
    const text = (last.innerText || '').replace('\\u258d', '').trim();
    if (t.first === null && text) t.first = performance.now();
    if (t.done === null && !last.classList.contains('rag-streaming')) {
      t.done = performance.now();
      if (t.first === null) t.first = t.done;
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.querySelector('#chat'),
    {subtree: true, childList: true, characterData: true, attributes: true});
}"""


def chromium_path() -> str:
    for name in (os.environ.get("RAG_CHROMIUM", ""), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return str(shutil.which(name))
    raise BenchError("the ui section needs Chromium (Debian: apt install chromium)")


def baseline_source(ref: str, target: Path) -> Path:
    """The files of commit `ref`, extracted to `target`."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = target / "ref.tar"
    run = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), ref],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise BenchError(f"ui: git archive {ref} failed: {run.stderr.strip()[-300:]}")
    with tarfile.open(archive) as tar:
        tar.extractall(target / "src", filter="data")
    archive.unlink()
    return target / "src"


def ask_once(browser: Any, url: str, question: str, timeout_s: float) -> dict[str, Any]:
    """One question in a fresh context: (first text ms, finished ms) as the page saw them."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        box = "#question textarea"
        page.wait_for_selector(f"{box}:enabled", timeout=timeout_s * 1000)
        # the chat mounts apart from the box: on a loaded machine it can come later
        page.wait_for_selector("#chat", state="attached", timeout=timeout_s * 1000)
        page.fill(box, question)
        page.evaluate(WATCH_JS, [page.locator(ANSWERS).count(), ANSWERS])
        page.press(box, "Enter")
        page.wait_for_function(
            "() => window.__ragTimes.done !== null", timeout=timeout_s * 1000, polling=20
        )
        times = page.evaluate("() => window.__ragTimes")
        errored = page.locator("#chat .rag-error").count() > 0
    finally:
        context.close()
    return {
        "first_ms": round(times["first"] - times["start"], 1),
        "complete_ms": round(times["done"] - times["start"], 1),
        "error": errored,
    }


def _serve(
    data_dir: Path, model_cache: str, log_path: Path, timeout_s: float, source: Path | None
) -> Any:
    port = free_port()
    env = bench_env(
        RAG_DATA_DIR=str(data_dir),
        RAG_MODEL_CACHE_DIR=model_cache,
        RAG_BACKEND="extractive",
        RAG_RATE_LIMIT_PER_MINUTE="0",
    )
    if source is not None:
        env["PYTHONPATH"] = str(source)
    command = [sys.executable, "-m", "ui", "--host", "127.0.0.1", "--port", str(port)]
    server = running_server(
        command, f"http://127.0.0.1:{port}/healthz", log_path, timeout_s, env, cwd=source
    )
    return server, f"http://127.0.0.1:{port}/"


def measure_ui(
    store_dir: Path,
    model_cache: str,
    questions: list[str],
    ref: str,
    work: Path,
    timeout_s: float,
    log: Any,
) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    source = baseline_source(ref, work / "ui-baseline")
    copies = {}
    for side in ("ours", "baseline"):
        copies[side] = work / f"ui-store-{side}"
        shutil.rmtree(copies[side], ignore_errors=True)
        shutil.copytree(store_dir, copies[side])  # PersistentClient: one process per directory
    asked = [*FIXED_QUESTIONS, *questions]
    pairs: list[dict[str, Any]] = []
    ours_server, ours_url = _serve(
        copies["ours"], model_cache, work / "ui-ours.log", timeout_s, None
    )
    base_server, base_url = _serve(
        copies["baseline"], model_cache, work / "ui-baseline.log", timeout_s, source
    )
    with ours_server, base_server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            # One unmeasured question per side: the first page load pays for the page's assets.
            for url in (ours_url, base_url):
                ask_once(browser, url, asked[0], timeout_s)
            for i, question in enumerate(asked):
                log(f"ui: question {i + 1}/{len(asked)}")
                order = [("ours", ours_url), ("baseline", base_url)]
                row: dict[str, Any] = {"question": question}
                for side, url in order if i % 2 == 0 else order[::-1]:
                    row[side] = ask_once(browser, url, question, timeout_s)
                pairs.append(row)
        finally:
            browser.close()
    for copy in copies.values():
        shutil.rmtree(copy, ignore_errors=True)
    return summarise_ui(pairs, ref)


def summarise_ui(pairs: list[dict[str, Any]], ref: str) -> dict[str, Any]:
    body: dict[str, Any] = {"baseline_ref": ref, "questions": len(pairs), "pairs": pairs}
    for key in ("first_ms", "complete_ms"):
        ours = [p["ours"][key] for p in pairs]
        base = [p["baseline"][key] for p in pairs]
        ratios = [b / o for o, b in zip(ours, base, strict=True) if o > 0]
        body[key] = {
            "ours": summarise(ours, 1),
            "baseline": summarise(base, 1),
            "ratio_of_medians": ratio(statistics.median(ours), statistics.median(base)),
            "median_pair_ratio": round(statistics.median(ratios), 2) if ratios else None,
        }
    body["errors"] = {
        side: sum(1 for p in pairs if p[side]["error"]) for side in ("ours", "baseline")
    }
    body["notes"] = [
        "timed in the page (performance.now): from pressing Enter to the first answer text "
        "shown (first_ms) and to the finished answer (complete_ms); a fresh browser context "
        "per question, so no stored conversation is restored into the chat",
        f"baseline: the UI of commit {ref} (before the chat was rebuilt) on a copy of the "
        "same store; the two sides alternate which goes first",
        "ratios: baseline / ours (above 1: ours is faster); median_pair_ratio is the median "
        "of the per-question ratios",
    ]
    return body
