"""ui/render.py: answers and references as HTML, with corpus and user text always escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rag.answer.prompts import ABSTAIN_TEXT
from rag.answer.references import answer_with_references
from rag.types import Answer, Citation, Related
from tests.support.settings import make_settings
from ui import render

PAYLOADS = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "[click](javascript:window.__xss=1)",
    '"><svg onload=alert(1)>',
    "&lt;script&gt; already escaped",
]
# Buttons are the answer's own actions (copy, regenerate, edit), run by ui/static/chat.js.
OUR_TAGS = {"div", "p", "br", "a", "em", "strong", "span", "blockquote", "ul", "li", "button"}
OUR_ATTRS = {"class", "id", "href", "title", "target", "rel", "role", "hidden", "type"}


def visible(html: str) -> str:
    """The HTML without the hidden copies the page's script reads (quote, BibTeX, Markdown)."""
    return re.sub(r'<div class="rag-(?:quote|bib|md)" hidden>.*?</div>', "", html, flags=re.S)


class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> TagCollector:
    collector = TagCollector()
    collector.feed(html)
    collector.close()
    return collector


def assert_only_our_markup(
    html: str,
    tags: set[str] = OUR_TAGS,
    attributes: set[str] = OUR_ATTRS,
    in_page_links: bool = True,
) -> TagCollector:
    """Only the given tags and attributes; links to http(s) or (if allowed) in-page anchors."""
    parsed = parse(html)
    allowed_links = ("https://", "http://", "#") if in_page_links else ("https://", "http://")
    for tag, attrs in parsed.tags:
        assert tag in tags, (tag, html)
        assert set(attrs) <= attributes, (attrs, html)
        href = attrs.get("href")
        if href is not None:
            assert href.startswith(allowed_links), href
    return parsed


def citation(n: int = 1, **overrides: Any) -> Citation:
    fields: dict[str, Any] = {
        "n": n,
        "paper_id": "qklMNNub0H",
        "title": "Implicit Regularization in Feedback Alignment Learning Mechanisms",
        "authors": ["Zachary Robertson", "Sanmi Koyejo"],
        "url": "https://openreview.net/forum?id=qklMNNub0H",
        "status": "Poster",
        "snippet": "A novel conservation law links weight changes to implicit regularization.",
        "score": 0.0327,
    }
    fields.update(overrides)
    return Citation(**fields)


def answer(text: str, citations: list[Citation], **overrides: Any) -> Answer:
    fields: dict[str, Any] = {
        "question": "q",
        "answer": text,
        "abstained": False,
        "backend": "extractive",
        "mode": "hybrid",
        "citations": citations,
    }
    fields.update(overrides)
    return Answer(**fields)


def test_markers_link_to_the_references_of_the_same_answer() -> None:
    html = render.answer_html(
        answer("*Feedback\\_Alignment*: it works [1]. Also [2][1].", [citation(1), citation(2)]),
        "a1-x",
    )
    parsed = assert_only_our_markup(html)
    cites = [a for t, a in parsed.tags if t == "a" and a.get("class") == "rag-cite"]
    assert [a["href"] for a in cites] == ["#a1-x-ref-1", "#a1-x-ref-2", "#a1-x-ref-1"]
    ids = [a["id"] for t, a in parsed.tags if a.get("class") == "rag-ref"]
    assert ids == ["a1-x-ref-1", "a1-x-ref-2"]
    assert "<em>Feedback_Alignment</em>" in html


def test_reference_shows_title_link_authors_status_snippet() -> None:
    many = [f"Author {i}" for i in range(8)]
    html = render.answer_html(answer("Yes [1].", [citation(1, authors=many)]), "t")
    parsed = assert_only_our_markup(html)
    title = next(a for t, a in parsed.tags if a.get("class") == "rag-ref-title")
    assert title == {
        "class": "rag-ref-title",
        "href": "https://openreview.net/forum?id=qklMNNub0H",
        "target": "_blank",
        "rel": "noopener noreferrer",
    }
    text = "".join(parse(visible(html)).text)
    assert "Author 0, Author 1, Author 2 et al." in text
    assert "Author 7" not in text  # shortened (the full list is only in the tooltip)
    assert "Poster" in text
    assert "score" not in text and "0.0327" not in html  # a rank fusion number: JSON only
    assert "conservation law" in text
    assert "References" in text


def test_marker_without_a_reference_is_not_a_link() -> None:
    html = render.answer_html(answer("Claim [1]. Stray [7].", [citation(1)]), "t")
    assert "[7]" in "".join(parse(html).text)
    assert "#t-ref-7" not in html


def test_abstention_lists_related_papers_apart_without_numbers() -> None:
    related = [
        Related(
            paper_id="p",
            title="Nearby paper",
            authors=["A"],
            url="https://x.org/p",
            score=0.1,
            relevance=0.4,
        )
    ]
    html = render.answer_html(answer(ABSTAIN_TEXT, [], abstained=True, related=related), "t")
    parsed = assert_only_our_markup(html)
    text = "".join(parsed.text)
    assert ABSTAIN_TEXT in text
    assert render.RELATED_HEADING in text
    assert "References" not in text and "[1]" not in text
    assert not any(a.get("class") == "rag-ref" for _, a in parsed.tags)


def test_refusal_shows_no_related_papers_too_far_to_help() -> None:
    far = Related(
        paper_id="p",
        title="Far paper",
        authors=["A"],
        url="https://x.org/p",
        score=0.1,
        relevance=0.05,
    )
    html = render.answer_html(answer(ABSTAIN_TEXT, [], abstained=True, related=[far]), "t")
    assert "Far paper" not in html and render.RELATED_HEADING not in html


def test_references_heading_only_with_references() -> None:
    html = render.answer_html(answer("Nothing to cite here.", []), "t")
    assert "References" not in html and "rag-refs" not in html


def test_snippet_the_answer_already_quotes_is_not_repeated() -> None:
    quoted = "We show that a conservation law drives alignment."
    html = render.answer_html(answer(f"{quoted} [1]", [citation(1, snippet=quoted)]), "t")
    assert 'class="rag-snippet"' not in html  # in the text already
    assert f'<div class="rag-quote" hidden>{quoted}</div>' in html  # the card still shows it
    other = render.answer_html(answer("Short claim [1].", [citation(1, snippet=quoted)]), "t")
    assert 'class="rag-snippet"' in other


def test_unsafe_urls_are_not_linked() -> None:
    for url in [
        "javascript:window.__xss=1",
        "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:x",
        "//evil.example/path",
        "https://ok.example/a b",
        "",
    ]:
        assert render.safe_url(url) is None, url
        html = render.answer_html(answer("x [1].", [citation(1, url=url)]), "t")
        parsed = assert_only_our_markup(html)
        assert not any(a.get("class") == "rag-ref-title" and "href" in a for _, a in parsed.tags)
    assert render.safe_url(" https://openreview.net/forum?id=a&b=1 ") == (
        "https://openreview.net/forum?id=a&b=1"
    )


def test_payloads_in_every_field_stay_text() -> None:
    for payload in PAYLOADS:
        cite = citation(
            1, title=payload, authors=[payload], status=payload, snippet=payload, paper_id=payload
        )
        final = answer(f"*{payload}*: {payload} [1]", [cite], model=payload, mode=payload)
        for html in (
            render.answer_html(final, "t"),
            render.streaming_html(final.answer, "t"),
            render.question_html(payload),
            render.error_html(payload, payload),
            render.answer_html(
                answer(
                    payload,
                    [],
                    abstained=True,
                    related=[
                        Related(paper_id="p", title=payload, authors=[payload], url="", score=0)
                    ],
                ),
                "t",
            ),
        ):
            parsed = assert_only_our_markup(html)
            assert payload in "".join(parsed.text)  # shown exactly as written
            assert "<script" not in html and "<img" not in html and "<svg" not in html


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(list("ab *_\\[]()<>&\"'=:/\n1234$") + PAYLOADS), max_size=40).map(
        "".join
    )
)
def test_any_text_renders_to_our_tags_only(text: str) -> None:
    assert_only_our_markup(render.streaming_html(text, "t"))
    assert_only_our_markup(render.question_html(text))
    html = render.answer_html(answer(text, [citation(1)]), "t")
    assert_only_our_markup(html)


def test_streaming_and_question_keep_user_text_literal() -> None:
    html = render.question_html("Is *this* [1] a <b>question</b>?\nline two")
    parsed = assert_only_our_markup(html)
    assert "".join(parsed.text) == "Is *this* [1] a <b>question</b>?line two"
    assert "<br>" in html
    assert "rag-cursor" in render.streaming_html("", "t")


def test_chatbot_typesets_dollar_math_with_katex() -> None:
    import gradio as gr

    from ui import widgets

    with gr.Blocks():
        chat, _ = widgets.chat_column(make_settings(Path("unused")))
    assert chat.chatbot.latex_delimiters == render.LATEX_DELIMITERS
    assert {d["left"] for d in render.LATEX_DELIMITERS} == {"$", "$$"}  # no \\[ … \\] pairs
    assert chat.chatbot.render_markdown is False and chat.chatbot.sanitize_html is True


def test_formulas_keep_their_dollars_for_katex_and_stay_escaped() -> None:
    title = "A Graph is Worth $K$ Words"
    html = render.answer_html(
        answer(
            f"*{title}*: trained on $100$M molecules, $\\sim 3.7\\times$ faster [1].",
            [citation(1, title=title, snippet="on $<script>x</script>$ data")],
        ),
        "t",
    )
    assert_only_our_markup(html)
    assert html.count('<span class="rag-math">$K$</span>') == 2  # answer text and ref title
    assert '<span class="rag-math">$100$</span>M' in html
    assert '<span class="rag-math">$\\sim 3.7\\times$</span> faster' in html
    assert '<span class="rag-math">$&lt;script&gt;x&lt;/script&gt;$</span>' in html
    display = render.answer_html(answer("So $$\\sum_i x_i$$ holds [1].", [citation(1)]), "t")
    assert '<span class="rag-math rag-math-display">$$\\sum_i x_i$$</span>' in display


def test_dollars_that_are_not_math_cannot_pair_in_katex() -> None:
    dollar = '<span class="rag-dollar">$</span>'
    html = render.answer_html(answer("It costs $5 or $6 per run [1].", [citation(1)]), "t")
    parsed = assert_only_our_markup(html)
    assert "costs $5 or $6 per run" in "".join(parsed.text)  # prices are not math
    assert f"costs {dollar}5 or {dollar}6 per run" in html  # each $ alone in its element
    # Nor in the user's own question, or a formula still streaming in.
    assert f"is {dollar}x" in render.question_html("is $x$ fine?")
    assert "rag-math" not in render.streaming_html("a $\\sim 3.7", "t")
    assert f"a {dollar}~ 3.7" in render.streaming_html("a $\\sim 3.7", "t")  # Unicode till closed


def test_latex_outside_formulas_reads_as_unicode() -> None:
    html = render.answer_html(
        answer(
            "A 2\\times speedup on 50\\% of tasks [1].", [citation(1, snippet="it is 3\\times")]
        ),
        "t",
    )
    text = "".join(assert_only_our_markup(html).text)
    assert "A 2× speedup on 50% of tasks [1]." in text and "it is 3×" in text
    assert 'href="#t-ref-1"' in html  # the marker is still a link


def test_readable_html_turns_math_into_unicode_text() -> None:
    html = render.readable_html("Regret $O(d\\sqrt{NKT})$ on $[0,1]^d$ <b>")
    assert html == "Regret O(d√(NKT)) on [0,1]ᵈ &lt;b&gt;"
    linked = render.title_link("Worth $K$ Words", "https://x.org/p", typeset=False)
    assert ">Worth K Words</a>" in linked and "rag-math" not in linked


def test_relevance_shows_as_a_label_never_the_score() -> None:
    cases = [(0.91, "high relevance"), (0.55, "medium relevance"), (0.12, "low relevance")]
    for value, label in cases:
        html = render.answer_html(answer("Yes [1].", [citation(1, relevance=value)]), "t")
        parsed = assert_only_our_markup(html)
        assert label in "".join(parsed.text)
        assert f"Estimated relevance {value:.2f}" in html  # the value is the tooltip
        assert "0.0327" not in html
    unset = render.answer_html(answer("Yes [1].", [citation(1)]), "t")
    assert "relevance" not in unset and "score" not in "".join(parse(unset).text)
    related = Related(paper_id="p", title="Near", authors=["A"], url="", score=0.03, relevance=0.45)
    abstained = render.answer_html(answer("No.", [], abstained=True, related=[related]), "t")
    assert "medium relevance" in abstained and "0.03" not in abstained


def test_copy_markdown_carries_the_numbered_reference_lines() -> None:
    final = answer("It works [1].", [citation(1)])
    markdown = answer_with_references(final)
    assert markdown.startswith("It works [1].")
    assert "[1] Implicit Regularization in Feedback Alignment Learning Mechanisms — " in markdown
    assert "https://openreview.net/forum?id=qklMNNub0H" in markdown


def test_a_card_quotes_a_sentence_or_two_not_the_whole_chunk() -> None:
    first = "A first sentence of the abstract that is long enough to matter here. " * 3
    long = f"{first.strip()} Then a second one. " + "More text follows. " * 40
    quote = render.card_quote(long)
    assert quote.startswith("A first sentence") and quote.endswith(" …")
    assert len(quote) <= render.CARD_QUOTE_CHARS + 2
    one = "x" * 500 + "."  # one sentence longer than the limit is still quoted whole
    assert render.card_quote(one) == one
    assert render.card_quote("Short. Two.") == "Short. Two."
