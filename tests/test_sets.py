"""Conference questions through every way in (Python, HTTP, CLI) on the real fixture store:
the plan comes back with the answer, and metadata answers are exact and fully cited."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rag.api.app import create_api
from rag.cli import main as rag_main
from rag.sets.compare import plain_text
from tests.support.answers import streamed
from tests.support.paths import FIXTURE_CORPUS

STAN_LI = {"zxxSJAVQPc"}  # GraphsGPT is one of his three fixture papers


def fixture_papers() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE_CORPUS.read_text().splitlines() if line]


def expected(author: str) -> set[str]:
    return {p["id"] for p in fixture_papers() if author in p["authors"]}


def test_author_question_is_answered_exactly_from_the_catalogue(assistant: Any) -> None:
    answer = assistant.ask("Which ICML 2024 papers did stan z. li co-author?")
    assert answer.plan.kind == "metadata" and answer.plan.constraints.authors == ["Stan Z. Li"]
    assert answer.aggregate.exact and answer.aggregate.count == 3
    assert {p.paper_id for p in answer.aggregate.papers} == expected("Stan Z. Li")
    assert {c.paper_id for c in answer.citations} >= STAN_LI
    assert not answer.abstained and answer.backend == "catalogue"


def test_an_author_question_keeps_the_callers_filters(assistant: Any) -> None:
    from rag.types import Filters

    answer = assistant.ask(
        "Which ICML 2024 papers did stan z. li co-author?", filters=Filters(title="graph")
    )
    assert {p.paper_id for p in answer.aggregate.papers} == STAN_LI  # the one title with "graph"
    assert answer.aggregate.count == 1
    assert "2 more papers left out by the filters." in answer.aggregate.notes
    orals = assistant.ask(
        "Which papers did Stan Z. Li co-author?", filters=Filters(status=["Oral"])
    )
    assert orals.aggregate.papers == [] and "3 more papers" in " ".join(orals.aggregate.notes)


def test_institution_count_matches_the_catalogue(assistant: Any) -> None:
    answer = assistant.ask("How many papers have an author from Stanford?")
    stanford = {
        p["id"] for p in fixture_papers() if any("Stanford" in a for a in p.get("affiliations", []))
    }
    assert answer.aggregate.count == len(stanford) == len(answer.citations)
    assert {p.paper_id for p in answer.aggregate.papers} == stanford


def test_single_paper_questions_keep_their_path_and_carry_a_plan(assistant: Any) -> None:
    answer = assistant.ask("What is GraphsGPT pretrained on?")
    assert answer.plan.kind == "paper" and answer.aggregate is None
    assert answer.citations[0].paper_id == "zxxSJAVQPc"


def test_http_returns_plan_and_aggregate(assistant: Any) -> None:
    client = TestClient(create_api(assistant, assistant.settings))
    body = client.post(
        "/v1/ask", json={"question": "Which papers did Stan Z. Li co-author?"}
    ).json()
    assert body["plan"]["kind"] == "metadata" and body["aggregate"]["count"] == 3
    reply = client.post(
        "/v1/chat/completions",
        json={"messages": [{"role": "user", "content": "How many oral papers are there?"}]},
    ).json()
    message = reply["choices"][0]["message"]
    assert message["aggregate"]["count"] == 10 and len(message["citations"]) == 10
    assert message["content"].startswith("There are 10 ICML 2024 oral papers")


@pytest.mark.parametrize("fmt", ["json", "csv", "bibtex", "table"])
def test_rag_papers_formats(
    fmt: str, store_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    assert rag_main(["papers", "--author", "Stan Z. Li", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        assert json.loads(out)["aggregate"]["count"] == 3
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert {r["paper_id"] for r in rows} == expected("Stan Z. Li")
    elif fmt == "bibtex":
        assert out.count("@InProceedings{") == 3 and "gao24e" in out
    else:
        assert out.startswith("3 ICML 2024 papers list Stan Z. Li as an author:")


def test_rag_papers_with_an_ambiguous_name_exits_2(
    store_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    assert rag_main(["papers", "--author", "Li"]) == 2
    assert "Which one do you mean?" in capsys.readouterr().out


def test_topic_count_scans_the_whole_catalogue(assistant: Any) -> None:
    answer = assistant.ask("How many ICML 2024 papers are about graph neural networks?")
    assert answer.plan.kind == "count" and answer.plan.topic == "graph neural networks"
    aggregate = answer.aggregate
    assert aggregate is not None and not aggregate.exact and aggregate.count
    # "how many are about": the papers clearly about it; those touching on it apart
    clearly = [p for p in aggregate.papers if p.membership == "clearly"]
    touching = [p for p in aggregate.papers if p.membership == "touches"]
    assert aggregate.count == len(clearly) and aggregate.touching == len(touching)
    assert len(clearly) + len(touching) == len(aggregate.papers)
    assert [c.n for c in answer.citations] == list(range(1, len(aggregate.papers) + 1))
    assert all(p.why and 0 < (p.score or 0) <= 1 for p in aggregate.papers)
    scores = [p.score or 0 for p in aggregate.papers]
    assert scores == sorted(scores, reverse=True)
    assert answer.plan.facets == ["graph neural networks"]
    lead = answer.answer.splitlines()[0]
    if touching:  # a range, the clear number first: never a bare total
        total = len(aggregate.papers)
        assert lead.startswith(f"{aggregate.count}–{total} ICML 2024 papers")
        verb = "touches" if len(touching) == 1 else "touch"
        assert f"{aggregate.count} clearly, {len(touching)} more {verb} on it" in lead
    else:
        assert lead.startswith(f"{aggregate.count} ICML 2024 paper")
    assert "“graph neural networks”" in lead


def test_a_topic_no_abstract_mentions_stays_on_the_cited_path_and_abstains(assistant: Any) -> None:
    answer = assistant.ask("Which ICML 2024 papers forecast the spread of wildfires?")
    assert answer.plan.kind == "list" and answer.aggregate is None
    assert answer.abstained


def test_a_list_question_that_asks_what_the_papers_say_gets_the_cited_answer(
    assistant: Any,
) -> None:
    answer = assistant.ask(
        "Which ICML 2024 papers explain why feedback alignment works, and what do they find?"
    )
    assert answer.plan.kind == "paper" and answer.aggregate is None
    assert answer.citations and answer.citations[0].paper_id == "qklMNNub0H"


def test_a_comparison_has_a_row_per_paper_with_quoted_cells(assistant: Any) -> None:
    answer = assistant.ask("Compare the approaches of ICML 2024 papers on graph neural networks.")
    aggregate = answer.aggregate
    assert answer.plan.kind == "compare" and aggregate is not None
    assert aggregate.columns == ["problem", "method", "finding"]
    abstracts = {p["id"]: p["abstract"] for p in fixture_papers()}
    for row in aggregate.papers:
        assert set(row.cells) == set(aggregate.columns)
        assert any(row.cells.values())
        # extractive: every cell is the abstract's own text, as plain text (cut cells end in "…")
        abstract = plain_text(abstracts[row.paper_id])
        assert all(cell.rstrip("…") in abstract for cell in row.cells.values())
    assert "How they compare" in answer.answer
    assert [c.n for c in answer.citations] == list(range(1, len(aggregate.papers) + 1))


def test_rag_papers_by_topic_and_status(
    store_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    assert rag_main(["papers", "--topic", "graph neural networks", "--format", "json"]) == 0
    everything = json.loads(capsys.readouterr().out)["aggregate"]
    assert (
        rag_main(
            ["papers", "--topic", "graph neural networks", "--status", "Oral", "--format", "json"]
        )
        == 0
    )
    orals = json.loads(capsys.readouterr().out)["aggregate"]
    status = {p["id"]: p["status"] for p in fixture_papers()}
    assert len(everything["papers"]) > len(orals["papers"]) > 0
    assert {p["paper_id"] for p in orals["papers"]} <= {p["paper_id"] for p in everything["papers"]}
    assert all(status[p["paper_id"]] == "Oral" for p in orals["papers"])


def test_a_topic_within_a_selection_names_the_papers_it_was_judged_among(
    assistant: Any,
) -> None:
    from rag.types import Filters

    orals = sum(p["status"] == "Oral" for p in fixture_papers())
    answer = assistant.ask("How many oral papers are about graph neural networks?")
    lead = answer.answer.splitlines()[0]
    assert answer.aggregate is not None and answer.aggregate.count
    assert f"(among the {orals} oral papers)" in lead, lead
    # the same papers narrowed by the caller's filter, not by the question
    given = assistant.ask(
        "How many papers are about graph neural networks?", filters=Filters(status=["Oral"])
    )
    assert f"(among the {orals} papers the filters given leave)" in given.answer.splitlines()[0]
    assert given.aggregate.count == answer.aggregate.count


def test_a_topic_none_of_someones_papers_is_clearly_about_says_so_rather_than_abstaining(
    assistant: Any,
) -> None:
    # one of his three fixture papers only touches on protein design: asked among his
    # papers, that is said (the cited answer over every abstract had abstained)
    answer = assistant.ask("Which of Stan Z. Li's papers are about protein design?")
    lead = answer.answer.splitlines()[0]
    assert lead.startswith("No ICML 2024 paper (among the 3 papers that list Stan Z. Li"), lead
    assert "is clearly about “protein design”" in lead and not answer.abstained
    assert answer.aggregate is not None and answer.aggregate.count == 0
    assert {p.paper_id for p in answer.aggregate.papers} <= expected("Stan Z. Li")


def test_who_works_on_a_topic_names_its_authors_with_their_papers_cited(assistant: Any) -> None:
    answer = assistant.ask("Who works on graph neural networks?")
    assert answer.plan.ranking == "authors" and answer.plan.topic == "graph neural networks"
    aggregate = answer.aggregate
    assert aggregate is not None and aggregate.ranking and aggregate.papers
    assert [c.n for c in answer.citations] == list(range(1, len(aggregate.papers) + 1))
    authors = {p.paper_id: set(p.authors) for p in aggregate.papers}
    lines = [ln for ln in answer.answer.splitlines() if re.match(r"\d+\. ", ln)]
    assert lines and all(re.search(r"\[\d+\]$", ln) for ln in lines), answer.answer
    for line in lines:
        named = re.match(r"\d+\. (.+?) — \d+ papers? ((?:\[\d+\])+)$", line)
        if named:  # every paper cited beside a name has that name among its authors
            for n in re.findall(r"\d+", named.group(2)):
                assert named.group(1) in authors[aggregate.papers[int(n) - 1].paper_id], line


def test_a_topics_papers_less_those_about_another_leave_those_out(assistant: Any) -> None:
    every = assistant.ask("Which papers are about reinforcement learning?")
    fewer = assistant.ask("Which reinforcement learning papers are not about robotics?")
    assert every.aggregate is not None and fewer.aggregate is not None
    kept = {p.paper_id for p in fewer.aggregate.papers}
    assert kept and kept < {p.paper_id for p in every.aggregate.papers}
    assert "not about “robotics”" in fewer.answer
    papers = {p.paper_id: p for p in every.aggregate.papers}
    left_out = set(papers) - kept
    assert left_out and all(
        "robot" not in p.title.lower() for pid, p in papers.items() if pid in kept
    )


def test_a_topics_papers_then_how_many_have_a_status_answers_both(assistant: Any) -> None:
    answer = assistant.ask(
        "How many papers are about reinforcement learning, and how many of them are posters?"
    )
    assert answer.plan is not None and answer.plan.constraints.statuses == []
    assert answer.aggregate is not None
    clear = [p for p in answer.aggregate.papers if p.membership == "clearly"]
    posters = sum(p.status == "Poster" for p in clear)
    assert answer.answer.startswith(
        f"Of the {len(clear)} papers clearly about “reinforcement learning”, {posters} are posters"
    )


def test_slips_in_a_cited_question_are_read_as_the_corpus_words_and_said(assistant: Any) -> None:
    question = "how does bilevel optimizaton help finetuning the segment anyting model?"
    deltas, final = streamed(assistant, question)
    assert final is not None and not final.abstained
    assert final.answer.startswith("Read “optimizaton” as “optimization”")
    assert final.citations[0].paper_id == "qRtM5EqE9l"  # BLO-SAM
    assert "".join(deltas) == final.answer


def test_a_misspelt_topic_word_is_read_as_the_corpus_word_and_said(assistant: Any) -> None:
    typed = assistant.ask("Which papers are about graph nueral networks?")
    assert typed.plan.topic == "graph neural networks"
    assert typed.answer.startswith("Read “nueral” as “neural”.")
    spelled = assistant.ask("Which papers are about graph neural networks?")
    assert typed.aggregate is not None and spelled.aggregate is not None
    assert [p.paper_id for p in typed.aggregate.papers] == [
        p.paper_id for p in spelled.aggregate.papers
    ]
    # the conference's own words are no misspelling of the corpus's ("poster", "foster")
    assert (
        "foster" not in assistant.ask("Which poster papers are about graph nueral networks?").answer
    )


def test_papers_like_a_named_paper_are_ranked_by_closeness(assistant: Any) -> None:
    answer = assistant.ask("Which ICML 2024 papers are similar to GraphsGPT?")
    assert answer.plan.kind == "similar" and answer.plan.like_paper == "zxxSJAVQPc"
    aggregate = answer.aggregate
    assert aggregate is not None and 0 < aggregate.count == len(aggregate.papers)
    ids = [p.paper_id for p in aggregate.papers]
    assert "zxxSJAVQPc" not in ids and len(set(ids)) == len(ids)
    scores = [p.score or 0 for p in aggregate.papers]
    assert scores == sorted(scores, reverse=True)
    # the named paper is [1]; the ranked papers follow, numbered without gaps
    assert answer.citations[0].paper_id == "zxxSJAVQPc"
    assert [c.n for c in answer.citations] == list(range(1, aggregate.count + 2))


# --- topics with facets, described topics, named comparisons -------------------------------
def test_a_topic_with_two_facets_counts_only_papers_holding_both(assistant: Any) -> None:
    answer = assistant.ask("Which ICML 2024 papers apply diffusion models to graphs?")
    assert answer.plan.facets == ["diffusion models", "graphs"]
    aggregate = answer.aggregate
    assert aggregate is not None
    members = [p for p in aggregate.papers if p.membership in ("clearly", "possibly")]
    assert "cZTFxktg23" in {p.paper_id for p in members}  # Graph Generation with Diffusion Mixture
    assert aggregate.count == sum(1 for p in members if p.membership == "clearly")
    graph_diffusion = next(p for p in members if p.paper_id == "cZTFxktg23")
    # the why cites a sentence for each facet
    assert set(graph_diffusion.facet_sentences) == {"diffusion models", "graphs"}
    abstract = next(p["abstract"] for p in fixture_papers() if p["id"] == "cZTFxktg23")
    assert all(s in abstract for s in graph_diffusion.facet_sentences.values())
    # papers with only one facet are ranked after the members, never counted
    assert all(p.membership == "closest" for p in aggregate.papers[len(members) :])
    lead = answer.answer.splitlines()[0]
    assert "combine" in lead
    possibly = len(members) - aggregate.count  # unsure members make the count a range
    assert not possibly or f"{aggregate.count} clearly, {possibly} possibly" in lead


def test_an_empty_intersection_is_said_plainly_with_the_closest_papers(assistant: Any) -> None:
    answer = assistant.ask("Which ICML 2024 papers use federated learning for robotics?")
    assert answer.plan.facets == ["federated learning", "robotics"]
    aggregate = answer.aggregate
    assert aggregate is not None and aggregate.count == 0 and aggregate.papers
    assert all(p.membership == "closest" for p in aggregate.papers)
    assert answer.answer.startswith(
        "No ICML 2024 abstract combines “federated learning” and “robotics”."
    )
    assert "not counted" in answer.answer
    assert [c.n for c in answer.citations] == [p.n for p in aggregate.papers]  # ranked, cited


def test_a_described_topic_claims_no_count_and_offers_named_topics(assistant: Any) -> None:
    answer = assistant.ask(
        "Which papers let many devices learn one model without sharing their data?"
    )
    aggregate = answer.aggregate
    assert aggregate is not None and aggregate.count is None  # no count claimed
    assert all(p.membership == "closest" for p in aggregate.papers)
    assert "can't count" in answer.answer
    offered = {s.topic: s for s in answer.suggested_topics}
    assert "federated learning" in offered
    federated = offered["federated learning"]
    assert federated.question == "Which ICML 2024 papers are about federated learning?"
    # the count offered is what asking the named question answers
    assert assistant.ask(federated.question).aggregate.count == federated.count > 0
    assert "Did you mean: federated learning" in answer.answer


def test_named_papers_are_compared_row_by_row_and_an_unknown_name_is_said(
    assistant: Any,
) -> None:
    answer = assistant.ask("Compare BiLLM and AQLM")
    assert answer.plan.kind == "compare" and answer.plan.compared == ["BiLLM", "AQLM"]
    aggregate = answer.aggregate
    assert aggregate is not None and aggregate.columns == ["problem", "method", "finding"]
    assert [p.paper_id for p in aggregate.papers] == ["qOl2WWOqFg", "5mCaITRTmO"]
    assert [c.paper_id for c in answer.citations] == ["qOl2WWOqFg", "5mCaITRTmO"]
    assert all(p.membership == "named" for p in aggregate.papers)
    described = assistant.ask(
        "Compare BiLLM with the paper that compresses large language models with additive "
        "quantization"
    )
    assert [p.paper_id for p in described.aggregate.papers] == ["qOl2WWOqFg", "5mCaITRTmO"]
    unknown = assistant.ask("Compare BiLLM and Zorblax")
    assert [p.paper_id for p in unknown.aggregate.papers] == ["qOl2WWOqFg"]
    assert unknown.answer.startswith("No ICML 2024 abstract names or fits “Zorblax”.")


def test_comparison_cells_are_plain_text() -> None:
    from rag.sets.compare import comparison_cells

    cells = comparison_cells(
        "Large models are costly. However, existing ``extreme'' compression fails. "
        "We propose **L**ow-rank **Q**uantization (LQ), which outperforms prior work."
    )
    assert cells["method"] == "We propose Low-rank Quantization (LQ), which outperforms prior work."
    assert "“extreme”" in cells["problem"]


def test_rag_ask_prints_the_closest_apart_and_the_suggested_topics(
    store_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(store_copy))
    assert rag_main(["ask", "Which ICML 2024 papers use federated learning for robotics?"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("No ICML 2024 abstract combines")
    assert lines[1] == "The closest papers, ranked (not counted as members):"
    assert lines[2].startswith("[1] ")
    described = "Which papers let many devices learn one model without sharing their data?"
    assert rag_main(["ask", described]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Did you mean: .*federated learning \(\d+ papers\)", out, re.M)


def test_a_description_no_named_topic_fits_gets_the_cited_answer(assistant: Any) -> None:
    # no glossary topic is near it: perhaps no paper is about it; the cited path decides
    answer = assistant.ask(
        "Which papers teach a robot arm to fold laundry that it has never seen before?"
    )
    assert answer.aggregate is None and answer.suggested_topics == []
    assert answer.abstained


def test_a_negated_topic_keeps_every_selected_paper_once(assistant: Any) -> None:
    # Stan Z. Li's three fixture papers: each one either listed or named as left out
    answer = assistant.ask("Which papers by Stan Z. Li are not about graphs?")
    assert (answer.plan.not_about, answer.plan.constraints.authors) == ("graphs", ["Stan Z. Li"])
    listed = {c.paper_id for c in answer.citations}
    left = re.search(
        r"Left out as about “graphs” \(judged from the abstracts\): (.+)\.", answer.answer
    )
    titles = {p["id"]: p["title"] for p in fixture_papers()}
    named = {i for i in expected("Stan Z. Li") if left and f"*{titles[i]}*" in left.group(1)}
    assert listed | named == expected("Stan Z. Li") and not listed & named
    assert not answer.aggregate.exact


def test_a_topics_share_is_said_first_with_its_count(assistant: Any) -> None:
    answer = assistant.ask("What percentage of ICML 2024 papers are about graphs?")
    assert answer.plan.statistic == "share" and answer.aggregate is not None
    total = len(fixture_papers())
    clearly = answer.aggregate.count
    lead = f"{100 * clearly / total:.1f} %: {clearly} of the {total:,} ICML 2024 papers are"
    assert answer.answer.startswith(lead), answer.answer[:200]
    assert answer.aggregate.value == round(100 * clearly / total, 1)


def test_a_byline_beside_a_content_question_answers_both(assistant: Any) -> None:
    answer = assistant.ask("How many authors does BiLLM have, and what does it propose?")
    assert not answer.abstained and not answer.missing
    assert {c.paper_id for c in answer.citations} == {"qOl2WWOqFg"}
    assert "is by 8 authors" in answer.answer  # the catalogue's part, after the abstract's
    assert answer.answer.index("is by 8 authors") > answer.answer.index("[1]")


def test_two_sets_asked_together_are_answered_one_after_the_other(assistant: Any) -> None:
    both = assistant.ask(
        "List the papers on reinforcement learning, then the ones on graph neural networks."
    )
    first = assistant.ask("Which papers are about reinforcement learning?")
    second = assistant.ask("Which papers are about graph neural networks?")
    assert first.aggregate is not None and second.aggregate is not None
    assert both.aggregate is None  # two sets: each in its text
    assert len(both.citations) == len(first.citations) + len(second.citations)
    assert both.answer.startswith(first.answer.split("\n")[0])
    shift = len(first.citations)
    assert [c.paper_id for c in both.citations[shift:]] == [c.paper_id for c in second.citations]
    assert f"[{shift + 1}]" in both.answer


def test_the_largest_reported_reduction_ranks_the_figures_abstracts_state(assistant: Any) -> None:
    answer = assistant.ask("Which paper reports the largest reduction in computation?")
    assert answer.aggregate is not None and answer.aggregate.papers
    top = answer.aggregate.papers[0]
    assert top.paper_id == "0mklK4h0rX"  # "6 times less computations than exhaustive inference"
    assert answer.aggregate.value == 6.0
    # BAGEL's "13x reduction in execution failures" reduces no computation
    assert "VsvfSMI5bs" not in {p.paper_id for p in answer.aggregate.papers}
    assert "not which method is best" in answer.answer


def test_a_papers_kind_of_institution_and_what_a_list_is_about_in_chat(assistant: Any) -> None:
    from rag.answer.references import answer_with_references
    from rag.types import ChatMessage

    # BiLLM lists only universities, MagicLens Google and Microsoft
    billm = assistant.ask("Is the BiLLM paper from industry?")
    assert billm.answer.startswith("No:") and billm.aggregate.exact
    magic = assistant.ask("Is the MagicLens paper from industry?")
    assert magic.answer.startswith("Yes:")
    cornell = {p["id"] for p in fixture_papers() if any("Cornell" in a for a in p["affiliations"])}
    first = assistant.ask("Which papers are from Cornell University?")
    history = [
        ChatMessage(role="user", content="Which papers are from Cornell University?"),
        ChatMessage(role="assistant", content=answer_with_references(first)),
    ]
    about = assistant.ask("What are they about?", history=history)
    assert {c.paper_id for c in about.citations} == cornell and len(cornell) >= 2
    assert about.answer.startswith(f"What each of the {len(cornell)} papers listed does")
