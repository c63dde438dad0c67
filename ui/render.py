"""Answers, references, questions and errors as HTML for the chat, built by hand.

Everything that comes from the corpus, the model or the user passes through `html.escape`;
the only tags in the output are the ones written here, and the only links are our own
in-page anchors (`#…-ref-n`) and corpus URLs whose scheme is http or https. The chatbot
shows this HTML with Markdown rendering off, so no Markdown parser gets a second pass at
the text (a `[click](javascript:…)` in an abstract stays literal text), and Gradio's own
sanitizer then only ever sees tags we meant to emit.

The answer text supports the little Markdown the synthesizers write: paragraphs, line
breaks, `*emphasis*`, `**strong**`, backslash escapes, and `[n]` citation markers.

Math: abstracts quote LaTeX. A `$…$` or `$$…$$` formula (paired by the rule of
`rag.answer.unicode_math`) keeps its dollars inside a `rag-math` span, and the chatbot's KaTeX
(`LATEX_DELIMITERS`, run by Gradio after its sanitizer, `trust` off so no `\\href` or
`\\html…` command makes markup) typesets it. Every other `$` gets a span of its own: KaTeX
reads each text node apart, so a lone price "$5" cannot pair with a later one. LaTeX outside
a formula ("a 2\\times speedup", "50\\%") is shown as Unicode. HTML that no KaTeX reads (the
set table) uses `readable_html`: the same text with its math as Unicode.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from rag.answer.references import short_authors
from rag.answer.unicode_math import MATH, readable_math, tex_quotes
from rag.sets.compare import plain_text as plain_sentence
from rag.sets.exports import bibtex_entry
from rag.types import AggregatePaper, Answer, Citation, Related, relevance_label

SAFE_SCHEMES = frozenset({"http", "https"})
KNOWN_STATUSES = frozenset({"oral", "spotlight", "poster"})
RELATED_HEADING = "Related papers — not support for an answer"
RELATED_MIN = 0.2  # related papers under this relevance do not help a refusal: none shown
SET_IN_CHAT = 5  # rows of a set answer shown in the chat; the table holds every row
NAMED_IN_CHAT = 4  # a comparison of this few papers is shown whole

# One alternation, scanned left to right: a backslash escape, a citation marker, **strong**,
# or *emphasis*. Emphasis bodies skip escaped characters so `*A\*B*` is one emphasis.
_INLINE = re.compile(
    r"\\(?P<esc>[\\*_\[\]`])"
    r"|\[(?P<n>\d{1,3})\]"
    r"|\*\*(?P<strong>(?:\\.|[^*\\\n]|\*(?!\*))+?)\*\*"
    r"|\*(?P<em>(?=\S)(?:\\.|[^*\\\n])+?(?<=\S))\*"
    rf"|(?P<math>{MATH.pattern})"
)
# Display math as KaTeX's blocks, inline math in the text's line.
LATEX_DELIMITERS: list[dict[str, str | bool]] = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
]
_DOLLAR_ALONE = '<span class="rag-dollar">$</span>'
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")

# Styles for the classes emitted below (passed to Gradio when the UI is mounted).
CSS = """
.rag-answer p { margin: 0 0 .6em 0; }
.rag-cite { text-decoration: none; font-weight: 600; }
.rag-refs, .rag-related { margin-top: .8em; border-top: 1px solid var(--border-color-primary);
  padding-top: .5em; font-size: .92em; }
.rag-refs-heading, .rag-related-heading { font-weight: 700; margin-bottom: .3em; }
.rag-related-heading { color: var(--body-text-color-subdued); }
.rag-ref { margin: .45em 0; scroll-margin-top: 1em; }
.rag-ref:target { background: var(--color-accent-soft); }
.rag-ref-n { font-weight: 700; }
.rag-status { border-radius: 4px; padding: 0 .35em; font-size: .85em;
  border: 1px solid var(--border-color-primary); }
.rag-status-oral { background: #fde68a; color: #3b2f00; }
.rag-status-spotlight { background: #bfdbfe; color: #0b2545; }
.rag-relevance { border-radius: 4px; padding: 0 .35em; font-size: .8em; white-space: nowrap;
  color: var(--body-text-color-subdued); border: 1px dashed var(--border-color-primary); }
.rag-relevance-high { border-style: solid; color: var(--body-text-color); }
.rag-snippet { margin: .25em 0 0 1.2em; padding-left: .6em; font-style: italic;
  border-left: 3px solid var(--border-color-primary); }
.rag-meta { margin-top: .5em; color: var(--body-text-color-subdued); font-size: .8em; }
.rag-error { color: var(--error-text-color); }
.rag-cursor { opacity: .6; }
.rag-math .katex { font-size: 1.05em; }
.rag-math .katex-error { color: inherit !important; }  /* unknown LaTeX: its source, not red */
.rag-stats { font-size: .9em; }
.rag-stats th { text-align: left; padding-right: .6em; white-space: nowrap; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def safe_url(url: str | None) -> str | None:
    """The URL if it is an absolute http(s) URL without whitespace or control characters."""
    if not url:
        return None
    url = url.strip()
    if any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in SAFE_SCHEMES or not parts.netloc:
        return None
    return url


def anchor_id(turn: str, n: int) -> str:
    """The element id of reference n under the answer `turn` (unique within the page)."""
    return f"{turn}-ref-{n}"


def inline_html(text: str, turn: str, linkable: set[int] | None = None) -> str:
    """One paragraph: escaped text with our emphasis tags, marker links and formulas.

    `linkable`: the citation numbers that have a reference to jump to; None while
    streaming (the references arrive with the final answer, the anchors then resolve).
    """
    out: list[str] = []
    last = 0
    for match in _INLINE.finditer(text):
        out.append(_prose(text[last : match.start()]))
        last = match.end()
        if match.group("esc") is not None:
            out.append(esc(match.group("esc")))
        elif match.group("n") is not None:
            n = int(match.group("n"))
            if linkable is None or n in linkable:
                out.append(
                    f'<a class="rag-cite" href="#{anchor_id(turn, n)}" '
                    f'title="Reference {n}">[{n}]</a>'
                )
            else:
                out.append(esc(match.group(0)))
        elif match.group("math") is not None:
            out.append(_formula(match))
        elif match.group("strong") is not None:
            out.append(f"<strong>{inline_html(match.group('strong'), turn, linkable)}</strong>")
        else:
            out.append(f"<em>{inline_html(match.group('em'), turn, linkable)}</em>")
    out.append(_prose(text[last:]))
    return "<br>".join("".join(out).split("\n"))


def _formula(match: re.Match[str]) -> str:
    """A formula for KaTeX: escaped, dollars kept, in a span of its own."""
    kind = "rag-math rag-math-display" if match.group("display") is not None else "rag-math"
    return f'<span class="{kind}">{esc(match.group(0))}</span>'


def _prose(text: str) -> str:
    """Text outside formulas: its LaTeX (and TeX quotes) as Unicode, and no `$` that KaTeX
    could pair."""
    return _literal(readable_math(tex_quotes(text)))


def _literal(text: str) -> str:
    """Escaped text whose every `$` sits in a span of its own, so KaTeX never pairs two."""
    return _DOLLAR_ALONE.join(esc(part) for part in text.split("$"))


def text_html(text: str) -> str:
    """Escaped plain text (a title, a snippet) with its formulas left for KaTeX."""
    out: list[str] = []
    last = 0
    for match in MATH.finditer(text):
        out.append(_prose(text[last : match.start()]))
        out.append(_formula(match))
        last = match.end()
    out.append(_prose(text[last:]))
    return "".join(out)


def readable_html(text: str) -> str:
    """Escaped plain text for HTML that no KaTeX reads: its LaTeX and TeX quotes as Unicode,
    Markdown emphasis markers dropped ("**L**ow-rank" → "Low-rank")."""
    return esc(readable_math(plain_sentence(text)))


def body_html(text: str, turn: str, linkable: set[int] | None = None) -> str:
    paragraphs = [p.strip() for p in _PARAGRAPH_BREAK.split(text.strip()) if p.strip()]
    return "".join(f"<p>{inline_html(p, turn, linkable)}</p>" for p in paragraphs)


def title_link(title: str, url: str, typeset: bool = True) -> str:
    """The title, linked when its URL is safe; `typeset=False` where no KaTeX runs."""
    shown = text_html(title) if typeset else readable_html(title)
    safe = safe_url(url)
    if safe is None:
        return f'<span class="rag-ref-title">{shown}</span>'
    # The sanitizer also sets target/rel on external links; writing them here keeps the
    # HTML correct on its own (copied out, or rendered by something else).
    return (
        f'<a class="rag-ref-title" href="{esc(safe)}" target="_blank" '
        f'rel="noopener noreferrer">{shown}</a>'
    )


def status_badge(status: str) -> str:
    if not status:
        return ""
    kind = status.lower() if status.lower() in KNOWN_STATUSES else "other"
    return f' <span class="rag-status rag-status-{kind}">{esc(status)}</span>'


def relevance_badge(relevance: float | None) -> str:
    """ "high/medium/low relevance" with the calibrated value on hover; nothing when unset.
    The retrieval score is never shown: a fused rank number means nothing to a reader."""
    label = relevance_label(relevance)
    if label is None or relevance is None:
        return ""
    hint = f"Estimated relevance {relevance:.2f} on a 0-1 scale"
    return (
        f' <span class="rag-relevance rag-relevance-{label}" title="{esc(hint)}">'
        f"{label} relevance</span>"
    )


def authors_html(authors: list[str]) -> str:
    full = ", ".join(authors)
    return f'<span class="rag-authors" title="{esc(full)}">{esc(short_authors(authors))}</span>'


def citation_html(citation: Citation, turn: str, quoted: str = "") -> str:
    """One reference. Its snippet is shown when the answer text does not already quote it
    (`quoted`: the answer text); the citation card reads it, and the BibTeX, hidden here."""
    snippet = citation.snippet.strip()
    shown = ""
    if snippet and not _quoted_in(snippet, quoted):
        shown = f'<blockquote class="rag-snippet">{text_html(snippet)}</blockquote>'
    bib = bibtex_entry(
        citation.paper_id, citation.title, citation.authors, citation.url, citation.pmlr_key
    )
    return (
        f'<div class="rag-ref" id="{anchor_id(turn, citation.n)}">'
        f'<span class="rag-ref-n">[{citation.n}]</span> '
        f"{title_link(citation.title, citation.url)} — {authors_html(citation.authors)}"
        f"{status_badge(citation.status)}{relevance_badge(citation.relevance)}{shown}"
        f'<div class="rag-quote" hidden>{readable_html(card_quote(snippet))}</div>'
        f'<div class="rag-bib" hidden>{_literal(bib)}</div>'
        "</div>"
    )


CARD_QUOTE_CHARS = 320  # a card quotes a sentence or two, not the whole chunk


def card_quote(snippet: str) -> str:
    """The snippet's first sentences up to CARD_QUOTE_CHARS (always one), "…" if cut."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(snippet.split())) if s]
    kept: list[str] = []
    for sentence in sentences:
        if kept and len(" ".join([*kept, sentence])) > CARD_QUOTE_CHARS:
            break
        kept.append(sentence)
    quote = " ".join(kept)
    return quote + (" …" if len(kept) < len(sentences) else "")


def _quoted_in(snippet: str, text: str) -> bool:
    """Whether every sentence of the snippet is already in the answer text."""
    flat = " ".join(text.split())
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(snippet.split())) if s]
    return bool(flat) and all(s.rstrip(" .") in flat for s in sentences)


def related_html(related: list[Related]) -> str:
    if not related:
        return ""
    items = "".join(
        f'<li class="rag-related-item">{title_link(r.title, r.url)} — {authors_html(r.authors)}'
        f"{status_badge(r.status)}{relevance_badge(r.relevance)}</li>"
        for r in related
    )
    return (
        f'<div class="rag-related"><div class="rag-related-heading">{esc(RELATED_HEADING)}'
        f'</div><ul class="rag-related-list">{items}</ul></div>'
    )


def helpful_related(answer: Answer) -> list[Related]:
    """The related papers worth showing under a refusal: none that are merely the nearest
    of an out-of-scope question ("the capital of France")."""
    return [r for r in answer.related if (r.relevance or 0.0) >= RELATED_MIN]


def sources_html(citations: list[Citation], turn: str) -> str:
    """The compact strip of sources above an answer: [n] and the paper's short name."""
    if not citations:
        return ""
    chips = "".join(
        f'<a class="rag-source" href="#{anchor_id(turn, c.n)}">'
        f'<span class="rag-source-n">{c.n}</span> {readable_html(short_title(c.title))}</a>'
        for c in citations
    )
    return f'<div class="rag-sources">{chips}</div>'


def short_title(title: str, limit: int = 48) -> str:
    head = title.split(":", 1)[0] if ":" in title else title
    return head if len(head) <= limit else head[: limit - 1].rstrip() + "…"


def references_html(citations: list[Citation], turn: str, quoted: str) -> str:
    """The references heading and entries; nothing at all when there are none."""
    if not citations:
        return ""
    refs = "".join(citation_html(c, turn, quoted) for c in citations)
    return f'<div class="rag-refs"><div class="rag-refs-heading">References</div>{refs}</div>'


TURN_ACTIONS = (
    '<button type="button" class="rag-regenerate rag-turn-action" '
    'title="Ask the last question again">Regenerate</button>'
    '<button type="button" class="rag-edit rag-turn-action" '
    'title="Put the last question back in the box to change it">Edit question</button>'
)


def actions_html(markdown: str) -> str:
    """The message's own actions: copy (the hidden Markdown with references), and on the
    last message only (the page's script shows them there) regenerate and edit."""
    copy = ""
    if markdown:
        copy = (
            '<button type="button" class="rag-copy" '
            'title="Copy the answer with its references as Markdown">Copy</button>'
        )
    hidden = f'<div class="rag-md" hidden>{_literal(markdown)}</div>' if markdown else ""
    return f'<div class="rag-actions">{copy}{TURN_ACTIONS}</div>{hidden}'


def _meta(answer: Answer) -> str:
    footer = esc(f"{answer.backend}" + (f" · {answer.model}" if answer.model else ""))
    return f'<div class="rag-meta">answered by {footer} · {esc(answer.mode)} retrieval</div>'


def answer_html(answer: Answer, turn: str, markdown: str = "") -> str:
    """The finished answer. A cited answer: its sources strip, the text with linked markers,
    then its references. A set answer: a short summary pointing at the table. A refusal:
    what it says, and related papers only when they are close enough to help."""
    if answer.aggregate is not None and answer.aggregate.papers:
        return set_answer_html(answer, turn, markdown)
    if answer.abstained:
        return (
            f'<div class="rag-answer rag-abstained">{body_html(answer.answer, turn, set())}'
            f"{related_html(helpful_related(answer))}{actions_html(markdown)}</div>"
        )
    numbers = {c.n for c in answer.citations}
    return (
        f'<div class="rag-answer">{sources_html(answer.citations, turn)}'
        f"{body_html(answer.answer, turn, numbers)}"
        f"{references_html(answer.citations, turn, answer.answer)}"
        f"{actions_html(markdown)}{_meta(answer)}</div>"
    )


def set_answer_html(answer: Answer, turn: str, markdown: str = "") -> str:
    """A set answer in the chat: its lead line, the first rows, and a link to the table
    that holds them all (the references of the rows shown only)."""
    aggregate = answer.aggregate
    assert aggregate is not None
    rows = aggregate.papers
    if aggregate.kind == "compare" and aggregate.columns and len(rows) <= NAMED_IN_CHAT:
        shown, text = rows, answer.answer  # a few named papers: the comparison itself
    else:
        shown = rows[:SET_IN_CHAT]
        text = _set_summary(answer, shown)
    numbers = {r.n for r in shown}
    cited = [c for c in answer.citations if c.n in numbers]
    more = ""
    if len(rows) > len(shown):
        more = (
            f'<div class="rag-set-more"><a class="rag-open-table" href="#set-panel">'
            f"{len(rows):,} papers — open the table</a></div>"
        )
    return (
        f'<div class="rag-answer rag-set-answer">{body_html(text, turn, numbers)}{more}'
        f"{references_html(cited, turn, text)}{actions_html(markdown)}{_meta(answer)}</div>"
    )


def _set_summary(answer: Answer, shown: list[AggregatePaper]) -> str:
    """The answer's lead line (and its closing lines: suggestions, notes) around the rows
    shown, written the way the answer lists rows."""
    lines = answer.answer.splitlines()
    lead = lines[0] if lines else ""
    members = [r for r in shown if r.membership != "closest"]
    closest = [r for r in shown if r.membership == "closest"]
    out = [lead]
    out += [_row_line(r) for r in members]
    if closest:
        if members or (answer.aggregate is not None and answer.aggregate.count is not None):
            out.append("The closest papers, ranked (not counted as members):")
        out += [_row_line(r) for r in closest]
    tail = [line for line in lines[1:] if line.startswith("Did you mean:") or line.startswith("“")]
    if tail:
        out += ["", *tail]
    return "\n".join(out)


def _row_line(row: AggregatePaper) -> str:
    title = row.title.replace("*", "\\*").replace("_", "\\_")
    status = f" ({row.status})" if row.status else ""
    return f"- *{title}*{status} [{row.n}]"


def streaming_html(text: str, turn: str) -> str:
    """A partial answer while it streams in."""
    body = body_html(text, turn) if text.strip() else ""
    return f'<div class="rag-answer rag-streaming">{body}<span class="rag-cursor">▍</span></div>'


def _plain(text: str) -> str:
    return "<br>".join(_literal(text).split("\n"))


def question_html(question: str) -> str:
    # Shown exactly as typed: no emphasis or marker handling for the user's own text.
    return f'<div class="rag-question">{_plain(question.strip())}</div>'


def error_html(title: str, detail: str, actions: bool = False) -> str:
    """A failure; in the chat (`actions`) it offers to regenerate or edit the question."""
    return (
        f'<div class="rag-error" role="alert"><strong>{esc(title)}</strong> {_plain(detail)}'
        f"{actions_html('') if actions else ''}</div>"
    )


def stopped_html(text: str, turn: str) -> str:
    """What had arrived of an answer when it was stopped, said to be incomplete."""
    body = body_html(text, turn) if text.strip() else ""
    return (
        f'<div class="rag-answer rag-stopped">{body}<div class="rag-stopped-note">Stopped '
        "before the answer was complete: its citations were not checked.</div>"
        f"{actions_html('')}</div>"
    )
