"""Kinds of wording (not word lists) that drew false "does not mention / does not state"
notes on answerable questions: verbs after a subject, describing words by their ending,
half-remembered quoted titles, a typo of a long word, the asker's own clause, statements
that set a scene, and answers written in other forms (a count joined to its noun, a
lower-case name after the words asking for it, a gain over earlier work, a rate, a gap)."""

from __future__ import annotations

from rag.answer.contradictions import contradicted
from rag.answer.misstated import swapped_counts, swapped_values
from rag.answer.premises import unmentioned, unwritten
from rag.answer.question_parts import classify, is_number_word, question_parts
from rag.answer.supplied import check_abstract, supplies
from rag.answer.swapped import swapped_subjects
from rag.text import SPELLED_NUMBER, SPELLED_VALUES


def rare(word: str) -> int:
    return 1


def nowhere(term: str) -> int:
    return 0


def never(stem: str) -> bool:
    return False


def test_a_word_after_a_subject_pronoun_is_its_verb() -> None:
    abstract = "Relaxed group convolutions keep the symmetry of the data while breaking it."
    asked = "What does it keep while it hunts for symmetry breaking?"
    assert unmentioned(asked, "Relaxed convolutions", abstract, rare) == []
    assert "hunts" not in unwritten(asked, nowhere, never)
    both = "BOOT and SiD both squeeze a pretrained diffusion model into a generator."
    assert "squeeze" not in unmentioned(both, "BOOT", "BOOT distills diffusion models.", rare)
    # a plural after "both" is still a thing the paper may lack
    assert "hospitals" in unmentioned(
        "Were both hospitals in the study?", "BOOT", "BOOT distills diffusion models.", rare
    )


def test_a_describing_word_by_its_ending_is_no_premise() -> None:
    asked = "How does EoH turn heuristics into something runnable?"
    assert unmentioned(asked, "EoH", "EoH evolves heuristics as code.", rare) == []


def test_a_half_remembered_quoted_title_names_no_premise() -> None:
    title = "Two Fists, One Heart: Multi-Objective Optimization Based Strategy Fusion"
    asked = 'The work titled "Two Hands, One Heart": how does it fuse strategies?'
    assert "Hands" not in unmentioned(asked, title, "We fuse strategies.", rare)
    # a quotation that is not the title keeps its words
    quoted = 'Which work says "models trained on hospital records"?'
    assert "hospital" in unmentioned(quoted, title, "We fuse strategies.", rare)


def test_a_long_word_one_letter_off_the_abstracts_is_that_word() -> None:
    abstract = "We bound the Radamacher complexity of coresets."
    assert unmentioned("What Rademacher bound holds?", "Coresets", abstract, rare) == []
    assert unmentioned("What Rademacher bound holds?", "Coresets", "We bound it.", rare) == [
        "Rademacher"
    ]


def test_what_the_asker_says_of_themself_is_no_premise_but_what_they_report_is() -> None:
    abstract = "Vision and language models converge to a shared representation."
    asked = "I scribbled this down from a talk: which models converge?"
    assert "talk" not in unwritten(asked, nowhere, never)
    reported = "I heard it was tested on hospitals: which models converge?"
    assert "hospitals" in unmentioned(reported, "Platonic", abstract, rare)


def test_a_statement_before_the_question_sets_the_scene_unless_the_asker_requests() -> None:
    told = "My advisor mentioned LSEnet when you don't know how many clusters there are. What objective does it minimize?"
    assert [p.kind for p in question_parts(told)] == ["other"]
    asked = "I'd like to know how many clusters LSEnet finds. What objective does it minimize?"
    assert question_parts(asked)[0].kind == "number"


def test_a_count_joined_to_its_noun_answers_how_many() -> None:
    part = classify("how many stages does the procedure have?")
    assert supplies(part, "We develop a three-stage protocol to learn these tags.", "", frozenset())
    assert not supplies(part, "We develop a protocol to learn these tags.", "", frozenset())


def test_a_lower_case_name_right_after_the_words_asking_for_it_names_it() -> None:
    part = question_parts("To which new privacy model does it extend?")[0]
    said = "It extends to a new privacy model, the continual observation setting."
    assert supplies(part, said, "", frozenset())
    assert not supplies(part, "It extends to a new privacy model.", "", frozenset())


def test_a_value_reached_a_gain_over_earlier_work_a_rate_and_a_gap() -> None:
    got = classify("what do naive baselines get?")
    assert supplies(got, "(naive baselines obtain 48% and 60%).", "", frozenset())
    margin = classify("how big is its margin over earlier methods?")
    said = "It outperforms prior works, achieving performance improvements of more than 45%."
    assert supplies(margin, said, "", frozenset())
    gains = classify("how large are its accuracy gains?")
    assert supplies(
        gains, "It outperforms strong baselines by up to 14.3% in ARI.", "", frozenset()
    )
    assert not supplies(gains, "It is evaluated on 3 datasets.", "", frozenset())
    rate = classify("how fast do the estimates converge to the sharp ones?")
    assert supplies(
        rate, "Solutions converge to the sharp bounds at a minimax optimal rate.", "", frozenset()
    )
    assert not supplies(rate, "Solutions converge to the sharp bounds.", "", frozenset())
    gap = classify("how far is that from what the best known methods achieve?")
    assert supplies(
        gap, "This result nearly matches upper bounds of best-known methods.", "", frozenset()
    )
    role = classify("what job does the simulator do?")
    assert role.kind == "other"


def test_everyday_words_for_the_abstracts_kind_of_data_and_field_acronyms() -> None:
    abstract = "DAT detects text in scene images and document images with a Vision Transformer."
    asked = (
        "Which tasks does DAT merge for text in photos and scanned pages, and how is its ViT used?"
    )
    assert unmentioned(asked, "Detect Any Text", abstract, rare) == []
    # another kind of data stays a premise the paper does not share
    assert "recordings" in unmentioned("Does DAT read voice recordings?", "DAT", abstract, rare)


def test_a_guarantee_on_how_often_asks_for_a_guarantee_not_a_number() -> None:
    part = question_parts("What guarantee does it give on how often its prediction sets miss?")[0]
    assert part.kind == "other"


def test_a_question_name_spelled_out_or_described_names_nothing_new() -> None:
    asked = "For PEAK and APP, which three LLMs were tested, and which MILP families?"
    llms, families = question_parts(asked)
    spelled = "We build Perturbation Evaluation of Appending Knowledge (PEAK) and APP."
    assert not supplies(llms, spelled, asked, frozenset())
    milp = "Data matters for methods for Mixed-Integer Linear Programming (MILP)."
    assert not supplies(families, milp, asked, frozenset())
    matrix = "Which base model does MATRIX tune?"
    part = question_parts(matrix)[0]
    assert not supplies(
        part, "We fine-tune the LLM with MATRIX-simulated data.", matrix, frozenset()
    )
    assert supplies(
        part, "We fine-tune Llama-2-13B with MATRIX-simulated data.", matrix, frozenset()
    )


def test_a_setting_the_abstract_names_the_other_kind_of_is_a_false_premise() -> None:
    sentences = [
        "Our posterior sampling algorithm for constrained MDPs in the infinite-horizon "
        "undiscounted setting attains near-optimal regret.",
    ]
    title = "A Bayesian Approach to Safe Exploration"
    episodic = (
        "What regret does the posterior sampling algorithm for episodic constrained MDPs get?"
    )
    assert contradicted(episodic, sentences, title) == sentences[0]
    right = (
        "What regret does the posterior sampling algorithm for undiscounted constrained MDPs get?"
    )
    assert contradicted(right, sentences, title) == ""
    # a paper naming the other setting as a contrast still holds the asked one
    fadas = [
        "FADAS trains clients asynchronously.",
        "Synchronous federated learning makes clients wait for stragglers.",
    ]
    asked = "How does FADAS train clients asynchronously in federated learning?"
    assert contradicted(asked, fadas, "FADAS") == ""
    trials = ["We estimate distributional treatment effects in randomized experiments."]
    observational = "How does it estimate distributional treatment effects from observational data?"
    assert contradicted(observational, trials, "Regression adjustment") == trials[0]


def test_values_and_counts_said_of_each_others_things() -> None:
    cpr = [
        "We assess CPR on real data, achieving state-of-the-art performance on predicting "
        "antibiotic prescription in intensive care units ($+22$% AUROC vs. previous SOTA) and "
        "predicting MRI prescription for Alzheimer's patients ($+7.7$% AUROC vs. previous SOTA)."
    ]
    swapped = (
        "CPR improves AUROC over the previous best by 22% when predicting MRI orders for "
        "Alzheimer's patients and by 7.7% for antibiotic prescribing in intensive care."
    )
    assert swapped_values(swapped, cpr) == cpr[0]
    right = (
        "CPR improves AUROC over the previous best by 7.7% when predicting MRI orders for "
        "Alzheimer's patients and by 22% for antibiotic prescribing in intensive care."
    )
    assert swapped_values(right, cpr) == ""
    meta = ["It gains up to 8.77% and 6.25% on 12 in-domain and 10 cross-domain datasets."]
    asked = "Does it gain up to 8.77% on 10 in-domain and 6.25% on 12 cross-domain datasets?"
    assert swapped_counts(asked, meta) == meta[0]
    kept = "Does it gain up to 8.77% on 12 in-domain and 6.25% on 10 cross-domain datasets?"
    assert swapped_counts(kept, meta) == ""


def test_easier_against_harder_said_of_the_subject_and_trailing_a_kind_of_rival() -> None:
    stolen = ["We show that the victim policy is harder to imitate when the attack queries match."]
    easier = "Stealing the victim policy gets easier when the attack queries match; how is it done?"
    assert contradicted(easier, stolen, "Stealthy Imitation") == stolen[0]
    # "harder problems" names the problems, it claims nothing against "easier inference"
    eased = ["Annealed energy landscapes give easier inference and faster training."]
    harder = "What lets the annealed energy landscapes solve harder problems at inference?"
    assert contradicted(harder, eased, "IRED") == ""
    ckg = ["CKGConv networks outperform existing graph convolutional networks on graph datasets."]
    trail = "Why do CKGConv networks trail conventional graph convolutional networks on graph data?"
    assert contradicted(trail, ckg, "CKGConv") == ckg[0]


def test_two_named_things_given_each_others_sides_of_a_contrast() -> None:
    said = [
        "We find that, while RLHF incurs a constant additional error, DPO retains its "
        "asymptotically decaying gap by tuning the temperature."
    ]
    swapped = "Why is DPO saddled with a constant extra error, while RLHF keeps a decaying gap?"
    assert swapped_subjects(swapped, said) == said[0]
    right = "Why is RLHF saddled with a constant extra error, while DPO keeps a decaying gap?"
    assert swapped_subjects(right, said) == ""


def test_two_bare_counts_on_each_others_things() -> None:
    harm = ["We compare 18 red teaming methods and 33 target LLMs and defenses."]
    swapped = "Its comparison runs 33 automated red-teaming methods against 18 target models."
    assert swapped_counts(swapped, harm) == harm[0]
    right = "Its comparison runs 18 automated red-teaming methods against 33 target models."
    assert swapped_counts(right, harm) == ""


def test_answers_in_more_forms_and_asker_verbs_from_blocks_33_and_34() -> None:
    saved = classify("how much training time is saved?")
    assert supplies(
        saved, "It shows 30%+ training time savings across modalities.", "", frozenset()
    )
    shown = question_parts("How are regions found, and on which datasets is it shown?")[1]
    results = (
        "PART achieves a notable improvement in accuracy on CIFAR-10, SVHN and TinyImagenet-200."
    )
    assert supplies(shown, results, "", frozenset())
    assert not supplies(shown, "We use CAM to find important pixel regions.", "", frozenset())
    many = classify("equivalent to solving how many single-agent problems?")
    said = "It is no harder than solving a logarithmic number of single-agent RL problems."
    assert supplies(many, said, "", frozenset())
    proof = classify("how long does it take to generate the zero-knowledge proof?")
    assert not supplies(
        proof, "ZkAudit computes zero-knowledge proofs of training.", "", frozenset()
    )
    abstract = "We study private set cover with pure differential privacy."
    asked = "Jotting notes while TA-ing: what does private set cover achieve?"
    assert unmentioned(asked, "Private set cover", abstract, rare) == []


def test_numbers_in_words_are_one_list() -> None:
    assert SPELLED_VALUES["sixteen"] == 16 and SPELLED_VALUES["forty-two"] == 42
    assert SPELLED_VALUES["ninety-nine"] == 99 and "hundred" not in SPELLED_VALUES
    assert SPELLED_NUMBER.fullmatch("thousands") and not SPELLED_NUMBER.fullmatch(
        "twenty-newsgroups"
    )
    assert is_number_word("twice") and is_number_word("Seventy") and not is_number_word("zero")


def test_what_the_review_found_stays_fixed() -> None:
    title, abstract = "Neural Operators", "We study turbulent flow with neural operators."
    # the asker's clause ends at a comma; "Type I" is no asker; a report stays a premise
    assert "combustion" in unmentioned(
        "I'm new here, but does it use combustion data?", title, abstract, rare
    )
    assert "combustion" in unmentioned(
        "Does it control the Type I error on combustion?", title, abstract, rare
    )
    assert "combustion" in unmentioned(
        "My advisor said it used combustion data. How?", title, abstract, rare
    )
    # a noun after "it" is no verb; two English words a letter apart are two words
    assert "combustion" in unmentioned("Was it combustion data they used?", title, abstract, rare)
    spectra = "We predict optical absorption spectra of molecules."
    assert "adsorption" in unmentioned(
        "How accurate are its adsorption maps?", "Spectra", spectra, rare
    )
    # a versioned name is another name; "what does X achieve" asks no number
    asked = "Which Llama model do they fine-tune?"
    tuned = "We collect data. We fine-tune Llama-2-chat on it."
    assert not check_abstract(asked, question_parts(asked), tuned, "Tuning", 1).missing
    achieve = "What does FlashAttention achieve?"
    assert question_parts(achieve)[0].kind == "other"
    # "how many baselines" asks no gain; an appositive of a kind is no name; one name is no list
    assert not supplies(
        classify("how many baselines are there?"), "It improves by 3%.", "", frozenset()
    )
    reward = question_parts("Which reward model do they use?")[0]
    assert not supplies(
        reward, "We revisit the reward model, the key component of alignment.", "", frozenset()
    )
    shown = question_parts("On which datasets is it shown?")[0]
    assert not supplies(shown, "It achieves a 2x speedup on A100 GPUs.", "", frozenset())
    # a gap and a rate need their qualifier and the part's own words
    far = classify("how far is the learned policy from the optimal one?")
    assert not supplies(far, "We propose an optimal transport method.", "", frozenset())
    fast = classify("how fast does SGD converge?")
    assert not supplies(fast, "We study the convergence rate of SGD.", "", frozenset())
    # "which is easier" asks; "harder … than" compares; "an audit trail"; "a stationary point"
    assert contradicted("Which is easier to train, the student or the teacher?",
                        ["We find the teacher is harder to train than the student."], "T") == ""  # fmt: skip
    assert contradicted("How does it build an audit trail of model updates?",
                        ["Our method improves the audit of model updates."], "T") == ""  # fmt: skip
    assert (
        contradicted(
            "How many iterations does the algorithm need to find a stationary point?",
            [
                "For non-stationary objectives the algorithm finds a stationary point in few iterations."
            ],
            "Tracking Non-Stationary Objectives",
        )
        == ""
    )
    # a side said with a negation is no swap; "A …, whereas B …" is read too
    said = ["While PPO needs a learned critic, DPO works directly from preference pairs."]
    assert swapped_subjects("Why doesn't DPO need a critic, while PPO can't use pairs?", said) == ""
    joined = ["GPT-4 solves most tasks, whereas LLaMA-2 fails on long-horizon tasks."]
    assert (
        swapped_subjects(
            "Why does LLaMA-2 solve most tasks, while GPT-4 fails on long-horizon tasks?", joined
        )
        == joined[0]
    )
    # a request without a pronoun still asks; "one-shot" counts nothing
    assert question_parts("Curious how many GPUs they used. Which dataset?")[0].kind == "number"
    stages = classify("how many stages does it have?")
    assert not supplies(stages, "A one-stage detector.", "", frozenset())
