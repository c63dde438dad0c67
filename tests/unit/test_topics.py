"""The topic scan on a small catalogue with the deterministic fake embedding."""

from __future__ import annotations

import numpy as np
import pytest

from rag.sets.facets import TopicReading
from rag.sets.judgement import FACET_MEMBER, TopicJudge
from rag.sets.topic_index import TopicIndex
from rag.sets.topics import FACET_FEATURES, FEATURES, TopicScanner
from rag.text import topic_tokens
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


def _catalogue(texts: dict[str, tuple[str, str]]) -> TopicScanner:
    papers = {pid: Paper(id=pid, title=t, abstract=a) for pid, (t, a) in texts.items()}
    ids = sorted(papers)
    vectors = np.asarray(
        [bag_of_words(f"{papers[p].title}\n{papers[p].abstract}") for p in ids], dtype=np.float32
    )
    return TopicScanner(TopicIndex(papers, vectors, ids), HashingEmbedding())


def scanner() -> TopicScanner:
    return _catalogue(TOPIC_PAPERS)


def test_tokens_fold_case_hyphens_and_plurals() -> None:
    assert topic_tokens("Graph-Transformers for Molecules") == [
        "graph",
        "transformer",
        "for",
        "molecule",
    ]


def test_the_papers_about_the_topic_score_highest() -> None:
    scan = scanner()
    x = scan.features("model merging")
    ranked = [scan.index.ids[i] for i in np.argsort(-x[:, 0] - x[:, 2])]
    assert set(ranked[:3]) == {"m1", "m2", "m3"}
    assert x.shape == (len(TOPIC_PAPERS), len(FEATURES))
    facet = scan.facet_features("model merging")
    assert facet.shape == (len(TOPIC_PAPERS), len(FEATURES) + len(FACET_FEATURES))


def judge() -> TopicJudge:
    return TopicJudge(scanner())


def test_members_carry_a_probability_and_the_sentence_that_shows_why() -> None:
    judged = judge().judge("model merging")
    assert judged.verdict == "set" and judged.facets == ["model merging"]
    members = judged.members
    assert members and {m.paper.id for m in members} <= {"m1", "m2", "m3"}
    assert all(0 < m.probability <= 1 for m in members)
    assert "merg" in members[0].why.lower()


def test_constraints_limit_the_members() -> None:
    assert [m.paper.id for m in judge().judge("model merging", allowed={"m2"}).members] == ["m2"]


def test_a_paper_belongs_to_two_facets_only_when_it_has_both() -> None:
    scan = scanner()
    # "graph neural networks" and "molecules": g1 has both, g2 only graphs, m1 neither
    reading = TopicReading(["graph neural networks", "molecules"], described=False)
    judged = TopicJudge(scan).judge("graph neural networks for molecules", reading=reading)
    chances = {j.paper.id: j.probability for j in judged.closest}
    assert chances["g1"] >= FACET_MEMBER > max(p for i, p in chances.items() if i != "g1")
    assert [m.paper.id for m in judged.members] == ["g1"]
    assert set(judged.facets) == {"graph neural networks", "molecules"}
    g1 = next(j for j in judged.closest if j.paper.id == "g1")
    assert set(g1.facet_sentences) == {"graph neural networks", "molecules"}
    assert "molecul" in g1.facet_sentences["molecules"].lower()


def test_one_sentence_writing_every_facet_is_seen() -> None:
    together = scanner().together(["graph neural networks", "molecular properties"])
    assert {scanner().index.ids[int(i)] for i in np.flatnonzero(together)} == {"g1"}


def test_a_described_topic_claims_no_members() -> None:
    reading = TopicReading(["merge the weights of many models"], described=True)
    judged = judge().judge("merge the weights of many models", reading=reading)
    assert judged.verdict == "described" and judged.members == []
    assert judged.closest and judged.closest[0].paper.id.startswith("m")


def test_words_the_catalogue_never_uses_are_reported() -> None:
    assert scanner().unknown_words("deep learning to forecast wildfires") == [
        "forecast",
        "wildfire",
    ]
    assert scanner().unknown_words("graph neural networks") == []


def test_a_facet_among_several_is_held_by_a_kind_of_it() -> None:
    # "offline reinforcement learning" is a kind of reinforcement learning (the glossary's
    # `narrower`): its paper has that facet when it is one of several, not when it is the
    # topic on its own (being about offline RL is not being about RL in general)
    scan = scanner()
    alone = {form for form in scan.forms("reinforcement learning")}
    among = {form for form in scan.forms("reinforcement learning", kinds=True)}
    assert ("offline", "reinforcement", "learning") in among - alone
    assert ("rlhf",) in among


def test_the_glossarys_kinds_are_its_own_topics_without_cycles() -> None:
    from rag.sets.glossary import entries, entry_named, kinds

    for entry in entries():
        assert all(entry_named(name) is not None for name in entry.narrower), entry.topic
        assert entry not in kinds(entry)
    vlm = entry_named("VLMs")
    assert vlm is not None and "CLIP" in {k.topic for k in kinds(vlm)}


def test_a_hyphened_word_keeps_its_small_words() -> None:
    from rag.sets.topics import _alternatives

    # "out-of-distribution" is not "distribution", which nearly every abstract writes
    assert _alternatives("the out-of-distribution setting") == [
        ("out", "of", "distribution", "setting")
    ]
    assert _alternatives("of graphs") == [("graph",)]


def test_a_one_word_alternative_takes_the_shared_head_the_abstracts_write() -> None:
    texts = {
        f"o{k}": (f"Paper {k}", "We study out-of-distribution detection for images.")
        for k in range(3)
    }
    texts["a1"] = ("Anomalies", "Anomaly detection with fairness guarantees.")
    texts.update({f"l{k}": (f"LLMs {k}", "We fine-tune LLMs models for vision.") for k in range(3)})
    scan = _catalogue(texts)
    # "out-of-distribution or anomaly detection" means OOD detection, not any OOD setting
    assert scan.forms("out-of-distribution or anomaly detection")[:2] == [
        ("out", "of", "distribution", "detection"),
        ("anomaly", "detection"),
    ]
    # "fairness detection" is written nowhere: "fairness" stays on its own
    assert scan.forms("fairness or anomaly detection")[0] == ("fairness",)
    # "LLMs" names a topic itself, however often "LLMs models" is written
    assert scan.forms("LLMs or vision models")[0] == ("llms",)
    # "fairness" is mostly written alone: a few "fairness detection"s do not make it one
    texts.update({f"f{k}": (f"Fair {k}", "We study fairness in ranking.") for k in range(40)})
    texts.update({f"d{k}": (f"Det {k}", "Fairness detection matters.") for k in range(3)})
    assert _catalogue(texts).forms("fairness or anomaly detection")[0] == ("fairness",)
    # "model" alone, written nearly everywhere, names nothing: "model or knowledge editing"
    edits = {f"e{k}": (f"Edit {k}", "Model editing changes a model.") for k in range(5)}
    edits.update({f"m{k}": (f"M {k}", "A model of data.") for k in range(5)})
    forms = _catalogue(edits).forms("model or knowledge editing")
    assert forms[:2] == [("model", "editing"), ("knowledge", "editing")]


def test_another_facets_words_are_not_this_facets_evidence() -> None:
    scan = scanner()
    seeds = np.asarray([scan.index.ids.index(p) for p in ("m1", "m2", "m3")])
    shared, _ = scan._vocabulary(seeds)
    assert ("model", "merging") in shared
    # with "merging" another facet's word, the seeds' shared phrases holding it are not used
    own, _ = scan._vocabulary(seeds, alien=frozenset({"merging"}))
    assert own and not any("merging" in phrase for phrase in own)


def test_a_facet_count_it_is_unsure_of_is_said_as_a_range() -> None:
    from rag.sets.judgement import TopicJudgement
    from rag.sets.topic_answers import _summary

    reading = TopicReading(["diffusion models", "time series"], described=False)
    judged = TopicJudgement("diffusion models for time series", reading, [], [])
    assert _summary(judged, 7, 3, "") == (
        "3–7 ICML 2024 papers combine “diffusion models” and “time series”: 3 clearly, 4 possibly:"
    )
    assert _summary(judged, 2, 0, "").startswith(
        "No ICML 2024 paper clearly combines “diffusion models” and “time series”; 2 papers "
        "possibly do"
    )
    assert _summary(judged, 4, 4, "") == (
        "4 ICML 2024 papers combine “diffusion models” and “time series”:"
    )


def test_a_facet_is_written_without_its_objective_or_loss() -> None:
    # "a contrastive objective" is written "contrastive learning", "contrastive pretraining"
    scan = scanner()
    assert ("contrastive",) in scan.forms("contrastive objective")
    assert ("contrastive",) in scan.forms("contrastive loss")
    assert ("diffusion",) not in scan.forms("diffusion models")  # "model" stays: "language"


def test_a_facet_is_written_without_its_architecture() -> None:
    # "mixture-of-experts architectures" is written "a mixture of experts", "MoE"
    scan = scanner()
    assert ("mixture", "of", "expert") in scan.forms("mixture-of-experts architectures")
    # only where what is left names a topic: "deep architectures" are not all deep learning
    assert ("deep",) not in scan.forms("deep architectures")
    assert ("efficient",) not in scan.forms("efficient architectures")


def test_slips_in_a_questions_lower_case_words_are_read_as_the_corpus_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rag.sets.topics as topics

    monkeypatch.setattr(topics, "SPELLED_COMMON", 1)  # a tiny corpus writes few words often
    monkeypatch.setattr(topics, "SPELLED_PAPERS", 1)
    scan = scanner()
    fixes = scan.respelled("how do grpah neural netwoks handle molecuels? and polcies")
    # swapped letters ("grpah", "molecuels"), a letter left out ("netwoks", "polcies")
    assert fixes == {
        "grpah": "graph",
        "netwoks": "networks",
        "molecuels": "molecules",
        "polcies": "policies",
    }
    # a word the corpus writes, a capitalised name, a plural of a word it writes: no slip
    assert scan.respelled("graph Tamil networks policy") == {}


def test_an_acronym_alone_is_judged_by_its_long_form_unless_the_letters_are_far_more_written() -> (
    None
):
    texts = {
        "l1": ("Large Language Models (LLMs) reason", "Large language models solve tasks."),
        "l2": ("Aligning large language models", "We align large language models."),
        "l3": ("LLMs as judges", "LLMs judge answers."),
        "p1": ("Proximal policy optimization (PPO) revisited", "We study PPO and PPO clipping."),
        "p2": ("PPO for dialogue", "PPO trains dialogue agents."),
        "p3": ("PPO at scale", "PPO scales."),
        "p4": ("A study of PPO", "PPO again."),
    }
    catalogue = _catalogue(texts)
    assert catalogue.spelled_out("LLMs") == "large language models"
    assert catalogue.spelled_out("PPO") == "PPO"  # 4 abstracts write PPO, 1 its long form
    assert catalogue.spelled_out("large language models") == "large language models"
