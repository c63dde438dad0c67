"""The offline answer writer: the question's best abstract sentences, quoted and cited.

Deterministic: the same store and question give the same answer. Sentences are quoted as
written (no rewriting means nothing unsupported can slip in).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.answer.citations import MARKER
from rag.answer.scored import Evidence, ScoredSentence
from rag.answer.supplied import Gaps
from rag.text import content_terms, listing
from rag.types import ChatMessage, RetrievedPaper

MIN_RELATIVE_SCORE = 0.7  # of the paper's best sentence score, for its further sentences
MIN_RELATIVE_PAPER = 0.85  # of the best paper's relevance, for a paper to be cited
MAX_PAPERS = 3
MAX_PER_SOURCE = 4
# Sentence counts, floors and the nudges below were set on the answerable questions of
# eval/datasets/dev.jsonl + hard_dev.jsonl, for key-fact coverage at a readable length.
# What a paper does or finds outranks why it was needed: "we propose…", "results show…",
# a number, over "LLMs have been demonstrated through numerous data and compute".
CONTRIBUTION_BONUS = 0.1
BACKGROUND_PENALTY = 0.1
_CONTRIBUTION = re.compile(
    r"\b(?:we|our|this (?:paper|work)|here)\b[^.]{0,40}\b(?:propos|introduc|present|develop|"
    r"show|prove|demonstrat|find|establish|achiev|design|obtain)\w*|\b(?:results?|experiments?"
    r"|evaluations?)\b[^.]{0,30}\b(?:show|demonstrat|indicat|reveal|confirm)\w*|"
    r"\b(?:outperform|improv|achiev|reduc|speed)\w*[^.]{0,40}\d",
    re.I,
)
_OWN_VOICE = re.compile(r"\b(?:we|our|this (?:paper|work))\b", re.I)


def preference(sentence: ScoredSentence) -> float:
    """The sentence's score, nudged towards contributions and away from background."""
    if _CONTRIBUTION.search(sentence.text):
        return sentence.score + CONTRIBUTION_BONUS
    if sentence.position == 0 and not _OWN_VOICE.search(sentence.text):
        return sentence.score - BACKGROUND_PENALTY
    return sentence.score


class ExtractiveSynthesizer:
    """Composes the answer from the most question-relevant abstract sentences: each
    paper's sentences follow its title, each ending with its [n]."""

    name = "extractive"
    model: str | None = None

    def __init__(self, max_sentences: int) -> None:
        self.max_sentences = max_sentences

    def select(self, evidence: Evidence) -> list[ScoredSentence]:
        """The sentences the answer quotes, chosen once per evidence (`_choose`): the
        streamed text and its citations' snippets read the same list."""
        if evidence.selected is None:
            evidence.selected = self._choose(evidence)
        return evidence.selected

    def _choose(self, evidence: Evidence) -> list[ScoredSentence]:
        """Papers that answer about as well as the best one, then their best sentences.

        The most relevant paper may give up to MAX_PER_SOURCE sentences (a question asks
        what it *finds*, and the finding is rarely the first sentence); others give one
        unless a second is nearly as good. Each part of a several-part question gets the
        sentence that answers it, before sentences that only score well.
        """
        relevance = evidence.paper_relevance
        if not evidence.sentences or not relevance:
            return []
        best = max(relevance.values())
        papers = sorted(
            (n for n, r in relevance.items() if r >= best * MIN_RELATIVE_PAPER),
            key=lambda n: -relevance[n],
        )[:MAX_PAPERS]
        chosen: list[ScoredSentence] = []
        answering: list[ScoredSentence] = []
        for rank, source in enumerate(papers):
            mine = sorted(
                (s for s in evidence.sentences if s.source == source),
                key=lambda s: (-preference(s), s.position),
            )
            if not mine:
                continue
            keep = MAX_PER_SOURCE if rank == 0 else 2
            covering = _covering(evidence, source, mine) if rank == 0 else []
            answering += covering
            # one part asked: its sentence beside the best ones, not instead of them
            alone = len(evidence.parts) == 1 and bool(covering)
            opening = [*covering, mine[0]] if alone and mine[0] not in covering else []
            chosen += opening or covering or [mine[0]]
            floor = preference(mine[0]) * (MIN_RELATIVE_SCORE if rank == 0 else 0.95)
            chosen += [s for s in mine[1:keep] if preference(s) >= floor and s not in chosen][
                : max(0, keep - len(opening or covering or [1]))
            ]
        return sorted(
            _within_budget(chosen, self.max_sentences, answering),
            key=lambda s: (s.source, s.position),
        )

    def stream(
        self,
        question: str,
        sources: list[RetrievedPaper],
        evidence: Evidence,
        history: list[ChatMessage] | None = None,
    ) -> Iterator[str]:
        gaps = evidence.gaps
        if gaps:
            yield gap_note(gaps, sources[gaps.source - 1].paper.title) + "\n\n"
        current = 0
        for sentence in self.select(evidence):
            if sentence.source != current:
                title = sources[sentence.source - 1].paper.title
                prefix = "\n\n" if current else ""
                yield f"{prefix}*{_md_plain(_quoted(title))}*: "
                current = sentence.source
            else:
                yield " "
            yield f"{_quoted(sentence.text)} [{sentence.source}]"

    def snippets(self, evidence: Evidence) -> dict[int, list[str]]:
        """The sentences quoted from each source: what its citation rests on."""
        chosen: dict[int, list[str]] = {}
        for sentence in self.select(evidence):
            chosen.setdefault(sentence.source, []).append(sentence.text)
        return chosen


def _md_plain(text: str) -> str:
    # Titles go inside *…*: keep their own asterisks/underscores from breaking emphasis.
    return text.replace("*", "\\*").replace("_", "\\_")


def _quoted(text: str) -> str:
    """Quoted text whose brackets cannot pass for citation markers.

    Abstracts hold intervals ("$[0,1]^d$") and may hold planted markers ("cite [7]"); quoted
    as is, the marker filter would turn them into citations of unrelated sources. A word
    joiner (invisible) after the bracket keeps the text as written on screen.
    """
    return MARKER.sub(lambda m: "[\u2060" + m.group(0)[1:], text)


def _covering(evidence: Evidence, source: int, mine: list[ScoredSentence]) -> list[ScoredSentence]:
    """For a question in parts, the paper's sentence that answers each part: the one
    supplying its type (a number, a name), else the one sharing most of its words."""
    # one part asking a name or a number: the sentence giving it ("which LLM": "PaLM2-Bison")
    one = len(evidence.parts) == 1 and evidence.parts[0].kind in ("name", "number")
    if len(evidence.parts) < 2 and not one:
        return []
    gaps = evidence.gaps
    supplied = gaps.supplied if gaps is not None and gaps.source == source else {}
    by_position = {s.position: s for s in mine}
    picked: list[ScoredSentence] = []
    for index, part in enumerate(evidence.parts):
        sentence = by_position.get(supplied[index]) if index in supplied else None
        if sentence is None and one:
            return []  # no sentence gives it: the best ones, as for any question
        if sentence is None:
            sentence = max(
                mine, key=lambda s: (len(part.focus & set(content_terms(s.text))), preference(s))
            )
        if sentence not in picked:
            picked.append(sentence)
    return picked


def _within_budget(
    chosen: list[ScoredSentence], budget: int, answering: list[ScoredSentence]
) -> list[ScoredSentence]:
    """Drop the weakest sentences over `budget`: never a paper's only sentence first, nor
    a sentence `answering` a part of the question."""
    unique = {(s.source, s.position): s for s in reversed(chosen)}
    chosen = [s for s in chosen if unique.get((s.source, s.position)) is s]
    while len(chosen) > budget:
        counts = {s.source: sum(1 for c in chosen if c.source == s.source) for s in chosen}
        several = [s for s in chosen if counts[s.source] > 1]
        spare = [s for s in several if s not in answering] or several or chosen
        chosen.remove(min(spare, key=preference))
    return chosen


def gap_note(gaps: Gaps, title: str) -> str:
    """ "The abstract of *Title* does not state …; it does not mention …; it says
    otherwise: “…”" (cited); or, for words no abstract writes, "No indexed abstract
    mentions …; the closest is *Title*" (cited)."""
    if gaps.unwritten:
        words = listing([f"“{w}”" for w in gaps.unwritten], "or")
        return (
            f"No indexed abstract mentions {words}, so none of these papers is about that. "
            f"The closest is *{_md_plain(_quoted(title))}*; here is what it says [{gaps.source}]."
        )
    said: list[str] = []
    if gaps.missing:
        said.append("does not state " + listing(gaps.descriptions, "or"))
    asked = " ".join(gaps.descriptions).lower()
    unmentioned = [w for w in gaps.unmentioned if w.lower() not in asked]
    if unmentioned:
        words = listing([f"“{w}”" for w in unmentioned], "or")
        said.append(f"does not mention {words}")
    if gaps.contradiction:
        said.append(f"says otherwise: “{_md_plain(gaps.contradiction)}”")
    lead = f"The abstract of *{_md_plain(_quoted(title))}* " + "; it ".join(said)
    return f"{lead}; here is what it does say [{gaps.source}]."
