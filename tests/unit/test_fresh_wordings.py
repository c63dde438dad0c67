"""What a fresh block of natural questions (hdev-1000…1035) and false premises
(hdev-964…999) found: the asker's idiom, numbers in words, accents, margins asked in
other words, and two values the question swaps."""

from __future__ import annotations

from rag.answer.misstated import miscounted, swapped_values
from rag.answer.premises import unmentioned, unwritten
from rag.answer.question_parts import question_parts
from rag.answer.supplied import check_abstract
from rag.text import writes_name

CHAI = [
    "In our experiments, we show that CHAI is able to reduce the memory requirements for "
    "storing K,V cache by up to 21.4% and inference time latency by up to 1.73x.",
    "CHAI achieves this with a maximum 3.2% deviation in accuracy across 3 different models.",
]


def rare(word: str) -> int:
    return 1


def test_two_values_said_of_each_others_things_are_a_false_premise() -> None:
    swapped = "CHAI trims the K,V cache memory by up to 3.2%, at an accuracy deviation of 21.4%."
    assert swapped_values(swapped, CHAI) == CHAI[1]
    right = "CHAI trims the K,V cache memory by up to 21.4%, at an accuracy deviation of 3.2%."
    assert swapped_values(right, CHAI) == ""
    one = "CHAI trims the K,V cache memory by up to 3.2%; on which models?"
    assert swapped_values(one, CHAI) == ""  # one value: misquoted's to judge


def test_a_count_in_words_with_its_scale_is_that_count() -> None:
    sentences = ["BNS solvers benefit from a tiny parameter space ($<$200 parameters)."]
    assert miscounted("Do BNS solvers get by with two hundred parameters?", sentences) == ""
    assert miscounted("Do BNS solvers need three parameters?", sentences) == sentences[0]


def test_the_askers_idiom_and_numbers_in_words_are_no_premise() -> None:
    def rarely(word: str) -> int:  # the asker's words are as rare as a topic's would be
        return 1 if word.lower() in {"ballpark", "downside", "colleague", "sixteen"} else 500

    abstract = "BNS achieves 45 PSNR using 16 NFE; it is cheap, with few risks."
    for asked in (
        "Ballpark, how cheap is BNS?",
        "What's the downside of BNS?",
        "A colleague keeps quoting BNS. What PSNR does it hit with sixteen evaluations?",
    ):
        assert unmentioned(asked, "BNS", abstract, rarely) == [], asked
    absent = unwritten("What PSNR with sixteen or twenty-four steps?", lambda t: 0, lambda t: False)
    assert "sixteen" not in absent and "twenty-four" not in absent and "PSNR" in absent


def test_the_askers_company_and_summing_up_and_blanks_are_no_premise() -> None:
    def rarely(word: str) -> int:
        return 1 if word.lower() in {"advisor", "upshot", "gotchas", "clustering"} else 500

    abstract = "LSEnet minimizes structural entropy in hyperbolic space."
    asked = "My advisor mentioned LSEnet. What's the upshot, and any gotchas?"
    assert unmentioned(asked, "LSEnet", abstract, rarely) == []
    blank = "What goes in the XXX slots? 'LSEnet minimizes XXX entropy.'"
    assert unmentioned(blank, "LSEnet", abstract, rarely) == []
    assert unmentioned("Does LSEnet do clustering?", "LSEnet", abstract, rarely) == ["clustering"]


def test_a_name_without_its_accents_is_the_same_name() -> None:
    title = "DéjàVu: KV-cache Streaming for Fast, Fault-tolerant Generative LLM Serving"
    assert writes_name("DejaVu", title)
    assert unmentioned("How does DejaVu stream the KV cache?", title, "", rare) == []


def test_a_margin_asked_in_other_words_is_given_by_an_outperforming_figure() -> None:
    question = "What margins does SSO post on NetHack?"
    abstract = "SSO outperforms baselines by 40% in our custom NetHack task."
    assert check_abstract(question, question_parts(question), abstract, "SSO", 1).missing == []


def test_words_english_uses_only_to_say_how_are_no_missing_thing() -> None:
    from rag.answer.wording import says_how

    for word in ("restate", "awkward", "juggle", "dragging", "endorse"):
        assert says_how(word), word
    # things, names, and comparatives that say a direction stay premises
    for word in ("traders", "combustion", "poorer", "hardest", "Restate"):
        assert not says_how(word), word

    def rarely(word: str) -> int:
        return 1 if word in {"restate", "awkward", "traders"} else 500

    abstract = "PromptGIP handles several low-level vision tasks with one model."
    asked = "Can you restate how PromptGIP handles the awkward low-level tasks for traders?"
    assert unmentioned(asked, "PromptGIP", abstract, rarely) == ["traders"]


def test_review_cases_of_this_stops_rules() -> None:
    from rag.answer.engine import premise_corrections

    mark = "The abstract says otherwise"
    two = f"{mark}: X cuts memory by 21.4% [1]. {mark}: the deviation is 3.2% [1]. Also [1]."
    assert premise_corrections(two) == ["X cuts memory by 21.4% [1].", "the deviation is 3.2% [1]."]
    for lead in (f"**{mark}**:", f"• {mark}:", f"1) {mark}:", f"[1] {mark}:"):
        assert premise_corrections(f"{lead} it is slower [1].") == ["it is slower [1]."], lead
    assert premise_corrections("\n" * 5000) == []
    # a test's count is no gain: "what speedup" is not given by "on 3 datasets"
    question = "What speedup does FlashX report?"
    abstract = "FlashX is a new sampler. FlashX is evaluated on 3 datasets."
    assert check_abstract(question, question_parts(question), abstract, "FlashX", 1).missing
    # a verb opening a sentence, a long blank, "eleven": no missing word
    for asked in ("Restate how BNS works.", "What goes in the XXXXXX slots of BNS?"):
        assert unmentioned(asked, "BNS", "BNS is a solver.", rare) == [], asked
    assert unmentioned("Does BNS need eleven steps?", "BNS", "BNS is a solver.", rare) == []


def test_a_count_at_a_scale_is_checked_like_any_measure() -> None:
    from rag.answer.misstated import misquoted

    said = ["We pretrain GraphsGPT on $100$M molecules and yield some interesting findings."]
    assert misquoted("Does GraphsGPT pretrain on 500M molecules?", said) == said[0]
    assert misquoted("Does GraphsGPT pretrain on 100M molecules?", said) == ""
    assert misquoted("Does GraphsGPT pretrain on 100 million molecules?", said) == ""
    # a count of another thing is no other value of it
    assert misquoted("Does GraphsGPT have 7B parameters?", said) == ""


def test_a_large_multiple_fewer_is_compared_as_a_multiple() -> None:
    from rag.answer.misstated import misquoted

    said = ["Our agent needs 1800X fewer training examples than neural agents."]
    # 99.4% and 99.9% fewer are one value as people round; 180x and 1800x are not
    assert misquoted("Does it need 180x fewer training examples?", said) == said[0]
    assert misquoted("Does it need 1800x fewer training examples?", said) == ""
    small = ["It uses 2x fewer parameters than the baseline."]
    assert misquoted("Does it use 50% fewer parameters?", small) == ""  # one value, said twice


def test_a_value_measures_what_its_clause_names_before_it() -> None:
    from rag.answer.misstated import misquoted

    said = [
        "TinyTrain outperforms vanilla fine-tuning by 3.6-5.0% in accuracy, while reducing "
        "the backward-pass memory and computation cost by up to 1,098$\\times$ and "
        "7.68$\\times$, respectively."
    ]
    # "memory" is six words before 1,098×, in its clause
    asked = "Does TinyTrain reduce backward-pass memory by 98x?"
    assert misquoted(asked, said) == said[0]
    assert misquoted("Does TinyTrain reduce backward-pass memory by 1,098x?", said) == ""
    # a value of something the clause does not name is not another value of it
    assert misquoted("Does TinyTrain reduce energy use by 98x?", said) == ""


def test_a_unit_written_as_a_symbol_is_no_word_the_abstracts_lack() -> None:
    from rag.answer.premises import unwritten

    asked = "Does the model stealing attack cost less than twenty dollars or a few percent?"
    absent = unwritten(asked, lambda t: 0, lambda t: False)  # no abstract writes any word
    assert "dollars" not in absent and "percent" not in absent
    assert "model" in absent  # the check itself still runs
