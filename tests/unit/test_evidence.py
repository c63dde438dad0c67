"""Evidence scoring and confidence with a deterministic bag-of-words embedding."""

from __future__ import annotations

import pytest

from rag.answer.evidence import BOILERPLATE_WEIGHT, EvidenceScorer, confidence
from rag.answer.term_stats import TermStats
from rag.types import Paper, RetrievedPaper
from tests.support.fake_embedding import HashingEmbedding

FA = Paper(
    id="fa",
    title="Implicit Regularization in Feedback Alignment",
    abstract=(
        "Neural networks are everywhere. We identify a conservation law for feedback alignment "
        "that explains its implicit regularization. Code is available at https://github.com/x/fa."
    ),
)
RLHF = Paper(
    id="rlhf",
    title="Learning from Human Feedback",
    abstract="Human feedback improves alignment of language models. We collect preference data.",
)
OTHER = Paper(id="gnn", title="Graph Networks", abstract="Graph neural networks pass messages.")


def source(paper: Paper, dense_rank: int | None = 1, bm25_rank: int | None = 1) -> RetrievedPaper:
    return RetrievedPaper(paper=paper, score=1.0, dense_rank=dense_rank, bm25_rank=bm25_rank)


def scorer_with(*papers: Paper) -> EvidenceScorer:
    """A scorer whose term statistics count `papers` and the three shared ones."""
    counted = {p.id: p for p in (*papers, FA, RLHF, OTHER)}
    return EvidenceScorer(HashingEmbedding(), TermStats.counted(counted))


@pytest.fixture
def scorer() -> EvidenceScorer:
    return scorer_with()


def test_rare_terms_weigh_more(scorer: EvidenceScorer) -> None:
    stats = scorer.stats
    assert stats.idf("conserv") > stats.idf("network")


def test_adjacent_question_words_must_stay_adjacent(scorer: EvidenceScorer) -> None:
    query = scorer.query_terms("feedback alignment")
    together = scorer.lexical(query, "a study of feedback alignment")
    apart = scorer.lexical(query, "human feedback improves alignment")
    assert together == pytest.approx(1.0) and apart < together


def test_best_sentence_is_the_one_that_answers(scorer: EvidenceScorer) -> None:
    evidence = scorer.score("What conservation law explains feedback alignment?", [source(FA)])
    (best,) = evidence.best_for(1, limit=1)
    assert "conservation law" in best.text
    assert evidence.coverage > 0.5 and 0 < evidence.confidence < 1


def test_code_availability_sentences_are_discounted(scorer: EvidenceScorer) -> None:
    evidence = scorer.score("feedback alignment code github", [source(FA)])
    code = next(s for s in evidence.sentences if "github" in s.text)
    plain = scorer.lexical(
        scorer.query_terms("feedback alignment code github"), f"{FA.title} {code.text}"
    )
    assert code.lexical == pytest.approx(plain * BOILERPLATE_WEIGHT)


def test_relevance_ranks_the_paper_that_answers_first(scorer: EvidenceScorer) -> None:
    evidence = scorer.score("conservation law of feedback alignment", [source(RLHF), source(FA)])
    assert evidence.paper_relevance[2] > evidence.paper_relevance[1]


def test_agreement_counts_retrievers_that_rank_the_top_paper_high(scorer: EvidenceScorer) -> None:
    question = "feedback alignment"
    assert scorer.score(question, [source(FA, 1, 2)]).agreement == 1.0
    assert scorer.score(question, [source(FA, 1, 9)]).agreement == 0.5
    assert scorer.score(question, [source(FA, None, None)]).agreement == 0.0


def test_confidence_grows_with_every_signal() -> None:
    low = confidence(0.3, 0.2, 0.0)
    assert confidence(0.6, 0.2, 0.0) > low
    assert confidence(0.3, 0.8, 0.0) > low
    assert confidence(0.3, 0.2, 1.0) > low


def test_sentence_vectors_are_embedded_once(scorer: EvidenceScorer) -> None:
    model = scorer.embed_model
    assert isinstance(model, HashingEmbedding)
    scorer.score("feedback alignment", [source(FA)])
    first = model.calls
    scorer.score("conservation law", [source(FA)])
    assert model.calls == first  # the abstract's sentences came from the LRU


def test_no_sources_is_no_evidence(scorer: EvidenceScorer) -> None:
    evidence = scorer.score("anything", [])
    assert evidence.sentences == [] and evidence.confidence == 0.0


def test_a_question_of_frame_words_only_names_no_topic() -> None:
    from rag.answer.evidence import FRAME_TERMS
    from rag.text import content_terms

    assert set(content_terms("What does the paper contribute?")) <= FRAME_TERMS
    assert set(content_terms("What does the GraphsGPT paper contribute?")) - FRAME_TERMS


def test_a_name_of_another_retrieved_paper_is_not_a_missing_premise() -> None:
    ctan = Paper(
        id="ctan",
        title="Long Range Propagation on Continuous-Time Dynamic Graphs",
        abstract="We introduce CTAN, grounded within the ordinary differential equations framework.",
    )
    path = Paper(
        id="path",
        title="The Expressive Power of Path-Based Graph Neural Networks",
        abstract="We propose PATH-WL, color refinement based on shortest path distance information.",
    )
    scorer = scorer_with(ctan, path)
    question = "How do CTAN and PATH-WL differ in what they are built on?"
    evidence = scorer.score(question, [source(ctan), source(path, 2, 2)])
    assert evidence.gaps.unmentioned == []
    # a name no retrieved paper writes is still the premise the named paper lacks
    evidence = scorer.score("How does CTAN do on ImageNet?", [source(ctan), source(path, 2, 2)])
    assert evidence.gaps.unmentioned == ["ImageNet"]


def test_a_question_writing_a_papers_title_is_about_that_paper() -> None:
    sampler = Paper(
        id="pdds",
        title="Particle Denoising Diffusion Sampler",
        abstract="We sample from unnormalised densities with a particle scheme.",
    )
    images = Paper(
        id="img",
        title="Interpreting Diffusion Models",
        abstract="Our sampler reaches a state-of-the-art FID on CIFAR-10 image generation.",
    )
    scorer = scorer_with(sampler, images)
    question = "What FID does the Particle Denoising Diffusion Sampler reach on CIFAR-10?"
    evidence = scorer.score(question, [source(images), source(sampler, 2, 2)])
    relevance = evidence.paper_relevance
    assert max(relevance, key=lambda n: relevance[n]) == 2  # the titled paper, not the FID one
    assert evidence.gaps.source == 2 and evidence.gaps.descriptions  # its abstract has no FID


def test_words_no_abstract_writes_say_the_papers_do_not_cover_it() -> None:
    agents = Paper(
        id="agents",
        title="Benchmarking LLM Agents",
        abstract="We evaluate language model agents that browse websites and use tools.",
    )
    special = Paper(id="sp", title="Specialized Models", abstract="Specialized models win.")
    scorer = scorer_with(agents, special)
    question = "Which paper evaluates agents that browse Android smartphone websites?"
    evidence = scorer.score(question, [source(agents)])
    assert evidence.gaps.unwritten == ["Android"]
    # a verb or an example the question gives is how it is put, not what it is about
    asked = "Which agents strip websites, e.g. for quad meshes?"
    assert scorer.score(asked, [source(agents)]).gaps.unwritten == []
    assert scorer.score("Which agents act as traders?", [source(agents)]).gaps.unwritten == [
        "traders"
    ]
    # another ending or the British spelling of a word the corpus writes is that word
    for asked in ("Which agents were evaluated by benchmarkers?", "Which agents are specialised?"):
        assert scorer.score(asked, [source(agents)]).gaps.unwritten == []


def test_a_part_asked_of_a_paper_by_its_title_words_is_not_answered_by_another() -> None:
    from rag.answer.premises import title_run

    title = "Conditional Common Entropy for Instrumental Variable Testing"
    rare = lambda word: 1 if "entropy" in word.lower() else 300  # noqa: E731
    assert title_run("Which datasets test the conditional common entropy approach?", title, rare)
    assert not title_run("Which datasets test a common approach?", title, rare)
    # a run of words every other abstract uses ("large language models") names no paper
    assert not title_run("How do conditional common entropy methods?", title, lambda w: 300)
    cce = Paper(id="cce", title=title, abstract="We demonstrate it on real-world datasets.")
    other = Paper(id="o", title="Vision", abstract="We evaluate on ImageNet and COCO datasets.")
    scorer = scorer_with(cce, other)
    asked = "Which real-world datasets demonstrate the conditional common entropy approach?"
    evidence = scorer.score(asked, [source(cce), source(other, 2, 2)])
    assert [p.kind for p in evidence.gaps.missing] == ["name"]


def test_a_paper_named_by_a_rare_name_is_answered_however_generic_the_rest() -> None:
    from rag.answer.evidence import NAMED_CONFIDENCE

    coxsig = Paper(
        id="cox",
        title="Dynamic Survival Analysis with Controlled Latent States",
        abstract="We call the estimator CoxSig. It is shown on datasets from finance and food.",
    )
    scorer = scorer_with(coxsig)
    asked = "From which application areas do the real-world datasets used to evaluate CoxSig come?"
    evidence = scorer.score(asked, [source(coxsig), source(OTHER, 2, 2)])
    assert evidence.confidence >= NAMED_CONFIDENCE
    # a name only it writes picks it out wherever the retrievers put it
    assert scorer.score(asked, [source(coxsig, None, 9)]).confidence >= NAMED_CONFIDENCE
    # a name a few papers write: only when both retrievers rank it high
    shared = [
        Paper(id=f"c{i}", title=f"Survival {i}", abstract="CoxSig is a baseline.") for i in range(3)
    ]
    scorer = scorer_with(coxsig, *shared)
    assert scorer.score(asked, [source(coxsig, None, 9)]).confidence < NAMED_CONFIDENCE
    assert scorer.score(asked, [source(coxsig)]).confidence >= NAMED_CONFIDENCE


def test_a_name_a_paper_only_mentions_names_it_only_when_a_retriever_agrees() -> None:
    from rag.answer.evidence import NAMED_CONFIDENCE

    dmc = Paper(
        id="dmc",
        title="Dynamic Memory Compression",
        abstract="We compress the cache. Throughput rises 3x on an NVIDIA H100 GPU.",
    )
    scorer = scorer_with(dmc)
    asked = "what's the cheapest place to rent an H100 by the hour right now?"
    assert scorer.score(asked, [source(dmc, 5, 4)]).confidence < NAMED_CONFIDENCE
    assert scorer.score(asked, [source(dmc, 5, 2)]).confidence >= NAMED_CONFIDENCE


def test_the_paper_a_rare_name_picks_out_is_the_one_judged() -> None:
    qurating = Paper(
        id="qu",
        title="QuRating: Selecting High-Quality Data for Training Language Models",
        abstract="We train a QuRater model to learn scalar ratings from pairwise judgments.",
    )
    hours = Paper(
        id="hrs",
        title="Protein Ensembles",
        abstract="Training takes 200 wall-clock hours on hardware with eight GPUs.",
    )
    scorer = scorer_with(qurating, hours)
    asked = "How many wall-clock hours did it take to train the QuRater model, on what hardware?"
    evidence = scorer.score(asked, [source(hours), source(qurating, 2, 2)])
    assert evidence.gaps.source == 2  # the QuRater paper, not the one about hours


def test_a_paper_far_less_likely_than_the_best_does_not_answer_for_it() -> None:
    best = Paper(
        id="best",
        title="Compositional Capabilities of Autoregressive Transformers",
        abstract="We train autoregressive Transformers on compositions of capabilities.",
    )
    far = Paper(id="far", title="Vision", abstract="A trained model with 2 layers is studied.")
    scorer = scorer_with(best, far)
    asked = "How many layers do the autoregressive transformers trained on compositions have?"
    evidence = scorer.score(asked, [source(best), source(far, 9, 9)])
    assert [p.kind for p in evidence.gaps.missing] == ["number"]


def test_a_misspelt_name_of_a_retrieved_paper_is_no_absent_topic() -> None:
    from rag.answer.gaps import _misspelt

    pu = Paper(id="pu", title="PU learning", abstract="We propose PULCPBF for PU learning.")
    assert _misspelt("PULCBPF", [source(pu)])
    assert not _misspelt("wildfire", [source(pu)])


def test_another_papers_coined_name_is_its_own_even_when_its_words_are_common() -> None:
    furl = Paper(
        id="furl",
        title="FuRL: Visual-Language Models as Fuzzy Rewards for Reinforcement Learning",
        abstract="FuRL aligns visual-language model rewards for reinforcement learning.",
    )
    car = Paper(
        id="car",
        title="Code as Reward: Empowering Reinforcement Learning with VLMs",
        abstract="VLM-CaR writes programs from feedback.",
    )
    common = [
        Paper(id=f"c{i}", title="Cars and VLM", abstract="A VLM drives a car.") for i in range(8)
    ]
    counted = {p.id: p for p in (furl, car, *common, FA, RLHF, OTHER)}
    exact = {"VLM-CaR": 1, "SimCLR": 9}
    stats = TermStats.counted(counted)
    stats.name_count = lambda name: exact.get(name, 0)
    scorer = EvidenceScorer(HashingEmbedding(), stats)
    question = "What do FuRL and VLM-CaR each do to turn visual-language models into fuzzy rewards?"
    evidence = scorer.score(question, [source(furl), source(car, 2, 2)])
    assert evidence.gaps.source == 1 and "VLM-CaR" not in evidence.gaps.unmentioned
    exact["VLM-CaR"] = 9  # a name many papers write (a baseline's) stays a premise FuRL lacks
    evidence = scorer.score(question, [source(furl), source(car, 2, 2)])
    assert evidence.gaps.source == 1 and "VLM-CaR" in evidence.gaps.unmentioned
