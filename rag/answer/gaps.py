"""What a question asks of its best paper that the abstract does not give, or goes
against: the notes an answer carries ("does not state", "does not mention", "says the
opposite"), read after the evidence is scored."""

from __future__ import annotations

import difflib
import re

from rag.answer.contradictions import contradicted
from rag.answer.premises import (
    RARE_NAME_DOCS,
    names_the_paper,
    title_run,
    unmentioned,
    unwritten,
    without_request,
)
from rag.answer.scored import Evidence
from rag.answer.supplied import Gaps, check_abstract
from rag.answer.term_stats import TermStats
from rag.text import COINED, NAME, split_sentences
from rag.types import RetrievedPaper

# Another paper this likely to answer, and not far below the best, may be the one asked about.
OTHER_PAPER_CONFIDENCE, OTHER_PAPER_MARGIN = 0.5, 0.25


def find_gaps(
    stats: TermStats, question: str, sources: list[RetrievedPaper], evidence: Evidence
) -> Gaps:
    """What the question asks of its best paper that the abstract does not give:
    typed parts no sentence supplies; names and rare words the paper never uses (of a
    paper the question names; else only rare names); words no abstract writes."""
    question = without_request(question)
    source = max(evidence.paper_relevance, key=lambda n: evidence.paper_relevance[n])
    paper = sources[source - 1].paper
    found = check_abstract(question, evidence.parts, paper.abstract, paper.title, source)
    doc_freq = stats.doc_freq
    named = names_the_paper(question, paper.title, paper.abstract, doc_freq)
    found.contradiction = contradicted(
        question, split_sentences(paper.abstract), paper.title, doc_freq
    )
    absent = unmentioned(question, paper.title, paper.abstract, doc_freq)
    others = [s.paper for n, s in enumerate(sources, start=1) if n != source]

    def nowhere_else(word: str) -> bool:
        # A name another retrieved paper writes is that paper's ("How do CTAN and
        # PATH-WL differ?"), not a premise the best one lacks, unless it is misplaced.
        return word in evidence.misnamed or all(
            unmentioned(word, p.title, p.abstract, doc_freq) for p in others
        )

    if named:
        # "How do FuRL and VLM-CaR differ?": a coined name beside the paper's own, that
        # another source writes, is that source's (its words may be common: "VLM", "car")
        paired = len(set(NAME.findall(question))) >= 2

        def anothers(w: str) -> bool:  # one other paper's coined name, not a baseline's
            return paired and bool(COINED.search(w)) and stats.name_count(w) <= RARE_NAME_DOCS

        found.unmentioned = [
            w
            for w in absent
            if nowhere_else(w) or (doc_freq(w) > RARE_NAME_DOCS and not anothers(w))
        ]
        return found
    # Not asked of one named paper: words no abstract writes say the papers do not
    # cover what it asks about ("LLM agents on *Android* phones").
    found.unwritten = [
        word
        for word in unwritten(question, stats.paper_count, stats.prefixed, stats.named)
        if not _misspelt(word, sources)  # "PULCBPF" for the retrieved paper's "PULCPBF"
    ]
    # A rare name the best paper never writes is another paper's ("How does *DaGCN*
    # treat the nodes GCN fails on?"), unless another retrieved paper writes it.
    rare = {n for n in NAME.findall(question) if 0 < doc_freq(n) <= RARE_NAME_DOCS}
    found.unmentioned = [w for w in absent if w in rare and nowhere_else(w)]
    if title_run(question, paper.title, doc_freq):
        return found  # "the conditional common entropy approach": asked of this paper
    # A part another retrieved paper supplies is answered, if that paper may be the one
    # asked about.
    best = evidence.paper_confidence.get(source, 0.0)
    floor = max(OTHER_PAPER_CONFIDENCE, best - OTHER_PAPER_MARGIN)
    plausible = [
        s.paper
        for n, s in enumerate(sources, start=1)
        if n != source and evidence.paper_confidence.get(n, 1.0) >= floor
    ]
    found.missing = [
        part
        for part in found.missing
        if not any(
            check_abstract(question, [part], p.abstract, p.title, 0).supplied for p in plausible[:2]
        )
    ]
    return found


TYPO_RATIO = 0.8  # difflib ratio at which a question's word is a retrieved paper's, misspelt
TYPO_CHARS = 5  # shorter words are too easily another word


def _misspelt(word: str, sources: list[RetrievedPaper]) -> bool:
    """Whether a word no abstract writes is a misspelling of one a retrieved paper writes."""
    if len(word) < TYPO_CHARS:
        return False
    typed = word.lower()
    written = {
        w.lower()
        for s in sources
        for w in re.findall(r"[\w-]+", f"{s.paper.title} {s.paper.abstract}")
        if abs(len(w) - len(word)) <= 1
    }
    return any(difflib.SequenceMatcher(None, typed, w).ratio() >= TYPO_RATIO for w in written)
