"""Institutions combined, excluded, compared and shared, as new users word them; a paper's
kind of institution checked; follow-ups that point at one paper or ask what the papers
listed are about."""

from __future__ import annotations

import pytest

from rag.answer.followups import condense_rule
from rag.catalogue.catalogue import Catalogue
from rag.plan.byline import byline_beside
from rag.plan.framing import plain_question
from rag.plan.parser import QuestionParser
from rag.plan.turns import asked_of_them, asks_about_them, followed_up
from rag.sets.digest import digest
from rag.sets.metadata import MetadataAnswerer
from rag.sets.named import status_of_it, status_of_it_note
from rag.text import status_asked_after
from rag.types import ChatMessage, Paper, QueryPlan
from tests.unit.test_metadata_answers import _paper, assert_answered
from tests.unit.test_new_user_metadata import PLACES

PARSER = QuestionParser(PLACES)


@pytest.mark.parametrize(
    ("question", "ids"),
    [
        # a part of an institution left out: its other affiliations count (p1 Google, p2
        # Google Research), not p3 (Google DeepMind only)
        ("How many papers does Google (not DeepMind) have?", {"p1", "p2"}),
        ("How many papers does Google, not DeepMind, have?", {"p1", "p2"}),
        ("How many papers did Google publish without DeepMind?", {"p1", "p2"}),
        ("Which Google papers are without DeepMind authors?", {"p1", "p2"}),
        # another institution left out
        ("Papers from Stanford but no Google author?", {"p4", "p5"}),
        ("Stanford's ICML 2024 output w/o a Google coauthor: how many papers?", {"p4", "p5"}),
        # an institution with a kind of institution
        ("How many papers have both a Google author and a university author?", {"p1"}),
        ("How many Google papers have an academic co-author?", {"p1"}),
        ("Google papers with zero academic colaborators?", {"p2", "p3"}),
        # two institutions compared: each one's papers, the union listed
        ("Compare the number of oral papers from Google and Stanford.", {"p1", "p3", "p4"}),
        ("Google or Stanford, which one had more orals?", {"p1", "p3", "p4"}),
        ("Google vs Stanford: who got more orals?", {"p1", "p3", "p4"}),
    ],
)
def test_institutions_combined_as_new_users_word_them(question: str, ids: set[str]) -> None:
    assert_answered(PLACES, question, ids)


def test_a_unit_left_out_drops_its_papers_and_notes_the_other_reading() -> None:
    catalogue = Catalogue.of(
        [
            _paper("g1", ["Ann Kim"], ["Google Research"]),
            _paper("g2", ["Ann Kim", "Bo Li"], ["Google Research", "Google DeepMind"]),
            _paper("g3", ["Cy Tan"], ["Google DeepMind"]),
            _paper("h1", ["Di Wu"], ["The Chinese University of Hong Kong"]),
            _paper("h2", ["Di Wu", "Ed Ng"], ["The Chinese University of Hong Kong", "The Chinese University of Hong Kong, Shenzhen"]),
        ]
    )  # fmt: skip
    question = "How many papers does Google (not DeepMind) have?"
    plan = QuestionParser(catalogue).plan(question)
    answer = MetadataAnswerer(catalogue).answer(question, plan)
    assert answer.aggregate is not None and [p.paper_id for p in answer.aggregate.papers] == ["g1"]
    assert any("1 more list Google outside “DeepMind”" in n for n in answer.aggregate.notes)
    # a campus written after a comma: only its strings are left out, the paper stays
    assert_answered(
        catalogue, "How many papers from CUHK (the Hong Kong campus, not Shenzhen)?", {"h1", "h2"}
    )


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Which papers about LLM jailbreaks come from Stanford?", "LLM jailbreaks"),
        ("Which papers on Bayesian optimization come from industry labs?", "Bayesian optimization"),
        # "a company" inside a description is no kind of institution asked
        ("Which papers edit who is the CEO of a company in a trained network?", None),
    ],
)
def test_the_verb_before_from_is_no_topic_word(question: str, topic: str | None) -> None:
    plan = PARSER.plan(question)
    if topic is None:
        assert not plan.constraints.institution_kinds, plan
    else:
        assert plan.topic == topic, plan


def test_a_sub_unit_in_brackets_is_the_institution_not_a_second_one() -> None:
    plan = PARSER.plan("How many papers from Google (DeepMind)?")
    assert plan.constraints.affiliations == ["Google"] and not plan.topic, plan


def test_whether_a_named_paper_is_from_industry_is_its_byline() -> None:
    papers = [
        Paper(id="g1", title="GaLore: Low-Rank Training", abstract="We propose GaLore.",
              authors=["Ann Kim"], extra={"affiliations": ["Meta AI", "Caltech"]}),
        Paper(id="g2", title="Genie: Worlds", abstract="We introduce Genie.",
              authors=["Bo Li"], extra={"affiliations": ["University of Oxford"]}),
    ]  # fmt: skip
    catalogue = Catalogue.of(papers)
    parser, answers = QuestionParser(catalogue), MetadataAnswerer(catalogue)
    for question, lead in [
        ("Is the GaLore paper from industry?", "Yes"),
        ("Is the Genie paper from industry?", "No"),
        ("Is the Genie paper from a university?", "Yes"),
    ]:
        plan = parser.plan(question)
        assert plan.like_paper and plan.written_by == "who", plan
        assert answers.answer(question, plan).answer.startswith(f"{lead}:"), question


def _history(*turns: str) -> list[ChatMessage]:
    return [
        ChatMessage(role="user" if i % 2 == 0 else "assistant", content=t)
        for i, t in enumerate(turns)
    ]


def test_a_superlative_of_them_is_asked_of_the_topic_listed() -> None:
    history = _history("Which papers propose speculative decoding methods?", "8 papers …")
    asked = asked_of_them(
        "Which of them reports the biggest speedup?", history, PARSER.plan, PLACES
    )
    assert asked == "Which paper about speculative decoding methods reports the biggest speedup?"
    assert asked_of_them("Which of them are orals?", history, PARSER.plan, PLACES) is None


def test_that_paper_after_a_superlative_is_the_one_ranked_first() -> None:
    answer = (
        "The largest is 3.5× in EAGLE [1].\n\nReferences:\n"
        "[1] EAGLE: Speculative Sampling — Yuhui Li — https://openreview.net/forum?id=a\n"
        "[2] Medusa: Simple LLM Inference — Tianle Cai — https://openreview.net/forum?id=b"
    )
    history = _history("Which paper on speculative decoding reports the biggest speedup?", answer)
    assert condense_rule("Is that paper from industry?", history) == "Is EAGLE from industry?"
    # a plural pointer is no one paper
    assert not condense_rule("Are they from industry?", history).startswith("Are EAGLE")


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What are they about?", True),
        ("So what do these papers do?", True),
        ("Summarize them briefly", True),
        ("Tell me about each one", True),
        ("What are they using for evaluation?", False),
        ("What is it about?", False),
    ],
)
def test_what_the_papers_listed_are_about(question: str, asks: bool) -> None:
    assert asks_about_them(question) is asks


def test_a_digest_says_a_line_of_each_paper_listed_and_a_status_follows_the_list() -> None:
    papers = [
        Paper(id=f"d{i}", title=f"Title {i}", authors=["Ann Kim"], status="Oral" if i == 1 else "Poster",
              abstract=f"Background {i}. In this paper, we propose method {i}. It works.",
              extra={"affiliations": ["Anthropic"]})
        for i in (1, 2)
    ]  # fmt: skip
    catalogue = Catalogue.of(papers)
    listed = (
        "2 ICML 2024 papers list an author from Anthropic:\n\nReferences:\n"
        "[1] Title 1 — Ann Kim — https://openreview.net/forum?id=d1\n"
        "[2] Title 2 — Ann Kim — https://openreview.net/forum?id=d2"
    )
    history = _history("Which papers are from Anthropic?", listed)
    answer = digest("What are they about?", history, catalogue)
    assert answer is not None and answer.aggregate is not None
    assert [c.paper_id for c in answer.citations] == ["d1", "d2"]
    assert "we propose method 2" in answer.answer
    # "Which is an oral?" after the digest narrows the list before it
    history += _history("What are they about?", answer.answer)
    merged = followed_up("Which is an oral?", history, QuestionParser(catalogue).plan, catalogue)
    assert merged is not None
    assert merged.plan.constraints.statuses == ["Oral"]
    assert merged.plan.constraints.affiliations == ["Anthropic"]


def test_a_topic_share_within_an_institution_is_of_its_papers() -> None:
    plan: QueryPlan = PARSER.plan("What share of Google papers are about LLMs?")
    assert plan.statistic == "share" and plan.constraints.affiliations == ["Google"], plan


@pytest.mark.parametrize(
    ("question", "ids"),
    [
        ("How many papers are from Google / DeepMind?", {"p1", "p2", "p3"}),  # one institution
        ("How many papers from Google vs Stanford University?", {"p1", "p2", "p3", "p4", "p5"}),
        ("Which papers come from Stanford and have industry authors?", {"p1"}),
    ],
)
def test_two_institutions_side_by_side(question: str, ids: set[str]) -> None:
    assert_answered(PLACES, question, ids)


def test_a_count_then_its_share_is_the_share_question() -> None:
    plan = PARSER.plan("How many papers are about robotics, and what percentage is that?")
    assert (plan.statistic, plan.topic) == ("share", "robotics"), plan


def test_how_many_after_a_list_counts_it_and_which_of_them_keeps_either_place() -> None:
    history = _history("Which papers are from Google?", "3 papers …")
    merged = followed_up("How many are there?", history, PARSER.plan, PLACES)
    assert merged is not None and merged.plan.constraints.affiliations == ["Google"]
    history = _history("Which papers are about robotics?", "2 papers …")
    merged = followed_up("Which of them are from Google or Tsinghua?", history, PARSER.plan, PLACES)
    assert merged is not None
    assert (
        merged.plan.constraints.any_of == ["Google", "Tsinghua"] and merged.plan.topic == "robotics"
    )


def test_the_spotlight_one_or_the_time_series_one_is_that_listed_paper() -> None:
    answer = (
        "2 papers:\n- *Conformal prediction for time series* (Spotlight) [1]\n"
        "- *Conformal risk control* (Poster) [2]\n\nReferences:\n"
        "[1] Conformal prediction for time series — Ann Kim — https://openreview.net/forum?id=a\n"
        "[2] Conformal risk control — Bo Li — https://openreview.net/forum?id=b"
    )
    history = _history("Which papers are about conformal prediction?", answer)
    said = condense_rule("What does the spotlight one propose?", history)
    assert said == "What does Conformal prediction for time series propose?"
    said = condense_rule("What does the time series one do?", history)
    assert said == "What does Conformal prediction for time series do?"
    # two risk papers would be no one paper: left to the general rule
    assert not condense_rule("What does the conformal one do?", history).startswith(
        "What does Conformal"
    )


@pytest.mark.parametrize(
    ("question", "kinds", "without", "topic"),
    [
        # a negation before the kind leaves the kind out
        ("Which Google papers were written without a university coauthor?", [], ["academic"], ""),
        ("Which papers lack an industry author?", [], ["company"], ""),
        ("Which papers don't have an affiliation with industry?", [], ["company"], ""),
        ("Which papers from Stanford involve a company?", ["company"], [], ""),
        # a company or a university inside what the papers study is no byline
        ("Which papers model the interaction between a user and a company?", [], [], None),
        ("Which papers have an industry application?", [], [], None),
        ("Which papers involve a university hospital dataset?", [], [], None),
        ("Which papers study collaboration between an academic and an industry lab?", [], [], None),
    ],
)
def test_a_kind_of_institution_only_where_a_byline_is_asked(
    question: str, kinds: list[str], without: list[str], topic: str | None
) -> None:
    plan = PARSER.plan(question)
    c = plan.constraints
    assert (c.institution_kinds, c.without_kinds) == (kinds, without), plan
    if topic is not None:
        assert plan.topic == topic, plan
    else:
        assert plan.topic, plan


def test_country_names_side_by_side_and_a_part_repeating_its_name_are_left_alone() -> None:
    assert PARSER.plan("Which papers study US/EU regulation of AI?").constraints.is_empty()
    plan = PARSER.plan("Which papers from Stanford University (not Stanford Medicine) are orals?")
    assert plan.constraints.affiliations, plan


def test_the_rank_one_or_the_top_one_is_no_pointer() -> None:
    from rag.answer.followups import is_follow_up

    assert is_follow_up("What does the spotlight one propose?")
    for question in (
        "Which paper studies rank one matrix sensing?",
        "What is the top one accuracy on ImageNet?",
        "Which is the best one-shot pruning method?",
        "What does the rank one update in LoRA do?",
    ):
        assert not is_follow_up(question), question


def test_a_superlative_of_a_list_narrowed_otherwise_is_not_asked_again() -> None:
    history = _history("Which oral papers are about robotics?", "2 papers …")
    asked = asked_of_them("Which of them reports the lowest FID?", history, PARSER.plan, PLACES)
    assert asked == "Which oral paper about robotics reports the lowest FID?"
    history = _history("Which papers with industry authors are about robotics?", "2 papers …")
    assert (
        asked_of_them("Which of them has the biggest model?", history, PARSER.plan, PLACES) is None
    )


def test_a_lower_case_name_owning_its_work_and_a_minus_between_names() -> None:
    plan = PARSER.plan("what share of stanford university's icml 2024 work ended up as orals")
    assert plan.constraints.affiliations and plan.statistic == "share", plan
    plan = PARSER.plan("How many papers does Google minus DeepMind have?")
    assert (plan.constraints.affiliations, plan.constraints.excluded) == (["Google"], ["DeepMind"])


def test_an_aside_opening_the_question_is_not_moved_past_a_frame_it_lacks() -> None:
    # nothing before "Google" to move "not DeepMind" past: DeepMind is never the one counted
    plan = PARSER.plan("Google (not DeepMind): how many orals?")
    assert "DeepMind" not in plan.constraints.affiliations, plan


@pytest.mark.parametrize(
    "question",
    [
        "Who came up with the idea of position papers?",
        "Who invented position papers?",
        "who first came up with diffusion papers",
    ],
)
def test_who_first_had_an_idea_is_no_set_of_papers(question: str) -> None:
    assert PARSER.plan(question).kind == "paper"


def test_the_one_a_title_word_names_is_the_one_the_asker_was_shown() -> None:
    answer = (
        "3 papers:\n- *Vision Mamba: Efficient Visual Representation* (Poster) [1]\n"
        "- *State space duality* (Poster) [2]\n- … and 1 more\n\nReferences:\n"
        "[1] Vision Mamba: Efficient Visual Representation — Ann Kim — https://openreview.net/forum?id=a\n"
        "[2] State space duality — Bo Li — https://openreview.net/forum?id=b\n"
        "[3] Can Mamba Learn How To Learn? — Cy Wu — https://openreview.net/forum?id=c"
    )
    history = _history("Which papers are about state space models?", answer)
    said = condense_rule("Tell me about the Mamba one", history)
    assert said == "Tell me about Vision Mamba"
    # two Mamba titles shown: no one paper, left to the general rule
    shown = answer.replace("- … and 1 more", "- *Can Mamba Learn How To Learn?* (Poster) [3]")
    said = condense_rule("Tell me about the Mamba one", _history("Which papers?", shown))
    assert not said.startswith("Tell me about Vision Mamba")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("how many papers from Tencent? any orals?", "how many papers from Tencent, and how many are orals?"),
        ("Which papers did X coauthor, and are any orals?", "Which papers did X coauthor, and how many are orals?"),
        ("Which papers study scaling laws? which are orals?", "Which papers study scaling laws, and how many are orals?"),
        ("diffusion papers from Google - any spotlights?", "diffusion papers from Google, and how many are spotlights?"),
        # the form every reader knows, a status asked alone, or one the first part names
        ("Papers on X, and which of them are orals?", "Papers on X, and which of them are orals?"),
        ("Are any orals?", "Are any orals?"),
        ("Which were orals? Which were posters?", "Which were orals? Which were posters?"),
    ],
)  # fmt: skip
def test_a_status_asked_after_is_said_the_way_every_reader_knows(question: str, said: str) -> None:
    assert status_asked_after(question) == said


def test_a_status_asked_of_the_paper_a_question_is_about() -> None:
    asked = status_of_it(
        "The I/O complexity of attention paper: what does it prove, and is it an oral?"
    )
    assert asked is not None and asked.said == "oral"
    assert asked.question == "The I/O complexity of attention paper: what does it prove?"
    asked = status_of_it("which environments does the X paper test on? is it a spotlight?")
    assert asked is not None and asked.question == "which environments does the X paper test on?"
    assert status_of_it("Is it an oral?") is None  # no question of its own before it
    assert status_of_it("Which papers study X, and are any orals?") is None
    paper = Paper(
        id="p", title="A Study", authors=[], affiliations=[], status="Poster", abstract=""
    )
    assert status_of_it_note(asked, paper, 1) == (
        "No: *A Study* was a poster at ICML 2024, not a spotlight [1]."
    )


@pytest.mark.parametrize(
    ("question", "places", "statuses", "topic"),
    [
        ("Which company has more orals, Google or Stanford?", ["Google", "Stanford"], ["Oral"], ""),
        ("Compare Google and Stanford on number of orals", ["Google", "Stanford"], ["Oral"], ""),
        ("Is Google or Stanford stronger in RL (number of RL papers)?", ["Google", "Stanford"], [], "RL"),
    ],
)  # fmt: skip
def test_two_places_compared_on_what_they_count(
    question: str, places: list[str], statuses: list[str], topic: str
) -> None:
    plan = PARSER.plan(question)
    assert plan.constraints.any_of == places and plan.constraints.statuses == statuses
    assert plan.topic == topic and not plan.compared


UNITS = Catalogue.of(
    [
        _paper("u1", ["Ann Kim", "Bo Li"], ["Google", "Google DeepMind"]),
        _paper("u2", ["Cy Tan"], ["Google DeepMind"]),
        _paper("u3", ["Di Wu"], ["Google Research"]),
        _paper(
            "u4", ["Ed Ng", "Fa Wu"], ["Mohamed bin Zayed University of Artificial Intelligence"]
        ),
        _paper("u5", ["Gu Lo"], ["Max Planck Institute for Intelligent Systems"]),
        # the acronym in brackets names more strings than the name; a bare "Max Planck"
        _paper("u6", ["Ho Ye"], ["MBZUAI"]),
        _paper("u7", ["Io Xu"], ["Max-Planck Institute"]),
        # an acronym that fits other institutions too adds none of theirs
        _paper("u8", ["Jo Wu"], ["Stanford University"]),
        _paper("u9", ["Ka Li"], ["Southeast University"]),
    ]
)


@pytest.mark.parametrize(
    ("question", "ids"),
    [
        # a unit beside its institution: the institution outside it, beside the unit
        ("How many papers have authors from both Google and Google DeepMind?", {"u1"}),
        # a generic word or an acronym after a known name says nothing more
        ("How many papers list Mohamed bin Zayed University (MBZUAI)?", {"u4", "u6"}),
        ("Papers from Max Planck institutes - count", {"u5", "u7"}),
        ("Papers from Max Planck - count", {"u7"}),
        ("How many papers from Stanford University (SU)?", {"u8"}),
        # a place the catalogue lacks, asked beside one it holds: none of its own
        ("papers from Google Research or Mistral?", {"u3"}),
    ],
)
def test_places_as_round_nine_wrote_them(question: str, ids: set[str]) -> None:
    assert_answered(UNITS, question, ids)


def test_a_place_the_catalogue_lacks_is_said_to_have_no_paper() -> None:
    plan = QuestionParser(UNITS).plan("papers from Google Research or Mistral?")
    assert plan.constraints.any_of == ["Google Research", "Mistral"]
    answer = MetadataAnswerer(UNITS).answer("papers from Google Research or Mistral?", plan)
    assert "No paper lists “Mistral” as an affiliation." in answer.answer


def test_frame_words_typed_with_a_slip_are_read() -> None:
    assert plain_question("how many papers mention ChatGPT in the abstrct?").endswith(
        "in the abstract?"
    )
    assert plain_question("papers on abstraction and reasoning") == (
        "Papers on abstraction and reasoning"
    )


def test_which_is_from_a_place_or_which_are_of_statuses_narrow_the_list() -> None:
    history = _history("Which papers are about robotics?", "2 papers …")
    merged = followed_up("which is from Google?", history, PARSER.plan, PLACES)
    assert merged is not None
    assert merged.plan.constraints.affiliations == ["Google"] and merged.plan.topic == "robotics"
    history = _history("How many papers from Stanford?", "4 papers …")
    merged = followed_up("which are orals or spotlights?", history, PARSER.plan, PLACES)
    assert merged is not None and merged.plan.constraints.statuses == ["Oral", "Spotlight"]
    assert merged.plan.constraints.affiliations == ["Stanford"]
    # "which are about X" as a first question is its own
    assert followed_up("which are about RLHF?", [], PARSER.plan, PLACES) is None


def test_that_one_after_a_list_of_one_is_its_paper() -> None:
    answer = (
        "Only 1 ICML 2024 abstract combines “dataset distillation” and “multimodal data”:\n"
        "- *Low-Rank Similarity Mining* (Poster) [1]\nThe closest papers, ranked:\n"
        "- *Other Paper* (Poster) [2]\n\nReferences:\n"
        "[1] Low-Rank Similarity Mining — Yue Xu — https://openreview.net/forum?id=a\n"
        "[2] Other Paper — Bo Li — https://openreview.net/forum?id=b"
    )
    history = _history("which of them are about multimodal data?", answer)
    assert condense_rule("who wrote that one?", history) == "who wrote Low-Rank Similarity Mining?"
    single = (
        "*Low-Rank Similarity Mining*: It distils image-text pairs. [1]\n\nReferences:\n"
        "[1] Low-Rank Similarity Mining — Yue Xu — https://openreview.net/forum?id=a"
    )
    one = _history("Tell me about Low-Rank Similarity Mining", single)
    said = condense_rule("who are the authors and where are they from?", one)
    assert said == "who are the authors of Low-Rank Similarity Mining and where are they from?"


def test_their_authors_are_each_listed_papers_byline() -> None:
    answer = (
        "2 papers:\n- *Paper p1* (Oral) [1]\n- *Paper p2* (Poster) [2]\n\nReferences:\n"
        "[1] Paper p1 — Ann Kim — https://openreview.net/forum?id=p1\n"
        "[2] Paper p2 — Ann Kim — https://openreview.net/forum?id=p2"
    )
    said = digest("list their authors", _history("Google papers?", answer), PLACES)
    assert said is not None and said.answer.startswith("The authors of each of the 2 papers")
    assert "- *Paper p1* [1]: Ann Kim, Bo Li" in said.answer


@pytest.mark.parametrize(
    ("question", "topic", "not_about"),
    [
        ("papers about hallucination in LLMs (not vision)", "hallucination in LLMs", "vision"),
        ("papers about hallucination in LLMs, not vision", "hallucination in LLMs", "vision"),
        ("which papers apply LLMs to time series but are NOT forecasting?", "LLMs to time series", "forecasting"),
        ("papers by Ann Kim that arent about offline RL", "", "offline RL"),
    ],
)  # fmt: skip
def test_a_topic_left_out_as_new_users_write_it(question: str, topic: str, not_about: str) -> None:
    plan = PARSER.plan(question)
    assert (plan.topic, plan.not_about) == (topic, not_about)


def test_that_is_the_topic_the_first_sentence_said() -> None:
    said = plain_question(
        "hey, I'm starting a PhD on imitation learning. how many papers on that, and which are orals?"
    )
    assert said == "How many papers on imitation learning, and which are orals?"
    assert plain_question("I'm working on GNNs. What does GaLore propose?") == (
        "What does GaLore propose?"
    )


def test_who_are_the_authors_beside_a_question_about_a_described_paper() -> None:
    beside = byline_beside(
        "What is the Data-free Compression paper about and who are the authors?",
        lambda q: None,
        lambda q: "paper",
    )
    assert beside is not None and beside.plan is None and beside.said == "it"
    assert beside.content == "What is the Data-free Compression paper about?"
    # a set question beside it is no paper's byline
    assert (
        byline_beside(
            "How many papers are about GNNs and who are the authors?",
            lambda q: None,
            lambda q: "count",
        )
        is None
    )


def test_the_reviews_misfires_of_round_nine_rules() -> None:
    # a status asked after a question about one paper is no set's
    genie = "What is the main finding of the Genie paper? Any orals?"
    assert status_asked_after(genie) == genie
    # "which paper …, and is it an oral?": the status picks the paper, asked as before
    assert status_of_it("Which paper introduces a debate protocol, and is it an oral?") is None
    # an adjective after "but are not" is no topic left out; "about X" is read as the topic
    written = QuestionParser(PLACES, doc_freq=lambda w: 27 if w == "nonconvex" else 0)
    assert not written.plan("papers on optimization but are not convex").not_about
    assert written.plan("papers on bandits but are not stochastic").not_about == "stochastic"
    plan = PARSER.plan("papers on federated learning but are NOT about privacy")
    assert (plan.topic, plan.not_about) == ("federated learning", "privacy")
    # "more" of something other than papers compares no papers
    assert PARSER.plan("Which company has more employees, Google or Stanford?").topic
    # "who wrote it" beside a question is a byline; "is it an oral" is not
    beside = byline_beside(
        "Which paper introduces a debate protocol, and is it an oral?",
        lambda q: None,
        lambda q: "paper",
    )
    assert beside is None
