"""Retrieval over the real fixture store: each mode finds named papers, results are one
per paper, filters hold in every mode, and the lexical index is kept on disk and follows the store."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from rag.assistant import Assistant
from rag.ingestion import ingest
from rag.store.chroma import PaperStore
from rag.types import Filters, RetrievedPaper
from tests.support.answers import (
    FEEDBACK_ALIGNMENT,
    GRAPHS_GPT,
    bundled_record,
    write_jsonl,
)
from tests.support.fresh import fresh_python
from tests.support.paths import FIXTURE_CORPUS
from tests.support.settings import make_settings

MODES = ["dense", "bm25", "hybrid"]
FA_QUESTION = "What conservation law does feedback alignment find?"
GRAPHS_QUESTION = "How many molecules is GraphsGPT pretrained on?"
S3GCL = "znKAWRZSF9"  # "S3GCL: Spectral, Swift, Spatial Graph Contrastive Learning": not a fixture
S3GCL_QUESTION = "What does S3GCL do for spectral graph contrastive learning?"


@pytest.mark.parametrize("mode", MODES)
def test_named_method_is_rank_one_in_every_mode(assistant: Any, mode: str) -> None:
    assert paper_ids(assistant.retrieve(GRAPHS_QUESTION, mode=mode))[0] == GRAPHS_GPT
    assert paper_ids(assistant.retrieve(FA_QUESTION, mode=mode))[0] == FEEDBACK_ALIGNMENT


@pytest.mark.parametrize("mode", MODES)
def test_results_carry_the_scores_of_their_mode(assistant: Any, mode: str) -> None:
    results = assistant.retrieve(FA_QUESTION, mode=mode)
    top = results[0]
    assert (top.dense_score is not None) == (mode != "bm25")
    assert (top.bm25_score is not None) == (mode != "dense")
    if mode != "bm25":
        assert -1.0 <= top.dense_score <= 1.0  # a cosine, not Chroma's exp(-distance)
        assert top.dense_score > 0.4
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("top_k", [1, 5, 12])
def test_one_result_per_paper_and_top_k_counts_papers(
    assistant: Any, mode: str, top_k: int
) -> None:
    # Abstracts are several chunks each; a generic question matches many chunks per paper.
    results = assistant.retrieve(
        "neural network training with gradient descent", top_k=top_k, mode=mode
    )
    ids = paper_ids(results)
    assert len(ids) == top_k
    assert len(set(ids)) == len(ids)
    for result in results:
        assert 1 <= len(result.chunks) <= 3
        assert all(c.chunk_id.startswith(result.paper.id) for c in result.chunks), [
            c.chunk_id for c in result.chunks
        ]


@pytest.mark.parametrize("mode", MODES)
def test_status_filter_keeps_only_that_status(assistant: Any, mode: str) -> None:
    results = assistant.retrieve(
        "language models", top_k=8, mode=mode, filters=Filters(status=["Oral"])
    )
    assert results, "the fixture corpus has 10 Oral papers"
    assert {r.paper.status for r in results} == {"Oral"}
    several = assistant.retrieve(
        "language models", top_k=20, mode=mode, filters={"status": ["oral", "Spotlight"]}
    )
    assert {r.paper.status for r in several} <= {"Oral", "Spotlight"}
    assert len(several) > len([r for r in several if r.paper.status == "Oral"]) > 0


@pytest.mark.parametrize("mode", MODES)
def test_author_filter_is_a_case_insensitive_substring(assistant: Any, mode: str) -> None:
    results = assistant.retrieve("learning", mode=mode, filters=Filters(author="zachary ROB"))
    assert paper_ids(results) == [FEEDBACK_ALIGNMENT]  # Zachary Robertson's only paper here
    both = assistant.retrieve("feedback alignment", mode=mode, filters={"author": "Koyejo"})
    assert paper_ids(both)[0] == FEEDBACK_ALIGNMENT
    assert set(paper_ids(both)) == {FEEDBACK_ALIGNMENT, "cAWbm9KRZO"}  # his two papers


@pytest.mark.parametrize("mode", MODES)
def test_title_filter_keeps_titles_with_the_keyword(assistant: Any, mode: str) -> None:
    results = assistant.retrieve("a method", top_k=10, mode=mode, filters={"title": "GRAPH"})
    assert len(results) >= 2
    assert all("graph" in r.paper.title.lower() for r in results)


@pytest.mark.parametrize("mode", MODES)
def test_paper_ids_filter_restricts_to_those_papers(assistant: Any, mode: str) -> None:
    wanted = [FEEDBACK_ALIGNMENT, "qOl2WWOqFg"]  # feedback alignment, BiLLM
    results = assistant.retrieve(
        "quantization of large language models", mode=mode, filters=Filters(paper_ids=wanted)
    )
    assert paper_ids(results)[0] == "qOl2WWOqFg"
    assert set(paper_ids(results)) <= set(wanted)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "filters",
    [
        {"author": "Nobody Byname"},
        {"title": "no title has this"},
        {"paper_ids": ["not-a-paper"]},
        {"status": ["Rejected"]},
        {"status": ["Oral"], "author": "Koyejo"},  # each matches papers, together none
    ],
)
def test_filter_matching_nothing_returns_nothing(
    assistant: Any, mode: str, filters: dict[str, Any]
) -> None:
    assert assistant.retrieve(FA_QUESTION, mode=mode, filters=filters) == []


@pytest.mark.parametrize("mode", MODES)
def test_the_unfiltered_retriever_is_built_once_and_filters_never_reach_it(
    assistant: Any, mode: str
) -> None:
    retriever = assistant.retriever
    unfiltered = paper_ids(assistant.retrieve(FA_QUESTION, mode=mode))
    assert retriever.build(mode, None) is retriever.build(mode, Filters())
    assert retriever.build(mode, None) is not retriever.build(
        "dense" if mode != "dense" else "bm25", None
    )
    only = Filters(paper_ids=["qOl2WWOqFg"])
    assert retriever.build(mode, only) is not retriever.build(mode, only)  # per call
    question = "quantization of large language models"
    assert paper_ids(assistant.retrieve(question, mode=mode, filters=only)) == ["qOl2WWOqFg"]
    assert paper_ids(assistant.retrieve(FA_QUESTION, mode=mode)) == unfiltered
    assert len(unfiltered) == 5 and unfiltered[0] == FEEDBACK_ALIGNMENT
    # Reused, so nothing may grow per question: the inner retrievers' callback traces
    # (their own managers kept an entry per question, never reset).
    for _ in range(30):
        assistant.retrieve(FA_QUESTION, mode=mode)
    fused = retriever.build(mode, None)
    models = [assistant.embed_model, assistant.embed_model._inner]  # process-wide, too
    for part in [fused, *fused._retrievers, *models]:
        assert sum(map(len, part.callback_manager._trace_map.values())) < 10, type(part)


def paper_ids(papers: list[RetrievedPaper]) -> list[str]:
    return [p.paper.id for p in papers]


def _lexical_files(data_dir: Path) -> dict[str, tuple[int, int]]:
    root = data_dir / "lexical"
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*.npy"))
    }


def test_lexical_index_is_persisted_and_reopened_as_is(store_copy: Path, embed_model: Any) -> None:
    settings = make_settings(store_copy, backend="extractive")
    first = Assistant(settings, PaperStore(settings), embed_model)
    built = _lexical_files(store_copy)
    assert built and all(name.startswith(f"{settings.collection}/") for name in built)

    started = time.perf_counter()
    second = Assistant(settings, PaperStore(settings), embed_model)
    assert time.perf_counter() - started < 10.0  # catalogue and all; the index itself: ms
    # Reopened, not rebuilt: the same segment files, untouched.
    assert _lexical_files(store_copy) == built
    assert paper_ids(second.retrieve(FA_QUESTION, mode="bm25")) == paper_ids(
        first.retrieve(FA_QUESTION, mode="bm25")
    )


def test_lexical_index_follows_ingest_add_and_prune(
    store_copy: Path, embed_model: Any, tmp_path: Path
) -> None:
    settings = make_settings(store_copy, backend="extractive")
    assistant = Assistant(settings, PaperStore(settings), embed_model)
    before = _lexical_files(store_copy)
    assert S3GCL not in assistant.papers

    extra = write_jsonl(tmp_path / "s3gcl.jsonl", [bundled_record(S3GCL)])
    ingest(settings, [FIXTURE_CORPUS, extra], embed_model=embed_model, store=assistant.store)
    # Synced by the ingest, incrementally: the old segments are still there, one was added.
    after = _lexical_files(store_copy)
    assert set(before) < set(after)
    assert assistant.reload() is True
    assert assistant.retrieve(S3GCL_QUESTION, mode="bm25")[0].paper.id == S3GCL

    ingest(settings, [FIXTURE_CORPUS], prune=True, embed_model=embed_model, store=assistant.store)
    assert assistant.reload() is True
    hits = assistant.retrieve(S3GCL_QUESTION, mode="bm25")
    assert S3GCL not in paper_ids(hits)


def test_opening_loads_no_tokenizer_vocabulary(store_copy: Path) -> None:
    # The dense index is only read: it is given its own no-op transformation, not
    # llama-index's global default (a SentenceSplitter that loads tiktoken, 0.7 s a start).
    script = (
        "import sys; from tests.support.settings import make_settings; "
        "from rag.assistant import Assistant; "
        "a = Assistant.from_settings(make_settings(__import__('pathlib').Path(sys.argv[1]))); "
        "print(len(a.retrieve('graph neural networks', mode='hybrid')) > 0, "
        "'tiktoken' in sys.modules)"
    )
    assert fresh_python(script, str(store_copy)).split() == ["True", "False"]
