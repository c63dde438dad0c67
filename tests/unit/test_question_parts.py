"""What a question asks for, part by part, and whether an abstract supplies it."""

from __future__ import annotations

import pytest

from rag.answer.contradictions import contradicted
from rag.answer.premises import (
    names_the_paper,
    unmentioned,
    unwritten,
    without_request,
)
from rag.answer.question_parts import is_quantity, question_parts
from rag.answer.supplied import answer_supplies, check_abstract
from rag.text import writes_name

MEDUSA_TITLE = "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads"
MEDUSA = (
    "Large Language Models (LLMs) employ auto-regressive decoding that requires sequential "
    "computation. We present Medusa, an efficient method that augments LLM inference by "
    "adding extra decoding heads to predict multiple subsequent tokens in parallel. "
    "Medusa-1: Medusa is directly fine-tuned on top of a frozen backbone LLM. "
    "We evaluate Medusa on models of various sizes and training procedures. Our experiments "
    "demonstrate that Medusa-1 can achieve over 2.2$\\times$ speedup without compromising "
    "generation quality, while Medusa-2 further improves the speedup to 2.3-2.8$\\times$."
)
WORKARENA_TITLE = "WorkArena: How Capable are Web Agents at Solving Common Knowledge Work Tasks?"
WORKARENA = (
    "We study the use of large language model-based agents for interacting with software. "
    "To this end, we propose WorkArena, a remote-hosted benchmark of 33 tasks based on the "
    "widely-used ServiceNow platform. We also introduce BrowserGym, an environment."
)


def rare(text: str) -> int:
    """Document frequency for the tests: names and odd words are rare, the rest common."""
    return 1 if any(c.isupper() for c in text) or text in {"combustion", "turbulent"} else 500


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("33", True),
        ("2.2$\\times$", True),
        ("2-30X", True),
        ("260B", True),
        ("1.3B-parameter", True),
        ("93%,", True),
        ("five", True),
        ("$O(N)$", True),
        ("GPT-4", False),
        ("CIFAR-10", False),
        ("3D", False),
        ("H100", False),
        ("tasks", False),
    ],
)
def test_quantities_are_told_from_names_with_digits(token: str, expected: bool) -> None:
    assert is_quantity(token) is expected


def test_a_two_part_question_splits_into_typed_parts() -> None:
    parts = question_parts(
        "How many GPUs were used to train Medusa's heads, and for how many hours?"
    )
    assert [p.kind for p in parts] == ["number", "number"]
    assert "hour" in parts[1].text
    parts = question_parts("Which enterprise platform is WorkArena built on, and how many tasks?")
    assert [p.kind for p in parts] == ["name", "number"]


def test_a_preamble_joins_the_part_it_introduces() -> None:
    parts = question_parts(
        "For the watermarking defence, how much clean accuracy is lost, and what latency is added?"
    )
    assert len(parts) == 2
    assert parts[0].text.startswith("For the watermarking defence, how much")


def test_medusa_gpu_count_and_hours_are_missing() -> None:
    question = "How many GPUs were used to train Medusa's heads, and for how many hours?"
    gaps = check_abstract(question, question_parts(question), MEDUSA, MEDUSA_TITLE, 1)
    assert len(gaps.missing) == 2
    assert gaps.descriptions[0].startswith("how many GPUs")


def test_stated_parts_are_supplied_with_their_sentence() -> None:
    question = (
        "How many tasks does WorkArena contain, and which enterprise platform are they built on?"
    )
    gaps = check_abstract(question, question_parts(question), WORKARENA, WORKARENA_TITLE, 1)
    assert not gaps
    assert gaps.supplied == {0: 1, 1: 1}


def test_a_speedup_asked_is_supplied_by_a_times_figure() -> None:
    question = "How much faster is Medusa-1 than plain decoding?"
    gaps = check_abstract(question, question_parts(question), MEDUSA, MEDUSA_TITLE, 1)
    assert not gaps.missing


def test_names_asked_need_a_name_the_question_does_not_hold() -> None:
    question = "Which datasets was Medusa evaluated on?"
    gaps = check_abstract(question, question_parts(question), MEDUSA, MEDUSA_TITLE, 1)
    assert gaps.descriptions == ["which datasets was Medusa evaluated on"]


def test_a_premise_the_named_paper_does_not_share_is_reported() -> None:
    question = "Which turbulent combustion benchmarks is WorkArena evaluated on?"
    assert names_the_paper(question, WORKARENA_TITLE, WORKARENA, rare)
    assert unmentioned(question, WORKARENA_TITLE, WORKARENA, rare) == [
        "combustion"
    ]  # "turbulent": an adjective only


def test_acronyms_count_as_mentioned_by_their_words() -> None:
    question = "Which LLMs does WorkArena test?"
    assert unmentioned(question, WORKARENA_TITLE, WORKARENA, rare) == []


def test_an_unnamed_paper_is_not_checked_for_premises() -> None:
    assert not names_the_paper(
        "Which benchmark has office tasks?", WORKARENA_TITLE, WORKARENA, rare
    )


def test_a_name_is_found_as_a_word_not_inside_one() -> None:
    assert (
        names_the_paper("How does ALE handle it?", "Scalable methods", "A scalable way.", rare)
        is False
    )
    assert writes_name("IC50", "the half-inhibitory concentration $IC_{50}$ can mislead")
    assert writes_name("GPT-4", "we prompt GPT4 and its variants")
    assert writes_name("LLM", "several LLMs agree")
    assert not writes_name("ALE", "a scalable estimator")


def test_an_llm_answer_is_checked_the_same_way() -> None:
    question = "How many tasks does WorkArena contain?"
    parts = question_parts(question)
    assert answer_supplies(question, parts, "WorkArena has 33 tasks [1].") == []
    left = answer_supplies(question, parts, "The abstract does not state it [1].")
    assert [p.kind for p in left] == ["number"]


def test_a_citation_marker_is_not_a_quantity() -> None:
    question = "How many GPUs were used to train the heads?"
    parts = question_parts(question)
    left = answer_supplies(question, parts, "The heads are trained on GPUs [1].")
    assert [p.kind for p in left] == ["number"]


def test_long_blank_runs_split_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    parts = question_parts("How many tasks" + " " * 20_000 + "and which platform?")
    assert time.perf_counter() - started < 1.0
    assert [p.kind for p in parts] == ["number", "name"]


@pytest.mark.parametrize(
    "question",
    [
        "In which ICML paper is WorkArena introduced, and how many tasks does it have?",
        "Has anyone built a benchmark like WorkArena for the 2024 conference?",
        "What did the authors of WorkArena build, according to the abstract?",
    ],
)
def test_words_about_the_corpus_itself_are_never_premises(question: str) -> None:
    # every paper here is an ICML 2024 paper with an abstract and authors
    assert unmentioned(question, WORKARENA_TITLE, WORKARENA, rare) == []


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What score function does the sampler learn?", "other"),
        ("What cost function is being minimized, and over which variables?", "other"),
        ("What FID does the sampler reach?", "number"),
        ("What rate of convergence does the method prove?", "number"),
        ("What learning rate schedule is used?", "other"),
    ],
)
def test_a_measure_word_before_a_noun_asks_for_that_thing(question: str, kind: str) -> None:
    assert question_parts(question)[0].kind == kind


def test_datasets_are_supplied_by_their_names_without_the_word() -> None:
    title = "RL-CFR: Improving Action Abstraction with Reinforcement Learning"
    abstract = (
        "We introduce RL-CFR, a novel reinforcement learning approach. In experiments on "
        "Heads-up No-limit Texas Hold'em, RL-CFR outperforms ReBeL's replication and Slumbot."
    )
    question = "Which baselines does RL-CFR beat?"
    assert not check_abstract(question, question_parts(question), abstract, title, 1).missing


def test_the_papers_own_parts_do_not_name_what_was_asked() -> None:
    title = "DFlow: Combining Denoising AutoEncoder and Normalizing Flow for Waveforms"
    abstract = (
        "DFlow integrates NF and DAE, improving performance compared to standard NF models. "
        "It achieves the highest MOS on commonly used benchmarks."
    )
    question = "What MOS does DFlow reach, and on which datasets was it measured?"
    gaps = check_abstract(question, question_parts(question), abstract, title, 1)
    assert gaps.descriptions == ["what MOS does DFlow reach", "on which datasets was it measured"]


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        (
            "Why do compound returns end up with higher variance than one n-step return?",
            "We demonstrate the ability of compound returns to reduce variance.",
        ),
        (
            "Why do the proposed algorithms fall behind Decision Transformer on navigation?",
            "The proposed algorithms significantly surpass Decision Transformer on navigation.",
        ),
        (  # the thing that goes the other way, by its acronym
            "Why do the proposed algorithms fall behind Decision Transformer on navigation?",
            "The proposed algorithms significantly surpass DT on navigation benchmarks.",
        ),
    ],
)
def test_a_premise_the_abstract_turns_around_is_reported(question: str, sentence: str) -> None:
    sentences = ["We study returns in reinforcement learning.", sentence]
    assert contradicted(question, sentences, "Averaging Returns") == sentence


@pytest.mark.parametrize(
    "question",
    [
        # the premise is what the paper undoes, not a claim
        "Which papers tackle the exponential number of tests needed to learn the graph?",
        # asked both ways: no premise
        "Do compound returns increase or reduce variance?",
        # the same direction as the abstract
        "By how much do compound returns reduce variance?",
    ],
)
def test_no_contradiction_without_a_claim_against_the_abstract(question: str) -> None:
    sentences = [
        "Compound returns reduce variance.",
        "Our algorithm needs only a polynomial number of tests to learn the graph.",
    ]
    assert contradicted(question, sentences, "A Paper") == ""


def test_a_direction_is_turned_only_by_the_same_thing_going_the_other_way() -> None:
    sentence = "First-order methods have reduced variance but fail in contact-rich locomotion."
    question = "How much more reward does AHAC collect on contact-rich locomotion tasks?"
    # "reduced variance" says nothing of "more reward"
    assert contradicted(question, [sentence, "AHAC avoids stiff contact."], "AHAC") == ""
    fewer = "AHAC collects less reward than PPO on contact-rich locomotion tasks."
    assert contradicted(question, [fewer], "AHAC") == fewer


def test_percent_is_written_as_a_sign() -> None:
    abstract = "ASMR reaches within 2% of a fully sampled classifier using 8% of the k-space."
    question = "What share of k-space does ASMR need to come within a couple of percent?"

    def rarely(word: str) -> int:  # abstracts write "%": the word itself is rare in them
        return 1 if word.startswith("percent") else rare(word)

    assert unmentioned(question, "Adaptive Sampling", abstract, rarely) == []


def test_an_order_answers_at_what_rate() -> None:
    abstract = (
        "We study word sensitivity of random features. The word sensitivity of standard "
        "random features is of order $1/\\sqrt{n}$ and decays with the length of the text."
    )
    question = "At what rate does the word sensitivity of random features shrink?"
    assert not check_abstract(question, question_parts(question), abstract, "WS", 1).missing


def test_a_measure_in_the_plural_asks_for_a_number() -> None:
    assert question_parts("Which model sizes were trained?")[0].kind == "number"


def test_opposite_settings_turn_a_premise_around() -> None:
    sentence = "We propose a self-supervised loss that learns from unlabeled molecule graphs."
    question = "Which supervised loss is used on labeled molecule graphs?"
    assert contradicted(question, [sentence], "Graph Pretraining") == sentence
    # "self-supervised" and "non-convex" are not "supervised" and "convex"
    assert contradicted("Why is the self-supervised loss fast on molecules?", [sentence], "T") == ""
    nonconvex = "Our analysis covers non-convex losses of deep networks."
    assert (
        contradicted("Why are the convex losses of deep networks easy?", [nonconvex], "T")
        == nonconvex
    )


def test_a_number_of_kinds_does_not_count_the_things() -> None:
    # "two types of agents" says how many types there are, not how many agents
    abstract = (
        "We simulate a virtual town with two types of agents, restaurant agents and customers."
    )
    question = "How many restaurant agents does a simulation include?"
    gaps = check_abstract(question, question_parts(question), abstract, "CompeteAI", 1)
    assert [p.kind for p in gaps.missing] == ["number"]
    question = "How many types of agents does the town have?"
    assert not check_abstract(question, question_parts(question), abstract, "CompeteAI", 1).missing


def test_a_bare_size_of_a_gain_is_answered_by_any_reported_margin() -> None:
    abstract = (
        "Experiments on four benchmarks show gains of up to 8.6 absolute points on TruthfulQA."
    )
    question = "How big was the best gain?"
    assert not check_abstract(question, question_parts(question), abstract, "Sharpness", 1).missing


def test_a_federated_paper_compared_with_centralized_training_is_no_contradiction() -> None:
    sentence = "Minimizing local sharpness might not align SAM in FL with centralized training."
    question = "Why do more local steps help federated learning with heterogeneous clients?"
    assert contradicted(question, [sentence], "Federated SAM") == ""
    # the other way round the premise is wrong: the paper is federated, not centralized
    premise = "How does this centralized method train the local models of clients?"
    assert contradicted(premise, ["A federated method trains local models of clients."], "X")


def test_statuses_and_accented_words_are_no_unwritten_premise() -> None:
    from rag.answer.premises import unwritten

    counts = {"schrödinger": 9, "equat": 40, "diffus": 300, "model": 900}
    count = lambda term: counts.get(term, 0)  # noqa: E731
    never = lambda stem: False  # noqa: E731
    asked = "Which Oral papers solve Schrödinger equations with diffusion models?"
    assert unwritten(asked, count, never) == []
    assert unwritten("Which papers run on Android?", count, never) == ["Android"]


def test_a_versioned_name_is_not_mentioned_by_another_version() -> None:
    abstract = "We evaluate GPT-3.5 on reasoning tasks."
    assert unmentioned("How does GPT-4 do on these tasks?", "Reasoning", abstract, rare) == [
        "GPT-4"
    ]


def test_another_count_of_the_same_things_turns_a_premise_around() -> None:
    sentence = (
        "Building on the offset paradigm, two algorithms are proposed: one for known sources."
    )
    question = "What does the third of its three algorithms add beyond the other two variants?"
    assert contradicted(question, ["We study transfer learning.", sentence], "T") == sentence
    # the same count, or a count of other things (years are no count), is no contradiction
    assert contradicted("What do its two algorithms do?", [sentence], "T") == ""
    assert contradicted("Which three datasets is it tested on?", [sentence], "T") == ""
    years = "Models will be trained on 2026 and 2032 datasets."
    assert contradicted("Which 3 datasets are used?", [years], "T") == ""


def test_a_setting_the_title_turns_around() -> None:
    title = "A General Online Algorithm for Optimizing Complex Performance Metrics"
    question = (
        "The general algorithm for complex metrics works offline; how much memory does it need?"
    )
    assert contradicted(question, ["It maximizes metrics."], title) == title
    # compared with: not a premise about the paper; a direction is no claim on the title
    compared = "By what factor does the general algorithm beat a version trained offline?"
    assert contradicted(compared, ["It maximizes metrics."], title) == ""
    improved = "Does a sparse topology hurt the generalization of decentralized SGD?"
    assert contradicted(improved, ["We analyse SGD."], "Improved Generalization of SGD") == ""


def test_a_rare_word_only_earlier_work_has_is_not_the_papers() -> None:
    def doc_freq(word: str) -> int:
        return 5

    earlier = (
        "Existing object-centric models, due to their reliance on RNN-based implementation, "
        "show poor stability."
    )
    ours = "We propose PSB, which binds slots in parallel with causal attention."
    question = "How does the RNN-based slot update in PSB keep training stable?"
    assert contradicted(question, [earlier, ours], "PSB for Videos", doc_freq) == earlier
    without = "We construct a diffusion process without requiring heat kernel estimations."
    asked = "How does the Riemannian Diffusion Mixture approximate the heat kernel?"
    assert contradicted(asked, [without], "Mixture of Diffusions", doc_freq) == without
    # asked about what the paper changes, or not of how it works, or the paper's own use
    for fine in (
        "How does PSB fix the instability of RNN-based slot updates?",
        "Has anyone made RNN-based slot updates stable?",
    ):
        assert contradicted(fine, [earlier, ours], "PSB for Videos", doc_freq) == ""
    own = "We show previous slot models fail, and our RNN-based update is stable."
    assert contradicted(question, [own], "PSB for Videos", doc_freq) == ""


def test_a_name_is_a_dataset_only_in_a_sentence_about_testing() -> None:
    title = "DUPLEX: Dual GAT for Complex Embedding of Directed Graphs"
    method = "It leverages Hermitian adjacency decomposition for directional neighbor modeling."
    question = "Which directed graph datasets was DUPLEX benchmarked on?"
    gaps = check_abstract(question, question_parts(question), method, title, 1)
    assert gaps.missing
    tested = method + " We report results on the Cora-ML and Citeseer directed graphs."
    assert not check_abstract(question, question_parts(question), tested, title, 1).missing


def test_a_setting_the_question_sets_the_paper_against_is_no_premise() -> None:
    title = "WISER: Weak Supervision and Supervised Representation Learning"
    question = "How does WISER depart from the usual unsupervised representation learning?"
    assert contradicted(question, ["WISER predicts drug response."], title) == ""


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # a name's number, a version, a decimal or a multiplier is no count of things
        ("How do Llama 2 models respond to the prompts?", "We evaluate 7 models and two datasets."),
        ("How well does the attack transfer to ResNet-50 models?", "We test on 3 models."),
        ("Where does the 2.5 times speedup come from?", "It is up to 3 times faster."),
        # the abstract says "always" itself
        (
            "Why does the proposed solver always return feasible routes?",
            "Our solver always returns feasible routes, whose quality depends on the size.",
        ),
    ],
)
def test_no_count_or_always_premise_where_the_abstract_agrees(question: str, sentence: str) -> None:
    assert contradicted(question, [sentence], "A Paper") == ""


@pytest.mark.parametrize(
    "sentence",
    [
        "Compared to prior works, EMC2 is the first algorithm with global convergence.",
        "Pareto optimal watermarks are shown to outperform existing robust watermarks.",
        "CB2Ms leverage a two-fold memory to reapply previous interventions.",
        "It does not require full gradients but nevertheless achieves optimal complexity.",
    ],
)
def test_a_comparison_with_earlier_work_is_the_papers_own_claim(sentence: str) -> None:
    def doc_freq(word: str) -> int:
        return 5

    for word in ("convergence", "watermarks", "reapply", "nevertheless"):
        question = f"How does the method reach its {word}?"
        assert contradicted(question, [sentence], "T", doc_freq) == ""


@pytest.mark.parametrize(
    ("question", "abstract"),
    [
        # a link's user name is no model's name
        ("Which pre-trained foundation model does FineSSL fine-tune?",
         "FineSSL adapts pre-trained foundation models. Code: https://github.com/Gank0078/FineSSL."),
        # "(4)" numbers a finding, it counts no layers
        ("How many layers does the studied Transformer have?",
         "We show that: (1) Transformers compose functions; (4) the attention layers matter."),
        # "three steps" says no speed-up
        ("By how much does FRPI speed up convergence compared with safe RL methods?",
         "FRPI is divided into three steps that speed up convergence of safe RL."),
        # an abbreviation of words, and a field's acronym, name no hardware
        ("On what hardware were the Deep Fusion experiments run?",
         "Training large language models (LLMs) is costly. Deep Fusion runs on NLP tasks."),
        # a complexity class is no dataset, and "data sets" are datasets
        ("Which two data sets are the partial-optimality algorithms evaluated on?",
         "The problem is NP-hard and APX-hard. We evaluate the algorithms on two data sets."),
        # others' methods are asked by name
        ("Which existing behavioral-distance RL algorithms was BeigeMaps plugged into?",
         "BeigeMaps improve the policy performance of prior behavioral distance based RL."),
    ],
)  # fmt: skip
def test_a_detail_the_abstract_does_not_give_is_missing(question: str, abstract: str) -> None:
    assert check_abstract(question, question_parts(question), abstract, "A Paper", 1).missing


@pytest.mark.parametrize(
    ("question", "abstract"),
    [
        ("By how much does AHAC beat model-free baselines?",
         "AHAC attains 40% more reward than model-free baselines."),
        ("How much faster is STATA?", "STATA trains spiking transformers three times faster."),
        # what the method works out, not a number asked of the abstract
        ("Is there a method that works out by itself how much of the data is corrupted?",
         "The approach automatically infers the corruption level."),
        ("Besides segmentation, what kinds of models can CosPGD evaluate?",
         "CosPGD evaluates optical flow and image restoration models."),
        ("Between which years will models use up the stock of human text?",
         "Models will use up the stock of public human text between 2026 and 2032."),
        ("Which baselines does PHAZE beat?", "PHAZE outperforms Megatron-LM and Alpa."),
    ],
)  # fmt: skip
def test_a_detail_the_abstract_gives_is_not_missing(question: str, abstract: str) -> None:
    assert not check_abstract(question, question_parts(question), abstract, "A Paper", 1).missing


def test_a_premise_the_title_states_is_not_turned() -> None:
    sentence = "Barrier methods work beyond their standard area of convex optimization."
    question = "What complexity do barrier methods attain for constrained non-convex problems?"
    assert (
        contradicted(question, [sentence], "Barrier Algorithms for Non-Convex Optimization") == ""
    )
    assert contradicted(question, [sentence], "A Paper") == sentence


def test_a_growth_the_abstract_says_is_absent_is_turned() -> None:
    sentence = "Its sample complexity is independent of the number of objectives."
    question = "How quickly does the sample complexity of MOAC grow with the number of objectives?"
    assert contradicted(question, [sentence], "Multi-Objective Actor-Critic") == sentence
    # independent of something else: no contradiction
    other = "Its sample complexity is independent of the discount factor."
    assert contradicted(question, [other], "Multi-Objective Actor-Critic") == ""


def test_an_earlier_work_the_abstract_says_does_not_exist_is_reported() -> None:
    sentence = (
        "To the best of our knowledge, this is the first quantum reinforcement learning "
        "algorithm with logarithmic worst-case regret."
    )
    question = (
        "Which earlier quantum reinforcement learning algorithm with logarithmic regret does "
        "the exploration algorithm improve on?"
    )
    assert contradicted(question, [sentence], "Quantum Exploration") == sentence
    # not asked for an earlier one: "first" says nothing against it
    assert (
        contradicted("How does the quantum algorithm get logarithmic regret?", [sentence], "Q")
        == ""
    )


def test_evaluative_words_are_no_premise() -> None:
    abstract = "PyJuice is 1-6x faster and uses 2-5x less GPU memory than earlier systems."
    question = "Given that PyJuice makes training cheaper, how much faster is it?"

    def rarely(word: str) -> int:
        return 1 if word.startswith("cheap") else rare(word)

    assert unmentioned(question, "Scaling Circuits", abstract, rarely) == []


def test_a_title_with_a_direction_word_still_lets_a_premise_be_turned() -> None:
    sentence = "Our method substantially reduces forgetting of old tasks in continual learning."
    question = "Why does the method lead to more forgetting of old tasks?"
    title = "Learning More with Less: Continual Learning via Sparse Replay"
    assert contradicted(question, [sentence], title) == sentence


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Do you know how many GPUs were used to train Medusa?", "number"),
        ("I'd like to know how many layers the model has.", "number"),
    ],
)
def test_knowing_how_many_still_asks_for_a_number(question: str, kind: str) -> None:
    assert question_parts(question)[0].kind == kind


@pytest.mark.parametrize(
    "abstract",
    [
        "It speeds up training by a factor of two.",
        "It improves accuracy by five points.",
        "It improves sampling speed by an order of magnitude.",
        "We compare against proximal policy optimization (PPO) and soft actor-critic (SAC).",
    ],
)
def test_magnitudes_and_defined_names_answer(abstract: str) -> None:
    for question in ("By how much does it improve?", "Which baseline methods does it beat?"):
        parts = question_parts(question)
        if parts[0].kind == ("name" if "(" in abstract else "number"):
            assert not check_abstract(question, parts, abstract, "A Paper", 1).missing


def test_a_single_bracketed_number_is_a_count() -> None:
    question = "How many seeds were used?"
    abstract = "Results are averaged over (5) seeds."
    assert not check_abstract(question, question_parts(question), abstract, "T", 1).missing
    assert not question_parts("How much power does the chip consume?")[0].compared


@pytest.mark.parametrize(
    ("question", "abstract"),
    [
        # a degree answers "how much better" and "how much code"
        ("How much better can the condensing get than with the standard rule?",
         "It can produce dramatically better condensing than the standard rule."),
        ("How much code does adding HyperAgent to DQN take?",
         "Implementing HyperAgent requires minimal code addition to frameworks like DQN."),
        # "what about …" turns to the next part, it asks for no accuracy figure
        ("Which discretizations does it analyse; what about prediction accuracy, which "
         "improves it?",
         "We analyse the symplectic and Euler discretizations; the symplectic one improves "
         "prediction accuracy."),
    ],
)  # fmt: skip
def test_degrees_and_follow_ups_are_answers(question: str, abstract: str) -> None:
    assert not check_abstract(question, question_parts(question), abstract, "A Paper", 1).missing


def test_a_labelled_setting_beside_the_self_supervised_one_the_abstract_writes() -> None:
    sentences = [
        "Models trained on a labeled source domain often generalize poorly out of domain.",
        "Self-supervised pretraining is a promising method to mitigate this drop.",
    ]
    question = "Does fine-tuning after self-supervised pretraining generalize out of domain?"
    assert contradicted(question, sentences, "Connect Later") == ""
    assert contradicted(question, sentences[:1], "Connect Later") == sentences[0]


def test_everyday_participles_are_no_premise() -> None:
    abstract = "ODIN trains two linear heads on a shared reward model and uses one in RL."
    question = "How many linear heads does ODIN train, and which one gets thrown away?"

    def rarely(word: str) -> int:
        return 1 if word == "thrown" else rare(word)

    assert unmentioned(question, "ODIN", abstract, rarely) == []


def test_how_the_asker_talks_is_no_premise() -> None:
    title = "Position: Tensor Networks are a Valuable Asset for Green AI"
    abstract = "This position paper argues that tensor networks save energy."
    asked = "There was a position paper saying tensor networks are good. Why do they think so?"
    assert "saying" not in unmentioned(asked, title, abstract, rare)  # everyday English
    rl = "What happens to deep RL policies?"
    assert (
        unmentioned(rl, "Diagnosing Deep Reinforcement Learning", "We study policies.", rare) == []
    )
    assert "ELI5" not in unmentioned(
        without_request("ELI5: how does PcLast plan?"), "PcLast", "", rare
    )
    assert unwritten(
        "Does it need under a tenth of the storage?", lambda t: 0, lambda t: False
    ) == ["storage"]


def test_how_one_thing_stands_to_another_is_no_premise() -> None:
    # "its sibling AdaMDOS", "the LLM underneath", "a floor for every algorithm": how the
    # asker relates things, not a topic the paper lacks; a thing the paper lacks still is
    abstract = "We propose AdaMDOS and AdaMDOF for decentralized nonconvex optimization."
    asked = "How fast is AdaMDOF, and what does its sibling AdaMDOS get underneath?"
    title = "Faster Adaptive Decentralized Learning"

    def rarely(word: str) -> int:  # the asker's words are as rare here as a topic's
        return 1 if word in ("sibling", "underneath") else rare(word)

    assert unmentioned(asked, title, abstract, rarely) == []
    lacking = "How does AdaMDOF model turbulent combustion?"
    assert unmentioned(lacking, title, abstract, rarely) == ["combustion"]
    assert unwritten("Is 3 also a floor for its predecessors?", lambda t: 0, lambda t: False) == []


def test_how_many_points_asks_for_a_margin() -> None:
    question = "By how many points does Uni-Med beat MedVInT-PMC-VQA?"
    abstract = "Uni-Med is accurate, outperforming MedVInT-PMC-VQA by 1.22% and 0.92%."
    assert check_abstract(question, question_parts(question), abstract, "Uni-Med", 1).missing == []


def test_which_metrics_asks_for_their_names() -> None:
    question = "Which metrics show that the codec beats earlier codecs?"
    abstract = "Our codec beats earlier codecs in distortion and perception."
    gaps = check_abstract(question, question_parts(question), abstract, "A codec", 1)
    assert [p.kind for p in gaps.missing] == ["name"]
    named = "Our codec beats earlier codecs on FID and LPIPS."
    assert check_abstract(question, question_parts(question), named, "A codec", 1).missing == []


def test_a_quoted_value_the_abstract_gives_otherwise_is_contradicted() -> None:
    sentences = ["X reaches 80.1% top-1 accuracy on ImageNet.", "Training is 3x faster."]
    asked = "Given that X reaches 90% top-1 accuracy on ImageNet, why does it work?"
    assert contradicted(asked, sentences, "X") == sentences[0]
    rounded = "Given that X reaches 80% top-1 accuracy on ImageNet, why does it work?"
    assert contradicted(rounded, sentences, "X") == ""  # people round
    other = "Given 90% label noise, how does X cope?"  # not what the abstract measures
    assert contradicted(other, sentences, "X") == ""


@pytest.mark.parametrize(
    ("asked", "sentence"),
    [
        ("Why do consistency models converge more slowly with the estimator?",
         "Training consistency models with our estimator, we report a significant increase in "
         "both convergence speed and sample quality."),
        ("Why does the local method use more memory than back-propagation on ImageNet?",
         "On ImageNet our local method attains competitive performance with back-propagation "
         "while saving more than 40% memory."),
        ("Why do the learned codes lose performance with classical decoders?",
         "The learned codes show enhanced performance with classical decoders."),
        ("How does the planner precompute the coverage path offline from a known map?",
         "When the map is unknown, the coverage path is planned online, which cannot be "
         "addressed by offline planning methods."),
        ("Since MIREL trains on fully labelled instances, how does it model uncertainty?",
         "MIREL addresses weakly-supervised uncertainty of instances."),
        ("How large is the approximation error the smoothing algorithm accepts?",
         "The smoothing algorithm yields exact solutions, not just approximations."),
        ("What lets the testing framework cut the number of test questions in half?",
         "Our testing framework reduces question count by 20% on average."),
        ("Which part of SupBYOL makes supervision raise the intra-class variance?",
         "Providing supervision to SupBYOL reduces intra-class variance."),
        ("What happens if the cluster number K it requires as input is set wrongly?",
         "Our clustering is free from the input of a predefined cluster number K."),
        ("If volume-preserving flows are universal, what is left for affine couplings?",
         "We show that volume-preserving normalizing flows are not universal."),
        ("How was the link-prediction bias validated on protein interaction networks?",
         "We validate the link-prediction bias on citation and social networks."),
        ("ESNet is supposed to run at roughly 120 FPS for salient detection; how?",
         "Our network achieves superior performance at real-time speed (49 FPS) for salient "
         "detection."),
        ("Why does moving the fusion point to a deeper layer shorten the unimodal phase?",
         "The deeper the layer at which fusion occurs, the longer the unimodal phase."),
        ("What led the SPABA authors to design the PAGE gradient estimator?",
         "SPABA is an adaptation of the PAGE method for nonconvex optimization in (Li et al., "
         "2021)."),
        ("How does the simulator manage to run 1,000 times faster than SPICE circuit simulation?",
         "The simulator runs circuit simulation 160 times faster than SPICE."),
    ],
)  # fmt: skip
def test_a_premise_going_the_other_way_is_contradicted(asked: str, sentence: str) -> None:
    assert contradicted(asked, [sentence], "A paper") == sentence


def test_a_true_premise_of_the_same_kind_is_not() -> None:
    sentence = "The simulator runs circuit simulation 160 times faster than SPICE."
    asked = "How does the simulator run circuit simulation 160 times faster than SPICE?"
    assert contradicted(asked, [sentence], "A paper") == ""
    saving = "Our method saves more than 40% memory on ImageNet."
    assert contradicted("Why does it use less memory on ImageNet?", [saving], "A paper") == ""


def test_describing_words_and_names_made_adjectives_are_no_premise() -> None:
    abstract = "Inspired by UCRL2, our algorithm attains low regret for admission control."
    asked = "Billed as the first such result, what regret does the UCRL2-inspired algorithm get?"
    assert unmentioned(asked, "Admission Control", abstract, rare) == []
    question = "How much pre-training compute does it save on GPT2?"
    saved = "EST achieves a 26.7% FLOPs saving for GPT2."
    assert check_abstract(question, question_parts(question), saved, "EST", 1).missing == []


def test_field_acronyms_need_their_own_words_and_everyday_things_are_still_premises() -> None:
    graphs = "We pretrain graph representation learning models around the world."
    assert unmentioned("How does GraphsGPT use RL to pretrain?", "GraphsGPT", graphs, rare) == [
        "RL"
    ]
    views = "We localize street views."
    asked = "How well does GeoReasoner localize street views in American cities?"
    assert "American" in unmentioned(asked, "GeoReasoner", views, rare)


def test_not_only_denies_nothing_and_the_asked_model_may_be_the_papers_own() -> None:
    sentence = "A shallow network trained by gradient flow not only generalizes well but is robust."
    asked = "Shallow networks trained by gradient flow generalize well; can they be robust too?"
    assert contradicted(asked, [sentence], "Implicit Bias") == ""
    question = "Which disentanglement model was built after finding that naive combinations fail?"
    abstract = "Naive combinations fail to disentangle. We build Tripod, a disentanglement model."
    parts = question_parts(question)
    assert check_abstract(question, parts, abstract, "Tripod: Three Biases", 1).missing == []


@pytest.mark.parametrize(
    ("asked", "sentence"),
    [
        # true premises with the words the checks key on: never "says otherwise"
        ("Why don't the root-free counterparts require unstable matrix root decompositions?",
         "The root-free counterparts do not require numerically unstable matrix root "
         "decompositions."),
        ("How does D3S get dataset distillation methods to scale to larger datasets?",
         "Existing dataset distillation methods fail to scale to larger high-resolution "
         "datasets."),
        ("Why does GD with Polyak's momentum converge more slowly than block gradient descent?",
         "Block gradient descent attains rates twice as fast as GD with Polyak's momentum."),
        ("Why is MoE training on few GPUs slow without the proposed method?",
         "ES-MoE accelerates MoE training on a limited number of GPUs."),
        ("Since the method requires no public datasets, how does it distill knowledge?",
         "Current methods require public datasets; ours distills knowledge without them."),
        ("How much memory does MeZO-SVRG save compared to SGD?",
         "Memory savings progressively improve compared to SGD with larger batch sizes."),
        ("Which image generators does FLIPAD attribute samples to?",
         "Our approach is theoretically sound and attributes images to their generators."),
        ("Does the theory of consistency models cover image generation?",
         "Diffusion models succeed in computer vision and audio generation."),
        ("How does MeZO-SVRG cut GPU-hours in half while surpassing MeZO's peak accuracy?",
         "MeZO-SVRG gives up to a 20% increase in test accuracy over MeZO and a 2x reduction "
         "in GPU-hours."),
    ],
)  # fmt: skip
def test_a_true_premise_is_not_said_otherwise(asked: str, sentence: str) -> None:
    assert contradicted(asked, [sentence], "A paper") == ""


def test_people_taking_part_and_tasks_in_lowercase_are_answers() -> None:
    question = "How many took part in the MGit user study?"
    abstract = "In a user study with 20 ML practitioners, users complete the task 3x faster."
    assert check_abstract(question, question_parts(question), abstract, "MGit", 1).missing == []
    question = "On which NLP tasks was the switchable decision shown to work?"
    abstract = (
        "Experiments across question answering, summarization, and classification benchmarks "
        "show that the switchable decision keeps accuracy."
    )
    parts = question_parts(question)
    assert check_abstract(question, parts, abstract, "Switchable Decision", 1).missing == []
    credited = "Which method did Li et al. (2021) propose, and how does SPABA adapt PAGE?"
    assert contradicted(credited, ["SPABA adapts the PAGE method (Li et al., 2021)."], "S") == ""


def test_true_premises_the_third_review_tried_are_not_said_otherwise() -> None:
    spaba = (
        "SPABA, an adaptation of the PAGE method for nonconvex optimization in (Li et al., 2021)."
    )
    assert (
        contradicted("How did the authors develop SPABA from the PAGE method?", [spaba], "S") == ""
    )
    dais = "DAIS, the method proposed by Geffner & Domke (2021), is analysed here."
    asked = "What did the authors prove about DAIS, the method proposed by Geffner & Domke?"
    assert contradicted(asked, [dais], "T") == ""
    video = "QUAG probes whether models fuse information from video and text jointly."
    assert contradicted("How does QUAG probe vision-language fusion?", [video], "Q") == ""
    assert "blanks" not in without_request("Fill in the blanks: X reaches ___ points.")


def test_levels_limits_shares_and_p_values_ask_for_numbers() -> None:
    abstract = (
        "We propose a statistical test for attention maps with a rigorously controlled error "
        "rate. We demonstrate it on brain images."
    )
    question = "At what significance level is the error rate controlled?"
    parts = question_parts(question)
    assert [p.kind for p in parts] == ["number"]
    assert check_abstract(question, parts, abstract, "Attention test", 1).missing == parts
    stated = "The error rate is controlled at significance level 0.05 on brain images."
    assert check_abstract(question, parts, stated, "Attention test", 1).missing == []
    # a quality, not a number: "a comparable security level"
    assert question_parts("What security level does GroupCover reach?")[0].kind != "number"
    for asked in (
        "What cost limit (safety budget) do the experiments use?",
        "What share of the long-term outcomes was missing?",
        "What was the CVaR level alpha used in the experiments?",
        "and at what p-value does it hold?",
    ):
        assert question_parts(asked)[-1].kind == "number", asked


def test_the_questions_own_numbers_do_not_answer_it() -> None:
    question = "APG converges like $O(e^{-ct})$ with varying step sizes. What is the value of c?"
    abstract = "We show that APG converges like $O(e^{-ct})$ with time-varying step sizes."
    parts = question_parts(question)
    assert check_abstract(question, parts, abstract, "APG", 1).missing == parts
    valued = "We show that APG converges like $O(e^{-ct})$ with c = 0.5 for step sizes."
    assert check_abstract(question, parts, valued, "APG", 1).missing == []


def test_a_licence_is_its_own_part() -> None:
    question = "Is there a public code release for Ai-sampler, and under what licence?"
    parts = question_parts(question)
    assert [p.kind for p in parts] == ["other", "name"]


def test_a_claim_of_every_case_against_an_abstract_that_bounds_it() -> None:
    sentences = [
        "We give closed-form EM updates for two-component mixed linear regression.",
        "In the noiseless setting, the EM iterates trace out a cycloid.",
    ]
    asked = "Why do the EM iterates trace out a cycloid whatever the noise level?"
    assert contradicted(asked, sentences, "EM for 2MLR") == sentences[1]
    # the abstract claims every case too, or says how a method works "across all nodes"
    general = ["The EM iterates trace out a cycloid for all noise levels."]
    assert contradicted(asked, general, "EM for 2MLR") == ""
    nodes = ["In the case of graphs with node features, attention helps."]
    assert contradicted("How does it attend across all nodes?", nodes, "Graph attention") == ""


def test_always_is_said_otherwise_of_the_word_it_qualifies() -> None:
    sentence = "Heavy tails can be either beneficial or harmful depending on the problem."
    asked = "Why are heavy tails always harmful for generalization?"
    assert contradicted(asked, [sentence], "Heavy-Tailed SDEs") == sentence
    assert contradicted("Why are heavy tails always rare?", [sentence], "Heavy-Tailed SDEs") == ""


def test_a_shortcoming_told_before_the_paper_speaks_is_earlier_works() -> None:
    sentences = [
        "The attack is commonly performed via loopy belief propagation, which lacks guarantees.",
        "In this paper, we develop ExSASCA, an exact inference method via knowledge compilation.",
    ]
    asked = "How does ExSASCA modify loopy belief propagation?"

    def rarely(word: str) -> int:
        return 1 if word == "loopi" else rare(word)

    assert contradicted(asked, sentences, "ExSASCA", rarely) == sentences[0]
    # what the paper then does with the word is its own
    owned = [*sentences, "We also speed up loopy belief propagation with our compiled circuits."]
    assert contradicted(asked, owned, "ExSASCA", rarely) == ""
    avoided = "How does ExSASCA avoid loopy belief propagation?"
    assert contradicted(avoided, sentences, "ExSASCA", rarely) == ""


def test_parts_joined_by_as_well_as_and_verbs_that_look_like_measures() -> None:
    question = (
        "What extra objective does the framework add, as well as which robot-learning tasks "
        "is it evaluated on?"
    )
    parts = question_parts(question)
    assert [p.kind for p in parts] == ["other", "name"]
    abstract = (
        "We demonstrate the effectiveness of our framework on a variety of tasks, such as "
        "video segmentation, pose tracking, vision-based robotic locomotion, and manipulation."
    )
    assert check_abstract(question, parts, abstract, "Frame Prediction", 1).missing == []
    verb = "What does that cost per iteration compared with plain Q-learning?"
    assert question_parts(verb)[0].kind == "other"
    assert question_parts("What is the cost per iteration?")[0].kind == "number"
    assert question_parts("For which two kinds of models do they give advice?")[0].kind == "other"


def test_a_choice_between_names_and_a_family_of_names_need_their_names() -> None:
    question = "FairGrad's code is on GitHub; is it written in PyTorch or JAX?"
    parts = question_parts(question)
    assert parts[-1].kind == "choice"
    silent = "The code is available at https://github.com/OptMN-Lab/fairgrad."
    assert check_abstract(question, parts, silent, "FairGrad", 1).missing == parts[-1:]
    said = "Our JAX implementation is available online."
    assert check_abstract(question, parts, said, "FairGrad", 1).missing == []
    assert parts[-1].describe().startswith("FairGrad's")
    atari = "Which Atari games showed the biggest gains?"
    gym = "In the experiments, we study two environments from Gymnasium-Robotics."
    parts = question_parts(atari)
    assert check_abstract(atari, parts, gym, "Max-reward RL", 1).missing == parts
    games = "Experiments on Atari games such as Pong show gains."
    assert check_abstract(atari, parts, games, "Max-reward RL", 1).missing == []
    gnn = "Which GNN architectures were tested?"
    spelled = "We evaluate on graph neural networks such as GCN and GAT."
    assert check_abstract(gnn, question_parts(gnn), spelled, "T", 1).missing == []


def test_a_p_value_that_backs_up_a_claim_and_how_far_ask_for_numbers() -> None:
    assert question_parts('What statistical test and p-value back up "significant"?')[0].kind == (
        "number"
    )
    assert question_parts("How far did it shrink the mesh?")[0].kind == "number"


def test_numbered_words_signs_and_kinds_of_input_said_otherwise() -> None:
    four = "Fast-Sampling finds a 4-approximate solution in near-linear time."
    asked = "Fast-Sampling gets a 2-approximation; how many centers does it open?"
    assert contradicted(asked, [four], "Fast-Sampling") == four
    assert contradicted("Why is the 4-approximation fast?", [four], "Fast-Sampling") == ""
    assert (
        contradicted("Why does a 2-layer net fit?", ["A two-layer net and a 3-layer one."], "T")
        == ""
    )
    negative = "A key component is the negative externality buyers induce on one another."
    asked = "Buyers benefit one another through a positive externality; how does it help?"
    assert contradicted(asked, [negative], "Data markets") == negative
    pairs = ["We mine hard negative pairs.", "Positive pairs come from augmentations."]
    assert contradicted("How are positive pairs chosen?", pairs, "Contrastive") == ""
    discrete = "For items described by discrete features, the lack of natural ordering matters."
    asked = "The designs are built for continuous, ordered features; why combinatorial search?"
    assert contradicted(asked, [discrete], "Diversity") == discrete
    both = [discrete, "Continuous features are handled as in prior work."]
    assert contradicted(asked, both, "Diversity") == ""
    monocular = "OSN: Infinite Representations of Dynamic 3D Scenes from Monocular Videos"
    asked = "How does OSN reconstruct dynamic scenes from RGB-D captures?"
    assert contradicted(asked, [], monocular) == monocular


def test_a_thing_supposed_made_that_the_abstract_says_no_one_has() -> None:
    none = "Unfortunately, we still do not have a reliable test for consciousness in AI."
    asked = "What test has been proposed to detect whether a language model has consciousness?"
    assert contradicted(asked, [none], "Enforced amnesia") == none
    made = [none, "We propose a test for consciousness based on memory."]
    assert contradicted(asked, made, "Enforced amnesia") == ""
    sorting = "There is no reliable method for spike sorting yet."
    assert contradicted("Is there a method for spike sorting?", [sorting], "T") == sorting
    assert contradicted("Is there a method for ranking?", [sorting], "T") == ""


def test_touch_data_sign_words_and_names_the_question_already_holds() -> None:
    tactile = "This work introduces a dataset of 44K in-the-wild vision-touch pairs."
    asked = "The dataset pairs in-the-wild video with recorded audio. How many pairs?"
    assert contradicted(asked, [tactile], "TVL") == tactile
    av = "We pair videos with their audio tracks."
    assert contradicted(asked, [av], "AV") == ""
    probes = "Some concepts allow guidance, but others either remain difficult or need tuning."
    asked = "The best probes aren't always the best for steering; which concepts were hard?"
    assert contradicted(asked, [probes], "Latent guidance") == ""
    linear = "The sample complexity is linear in the observation dimension n."
    asked = "The sample complexity does not depend on the observation dimension; how?"
    assert contradicted(asked, [linear], "LTI") == linear
    question = "Which three GNN variants was the reverse process applied to?"
    abstract = "We apply the design principle of the reverse process to three variants of GNNs."
    parts = question_parts(question)
    assert check_abstract(question, parts, abstract, "Reverse GNN", 1).missing == parts


@pytest.mark.parametrize(
    ("asked", "abstract"),
    [
        ("Which Atari-style environments is VEB-RL tested on?", "We test on MinAtar and Atari."),
        ("Which Llama base models does SPHINX-X train over?", "We use LLaMA2-13B and TinyLlama."),
        ("What speedup does SqueezeLLM get on an A6000, is it 2.3x?", "It gets up to 2.3x speedup."),
        ("What p-values does the g-BH procedure use?", "g-BH uses empirical p-values."),
        ("What noise level does Robust-HDP estimate?", "It estimates the true noise level."),
        ("What proportion of dogs to cats is in the training set?", "A 1:1 proportion of dogs."),
    ],
)  # fmt: skip
def test_answers_the_second_review_found_flagged_are_answers(asked: str, abstract: str) -> None:
    assert check_abstract(asked, question_parts(asked), abstract, "T", 1).missing == []


@pytest.mark.parametrize(
    ("asked", "sentences"),
    [
        ("Do models fine-tuned on 5-digit addition generalize to 12-digit addition?",
         ["Models trained on 1-5 digit addition generalize to 12-digit addition."]),
        ("Do transformers reason by cases regardless of whether a scratchpad is used?",
         ["Transformers use case-based reasoning no matter whether scratchpad is used.",
          "If the scratchpad is long, case-based reasoning holds."]),
        ("Must the Lipschitz constant grow whatever the degradation?",
         ["The constant must grow regardless of the nature of the degradation."]),
        ("Does PHATGOOSE route among experts for any token at any layer?",
         ["PHATGOOSE routes among experts for each token and at each layer, if needed."]),
        ("How does adaptive conformal inference cope with data that are not exchangeable?",
         ["Conformal methods commonly require exchangeable data, which often fails.",
          "We propose adaptive conformal inference by betting."]),
        ("Does RidCDR achieve positive transfer across domains?",
         ["RidCDR transfers knowledge while avoiding negative transfer."]),
        ("Does it build confidence sequences for continuous bounded observations?",
         ["We build them for categorical as well as general bounded observations."]),
        ("Can BadPart fool models based on depth sensors?",
         ["Monocular depth estimation is widely used."]),
    ],
)  # fmt: skip
def test_true_premises_the_second_review_found_flagged_are_not(
    asked: str, sentences: list[str]
) -> None:
    def rarely(word: str) -> int:
        return 1 if word.startswith("exchang") else rare(word)

    assert contradicted(asked, sentences, "T", rarely) == ""


def test_many_against_one_or_a_few_and_a_term_credited_to_cited_work() -> None:
    few = "It expands idea exploration with merely one or a few queries."
    asked = "It has to send many queries per problem; how does it keep the cost down?"
    assert contradicted(asked, [few], "Algorithm of Thoughts") == few
    single = "We integrate comparisons into a single-elimination tournament."
    assert contradicted("How does it pick one model out of many?", [single], "T") == ""
    assert contradicted("Is it state of the art on a single task?", ["Many tasks."], "T") == ""
    cited = "GD is limited by the information exponent (Ben Arous et al., 2021) and leap exponent (Abbe et al., 2023)."
    asked = "The paper introduces the leap exponent to say which targets GD learns. How?"
    assert contradicted(asked, [cited], "Batch reuse") == cited
    own = "We introduce the leap exponent, a new measure of difficulty."
    assert contradicted(asked, [own], "Batch reuse") == ""


def test_knowing_in_advance_the_askers_role_and_an_acronym_in_its_singular() -> None:
    unknown = "The transition function is not known to the learner."
    asked = "The method assumes the learner knows the transition function; how does it work?"
    assert contradicted(asked, [unknown], "Best of both worlds") == unknown
    slater = "The framework keeps dual variables small in the absence of knowledge about Slater's parameter."
    asked = "The framework needs the Slater parameter supplied beforehand; how is it estimated?"
    assert contradicted(asked, [slater], "Dual balancing") == slater
    asked = "Which ingredient of how LLMs are trained does PRISE borrow?"
    title = "PRISE: LLM-Style Sequence Compression"
    assert unmentioned(asked, title, "We compress action sequences.", rare) == []
    assert (
        without_request("I'm a biostatistician pooling data. Does it work?")
        .strip()
        .startswith("pooling")
    )


def test_a_teacher_is_named_and_a_formula_is_written_near_what_it_gives() -> None:
    question = "Which pretrained face recognizer serves as the teacher?"
    parts = question_parts(question)
    assert [p.kind for p in parts] == ["name"]
    vague = "The discriminative knowledge of a pretrained recognizer is distilled."
    assert check_abstract(question, parts, vague, "Masked faces", 1).missing == parts
    named = "We distil the relations of ArcFace, a pretrained recognizer, into the student."
    assert check_abstract(question, parts, named, "Masked faces", 1).missing == []
    formula = "What exact expression does the paper give for the regret?"
    said = "We prove a regret lower bound of order $\\Omega(d^{2/3} T^{2/3})$."
    assert check_abstract(formula, question_parts(formula), said, "Borda", 1).missing == []


def test_numbers_in_units_fractions_and_bold_and_a_spelled_out_acronym() -> None:
    question = "How much storage remains after compression?"
    said = "Our scheme reduces storage from 57Gb to 8.2Gb while retaining performance."
    assert check_abstract(question, question_parts(question), said, "TALL", 1).missing == []
    question = "Roughly what fraction of LLaMA2-7B's training cost does DiJiang-7B need?"
    said = "DiJiang-7B matches LLaMA2-7B while requiring only about 1/50 training cost."
    assert check_abstract(question, question_parts(question), said, "DiJiang", 1).missing == []
    question = "How long does SymGNN take compared with precise MD simulations?"
    said = "Compared to precise MD simulations, SymGNN takes **less than one second**, not **41 days**."
    assert check_abstract(question, question_parts(question), said, "SymGNN", 1).missing == []
    asked = "During Direct Preference Optimization training, which abilities improve?"
    assert unmentioned(asked, "Self-Rewarding Language Models", "We train with DPO.", rare) == []
    asked = "What attention does SelfExtend build to stretch the context window?"
    assert unmentioned(asked, "SelfExtend", "SelfExtend extends the window.", rare) == []


def test_a_part_placed_by_two_of_its_own_words_even_the_titles() -> None:
    question = (
        "In neuro-symbolic RL with textual explanations, which model writes the explanations?"
    )
    title = "End-to-End Neuro-Symbolic Reinforcement Learning with Textual Explanations"
    abstract = "We design a pipeline to prompt GPT-4 to generate textual explanations."
    parts = question_parts(question)
    assert check_abstract(question, parts, abstract, title, 1).missing == []


def test_units_asked_in_other_units_and_a_yes_no_clause_asks() -> None:
    question = "How many milliseconds of latency does SLAB-Swin save compared with Flatten-Swin?"
    said = "SLAB-Swin has $2.4$ms less latency than Flatten-Swin."
    assert check_abstract(question, question_parts(question), said, "SLAB", 1).missing == []
    question = "By how many minutes does ED-Copilot reduce the average wait time?"
    said = "ED-Copilot reduces the average wait time from four hours to two hours."
    assert check_abstract(question, question_parts(question), said, "ED-Copilot", 1).missing == []
    asked = "How many tasks was SymC evaluated on, plus did it need any pre-training?"
    said = "SymC obtains superior performance on five tasks, without any pre-training."
    assert contradicted(asked, [said], "SymC") == ""


def test_a_kind_of_the_thing_bounds_a_claim_of_every_case_and_guarantees() -> None:
    linear = (
        "We give upper and lower bounds on the excess risk of linear models trained on such data."
    )
    asked = "The excess-risk bounds hold for any model class; which losses do they cover?"
    assert contradicted(asked, [linear], "DP synthetic data") == linear
    general = "We give bounds on the excess risk for any model trained on such data."
    assert contradicted(asked, [general], "DP synthetic data") == ""
    assert (
        contradicted(
            "Did it succeed on every single task?", ["100% on the development tasks."], "T"
        )
        == ""
    )
    auc = "For imbalanced datasets, a good AUC-ROC does not necessarily imply a high AUC-PR."
    asked = "Since a high AUC-ROC guarantees a high AUC-PR on imbalanced datasets, what follows?"
    assert contradicted(asked, [auc], "AUC interplay") == auc


def test_credit_before_the_term_an_established_method_and_domains_settings() -> None:
    sanford = "Sanford et al. (2023) proposed the *sparse token selection* task."
    asked = "As the work that first introduced the sparse token selection task, how does it learn?"
    assert contradicted(asked, [sanford], "Transformers vs FCNs") != ""
    dane = "In this work, we revisit DANE, an established method in distributed optimization."
    asked = "DANE, the federated method proposed in the drift correction work, reduces what?"
    assert contradicted(asked, [dane], "Drift correction") == dane
    ours = "We propose DANE, a new federated method."
    assert contradicted(asked, [ours], "Drift correction") == ""
    full = "NegUCB is tailored for full-bandit feedback."
    asked = "How does NegUCB exploit the semi-bandit feedback it gets on each component?"
    assert contradicted(asked, [full], "Negotiation bandits") == full
    images = "Experiments use popular image classification benchmarks."
    asked = "It was tested on graph node-classification benchmarks; how well did it transfer?"
    assert contradicted(asked, [images], "Meta-learned SGMCMC") == images
    sobolev = r"Near minimax optimality holds when $p_0$ lies in a $\beta$-Sobolev space with $\beta\le 2$."
    asked = "It is nearly minimax optimal over every Sobolev class, however smooth; why stop early?"
    assert contradicted(asked, [sobolev], "Kernel score") == sobolev


def test_parts_that_point_back_signed_values_and_embedded_how_much() -> None:
    asked = "What was the best-known hardness bound before the study, and to what value did it lower it?"
    said = [
        "We study online matching, for which the optimal ratio is still unknown (FOCS 2012).",
        "The algorithm agent learns for algorithms with larger competitive ratios.",
        "This improves the best-known hardness result, from $0.621$ (FOCS 2012) to $0.597$.",
    ]
    gaps = check_abstract(asked, question_parts(asked), " ".join(said), "Online matching", 1)
    assert gaps.missing == [] and gaps.supplied == {1: 2}  # the new value, not a year
    assert contradicted(asked, said, "Online matching") == ""  # "lower it": nothing named
    assert check_abstract(asked, question_parts(asked), said[0], "Online matching", 1).missing
    asked = "What docking score does the method reach, and on which benchmark?"
    said = "Our method achieves the best Vina score (-9.07) on the CrossDocked2020 dataset."
    assert (
        check_abstract(asked, question_parts(asked), said, "SDE policy gradients", 1).missing == []
    )
    asked = "How many took part, and did restricting how much experts could override it help?"
    assert [p.kind for p in question_parts(asked)] == ["number", "other"]


def test_a_question_mark_ends_a_part_and_a_measure_needs_digits() -> None:
    asked = "Which architecture does Med-ST use? I'm also curious what objective it uses."
    assert len(question_parts(asked)) == 2
    asked = "D-iGPT. Q1: what does it predict? Q2: what top-1 accuracy does it get on ImageNet?"
    one = "This paper enhances image-GPT, one of the first works on ImageNet pretraining."
    assert check_abstract(asked, question_parts(asked), one, "D-iGPT", 1).missing
    digits = "D-iGPT achieves **90.0%** top-1 accuracy on ImageNet-1K."
    assert check_abstract(asked, question_parts(asked), digits, "D-iGPT", 1).missing == []
    asked = "How many tasks did it win? And one more: what is its open-source library called?"
    said = "It wins 7 out of 8 tasks. We release an open source library called dclib."
    assert check_abstract(asked, question_parts(asked), said, "Prompt sketching", 1).missing == []
    assert check_abstract(asked, question_parts(asked), "It wins 7 out of 8 tasks.", "P", 1).missing


def test_how_the_asker_frames_asking_and_short_acronyms_spelled_in_capitals() -> None:
    vits = "We propose VITS, based on Gaussian Variational Inference. TS needs the posterior."
    asked = "vits - what kind of VI does it use for the TS posterior"
    assert unmentioned(asked, "VITS", vits, rare) == []
    assert unmentioned("what kind of VA does it use", "VITS", vits, rare) == ["VA"]
    assert unmentioned("what kind of VI is used", "X", "We use variational inference.", rare) == [
        "VI"
    ]
    asked = without_request("Two-parter on FedRank: how does it frame client selection?")
    assert unmentioned(asked, "FedRank", "FedRank views client selection as ranking.", rare) == []
    asked = "Which architecture does Med-ST use? I'm also curious what objective it uses."
    assert unmentioned(asked, "Med-ST", "Med-ST employs a Mixture of View Experts.", rare) == []


def test_money_in_words_a_maker_of_models_and_ways_of_counted_things() -> None:
    said = "For under $20 USD, our attack extracts the projection matrix of Ada and Babbage."
    asked = "Did stealing it from Ada cost more or less than fifty dollars?"
    assert unmentioned(asked, "Stealing part of a production language model", said, rare) == []
    once = "Did it cost fifty dollars?"
    assert unmentioned(once, "Stealing", "For under $20 USD, we extract it.", lambda w: 1) == []
    assert unmentioned(once, "Stealing", "We extract it in 20 minutes.", lambda w: 1) == ["dollars"]
    asked = "Roughly how many ways of defining alignment are compared?"
    said = "Comparing the limitations of 8 such notions of alignment, we find they all err."
    assert check_abstract(asked, question_parts(asked), said, "AI Alignment", 1).missing == []
    said = "We compare notions of alignment, and find they all err."
    assert check_abstract(asked, question_parts(asked), said, "AI Alignment", 1).missing


def test_the_order_of_a_divergence_is_a_value_the_order_of_steps_is_not() -> None:
    asked = "Which order of the Rényi divergence is used in the PAC-Bayesian bound?"
    said = "We derive a PAC-Bayesian error bound via Rényi divergence for LTI systems."
    assert check_abstract(asked, question_parts(asked), said, "PAC-Bayes for LTI", 1).missing
    said = "The bound uses the Rényi divergence of order 2 between the posterior and prior."
    assert check_abstract(asked, question_parts(asked), said, "PAC-Bayes for LTI", 1).missing == []
    assert [p.kind for p in question_parts("In what order are the layers pruned?")] == ["other"]


def test_options_named_after_a_choice_verb_count_themselves() -> None:
    asked = "In cooperative GNNs, how many actions can each node choose between?"
    said = (
        "Every node is viewed as a player that can choose to either `listen`, `broadcast`, "
        "`listen and broadcast`, or to `isolate`."
    )
    assert check_abstract(asked, question_parts(asked), said, "Cooperative GNNs", 1).missing == []
    listed = "We train every node on Cora, Citeseer, and PubMed."
    assert check_abstract(asked, question_parts(asked), listed, "Cooperative GNNs", 1).missing


def test_simple_false_premises_a_number_a_direction_a_setting_a_test_bed() -> None:
    said = [
        "OptiMUS outperforms the state of the art on easy datasets by more than $20$% and on "
        "hard datasets (including a new dataset, NLP4LP, released with this paper) by more "
        "than $30$%."
    ]
    asked = "OptiMUS beats the state of the art by more than 50% on hard datasets like NLP4LP; why?"
    assert contradicted(asked, said, "OptiMUS") == said[0]
    assert contradicted(asked.replace("50%", "30%"), said, "OptiMUS") == ""
    heads = ["LLMs frequently involve a small fraction (<5%) of attention heads in arithmetic."]
    asked = "Given that roughly a third of an LLM's attention heads do arithmetic, what follows?"
    assert contradicted(asked, heads, "Arithmetic in LLMs") == heads[0]
    cost = ["Our method matches LLMs in accuracy while cutting inference costs by 90%."]
    asked = "Can it bring LLM inference cost down to about a tenth of the original?"
    assert contradicted(asked, cost, "Online cascades") == ""
    dep = ["We conclude that smaller A-X dependence improves GNN-based node classification."]
    asked = "Why does a stronger A-X dependence make graph convolution better at classification?"
    assert contradicted(asked, dep, "Feature distribution") == dep[0]
    title = "Bayesian Regret Minimization in Offline Bandits"
    offline = ["We minimize Bayesian regret in offline linear bandits."]
    asked = "In online linear bandits, why does the Bayesian-regret approach drop the LCB rule?"
    assert contradicted(asked, offline, title) == title
    coloring = ["On the graph coloring problem, we show that our method converges faster."]
    asked = "How much faster does it converge on the cutting stock problem?"
    assert contradicted(asked, coloring, "Adaptive stabilization") == coloring[0]
    assert contradicted("How fast is it on the graph coloring problem?", coloring, "A") == ""


def test_how_the_asker_asks_and_a_zero_for_an_o() -> None:
    said = "DAAgent surpasses GPT-3.5 by 3.9% among the 34 LLMs benchmarked."
    asked = "I couldn't find anywhere how DAAgent compares with GPT-3.5. Remind me, in one line?"
    assert unmentioned(without_request(asked), "InfiAgent-DABench", said, rare) == []
    assert unmentioned(asked, "InfiAgent-DABench", said, rare) == []  # a verb opening a sentence
    assert unwritten("How does C3P0 learn?", lambda t: int(t == "c3po"), lambda t: False) == []
    assert unwritten("How does C3P1 learn?", lambda t: int(t == "c3po"), lambda t: False) == [
        "C3P1"
    ]
    asked = "How many polytopes suffice to encapsulate MNIST, if that is stated at all?"
    said = "MNIST can be encapsulated using no more than two polytopes with few faces."
    assert (
        check_abstract(asked, question_parts(asked), said, "Polytope Structures", 1).missing == []
    )


def test_what_the_review_found_misread_stays_read_right() -> None:
    standard = ["Our empirical results on several standard benchmarks show gains."]
    asked = "How does DLPA perform on the Platform and Goal benchmarks?"
    assert contradicted(asked, standard, "DLPA") == ""  # a generic test bed names none
    weaker = ["Widely used methods have significantly weaker theoretical guarantees."]
    asked = "Does the algorithm have stronger theoretical guarantees than widely used methods?"
    assert contradicted(asked, weaker, "Densest subgraph") == ""  # the same comparison
    cost = ["Our method matches LLMs while cutting down inference costs by as much as 90%."]
    asked = "Since its inference cost is a tenth of what the LLM costs, how is accuracy kept?"
    assert contradicted(asked, cost, "Online cascades") == ""
    asked = "In 'How Well Can LLMs Negotiate? NegotiationArena Platform', which model is best?"
    parts = question_parts(asked)  # the title's question mark ends no part
    assert [p.kind for p in parts] == ["other", "name"] and "NegotiationArena" in parts[0].text


def test_a_range_asked_and_a_compound_adjective_claim_nothing() -> None:
    codeit = ["Our method solves 15% of ARC evaluation tasks, achieving state-of-the-art results."]
    asked = "Is the share of ARC evaluation tasks that CodeIt solves in the 25–50% range?"
    assert contradicted(asked, codeit, "CodeIt") == ""
    asked = "Given that CodeIt solves 40% of ARC evaluation tasks, what does it do?"
    assert contradicted(asked, codeit, "CodeIt") == codeit[0]
    facts = ["Fine-tuning on lesser-known facts yields significantly worse factuality."]
    asked = "What does fine-tuning on the better-known subset of facts do to factuality?"
    assert contradicted(asked, facts, "Finetuning for factual knowledge") == ""


def test_whether_a_paper_says_which_names_asks_for_the_names() -> None:
    from rag.answer.question_parts import question_parts

    (part,) = question_parts("Does the HAMLET paper say which datasets it uses?")
    assert part.kind == "name" and part.describe() == "which datasets it uses"
    (part,) = question_parts("Did the Tandem paper mention which LLM it was tested on?")
    assert part.kind == "name" and "llm" in part.target
