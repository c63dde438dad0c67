"""Questions in two parts: a byline beside a content question, a topic within a topic, a
superlative over the figures abstracts report, and mentions negated."""

from __future__ import annotations

from rag.answer.question_parts import question_parts
from rag.answer.supplied import supplies
from rag.plan.byline import byline_asked, byline_beside, who_asked
from rag.plan.parser import QuestionParser
from rag.plan.within import topic_within
from rag.sets import reported
from rag.text import content_terms, title_head
from rag.types import Paper, QueryPlan
from tests.unit.test_new_user_metadata import PLACES

PARSER = QuestionParser(PLACES)
NAMED = {"Medusa", "TrustLLM", "GaLore", "DoRA"}


def _byline_plan(question: str) -> QueryPlan | None:
    """A byline question naming one of NAMED plans as its byline (the planner's part)."""
    asked = byline_asked(question) or who_asked(question)
    if asked is not None and asked.name in NAMED:
        return QueryPlan(kind="metadata", like_paper="p1", written_by="all")
    return None


def test_a_byline_question_beside_a_content_question_is_split_and_the_paper_named() -> None:
    both = byline_beside(
        "How many authors does TrustLLM have, and what are its main findings?", _byline_plan
    )
    assert both is not None
    assert both.byline == "How many authors does TrustLLM have?"
    assert both.content == "What are TrustLLM's main findings?"
    both = byline_beside(
        "Who wrote the Medusa paper and what speedup does it report?", _byline_plan
    )
    assert both is not None
    assert (both.byline, both.content) == (
        "Who wrote the Medusa paper?",
        "What speedup does Medusa report?",
    )


def test_a_byline_asked_second_takes_the_name_from_the_first_part() -> None:
    both = byline_beside("What does the paper on DoRA propose and is it an oral?", _byline_plan)
    assert both is not None
    assert (both.byline, both.content) == (
        "Is DoRA an oral?",
        "What does the paper on DoRA propose?",
    )
    both = byline_beside("What does GaLore propose, and who wrote it?", _byline_plan)
    assert both is not None and both.byline == "Who wrote GaLore?"


def test_two_byline_parts_are_one_byline_and_a_topic_is_no_paper() -> None:
    both = byline_beside("Who are the authors of Medusa and where are they from?", _byline_plan)
    assert both is not None and both.content == ""
    # no paper named: nothing to split ("papers on diffusion" plans as no one paper)
    assert (
        byline_beside("Who wrote papers on diffusion and what do they find?", _byline_plan) is None
    )
    assert byline_beside("What speedup does Medusa report?", _byline_plan) is None


def test_a_position_papers_title_names_what_follows_its_label() -> None:
    assert title_head("Position: TrustLLM: Trustworthiness in Large Language Models") == "TrustLLM"
    assert title_head("Position: Levels of AGI") == "Position"
    assert title_head("BiLLM: Pushing the Limit") == "BiLLM"


def test_a_topic_within_a_topic_is_one_topic_of_two_facets() -> None:
    def known(name: str) -> bool:
        return name in {"Google", "MIT"}

    cases = {
        "Which papers on graph neural networks are also about molecules?": (
            "Which papers are about graph neural networks with molecules?"
        ),
        "How many papers are about diffusion models, and how many of them are about video?": (
            "How many papers are about diffusion models with video?"
        ),
        "Of the federated learning papers, which ones deal with differential privacy?": (
            "Which papers are about federated learning with differential privacy?"
        ),
        "reinforcement learning papers that also use transformers?": (
            "Which papers are about reinforcement learning with transformers?"
        ),
        "Which LLM papers are also about code generation, and how many are there?": (
            "How many papers are about LLM with code generation?"
        ),
        "Which graph neural network papers are about molecules?": (
            "Which papers are about graph neural network with molecules?"
        ),
        "How many federated learning papers work on video data?": (
            "How many papers are about federated learning with video data?"
        ),
        "How many diffusion model papers are about robotics, and which ones?": (
            "How many papers are about diffusion model with robotics?"
        ),
    }
    for question, expected in cases.items():
        assert topic_within(question, known) == expected, question
    for question in (
        "How many papers are about diffusion models, and how many of them are orals?",
        "Which Google papers are also about reinforcement learning?",
        "Which LLM papers are about code generation?",  # a capitalised name may be a lab's
        "Which papers on diffusion models are also from MIT?",
        "Which recent papers use transformers?",
    ):
        assert topic_within(question, known) is None, question


def test_the_parser_reads_a_topic_within_a_topic_as_two_facets() -> None:
    plan = PARSER.plan("Which papers on graph neural networks are also about molecules?")
    assert (plan.kind, plan.topic) == ("list", "graph neural networks with molecules")


def test_a_negated_mention_leaves_the_papers_that_write_it_out() -> None:
    plan = PARSER.plan("LLM papers that do not mention fine-tuning")
    assert plan.constraints.not_text_words == ["fine-tuning"]
    assert plan.constraints.text_words == []
    assert not plan.constraints.is_empty()
    plan = PARSER.plan("How many papers mention Llama 2 specifically?")
    assert (plan.kind, plan.topic, plan.constraints.text_words) == ("metadata", "", ["Llama 2"])
    plan = PARSER.plan("Which papers explicitly mention GPT-4?")
    assert (plan.topic, plan.constraints.text_words) == ("", ["GPT-4"])


def test_titles_with_a_question_mark_and_a_label_with_its_colon() -> None:
    plan = PARSER.plan("How many titles contain a question mark?")
    assert plan.constraints.title_words == ["?"]
    plan = PARSER.plan("How many titles start with 'Position:' and are from Google?")
    assert plan.constraints.title_words == ["^Position"] and plan.topic == ""


def test_how_much_a_method_saves_is_supplied_by_a_reduction_a_few_words_off() -> None:
    part = question_parts("How much memory does GaLore save?")[0]
    assert part.target == {"memori", "save"} and part.window > 5
    # "memory" is in GaLore's title ("Memory-Efficient") and still asked
    title = frozenset(content_terms("GaLore: Memory-Efficient LLM Training"))
    said = "Our approach reduces memory usage by up to 65.5% in optimizer states."
    assert supplies(part, said, "How much memory does GaLore save?", title)
    energy = question_parts("How much energy does GaLore save?")[0]
    assert not supplies(energy, said, "How much energy does GaLore save?", title)
    compared = question_parts("How much memory does BiLLM save compared to GaLore?")[0]
    assert compared.window == 5  # a comparison's figure is asked, not any saving


def _paper(pid: str, abstract: str, status: str = "Poster") -> Paper:
    return Paper(id=pid, title=f"Paper {pid}", abstract=abstract, authors=["A B"], status=status)


def test_a_superlative_over_a_reported_figure_is_read_with_its_topic() -> None:
    top = reported.asked(
        "Which ICML 2024 paper on speculative decoding reports the largest speedup?"
    )
    assert top is not None and (top.family, top.topic) == ("speedup", "speculative decoding")
    top = reported.asked("What's the biggest inference speedup any LLM paper claims?")
    assert top is not None and (top.family, top.topic) == ("speedup", "LLM")
    top = reported.asked("Which oral paper reports the biggest memory reduction?")
    assert top is not None
    assert (top.family, top.topic, top.statuses, top.noun) == (
        "reduction",
        "",
        ["Oral"],
        "memory reduction",
    )
    top = reported.asked(
        "Which mixture-of-experts paper reports the largest throughput or speed gain?"
    )
    assert top is not None and (top.family, top.topic) == ("speedup", "mixture-of-experts")
    assert reported.asked("Which paper has the most authors?") is None
    assert reported.asked("What is the most important paper on diffusion?") is None


def test_figures_go_with_the_measure_their_own_clause_names() -> None:
    paper = _paper(
        "p",
        "Furthermore, APT speeds up LMs' fine-tuning by up to 8$\\times$ and reduces large "
        "LMs' memory training footprint by up to 70%. We observe consistent latency speedup "
        "of up to $3.7 \\times$, cost savings of up to $6.7 \\times$.",
    )
    speed = reported.asked("Which paper reports the largest speedup?")
    memory = reported.asked("Which paper reports the largest memory reduction?")
    assert speed is not None and memory is not None and memory.measured == ["memory"]
    assert [f.said for f in reported.figures(paper, speed)] == ["8×", "3.7×"]
    saved = reported.figures(paper, memory)
    assert [f.said for f in saved] == ["70%"] and round(saved[0].value, 2) == 3.33
    talked = _paper("t", "We use 9$\\times$ fewer rounds and 100$\\times$ less communication.")
    less = reported.asked("Which paper reports the largest reduction in communication?")
    assert less is not None and [f.said for f in reported.figures(talked, less)] == ["100×"]


def test_the_answer_ranks_the_stated_figures_and_says_none_where_none_is_stated() -> None:
    papers = [
        _paper("a", "Our method is 2.5x faster than the baseline."),
        _paper("b", "It achieves a 3.1$\\times$ speedup in decoding."),
        _paper("c", "We prove a bound."),
    ]
    top = reported.asked("Which paper reports the largest speedup?")
    assert top is not None
    plan = QueryPlan(kind="list")
    answer = reported.answer("q", "q", plan, top, papers, "at ICML 2024")
    assert answer.aggregate is not None
    assert [p.paper_id for p in answer.aggregate.papers] == ["b", "a"]
    assert "the largest stated is 3.1× in *Paper b* [1]" in answer.answer
    assert "not which method is best" in answer.answer
    none = reported.answer("q", "q", plan, top, papers[2:], "paper at ICML 2024")
    assert none.aggregate is not None and none.aggregate.count == 0 and not none.citations
    assert none.answer.startswith("I found no figure for speedup in the abstracts of the 1 paper")


def test_the_largest_model_is_read_from_sizes_abstracts_state() -> None:
    top = reported.asked("Which paper proposes the largest model in terms of parameters?")
    assert top is not None and (top.family, top.topic, top.noun) == ("size", "", "model size")
    papers = [
        _paper("a", "We scale our transducer to 1.5 trillion parameters."),
        _paper("b", "Experiments on the Llama-2 70B model show gains; we train on 260B tokens."),
    ]
    assert [f.said for f in reported.figures(papers[0], top)] == ["1.5 trillion"]
    assert [f.said for f in reported.figures(papers[1], top)] == ["70B"]  # not the tokens
    answer = reported.answer("q", "q", QueryPlan(kind="list"), top, papers, "papers at ICML 2024")
    assert answer.aggregate is not None
    assert [p.paper_id for p in answer.aggregate.papers] == ["a", "b"]


def test_a_figure_on_the_asked_benchmark_only() -> None:
    top = reported.asked("Which paper reports the highest accuracy on ImageNet?")
    assert top is not None and (top.bench, top.topic) == ("ImageNet", "ImageNet")
    paper = _paper("s", "It achieves 83.82% accuracy on CV dataset (ImageNet) and 93.79% "
                   "accuracy on NLP dataset (SST-2).")  # fmt: skip
    assert [f.said for f in reported.figures(paper, top)] == ["83.82%"]


def test_but_not_leaves_a_topic_or_a_word_out() -> None:
    plan = PARSER.plan("Which papers are about graph neural networks but not transformers?")
    assert (plan.topic, plan.not_about) == ("graph neural networks", "transformers")
    plan = PARSER.plan("Which papers mention ChatGPT but not transformers?")
    assert plan.constraints.text_words == ["ChatGPT"]
    assert plan.constraints.not_text_words == ["transformers"]
    plan = PARSER.plan("How many papers mention GPT-4 but not GPT-3.5?")
    assert plan.constraints.not_text_words == ["GPT-3.5"] and not plan.not_about


def test_the_most_of_a_thing_counts_what_abstracts_say_they_used() -> None:
    top = reported.asked("Which paper reports the largest number of GPUs used?")
    assert top is not None and (top.family, top.counted, top.topic) == ("count", "GPUs", "")
    used = _paper(
        "g", "Training takes 16 nodes with 128 NVIDIA A100 GPUs; search takes 0.4 GPU days."
    )
    assert [f.said for f in reported.figures(used, top)] == ["128 NVIDIA A100 GPUs"]
    tokens = reported.asked("Which paper uses the most tokens?")
    assert tokens is not None and tokens.counted == "tokens"
    read = _paper("t", "It is trained on over 1T tokens, and 1.2 trillion tokens are retrieved.")
    assert sorted(f.value for f in reported.figures(read, tokens)) == [1e12, 1.2e12]


def test_a_score_where_lower_is_better_is_ranked_lowest_first() -> None:
    top = reported.asked("Which paper reports the lowest FID?")
    assert top is not None and (top.family, top.noun) == ("lower", "FID")
    assert reported.asked("Which paper reports the highest FID?") is None
    assert reported.asked("Which paper has the smallest model?") is None
    papers = [
        _paper(
            "a",
            "Our compact model achieves an FID of 7.42, surpassing a prior approach (FID 8.07).",
        ),
        _paper("b", "It reaches FID 1.79 on CIFAR-10."),
    ]
    answer = reported.answer("q", "q", QueryPlan(kind="list"), top, papers, "papers at ICML 2024")
    assert answer.aggregate is not None
    assert [p.paper_id for p in answer.aggregate.papers] == ["b", "a"]
    assert "the lowest stated is 1.79" in answer.answer and "- 7.42:" in answer.answer


def test_first_and_last_authors_and_name_the_authors_are_byline_questions() -> None:
    both = byline_beside(
        "Who are the first and last authors of Medusa and what is its main idea?", _byline_plan
    )
    assert both is not None and both.content == "What is Medusa's main idea?"
    both = byline_beside("Name the authors of DoRA and explain what it decomposes.", _byline_plan)
    assert both is not None and both.content == "Explain what DoRA decomposes?"


def test_two_counts_compared_are_two_sets() -> None:
    from rag.plan.within import two_sets

    assert two_sets(
        "Compare the number of papers on federated learning and on differential privacy.",
        lambda name: False,
    ) == (
        "How many papers are about federated learning?",
        "How many papers are about differential privacy?",
    )
    assert two_sets("Are there more papers on diffusion models or on GANs?", lambda n: False)
    assert two_sets("Compare SAMformer and Timer", lambda n: False) is None


def test_more_ways_of_asking_a_byline_beside_the_content() -> None:
    cases = {
        "Who authored DoRA and what does it decompose?": (
            "Who authored DoRA?",
            "What does DoRA decompose?",
        ),
        "Tell me who wrote Medusa and what speedup it reports.": (
            "Who wrote Medusa?",
            "What speedup Medusa reports?",
        ),
        "Was GaLore an oral? What does it propose?": (
            "Was GaLore an oral?",
            "What does GaLore propose?",
        ),
        "Give me the authors of TrustLLM and the number of LLMs it evaluates.": (
            "Give me the authors of TrustLLM?",
            "What is the number of LLMs TrustLLM evaluates?",
        ),
    }
    for question, (byline, content) in cases.items():
        both = byline_beside(question, _byline_plan)
        assert both is not None, question
        assert (both.byline, both.content) == (byline, content), question


def test_the_longest_context_a_paper_states_is_ranked_in_tokens() -> None:
    top = reported.asked("Which paper extends the context window of LLMs the furthest?")
    assert top is not None and (top.family, top.topic) == ("context", "LLMs")
    top = reported.asked("Which paper uses the longest context length?")
    assert top is not None and top.family == "context" and top.noun == "context length"
    long = _paper("l", "It extends the context window of pre-trained LLMs to 2048k tokens.")
    window = _paper("w", "We train a 1M-token context model, 100 tokens per step.")
    none = _paper("n", "We use 8 GPUs and 1,000 tokens of prompt.")  # no context spoken of
    assert [f.value for f in reported.figures(long, top)] == [2_048_000]
    assert [f.value for f in reported.figures(window, top)] == [1_000_000]
    assert reported.figures(none, top) == []
    asked = reported.asked("What is the biggest dataset (in tokens) mentioned for pretraining?")
    assert asked is not None and (asked.family, asked.topic) == ("count", "pretraining")


def test_a_byline_asked_of_a_paper_described_then_named_in_brackets() -> None:
    asked = byline_asked("Who wrote the paper on Mamba for vision (Vision Mamba)?")
    assert asked is not None and asked.name == "Vision Mamba"
    asked = byline_asked("Which institutions are behind Timer (large time series models)?")
    assert asked is not None and asked.name == "Timer"
    asked = byline_asked("Which affiliations does the VideoPoet paper list?")
    assert asked is not None and asked.name == "VideoPoet"


def test_a_superlative_said_again_in_brackets_or_over_every_abstract_has_no_topic() -> None:
    top = reported.asked(
        "What's the biggest model (parameter count) mentioned in an ICML 2024 abstract?"
    )
    assert top is not None and (top.family, top.topic) == ("size", "")
    top = reported.asked("What's the highest reported accuracy in any abstract?")
    assert top is not None and (top.family, top.topic, top.measured) == ("accuracy", "", [])


def test_a_speedup_a_verb_reaches_with_by_is_read_however_far() -> None:
    speed = reported.asked("Which paper reports the largest speedup?")
    assert speed is not None
    far = _paper(
        "f",
        "DiffOAS accelerates the generation of large-scale datasets with 10,000 instances by 300 times.",
    )
    almost = _paper("a", "It speeds up the five-view generations by almost 470 times.")
    hedged = _paper("h", "The previous best reached nearly 100% accuracy.")
    assert [f.said for f in reported.figures(far, speed)] == ["300×"]
    assert [f.said for f in reported.figures(almost, speed)] == ["470×"]
    accuracy = reported.asked("Which paper reports the highest accuracy?")
    assert accuracy is not None and reported.figures(hedged, accuracy) == []


def test_two_byline_parts_of_one_paper_are_each_the_catalogues() -> None:
    def plan_of(question: str) -> QueryPlan | None:
        asked = byline_asked(question) or who_asked(question)
        if asked is None or asked.name not in NAMED:
            return None
        return QueryPlan(kind="metadata", like_paper="p1", written_by=asked.written_by)

    both = byline_beside("Is Medusa an oral and who are the authors?", plan_of)
    assert both is not None
    assert (both.byline, both.content) == ("Is Medusa an oral?", "Who are the authors of Medusa?")
    both = byline_beside("Is GaLore an oral, and who wrote it?", plan_of)
    assert both is not None and both.content == "Who wrote GaLore?"


def test_superlatives_asked_the_way_new_users_ask_them() -> None:
    # remarks around the question are no topic; a set's size is counted in what it holds
    top = reported.asked(
        "i'm writing a survey. which paper claims the biggest cut in carbon emissions (CO2)?"
    )
    assert top is not None and (top.family, top.topic) == ("reduction", "")
    top = reported.asked("largest number of molecules any paper pretrains on? just want the set")
    assert top is not None and (top.family, top.counted, top.topic) == ("count", "molecules", "")
    top = reported.asked("biggest math training set anyone built — how many problems does it have?")
    assert top is not None and (top.counted, top.measured) == ("problems", ["math"])
    top = reported.asked("which paper uses the largest dataset (number of images)?")
    assert top is not None and top.counted == "images"
    top = reported.asked("X folks — memory is my bottleneck. who reports the largest compression?")
    assert top is not None and top.topic == "X"
    top = reported.asked(
        "any bayesian optimization paper that reports memory savings? which one saves the most?"
    )
    assert top is not None and (top.topic, top.noun) == ("bayesian optimization", "memory savings")
    top = reported.asked("whats the highest frame rate anyone reports?")
    assert top is not None and top.family == "rate"


def test_figures_written_the_way_abstracts_write_them() -> None:
    memory = reported.asked("Which paper reports the largest memory reduction?")
    assert memory is not None
    paired = _paper(
        "p",
        "It reduces the backward-pass memory and computation cost by up to 1,098$\\times$ and "
        "7.68$\\times$, respectively.",
    )
    assert [f.said for f in reported.figures(paired, memory)] == ["1,098×"]
    speed = reported.asked("Which paper reports the largest speedup?")
    assert speed is not None
    wide = _paper(
        "w", "It speeds up sampling of 1024$\\times$1024 images by two orders of magnitude."
    )
    assert [f.value for f in reported.figures(wide, speed)] == [100.0]
    fpr = reported.asked("which one reports the biggest drop in false positives?")
    assert fpr is not None
    said = _paper(
        "f", "It keeps a low False Positive Rate (FPR). It gives an 11x reduction in the FPR."
    )
    assert [f.said for f in reported.figures(said, fpr)] == ["11×"]
    share = _paper("s", "It reduces energy by 89% for 98% of arithmetic operations.")
    energy = reported.asked("Which paper reports the largest energy savings?")
    assert energy is not None and [f.said for f in reported.figures(share, energy)] == ["89%"]
    sets = _paper(
        "m", "We pretrain on $100$M molecules and create two million question-answer pairs."
    )
    molecules = reported.asked("Which paper pretrains on the most molecules?")
    problems = reported.asked("Which paper's dataset has the largest number of problems?")
    assert molecules is not None and problems is not None
    assert [f.value for f in reported.figures(sets, molecules)] == [1e8]
    assert [f.value for f in reported.figures(sets, problems)] == [2e6]
    fast = _paper("r", "ESNet runs in real time at 49 FPS on one GPU.")
    rate = reported.asked("whats the highest frame rate anyone reports?")
    assert rate is not None and [f.value for f in reported.figures(fast, rate)] == [49.0]


def test_rates_sparsity_and_a_benchmark_named_in_camel_case() -> None:
    top = reported.asked("in LLM alignment papers, what's the biggest win rate reported?")
    assert top is not None and (top.family, top.topic) == ("accuracy", "LLM alignment")
    top = reported.asked("whats the highest pass@1 on humaneval reported?")
    assert top is not None and top.noun == "pass@1"
    top = reported.asked("Which pruning paper reaches the highest sparsity?")
    assert top is not None and top.family == "sparsity"
    snn = reported.asked(
        "which spiking neural network paper reports the highest ImageNet accuracy?"
    )
    assert snn is not None and snn.bench == "ImageNet"
    both = _paper("b", "Its accuracy is 83.82% on ImageNet and 93.79% on SST-2.")
    assert [f.said for f in reported.figures(both, snn)] == ["83.82%"]
    # the benchmark in the sentence, the figure in a clause naming no other
    said = _paper("d", "On ImageNet-1K, trained on public data, it achieves 90.0% top-1 accuracy.")
    assert [f.said for f in reported.figures(said, snn)] == ["90.0%"]


def test_a_rate_or_ratio_asked_wants_its_own_word_and_counts_are_no_years() -> None:
    ratio = reported.asked("which claims the largest compression ratio?")
    assert ratio is not None and ratio.own == "compress"
    smaller = _paper("s", "The poisoned set is four orders of magnitude smaller.")
    assert reported.figures(smaller, ratio) == []
    squeezed = _paper("q", "It compresses the preconditioner by two orders of magnitude.")
    assert [f.value for f in reported.figures(squeezed, ratio)] == [100.0]
    pass5 = reported.asked("highest pass@5 reported?")
    assert pass5 is not None
    success = _paper("a", "Our agent reaches a 100% success rate and 61% pass@1.")
    assert reported.figures(success, pass5) == []
    datasets = reported.asked("which paper evaluates on the most datasets?")
    assert datasets is not None
    noisy = _paper(
        "n",
        "We train on 1.4B tokens across diverse datasets, the ImageNet 2012 dataset and the "
        "ImageNet-64/128 datasets, and evaluate on close to 60 datasets.",
    )
    assert [f.value for f in reported.figures(noisy, datasets)] == [60.0]
