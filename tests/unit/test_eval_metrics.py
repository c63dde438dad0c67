"""Metric functions against hand-computed values (no store, no model)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.metrics import (
    LATENCY_KEYS,
    METRIC_KEYS,
    aggregate,
    answer_sentences,
    bootstrap_ci,
    citation_validity,
    cited_precision,
    cited_recall,
    dedupe,
    fact_present,
    key_fact_coverage,
    marker_numbers,
    mrr_at,
    ndcg_at,
    recall_at,
    score_question,
    sentence_citation_rate,
)


def test_dedupe_keeps_first_rank() -> None:
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_retrieval_metrics_hand_computed_with_duplicates() -> None:
    # Chunks of "a" twice: after de-duplication b is rank 2 and d rank 4 (not 3 and 5).
    retrieved, gold = ["a", "a", "b", "c", "d"], ["b", "d"]
    assert recall_at(retrieved, gold, 1) == 0.0
    assert recall_at(retrieved, gold, 2) == 0.5
    assert recall_at(retrieved, gold, 5) == 1.0
    assert mrr_at(retrieved, gold) == 0.5
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at(retrieved, gold) == pytest.approx(dcg / idcg)
    assert ndcg_at(retrieved, gold) == pytest.approx(0.650921, abs=1e-6)


def test_duplicates_cannot_push_a_paper_out_of_the_top_k() -> None:
    retrieved = ["a"] * 10 + ["b"]
    assert recall_at(retrieved, ["b"], 5) == 1.0
    assert mrr_at(retrieved, ["b"]) == 0.5


def test_duplicate_gold_hits_do_not_exceed_one() -> None:
    assert ndcg_at(["g", "g", "g"], ["g"]) == 1.0
    assert recall_at(["g", "g"], ["g"], 10) == 1.0


def test_ideal_dcg_uses_min_of_gold_and_k() -> None:
    gold = [f"g{i}" for i in range(12)]
    perfect = gold[:10]
    assert ndcg_at(perfect, gold, 10) == pytest.approx(1.0)
    assert recall_at(perfect, gold, 10) == pytest.approx(10 / 12)


def test_empty_gold_and_empty_retrieval() -> None:
    for fn in (mrr_at, ndcg_at):
        assert fn(["a"], []) is None
        assert fn([], ["a"]) == 0.0
    assert recall_at(["a"], [], 10) is None
    assert recall_at([], ["a"], 10) == 0.0


def test_miss_beyond_k() -> None:
    retrieved = [f"x{i}" for i in range(10)] + ["g"]
    assert recall_at(retrieved, ["g"], 10) == 0.0
    assert mrr_at(retrieved, ["g"], 10) == 0.0


def test_citation_markers_and_validity() -> None:
    text = "Alpha holds [1]. Beta too [2][5]. Gamma [1, 3]."
    assert marker_numbers(text) == [1, 2, 5, 1, 3]
    assert citation_validity(text, [1, 2, 3]) == pytest.approx(4 / 5)
    assert citation_validity(text, [1, 2, 3, 5]) == 1.0
    assert citation_validity("no markers here", [1]) is None


def test_cited_precision_and_recall() -> None:
    assert cited_precision(["a", "b"], ["a"]) == 0.5
    assert cited_recall(["a", "b"], ["a", "c", "d"]) == pytest.approx(1 / 3)
    assert cited_precision([], ["a"]) is None
    assert cited_recall(["a"], []) is None


def test_sentence_citation_rate_credits_markers_after_the_full_stop() -> None:
    text = "*Title*: A first sentence. [1] Another one. [1]\n\n*Other*: Third without cite."
    sentences = answer_sentences(text)
    assert [cited for _, cited in sentences] == [True, True, False]
    assert sentence_citation_rate(text) == pytest.approx(2 / 3)
    assert sentence_citation_rate("Inline [2] citation. Plain sentence.") == 0.5
    assert sentence_citation_rate("") is None


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("100M", "trained on $100$M tokens"),
        ("$100$M", "trained on 100M tokens"),
        ("10,632", "a set of 10632 problems"),
        ("5×", "up to $5\\times$ faster"),
        ("5x", "up to $5\\times$ faster"),
        ("3.5x", "a 3.5× speed-up"),
        ("2.16", "by a factor of $2.16\\times$ under attack"),
        ("Conservation Law", "a novel conservation law links"),
        ("0.20%", "only 0.20% of the parameters"),
        ("1.08-bit", "with only 1.08-bit weights"),
    ],
)
def test_key_facts_match_after_normalisation(fact: str, answer: str) -> None:
    assert fact_present(fact, answer)


def test_title_labels_are_not_sentences() -> None:
    # A title ending in "?" must not become an uncited fragment.
    text = "*Is Attention Needed? A Study*: Claim one. [1]\n\n*Other*: Claim two [2]."
    assert answer_sentences(text) == [("Claim one.", True), ("Claim two [2].", True)]
    assert sentence_citation_rate(text) == 1.0


def test_key_facts_match_whole_tokens_only() -> None:
    assert not fact_present("5", "improves by 50 points")
    assert not fact_present("law", "lawful")
    assert not fact_present("3", "a 3x3 kernel")
    assert (
        key_fact_coverage(["conservation law", "alignment dominance"], "a conservation law") == 0.5
    )
    assert key_fact_coverage([], "anything") is None


def test_score_question_answered() -> None:
    scores = score_question(
        gold=["g1", "g2"],
        answerable=True,
        key_facts=["conservation law"],
        retrieved=["g1", "x", "g2"],
        answer="The conservation law holds [1]. Other work agrees [2].",
        abstained=False,
        cited=[(1, "g1"), (2, "x")],
    )
    assert scores["recall@1"] == 0.5
    assert scores["recall@5"] == 1.0
    assert scores["citation_validity"] == 1.0
    assert scores["cited_precision"] == 0.5
    assert scores["cited_recall"] == 0.5
    assert scores["sentence_citation_rate"] == 1.0
    assert scores["key_fact_coverage"] == 1.0
    assert scores["false_abstention_rate"] == 0.0
    assert scores["abstention_accuracy"] is None


def test_score_question_unanswerable_is_excluded_from_retrieval() -> None:
    scores = score_question(
        gold=[],
        answerable=False,
        key_facts=[],
        retrieved=["a", "b"],
        answer="The indexed ICML 2024 abstracts don't answer this question.",
        abstained=True,
        cited=[],
    )
    assert all(scores[k] is None for k in ("recall@1", "recall@10", "mrr@10", "ndcg@10"))
    assert scores["abstention_accuracy"] == 1.0
    assert scores["false_abstention_rate"] is None
    assert scores["citation_validity"] is None


def test_score_question_false_abstention_and_retrieval_only() -> None:
    refused = score_question(
        gold=["g"],
        answerable=True,
        key_facts=["x y"],
        retrieved=["g"],
        answer="The indexed ICML 2024 abstracts don't answer this question.",
        abstained=True,
        cited=[],
    )
    assert refused["false_abstention_rate"] == 1.0
    assert refused["key_fact_coverage"] == 0.0
    assert refused["cited_precision"] is None
    baseline = score_question(
        gold=["g"],
        answerable=True,
        key_facts=["x"],
        retrieved=["g"],
        answer=None,
        abstained=None,
        cited=None,
    )
    assert baseline["recall@1"] == 1.0
    assert all(baseline[k] is None for k in METRIC_KEYS[5:])


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    first, second = bootstrap_ci(values), bootstrap_ci(values)
    assert first == second
    assert first is not None and first[0] <= np.mean(values) <= first[1]
    assert bootstrap_ci([0.7, 0.7, None]) == [pytest.approx(0.7), pytest.approx(0.7)]
    assert bootstrap_ci([None, None]) is None


def test_cluster_bootstrap_resamples_groups() -> None:
    # Two groups with constant values: every resample mean is 0, 1 or 0.5-ish mixtures
    # weighted by group size, never a value a per-item resample could produce alone.
    values = [0.0, 0.0, 0.0, 1.0]
    interval = bootstrap_ci(values, groups=["a", "a", "a", "b"])
    assert interval is not None and interval[0] == 0.0 and interval[1] == 1.0


def test_aggregate_shape_and_values() -> None:
    rows = [
        {
            "metrics": {"recall@1": 1.0, "citation_validity": 1.0},
            "latency_ms": {"retrieve": 10.0, "answer": 100.0},
        },
        {"metrics": {"recall@1": 0.0}, "latency_ms": {"retrieve": 30.0, "answer": None}},
    ]
    block = aggregate(rows)
    assert set(block) == {*METRIC_KEYS, "latency_ms", "ci95"}
    assert block["recall@1"] == 0.5
    assert block["citation_validity"] == 1.0
    assert block["key_fact_coverage"] is None
    latency = block["latency_ms"]
    assert set(latency) == set(LATENCY_KEYS)
    assert latency["retrieve_p50"] == 10.0  # nearest rank: an observed value, never a blend
    assert latency["answer_p95"] == 100.0
    assert set(block["ci95"]) == {*METRIC_KEYS, "latency_ms"}


def test_a_stated_range_holds_when_some_number_of_it_is_near_the_gold_count() -> None:
    from eval.questions import Question
    from eval.sets import score
    from rag.types import Aggregate, Answer

    q = Question("s1", "How many papers combine X and Y?", ["p1"], True, "facet-count",
                 kind="count", gold_count=6)  # fmt: skip

    def said(count: int, touching: int) -> dict[str, float | None]:
        aggregate = Aggregate(kind="count", count=count, touching=touching, exact=False, papers=[])
        answer = Answer(question=q.question, answer="", abstained=False, backend="t", mode="t",
                        aggregate=aggregate)  # fmt: skip
        return score(q, answer)

    assert said(3, 4) == {**said(3, 4), "range_holds": 1.0, "count_within_25": 0.0}
    assert said(3, 0)["range_holds"] == 0.0  # 3 alone is not within 25 % of 6
    assert said(8, 4)["range_holds"] == 0.0  # 8 is already more than 7.5
    assert said(6, 0)["range_holds"] == 1.0 == said(6, 0)["count_within_25"]


def test_a_ranking_is_compared_by_levels_ties_in_any_order() -> None:
    from eval.sets import _levels

    said = [("B", 3), ("A", 3), ("C", 2)]
    assert _levels(said) == _levels([["A", 3], ["B", 3], ["C", 2]])
    assert _levels(said) != _levels([["A", 3], ["C", 3], ["B", 2]])


def test_an_institution_ranking_is_matched_by_the_golds_patterns() -> None:
    from eval.questions import Question
    from eval.sets import score
    from rag.types import Aggregate, Answer

    gold = [("Tsinghua", r"tsinghua", 140), ("Google", r"\bgoogle\b(?! deepmind)", 168)]
    q = Question("s1", "Which institutions had the most papers?", [], True,
                 "metadata-institutions", kind="metadata", exact=True, gold_institutions=gold)  # fmt: skip

    def said(ranking: list[tuple[str, int]]) -> dict[str, float | None]:
        aggregate = Aggregate(kind="metadata", count=len(ranking), exact=True, ranking=ranking)
        answer = Answer(question=q.question, answer="", abstained=False, backend="t", mode="t",
                        aggregate=aggregate)  # fmt: skip
        return score(q, answer)

    right = said([("Google", 168), ("Tsinghua University", 140)])
    assert (right["places_found"], right["places_counted"], right["exact"]) == (1.0, 1.0, 1.0)
    # Google DeepMind is not Google; a wrong count is found but not counted
    wrong = said([("Google DeepMind", 168), ("Tsinghua University", 139)])
    assert (wrong["places_found"], wrong["places_counted"], wrong["exact"]) == (0.5, 0.0, 0.0)
    # a row the gold does not hold spoils the counts
    extra = said([("Google", 168), ("Tsinghua University", 140), ("MIT", 129)])
    assert (extra["places_found"], extra["places_counted"]) == (1.0, 0.0)


def test_a_statistic_is_its_number_and_an_uncountable_one_claims_none() -> None:
    from eval.questions import Question
    from eval.sets import score
    from rag.types import Aggregate, AggregatePaper, Answer

    share = Question("s1", "What % of papers were orals?", ["p1"], True, "metadata-statistic",
                     kind="metadata", exact=True, gold_count=1, gold_value=50.0)  # fmt: skip
    names = Question("s2", "How many distinct authors?", [], True, "metadata-statistic",
                     kind="metadata", exact=True, gold_count=0, gold_value=9797)  # fmt: skip
    places = Question("s3", "How many institutions?", [], True, "metadata-statistic",
                      kind="metadata", exact=True, gold_count=0, uncountable=True)  # fmt: skip

    def said(
        q: Question, value: float | None, ids: list[str], count: int | None = 1, text: str = ""
    ) -> float:
        rows = [AggregatePaper(n=1, paper_id=i, title="t", authors=[]) for i in ids]
        aggregate = (
            None
            if count is None
            else Aggregate(kind="metadata", count=count, exact=True, papers=rows, value=value)
        )
        answer = Answer(question=q.question, answer=text, abstained=False, backend="t", mode="t",
                        aggregate=aggregate)  # fmt: skip
        exact = score(q, answer)["exact"]
        assert exact is not None
        return exact

    assert said(share, 50.0, ["p1"]) == 1.0
    assert said(share, 50.0, ["p2"]) == 0.0  # the right share of the wrong papers
    assert said(share, 49.9, ["p1"]) == 0.0
    assert said(names, 9797, [], 9797) == 1.0
    assert said(names, None, [], 9797) == 0.0  # a count without the statistic
    cannot = "The catalogue cannot count institutions exactly: …"
    assert said(places, None, [], None, cannot) == 1.0
    assert said(places, None, [], None) == 0.0  # silent: a misread question claims none too
    assert said(places, None, [], 1588, cannot) == 0.0
