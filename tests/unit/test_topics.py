"""The topic scan on a small catalogue with the deterministic fake embedding."""

from __future__ import annotations

import numpy as np

from rag.sets.topics import TopicIndex, TopicScanner, tokens
from rag.types import Paper
from tests.support.fake_embedding import HashingEmbedding, bag_of_words

TOPIC_PAPERS = {
    "m1": (
        "Model Merging without Training Data",
        "We study model merging of fine-tuned models. Merging weights keeps skills.",
    ),
    "m2": (
        "Task Arithmetic for Model Merging",
        "Model merging combines task vectors. We merge many experts.",
    ),
    "m3": (
        "Merging Vision Models",
        "A model merging method for vision transformers with weight interpolation.",
    ),
    "g1": (
        "Graph Networks for Molecules",
        "Graph neural networks predict molecular properties from atoms.",
    ),
    "g2": ("Oversmoothing in GNNs", "Deep graph neural networks oversmooth node features."),
    "r1": (
        "Offline Reinforcement Learning",
        "We learn policies from logged data with conservative value estimates.",
    ),
}


def scanner() -> TopicScanner:
    papers = {pid: Paper(id=pid, title=t, abstract=a) for pid, (t, a) in TOPIC_PAPERS.items()}
    ids = sorted(papers)
    vectors = np.asarray(
        [bag_of_words(f"{papers[p].title}\n{papers[p].abstract}") for p in ids], dtype=np.float32
    )
    return TopicScanner(TopicIndex(papers, vectors, ids), HashingEmbedding())


def test_tokens_fold_case_hyphens_and_plurals() -> None:
    assert tokens("Graph-Transformers for Molecules") == ["graph", "transformer", "for", "molecule"]


def test_the_papers_about_the_topic_score_highest() -> None:
    scan = scanner()
    x = scan.features("model merging")
    ranked = [scan.index.ids[i] for i in np.argsort(-x[:, 0] - x[:, 2])]
    assert set(ranked[:3]) == {"m1", "m2", "m3"}
    assert x.shape == (len(TOPIC_PAPERS), 9)


def test_members_carry_a_probability_and_the_sentence_that_shows_why() -> None:
    members = scanner().members("model merging")
    assert members and {m.paper.id for m in members} <= {"m1", "m2", "m3"}
    assert all(0 < m.probability <= 1 for m in members)
    assert "merg" in members[0].why.lower()


def test_constraints_limit_the_members() -> None:
    assert [m.paper.id for m in scanner().members("model merging", allowed={"m2"})] == ["m2"]


def test_words_the_catalogue_never_uses_are_reported() -> None:
    assert scanner().unknown_words("deep learning to forecast wildfires") == [
        "forecast",
        "wildfire",
    ]
    assert scanner().unknown_words("graph neural networks") == []
