"""`python -m eval synth`: draft questions from sampled abstracts with the configured LLM.

Like llama-index's generate_question_context_pairs, but written in our question format
with "generated": true, to a file of its own (never dev.jsonl): drafts need a human
read before they are trusted. Papers that are gold in dev.jsonl or test.jsonl are not
sampled, so generated questions cannot leak the held-out set. Key facts the model
returns are kept only if they occur verbatim in the abstract (as the README requires).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.questions import load_questions, write_questions
from eval.run import build_settings
from rag import Assistant, Paper
from rag.text import normalise_for_match

DATASETS = Path(__file__).resolve().parent / "datasets"
PROMPT = """You write evaluation questions for a search assistant over ICML 2024 abstracts.

Abstract of one paper:
<abstract>
Title: {title}
{abstract}
</abstract>

Write ONE question a researcher who does not know this paper might ask, that this
abstract answers. Do not use the paper's method name or distinctive title words.
Reply with a JSON object only:
{{"question": "...", "reference_answer": "one or two sentences from the abstract",
  "key_facts": ["1 to 3 short phrases (2-6 words) or numbers copied verbatim from the abstract"]}}"""


class SynthError(RuntimeError):
    """Questions cannot be generated (no LLM configured, unusable output)."""


def _reserved_ids() -> set[str]:
    reserved: set[str] = set()
    for name in ("dev.jsonl", "test.jsonl"):
        path = DATASETS / name
        if path.exists():
            reserved.update(g for q in load_questions(path) for g in q.gold_ids)
    return reserved


def parse_draft(text: str, paper: Paper) -> dict[str, Any] | None:
    """The model's JSON object, checked; None when it is unusable."""
    match = re.search(r"\{.*\}", text, re.S)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    question = data.get("question") if isinstance(data, dict) else None
    if not isinstance(question, str) or len(question.strip()) < 10:
        return None
    reference = data.get("reference_answer")
    facts = data.get("key_facts") or []
    source = f" {normalise_for_match(paper.abstract)} "
    kept = [
        f
        for f in facts
        if isinstance(f, str) and f.strip() and f" {normalise_for_match(f)} " in source
    ]
    return {
        "question": question.strip(),
        "gold_ids": [paper.id],
        "answerable": True,
        "category": "generated",
        "reference_answer": reference.strip() if isinstance(reference, str) else None,
        "key_facts": kept[:3],
        "generated": True,
    }


def synthesise(
    n: int,
    out: Path,
    *,
    backend: str | None = None,
    seed: int = 7,
    assistant: Assistant | None = None,
) -> int:
    if n < 1:
        raise SynthError("--n must be at least 1")
    if assistant is None:
        settings = build_settings(backend=backend)
        if settings.resolved_backend() == "extractive":
            raise SynthError(
                "synth needs an LLM: set OPENAI_API_KEY, or RAG_LLM_BASE_URL for an "
                "OpenAI-compatible server (the extractive backend cannot write questions)"
            )
        assistant = Assistant.from_settings(settings)
    if assistant.llm is None:
        raise SynthError("synth needs an LLM backend; this assistant is extractive")
    reserved = _reserved_ids()
    pool = sorted(pid for pid in assistant.papers if pid not in reserved)
    if not pool:
        raise SynthError("the store holds no papers outside dev/test gold to sample from")
    chosen = random.Random(seed).sample(pool, min(n, len(pool)))
    records: list[dict[str, Any]] = []
    for pid in tqdm(chosen, unit="paper", desc="drafting", file=sys.stderr):
        paper = assistant.papers[pid]
        reply = assistant.llm.complete(PROMPT.format(title=paper.title, abstract=paper.abstract))
        draft = parse_draft(reply.text, paper)
        if draft is None:
            print(
                f"skipped {pid}: the model's reply was not a usable JSON question", file=sys.stderr
            )
            continue
        records.append({"id": f"gen-{len(records) + 1:03d}", **draft})
    if not records:
        raise SynthError("the model produced no usable question")
    write_questions(out, records)
    return len(records)
