"""rag/answer/unicode_math.py: LaTeX in quoted abstracts shown as Unicode; the relevance label."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.answer.unicode_math import ReadableStream, readable_math
from rag.types import Citation, Related, relevance_label

CASES = [
    # the shapes the corpus quotes
    (r"a 2\times speedup", "a 2× speedup"),
    (r"with a $\sim 3.7 \times$ speedup", "with a ~3.7× speedup"),
    (r"regret $O(d\sqrt{NKT})$", "regret O(d√(NKT))"),
    (r"$\epsilon$-greedy and $\varepsilon$", "ε-greedy and ε"),
    (r"inputs in $[0,1]^d$", "inputs in [0,1]ᵈ"),
    (r"$\approx 2\times$ less", "≈2× less"),
    (r"$a \leq b$, $c \le d$, $e \geq f$, $g \ge h$", "a ≤ b, c ≤ d, e ≥ f, g ≥ h"),
    (r"$\alpha, \beta, \Gamma, \Omega$", "α, β, Γ, Ω"),
    (r"$\sqrt{2}$ and $\sqrt{\log n}$", "√2 and √(log n)"),
    (r"$n^2$, $10^{-3}$, $x_i$, $x_{ij}$", "n², 10⁻³, xᵢ, xᵢⱼ"),
    (r"$\mathcal{O}(n \log n)$", "𝒪(n log n)"),
    (r"$\mathbb{R}^n$", "ℝⁿ"),
    (r"$\frac{1}{2}$ and $\frac{a+b}{c}$", "1/2 and (a+b)/c"),
    (r"$a \cdot b$, $\infty$, $x \in S$, $x \rightarrow y$", "a · b, ∞, x ∈ S, x → y"),
    (r"50\% of runs", "50% of runs"),
    (r"$\{1, \dots, n\}$", "{1, …, n}"),
    (r"$\text{softmax}(QK^\top)$", "softmax(QKᵀ)"),
    (r"$\mathrm{poly}(d)$ and $\textbf{bold}$", "poly(d) and bold"),
    (r"($\texttt{TSBO}$)", "(TSBO)"),
    (r"$\tilde{O}(\sqrt{T})$", "Õ(√T)"),
    (r"$\|x\|_2$", "‖x‖₂"),
    (r"$\ell_p$ regression", "ℓₚ regression"),
    (r"H$_2$O and MCR$^2$", "H₂O and MCR²"),
    (r"$\Delta W=BA$", "ΔW=BA"),
    (r"$\left( \frac{a}{b} \right)$", "( a/b )"),
    (r"$$\sum_{i=1}^n x_i$$", "Σᵢ₌₁ⁿ xᵢ"),
    (r"$y^*$-aware", "y*-aware"),
    (r"{\it italic} text", "italic text"),
    # left alone: markers, brackets, prices, escaped dollars, unknown commands in prose
    ("Plain text [1] and [2][3].", "Plain text [1] and [2][3]."),
    ("costs $5 or $6 per run [1]", "costs $5 or $6 per run [1]"),
    (r"it costs \$2,000 [4]", "it costs $2,000 [4]"),
    ("x_y and a^b outside math", "x_y and a^b outside math"),
    (r"a \unknowncommand here", r"a \unknowncommand here"),
    (r"\[1\] is an escaped marker", r"\[1\] is an escaped marker"),
    # malformed: converted as far as it goes, never raising
    (r"$\sqrt{x$", "√x"),
    (r"$\frac{1}{$", "1/"),
    ("trailing backslash \\", "trailing backslash \\"),
    (r"$x^$", "x"),
    (r"$}}{{$", ""),
    ("a $ b", "a $ b"),
    ("$$", "$$"),
]


@pytest.mark.parametrize(("latex", "shown"), CASES)
def test_readable_math(latex: str, shown: str) -> None:
    assert readable_math(latex) == shown


def test_deep_nesting_is_flattened_not_recursed() -> None:
    deep = "$" + "{" * 240 + "x" + "}" * 240 + "$"
    assert readable_math(deep) == "x"
    assert readable_math("$" + "\\sqrt{" * 60 + "$").startswith("√")
    assert readable_math("\\sqrt{" * 3000).startswith("√")  # in prose too


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"ab12 {}[]()^_$\\%~", "\\frac", "\\sqrt", "\\times", "\\text", "[1]"]),
        max_size=40,
    ).map("".join)
)
def test_never_raises_on_any_mix_of_latex_pieces(text: str) -> None:
    assert isinstance(readable_math(text), str)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"ab12 {}()^_~", "\\frac{a}{b}", "\\sqrt{2}", "\\times ", "\\%", " [1] "]),
        max_size=30,
    ).map("".join)
)
def test_markers_survive_latex_around_them(text: str) -> None:
    shown = readable_math(text)
    assert shown.count("[1]") == text.count("[1]")
    if "\\" not in text:
        assert shown == text  # no formula and no command: untouched


def test_stream_sends_what_the_whole_text_would_show() -> None:
    text = (
        r"We get a $\sim 3.7 \times$ speedup and $O(d\sqrt{NKT})$ regret [1]. It costs "
        r"$5 or $6 and runs 2\times faster [2]. Also $\mathbb{R}^d$ works."
    )
    for seed in range(100):
        rng = random.Random(seed)
        cuts = sorted(rng.sample(range(1, len(text)), 20))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        stream = ReadableStream()
        sent = "".join(stream.feed(part) for part in parts)
        assert "\\" not in sent  # no half command ever goes out
        assert sent + stream.rest(text) == readable_math(text)


def test_stream_that_is_replaced_ends_with_the_final_text() -> None:
    stream = ReadableStream()
    sent = stream.feed("Something else entirely ")
    assert sent + stream.rest("The final $\\alpha$ answer.") == (
        "Something else entirely \n\nThe final α answer."
    )


def test_stream_without_latex_passes_each_delta_through() -> None:
    stream = ReadableStream()
    deltas = ["Feed", "back align", "ment follows ", "a conservation law [1]."]
    assert [stream.feed(d) for d in deltas] == deltas
    assert stream.rest("".join(deltas)) == ""
    held = ReadableStream()
    assert [held.feed(d) for d in ["a 2\\ti", "mes gain"]] == ["a", " 2× gain"]


@pytest.mark.parametrize(
    ("value", "label"),
    [(None, None), (float("nan"), None), (0.0, "low"), (0.39, "low"), (0.4, "medium"),
     (0.69, "medium"), (0.7, "high"), (1.0, "high")],
)  # fmt: skip
def test_relevance_label(value: float | None, label: str | None) -> None:
    assert relevance_label(value) == label


def test_relevance_is_optional_on_citations_and_related() -> None:
    fields = {"paper_id": "p", "title": "T", "authors": [], "url": "", "score": 0.03}
    assert Citation(n=1, snippet="s", **fields).relevance is None
    assert Related(**fields, relevance=0.8).model_dump()["relevance"] == 0.8
