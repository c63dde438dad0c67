"""Judge wiring, synth, calibrate and SciTLDR on small data (fake LLM, fixture corpus)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from eval.__main__ import main
from eval.calibrate import calibrate, choose_threshold, fit_logistic, predict, rates
from eval.judge import Judge, judge_scores
from eval.questions import load_questions
from eval.scitldr import build_assistant, run_scitldr
from eval.synth import SynthError, synthesise
from rag import Paper

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fake_llm(reply: Any) -> Any:
    """A llama-index LLM whose completion is `reply(prompt)`; it records every prompt."""
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from pydantic import Field

    class Fake(CustomLLM):
        prompts: list[str] = Field(default_factory=list)

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fake")

        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            self.prompts.append(prompt)
            return CompletionResponse(text=reply(prompt))

        def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            raise NotImplementedError

    return Fake()


def judge_reply(prompt: str) -> str:
    # CorrectnessEvaluator's prompt carries a reference answer; Faithfulness wants YES/NO.
    return "4.0\nMostly correct." if "reference answer" in prompt.lower() else "YES"


def test_judge_uses_the_given_llm_never_the_global() -> None:
    from llama_index.core import Settings as LlamaSettings

    llm = fake_llm(judge_reply)
    judge = Judge(llm, "fake-judge")
    verdicts = judge.verdicts(
        "What links weights and regularisation?",
        "A conservation law [1].",
        ["A conservation law links synaptic weights to implicit regularization."],
        "A conservation law.",
    )
    assert verdicts["judge_model"] == "fake-judge"
    assert verdicts["faithfulness"]["passing"] is True
    assert verdicts["correctness"]["score"] == 4.0
    assert judge_scores(verdicts) == {"judge_faithfulness": 1.0, "judge_correctness": 0.8}
    assert len(llm.prompts) == 2
    assert LlamaSettings._llm is None  # the global was never resolved or set


def test_judge_scores_without_verdicts() -> None:
    assert judge_scores(None) == {"judge_faithfulness": None, "judge_correctness": None}


# --- synth ------------------------------------------------------------------------
PAPER = Paper(
    id="p1",
    title="A Paper",
    abstract="We find a conservation law that links weights. It holds for 16,000 APIs.",
)


def test_synth_writes_generated_questions_with_verbatim_facts(tmp_path: Path) -> None:
    reply = json.dumps(
        {
            "question": "What links the weights during training?",
            "reference_answer": "A conservation law.",
            "key_facts": ["conservation law", "not in the abstract", "16,000 APIs"],
        }
    )
    llm = fake_llm(lambda prompt: f"Here you go:\n{reply}")
    assistant = SimpleNamespace(llm=llm, papers={"p1": PAPER})
    out = tmp_path / "generated.jsonl"
    assert synthesise(3, out, assistant=assistant) == 1  # type: ignore[arg-type]
    [question] = load_questions(out)
    assert question.id == "gen-001"
    assert question.gold_ids == ["p1"]
    assert question.key_facts == ["conservation law", "16,000 APIs"]
    record = json.loads(out.read_text())
    assert record["generated"] is True
    assert "conservation law that links weights" in llm.prompts[0]


def test_synth_rejects_unusable_output(tmp_path: Path) -> None:
    assistant = SimpleNamespace(llm=fake_llm(lambda p: "no json here"), papers={"p1": PAPER})
    with pytest.raises(SynthError, match="no usable question"):
        synthesise(1, tmp_path / "g.jsonl", assistant=assistant)  # type: ignore[arg-type]
    assert not (tmp_path / "g.jsonl").exists()


def test_synth_without_an_llm_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["synth", "--n", "2", "--out", str(tmp_path / "g.jsonl")]) == 2
    assert "synth needs an LLM" in capsys.readouterr().err
    assert not (tmp_path / "g.jsonl").exists()


# --- calibrate --------------------------------------------------------------------
def test_logistic_fit_recovers_the_informative_feature() -> None:
    rng = np.random.default_rng(0)
    y = np.array([1.0] * 60 + [0.0] * 60)
    x = np.column_stack(
        [y * 0.4 + rng.normal(0.3, 0.1, 120), rng.normal(0.5, 0.1, 120), rng.random(120)]
    )
    weights, bias = fit_logistic(x, y, l2=0.1)
    assert weights[0] > 5 * max(abs(weights[1]), abs(weights[2]))
    accuracy = ((predict(x, weights, bias) > 0.5) == (y == 1)).mean()
    assert accuracy > 0.9
    again = fit_logistic(x, y, l2=0.1)
    assert np.allclose(again[0], weights) and again[1] == bias


def test_threshold_respects_the_false_abstention_cap() -> None:
    # Refusing the 0.3 answerable question would catch every unanswerable one, but it
    # costs 1/5 = 20% false abstention: over a 5% cap, so the threshold stays below it.
    p = np.array([0.1, 0.2, 0.35, 0.3, 0.8, 0.9, 0.95, 0.99])
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    capped = choose_threshold(p, y, max_false=0.05)
    assert capped.false_abstention_rate == 0.0
    assert capped.abstention_accuracy == pytest.approx(2 / 3)
    loose = choose_threshold(p, y, max_false=0.25)
    assert loose.abstention_accuracy == 1.0 and loose.false_abstention_rate == 0.2
    assert rates(p, y, 0.0).abstention_accuracy == 0.0


@pytest.mark.slow
def test_calibrate_on_the_fixture_corpus(assistant: Any, tmp_path: Path) -> None:
    questions = [
        (
            "Which paper explains why feedback alignment works via a conservation law?",
            ["qklMNNub0H"],
        ),
        ("How many bits per weight does BiLLM use?", ["qOl2WWOqFg"]),
        ("How many APIs does AnyTool use?", ["qFILbkTQWw"]),
        ("Are graph neural network explanations fragile under attack?", ["qIOSNyPPwB"]),
        ("How long should sourdough rise before baking?", []),
        ("How do I replace a bicycle chain?", []),
        ("Which wildfire spread models use satellite imagery?", []),
    ]
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "question": q, "gold_ids": g, "answerable": bool(g)}) + "\n"
            for i, (q, g) in enumerate(questions)
        )
    )
    report = calibrate([path], assistant=assistant)
    match = re.search(r"CONFIDENCE_WEIGHTS = \(([-\d.]+), ([-\d.]+), ([-\d.]+)\)", report)
    assert match, report
    assert re.search(r"CONFIDENCE_BIAS = -?\d+\.\d+", report)
    assert re.search(r"abstain_threshold = \d\.\d{3}", report)
    for row in ("in-sample", "leave-one-out", "5-fold CV"):
        assert row in report
    assert "4 answerable, 3 unanswerable" in report


# --- SciTLDR ----------------------------------------------------------------------
def fake_scitldr(root: Path) -> list[dict[str, Any]]:
    """12 fixture-corpus papers in SciTLDR's format, 4 per split; TLDR = title (+ a 2nd)."""
    from rag.text import split_sentences

    papers = [json.loads(line) for line in (FIXTURES / "corpus.jsonl").open()][:12]
    root.mkdir()
    rows = []
    for i, split in enumerate(("train", "dev", "test")):
        chunk = [
            {
                "paper_id": p["id"],
                "title": p["title"],
                "source": split_sentences(p["abstract"]),
                "target": [p["title"]]
                + ([split_sentences(p["abstract"])[0]] if split == "dev" else []),
            }
            for p in papers[4 * i : 4 * i + 4]
        ]
        (root / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chunk))
        rows += chunk
    return rows


@pytest.mark.slow
def test_scitldr_indexes_all_splits_and_scores_known_items(
    tmp_path: Path, embed_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "scitldr"
    rows = fake_scitldr(source)
    data_dir = tmp_path / "var" / "scitldr"
    assistant = build_assistant(source, data_dir, "scitldr", embed_model=embed_model)
    assert set(assistant.papers) == {r["paper_id"] for r in rows}
    corpus = data_dir / "scitldr_corpus.jsonl"
    first = json.loads(corpus.read_text().splitlines()[0])
    assert first["abstract"] == " ".join(rows[0]["source"])

    out = tmp_path / "out"
    summary = run_scitldr(
        scitldr_dir=source,
        split="dev",
        modes=["dense", "bm25", "hybrid"],
        out_dir=out,
        data_dir=data_dir,
        assistant=assistant,
    )
    assert summary["n_queries"] == 8 and summary["n_papers"] == 12
    assert set(summary["configs"]) == {"dense", "bm25", "hybrid", "baseline"}
    for block in summary["configs"].values():
        assert set(block) == {"recall@1", "recall@5", "recall@10", "mrr@10", "ci95"}
        assert block["recall@1"] <= block["recall@5"] <= block["recall@10"]
    # Queries that are the paper's own title / first sentence: lexical search nails them.
    assert summary["configs"]["bm25"]["recall@1"] >= 0.75
    assert summary["held_out"] is False
    assert len((out / "results.jsonl").read_text().splitlines()) == 8
    assert "dev is for tuning; test is held out" in (out / "report.md").read_text()

    # A second build is incremental: nothing is re-embedded.
    capsys.readouterr()
    build_assistant(source, data_dir, "scitldr", embed_model=embed_model)
    assert "new 0 | updated 0 | unchanged 12" in capsys.readouterr().err


def test_the_tantivy_trial_measures_both_engines_side_by_side(
    store_copy: Path, tmp_path: Path
) -> None:
    pytest.importorskip("tantivy")
    from eval.tantivy_trial import run

    out = tmp_path / "trial.json"
    result = run(store_copy, out, scale=2)
    assert json.loads(out.read_text()) == result
    assert result["chunks"] > 100 and result["questions"] > 100
    for engine in ("ours", "tantivy"):
        assert result["latency_ms"][engine]["n"] == result["questions"]
        quality = result["quality"][engine]
        assert 0 <= quality["dev.jsonl"]["bm25_alone"]["R@1"] <= 1
        assert quality["refitted_weight"] in [round(0.05 * i, 2) for i in range(21)]
        assert result["scale"]["build_s"][engine] > 0 and result["scale"]["disk_bytes"][engine] > 0
    assert result["scale"]["chunks"] == 2 * result["chunks"]
