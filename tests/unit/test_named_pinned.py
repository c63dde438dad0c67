"""A cited answer asked of a paper the question names keeps to that paper: "what datasets
does LoRA+ use" is answered from LoRA+ (or said not to be given), not from another paper
that writes "datasets" and "LoRA"."""

from __future__ import annotations

from rag.catalogue.catalogue import Catalogue
from rag.sets.named import papers_named, pinned
from rag.types import Filters, Paper


def _paper(pid: str, title: str, abstract: str, status: str = "Poster") -> Paper:
    return Paper(id=pid, title=title, abstract=abstract, authors=["A B"], status=status,
                 extra={"affiliations": [], "pmlr_key": pid})  # fmt: skip


CATALOGUE = Catalogue.of(
    [
        _paper("kto", "Model Alignment as Prospect Theoretic Optimization",
               "We propose a new loss. We call this approach KTO, and it matches DPO."),
        _paper("lora", "LoRA+: Efficient Low Rank Adaptation of Large Models",
               "We call this proposed algorithm LoRA+. It is faster than LoRA.", "Oral"),
        _paper("tdpo", "Token-level Direct Preference Optimization",
               "Utilizing the Bradley-Terry model, our method beats KTO and LoRA+ baselines."),
        _paper("vim", "Vision Mamba: Efficient Visual Representation Learning",
               "Vim is 2.8x faster than DeiT."),
        _paper("augpe", "Differentially Private Synthetic Data via Foundation Model APIs",
               "We propose Aug-PE, an augmented private evolution framework."),
        _paper("less1", "LESS: Selecting Influential Data for Targeted Instruction Tuning",
               "We propose LESS, an optimizer-aware data selection algorithm."),
        _paper("less2", "Get More with LESS: Synthesizing Recurrence with KV Cache Compression",
               "We propose LESS, a constant-sized cache added to the KV cache."),
    ]
)  # fmt: skip


def test_a_paper_named_by_its_title_or_as_a_paper_is_the_one_asked_about() -> None:
    assert [p.id for p in papers_named("what datasets does LoRA+ use", CATALOGUE)] == ["lora"]
    asked = "does the KTO paper use the Bradley-Terry model?"  # proposed in its abstract
    assert [p.id for p in papers_named(asked, CATALOGUE)] == ["kto"]
    # a title's name of two words, looked up whole
    assert [p.id for p in papers_named("Is Vision Mamba 5x faster?", CATALOGUE)] == ["vim"]
    assert pinned("what datasets does LoRA+ use", CATALOGUE, None) == ["lora"]


def test_no_paper_is_pinned_where_the_name_is_not_one_papers_own() -> None:
    for question in (
        "How large is the cache that LESS adds?",  # two papers propose a LESS
        "Which paper improves on LoRA+?",  # asks for another paper
        "What does KTO optimize?",  # proposed in an abstract, not asked as a paper's
        "What do LoRA+ and Aug-PE each do?",  # Aug-PE's paper is named too: asked of both
        "Apart from LoRA+, how else can low-rank adaptation be sped up?",  # asks for others
        "Which methods build on LoRA+?",
    ):
        assert papers_named(question, CATALOGUE) == [], question
        assert pinned(question, CATALOGUE, None) == []


def test_the_callers_filters_win_over_a_named_paper_they_leave_out() -> None:
    posters = Filters(status=["Poster"])  # LoRA+ is an oral
    assert pinned("what datasets does LoRA+ use", CATALOGUE, posters) == []
    orals = Filters(status=["Oral"])
    assert pinned("what datasets does LoRA+ use", CATALOGUE, orals) == ["lora"]


def test_a_name_many_abstracts_write_is_a_concept_not_one_papers() -> None:
    from rag.sets.named import NamedPapers

    many = Catalogue.of(
        [_paper(f"g{i}", f"Paper {i}", f"We propose a new way to train GANs, number {i}.")
         for i in range(7)]
    )  # fmt: skip
    resolved = NamedPapers(many, lambda text: None).resolve("GANs")
    assert resolved.paper is None  # "compare diffusion models and GANs" names no paper
    assert NamedPapers(CATALOGUE, lambda text: None).resolve("KTO").paper is not None


def test_a_coined_name_asked_to_be_defined_is_its_introducing_papers() -> None:
    from rag.sets.named import defined_asked

    for question, pid in (
        ("What is KTO?", "kto"),  # proposed in its abstract
        ("Which paper introduced LoRA+?", "lora"),  # its title's opening
        ("Explain Aug-PE in simple terms.", "augpe"),
        ("who proposed the Aug-PE method?", "augpe"),
    ):
        paper = defined_asked(question, CATALOGUE)
        assert paper is not None and paper.id == pid, question
    # two papers propose LESS; a word is no coined name; more is asked than what it is
    for question in ("What is LESS?", "what is attention?", "What is KTO's loss on Llama 2?"):
        assert defined_asked(question, CATALOGUE) is None, question


def test_a_name_many_abstracts_use_and_none_introduces_is_said_to_be_earlier_work() -> None:
    from rag.sets.named import earlier_work
    from rag.types import QueryPlan

    users = [
        _paper(f"m{i}", f"Study {i} of sequence models", "We build on Mamba (Gu and Dao).")
        for i in range(6)
    ]
    catalogue = Catalogue.of([*users, *CATALOGUE.papers.many(set(CATALOGUE.papers))])
    question = "Which paper introduced Mamba?"
    answer = earlier_work(question, question, QueryPlan(kind="paper"), catalogue)
    assert answer is not None
    assert answer.answer.startswith(
        "No ICML 2024 abstract introduces Mamba: 7 abstracts"
    )  # and Vision Mamba
    assert [c.n for c in answer.citations] == [1, 2, 3]
    # what it is, or a name one paper introduces, is asked of the papers
    assert (
        earlier_work("What is Mamba?", "What is Mamba?", QueryPlan(kind="paper"), catalogue) is None
    )
    asked = "Which paper introduced KTO?"
    assert earlier_work(asked, asked, QueryPlan(kind="paper"), catalogue) is None


def test_a_title_asking_about_a_name_does_not_introduce_it() -> None:
    from rag.sets.named import defined_asked, earlier_work
    from rag.types import QueryPlan

    catalogue = Catalogue.of(
        [
            _paper("io", "How Optimal is FlashAttention?",
                   "In a recent significant development, FlashAttention shows a bound."),
            _paper("p1", "Paper One", "We compare with FlashAttention on long inputs."),
            _paper("p2", "Paper Two", "Our kernel beats FlashAttention by 2x."),
            _paper("sedd", "Discrete Diffusion",
                   "We test our Score Entropy Discrete Diffusion models (SEDD) on text."),
        ]
    )  # fmt: skip
    asked = "Which paper at ICML 2024 proposed FlashAttention?"
    assert defined_asked(asked, catalogue) is None  # "development" proposes nothing
    said = earlier_work(asked, asked, QueryPlan(kind="paper"), catalogue)
    assert said is not None and said.abstained
    assert said.answer.startswith("No ICML 2024 abstract introduces FlashAttention: 3 abstracts")
    # a name only its own abstract writes is its own; a second question about it is fine
    paper = defined_asked("What does SEDD stand for, and how does it work?", catalogue)
    assert paper is not None and paper.id == "sedd"


def test_a_status_given_a_named_paper_is_taken_out_and_checked() -> None:
    from rag.sets.named import status_note, status_said

    said = status_said("What is the oral paper LoRA+ about?", CATALOGUE)
    assert said is not None and said.question == "What is the paper LoRA+ about?"
    assert status_note(said) == ""  # LoRA+ is an oral: the status only narrowed
    said = status_said("What is the spotlight paper LoRA+ about?", CATALOGUE)
    assert said is not None and status_note(said).endswith("an oral at ICML 2024, not a spotlight.")
    said = status_said("what does the Vision Mamba oral paper show?", CATALOGUE)
    assert said is not None and said.question == "what does the Vision Mamba paper show?"
    assert status_note(said).endswith("was a poster at ICML 2024, not an oral.")
    # a name no title opens, or no name at all, is left as asked
    assert status_said("What is the oral paper KTO about?", CATALOGUE) is None
    assert status_said("Which spotlight papers are about RL?", CATALOGUE) is None


def test_the_people_and_places_a_question_is_asked_among_leave_its_words() -> None:
    from rag.sets.named import without_owners

    asked = "What does the paper by Collin Burns on weak supervision find?"
    assert (
        without_owners(asked, ["Collin Burns"], [])
        == "What does the paper on weak supervision find?"
    )
    asked = "What does the Burns paper on weak supervision find?"  # a family name alone
    assert (
        without_owners(asked, ["Collin Burns"], [])
        == "What does the paper on weak supervision find?"
    )
    asked = "In the DPO vs PPO paper from Tsinghua, what did they find?"
    assert without_owners(asked, [], ["Tsinghua"]) == "In the DPO vs PPO paper, what did they find?"


def test_words_opening_one_titles_name_name_that_paper() -> None:
    from rag.sets.named import titled_in

    catalogue = Catalogue.of(
        [
            _paper("lim", "Long Is More for Alignment: A Simple Baseline", "We select data."),
            _paper("lt1", "Long-Term Effects of Treatments", "We infer long-term effects."),
            _paper("vim", "Vision Mamba: Efficient Visual Learning", "Vim is fast."),
            _paper("v2", "Vision Transformers Need Registers", "We add tokens."),
        ]
    )
    assert catalogue.opening("Long Is More") is not None
    assert catalogue.opening("Long Is") is None  # too short a start is left to titles whole
    assert catalogue.opening("Vision") is None  # two titles open so
    assert titled_in("Does the Long Is More paper use 1,000 examples?", catalogue) == ["lim"]
    assert titled_in("How fast is Vision Mamba?", catalogue) == ["vim"]
    assert titled_in("What is new in vision models?", catalogue) == []


def test_a_name_a_paper_only_lists_or_builds_on_is_not_its_own() -> None:
    from rag.sets.named import defined_asked

    catalogue = Catalogue.of(
        [
            _paper("ev", "Evaluating Quantized Models",
                   "This paper presents a thorough evaluation on 11 model families, including "
                   "OPT, LLaMA2, Falcon, Bloomz and Gemma."),
            _paper("pid", "Few-Shot Learning with PID Control",
                   "This study introduces a Layer-Adaptive PID Optimizer, a MAML-based optimizer."),
            _paper("sim", "All-in-one simulation-based inference",
                   "Here, we present a new amortized inference method---the Simformer---which "
                   "overcomes these limitations. We test the Simformer on simulators."),
        ]
    )  # fmt: skip
    for question in ("What is Falcon?", "What is Gemma?", "Who proposed MAML?"):
        assert defined_asked(question, catalogue) is None, question
    paper = defined_asked("Which paper introduced the Simformer?", catalogue)
    assert paper is not None and paper.id == "sim"


def test_what_a_named_paper_finds_is_asked_of_that_paper() -> None:
    from rag.sets.named import defined_asked

    for question in (
        "What are the main results of KTO?",
        "What are the key findings of LoRA+?",
        "whats the deal with KTO",
        "summarize Aug-PE",
        "What does KTO show?",
    ):
        paper = defined_asked(question, CATALOGUE)
        assert paper is not None, question
    # a result of the method on something else is more than what it finds overall
    assert (
        defined_asked("What are the main results of KTO on Llama 2 and Mistral?", CATALOGUE) is None
    )


def test_what_a_named_papers_result_is_asked_of_it() -> None:
    from rag.plan.framing import plain_question
    from rag.sets.named import defined_asked

    assert (
        plain_question("What's the KTO paper's main result?")
        == "What's the KTO paper's main result?"
    )
    paper = defined_asked("What's the KTO paper's main result?", CATALOGUE)
    assert paper is not None and paper.id == "kto"
    assert defined_asked("What are the paper's main results?", CATALOGUE) is None  # no name
