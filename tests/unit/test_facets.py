"""The facet splitter: a topic is cut where the corpus writes each side, never inside a
phrase the corpus writes whole, and a clause or an unwritten phrase is a described topic."""

from __future__ import annotations

import pytest

from rag.sets.facets import coverage, name_hints, plain_topic, read_topic

TOTAL = 2610
# Abstracts writing each phrase (a stand-in for the catalogue's counts).
WRITTEN = {
    "adversarial robustness": 17,
    "graph neural networks": 86,
    "graph neural network": 86,
    "gnn": 40,
    "diffusion models": 139,
    "time series": 64,
    "large language models": 333,
    "robotics": 46,
    "machine learning": 297,
    "neural networks": 405,
    "learning": 1419,
    "mixture of experts": 16,
    "theory of mind": 3,
    "noisy labels": 20,
    "quantization": 45,
    "combinatorial optimization": 17,
    "reinforcement learning": 293,
    "reinforcement learning from human feedback": 27,
    "human feedback": 40,
    "feature attribution": 12,
    "individual predictions": 5,
    "model collapse": 4,
    "neural operators": 15,
    "molecules": 40,
    "jailbreaking": 8,
    "marsupial vocalization codecs": 1,
    "network": 900,
    "small": 700,
    "video": 60,
    "videos": 60,
    "llm": 200,
    "llms": 200,
    "foundation models": 80,
    "coresets": 9,
    "flow-matching": 12,
    "diffusion": 300,
    "proteins": 50,
    "federated learning": 70,
    "heterogeneous": 120,
    "client data": 8,
    "non-iid": 15,
    "physical systems": 20,
    "fluids": 10,
    "pdes": 40,
    "context": 400,
    "regression tasks": 10,
    "transformers learning regression tasks": 0,
    "online continual learning": 5,
    "bandits": 57,
    "pairwise preference": 6,
    "comparison feedback": 3,
    "inverse problems": 30,
    "adversarial attacks": 60,
    "black-box access": 8,
    "federated": 90,
    "unlearning": 20,
    "language models": 500,
    "software": 5,
    "get": 24,
    "continual learning": 40,
    "online": 200,
    "imitation learning": 40,
    "suboptimal demonstrations": 2,
    "imperfect": 30,
    "certified robustness": 5,
    "certified": 25,
    "adversarial perturbations": 9,
    "backdoor attacks": 20,
    "defenses against backdoors": 3,
    "backdoors": 12,
}


def support(phrase: str) -> int:
    return WRITTEN.get(phrase.lower().strip(), 0)


def read(topic: str) -> tuple[list[str], bool]:
    reading = read_topic(topic, support, TOTAL)
    return reading.facets, reading.described


@pytest.mark.parametrize(
    ("topic", "facets"),
    [
        ("adversarial robustness of graph neural networks", ["adversarial robustness", "graph neural networks"]),
        ("diffusion models to time series", ["diffusion models", "time series"]),
        ("large language models for robotics", ["large language models", "robotics"]),
        ("combine reinforcement learning with large language models", ["reinforcement learning", "large language models"]),
        ("GNN-based time series", ["GNN", "time series"]),
        ("adversarial robustness under diffusion models applied to robotics", ["adversarial robustness", "diffusion models", "robotics"]),
    ],
)  # fmt: skip
def test_a_topic_splits_where_each_side_is_written(topic: str, facets: list[str]) -> None:
    assert read(topic) == (facets, False)


@pytest.mark.parametrize(
    ("topic", "facets"),
    [
        ("imitation learning from imperfect or suboptimal demonstrations", ["imitation learning", "imperfect or suboptimal demonstrations"]),
        ("certified robustness against adversarial perturbations", ["certified robustness", "adversarial perturbations"]),
    ],
)  # fmt: skip
def test_from_and_against_join_facets(topic: str, facets: list[str]) -> None:
    assert read(topic) == (facets, False)


def test_alternatives_each_written_are_not_cut_inside_one() -> None:
    # "defenses against backdoors" is one of two alternatives, not a cut at "against"
    topic = "backdoor attacks or defenses against backdoors"
    assert read(topic) == ([topic], False)


@pytest.mark.parametrize(
    "topic", ["mixture of experts", "theory of mind", "adversarial robustness"]
)
def test_a_phrase_written_whole_is_one_facet(topic: str) -> None:
    assert read(topic) == ([topic], False)


def test_the_fewest_facets_win() -> None:
    # "RLHF for LLMs" is two facets, not RL + human feedback + LLMs
    topic = "reinforcement learning from human feedback for large language models"
    assert read(topic)[0] == ["reinforcement learning from human feedback", "large language models"]


def test_a_side_naming_the_field_itself_is_no_facet() -> None:
    reading = read_topic("machine learning for combinatorial optimization", support, TOTAL)
    assert reading.facets == ["combinatorial optimization"]
    assert reading.dropped == ["machine learning"]
    # and a generic left side never splits a named phrase: "learning with noisy labels"
    assert read("learning with noisy labels")[0] == ["noisy labels"]


def test_a_side_the_corpus_does_not_write_blocks_the_split() -> None:
    facets, described = read("feature attribution for explaining individual predictions")
    assert facets == ["feature attribution for explaining individual predictions"]
    assert not described  # most of its words are phrases the abstracts write


@pytest.mark.parametrize(
    "topic",
    [
        "shrink a big network into a small one that imitates it",
        "let a language model look up documents while it answers",
        "measure how much each individual training example contributes to a model",
    ],
)
def test_a_clause_describes_a_topic_without_naming_it(topic: str) -> None:
    assert read(topic)[1] is True


def test_a_name_in_brackets_makes_a_described_topic_named() -> None:
    topic = "what happens when models train on their own outputs (model collapse)"
    assert name_hints(topic) == ["model collapse"]
    assert read(topic)[1] is False


def test_coverage_counts_words_inside_written_phrases() -> None:
    assert coverage("graph neural networks", support, TOTAL) == 1.0
    assert coverage("a big small network", support, TOTAL) == 0.0


def test_a_named_topic_with_a_gloss_is_named() -> None:
    topic = "develop or apply neural operators, i.e. networks that learn mappings between function spaces"
    assert read(topic)[1] is False
    # the same gloss without the name before it describes
    assert read("networks that learn mappings between function spaces, i.e. operators of it")[1]


def test_alternatives_inside_one_side_stay_in_that_facet() -> None:
    topic = "graph neural networks for molecules, proteins or materials"
    assert read(topic)[0] == ["graph neural networks", "molecules, proteins or materials"]
    shared = "adversarial robustness on, or noisy labels of, time series"
    assert read(shared)[0] == ["adversarial robustness or noisy labels", "time series"]


def test_a_modifier_before_a_written_phrase_is_a_facet() -> None:
    assert read("jailbreaking large language models")[0] == [
        "jailbreaking",
        "large language models",
    ]


def test_a_rare_noun_phrase_one_abstract_writes_is_named() -> None:
    assert read("marsupial vocalization codecs") == (["marsupial vocalization codecs"], False)


@pytest.mark.parametrize(
    ("topic", "facets"),
    [
        # verbs that only frame the object, listed or alone after the joining word
        ("diffusion models to generate, edit or predict video", ["diffusion models", "video"]),
        ("build or adapt foundation models, including LLMs, for time series", ["foundation models or LLMs", "time series"]),
        ("coresets to train or fine-tune large language models", ["coresets", "large language models"]),
        ("graph neural networks to simulate physical systems such as fluids, particles or PDEs", ["graph neural networks", "physical systems, fluids, particles or PDEs"]),
        # "X-based systems" is X; "X-based (or Y) Z": X or Y
        ("build LLM-based systems for understanding or generating video", ["LLM", "video"]),
        ("diffusion-based (or flow-matching) generative modelling of proteins", ["diffusion or flow-matching", "proteins"]),
    ],
)  # fmt: skip
def test_framing_verbs_and_based_heads_are_no_facets(topic: str, facets: list[str]) -> None:
    assert read(topic) == (facets, False)


def test_a_bracketed_name_is_an_alternative_and_a_vague_one_is_dropped() -> None:
    # "(non-IID)" names the word it follows; "(or similar …)" adds nothing to look for
    assert read("federated learning under heterogeneous (non-IID) client data")[0] == [
        "federated learning",
        "heterogeneous or non-IID",
        "client data",
    ]
    assert "similar" not in " ".join(
        read("transformers (or similar sequence models) for time series")[0]
    )


def test_a_joining_word_inside_a_fixed_phrase_is_no_cut() -> None:
    # "in context" is in-context learning: never a facet "context"
    assert "context" not in read("transformers learning regression tasks in context")[0]


@pytest.mark.parametrize(
    ("topic", "kept"),
    [
        ("design and training of neural networks", "training"),  # a gerund that names it
        ("multiple instance learning for graphs", "multiple instance learning"),
        ("learning in particular domains", "particular domains"),  # no comma: no example
        ("(non-IID) federated learning", "non-IID"),  # a bracket first is a word of it
    ],
)  # fmt: skip
def test_words_that_name_the_topic_are_kept(topic: str, kept: str) -> None:
    written = {**WRITTEN, "multiple instance learning": 4, "particular domains": 3}
    reading = read_topic(topic, lambda p: written.get(p.lower().strip(), 0), TOTAL)
    assert kept.lower() in " ".join(reading.facets).lower()


def test_a_written_based_phrase_and_enumerators() -> None:
    written = {**WRITTEN, "score-based generative models": 6, "score": 151}
    reading = read_topic(
        "score-based generative models", lambda p: written.get(p.lower(), 0), TOTAL
    )
    assert reading.facets == ["score-based generative models"]
    assert "or 2" not in " ".join(
        read("(1) adversarial robustness and (2) noisy labels of time series")[0]
    )


def test_repeated_joining_words_read_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    read_topic("learning for " * 40 + "graphs", lambda p: 5, TOTAL)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("topic", "facets"),
    [
        # what only elaborates is not read: a gloss after ", where", "instead of …"
        ("online continual learning, where the model sees a non-stationary stream only once", ["online", "continual learning"]),
        ("bandits that learn from pairwise preference or comparison feedback instead of numeric rewards", ["bandits", "pairwise preference or comparison feedback"]),
        # a relative clause saying what the things work with joins a facet
        ("adversarial attacks that only need black-box access", ["adversarial attacks", "black-box access"]),
        # examples end a topic too long to read with them: they are kinds of the last facet
        ("diffusion or flow-matching models to solve inverse problems such as deblurring, inpainting, super-resolution, phase retrieval or reconstruction from sparse observations", ["diffusion or flow-matching models", "inverse problems or deblurring or inpainting or super-resolution or phase retrieval or reconstruction from sparse observations"]),
        # two words no abstract writes together are two facets: "none combine them"
        ("federated unlearning, i.e. removing a client's contribution from a federated model", ["federated", "unlearning"]),
    ],
)  # fmt: skip
def test_elaborations_are_not_facets(topic: str, facets: list[str]) -> None:
    assert read(topic) == (facets, False)


def test_a_description_stays_one_when_its_plain_part_is_a_verb() -> None:
    topic = (
        "get language models to software, for example implementing a function from its docstring"
    )
    facets = read(topic)[0]
    assert "get" not in facets and len(facets) == 1


def test_a_modifier_of_a_far_wider_named_topic_is_a_facet_of_its_own() -> None:
    # "online continual learning" (5 abstracts) of continual learning (40): two facets
    assert read("online continual learning")[0] == ["online", "continual learning"]
    # a name of its own is not cut, nor a phrase as widely written as its head
    assert read("graph neural networks")[0] == ["graph neural networks"]
    assert read("reinforcement learning from human feedback")[0] == [
        "reinforcement learning from human feedback"
    ]


def test_a_tail_that_qualifies_the_topic_is_not_examples() -> None:

    topic = "graph neural networks for molecules, such as message passing networks, in drug discovery and chemistry"
    assert plain_topic(topic) == (topic, [])
    # a bracketed name is kept; a bracketed list of examples is not
    named = "graph neural networks for predicting molecule properties at a very large scale (GNNs)"
    assert plain_topic(named)[0] == named


def test_a_topic_of_punctuation_and_or_is_read_without_a_crash() -> None:
    # "(using DPO)" reached the facet reader from a correction after a question; a side
    # with no words ("(") had raised IndexError
    reading = read_topic("( or DPO)", support, TOTAL)
    assert reading is not None


def test_a_dash_after_an_example_lead_is_no_example() -> None:
    # "… and the like — e.g. for …": the dash after "like" had been read as an empty example
    topic = (
        "sequences of measurements recorded at regular intervals — sensor readings, "
        "electricity load, traffic counts and the like — e.g. for forecasting, imputation "
        "or classification"
    )
    text, examples = plain_topic(topic)
    assert text.startswith("sequences of measurements") and "" not in examples


def test_a_description_no_paper_matches_claims_no_absence() -> None:
    from rag.sets.facets import TopicReading, too_long_to_name
    from rag.sets.judgement import TopicJudgement

    long = "sequences of measurements recorded at regular intervals such as sensor readings or traffic counts"
    assert too_long_to_name(long) and not too_long_to_name("graph neural networks")
    unmatched = TopicJudgement(long, TopicReading([long], described=False), [], [])
    assert unmatched.verdict == "described"  # not "no abstract is about <all of it>"
    named = TopicJudgement(
        "quantum chemistry", TopicReading(["quantum chemistry"], described=False), [], []
    )
    assert named.verdict == "none"


def test_combine_x_and_y_is_both_facets_unless_the_pair_is_written_as_one() -> None:
    reading = read_topic("combine diffusion models and reinforcement learning", support, TOTAL)
    assert reading.facets == ["diffusion models", "reinforcement learning"]
    reading = read_topic("both graph neural networks and time series", support, TOTAL)
    assert reading.facets == ["graph neural networks", "time series"]
    # without "combine" or "both", "and" is no join the splitter reads as both
    assert (
        len(read_topic("diffusion models and reinforcement learning", support, TOTAL).facets) == 1
    )
    written = {**WRITTEN, "vision and language": 40, "vision": 300, "language": 600}
    reading = read_topic(
        "combine vision and language", lambda p: written.get(p.lower().strip(), 0), TOTAL
    )
    assert reading.facets == ["vision and language"]


def test_a_bare_modifier_shares_the_other_sides_head() -> None:
    written = {
        **WRITTEN,
        "supervised": 120,
        "supervised learning": 40,
        "unsupervised learning": 30,
        "online rl": 5,
        "offline rl": 30,
    }
    said = lambda p: written.get(p.lower().strip(), 0)  # noqa: E731
    reading = read_topic("combine supervised and unsupervised learning", said, TOTAL)
    assert reading.facets == ["supervised learning", "unsupervised learning"]
    assert read_topic("combine online and offline RL", said, TOTAL).facets == [
        "online RL",
        "offline RL",
    ]
    # a modifier and head no abstract writes together stays the modifier alone
    assert read_topic("combine software and imitation learning", said, TOTAL).facets == [
        "software",
        "imitation learning",
    ]
