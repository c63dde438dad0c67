"""Papers near a topic's membership cut-off, screened by an LLM when one is configured.

The way PaperQA2 and Elicit screen papers: a few abstracts per request, and for each paper
and each facet of the topic a yes or no with the abstract's sentence that shows it. A
"yes" counts only with a sentence the abstract really holds; a paper is a member when
every facet holds. Verdicts are kept per (facet, paper, model) in the store's folder
(`judgements.sqlite`), keyed by the paper's content hash, so a question asked again, or a
topic shared by two questions, costs no request. The offline path never calls this: a
failed request leaves those papers to the calibrated scan.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from rag.text import clean_text, topic_tokens
from rag.types import Paper

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

log = logging.getLogger(__name__)

SCREEN_PROMPT = """You screen ICML 2024 papers for a researcher's question, from their abstracts only.

Criteria (every one must hold for a paper to count):
{criteria}

For every paper below and every criterion, answer holds=true only if the abstract itself
shows that the criterion is a real part of what the paper does (its problem, method, the
models it studies or its main evaluation), not a passing mention; quote in `sentence` the
one abstract sentence that shows it, exactly as written. Otherwise holds=false and an
empty sentence.

{papers}
"""


class CriterionCheck(BaseModel):
    criterion: int = Field(description="The criterion's number.")
    holds: bool
    sentence: str = Field("", description="The abstract's sentence showing it, verbatim.")


class PaperCheck(BaseModel):
    paper: int = Field(description="The paper's number in this request.")
    checks: list[CriterionCheck]


class Screening(BaseModel):
    papers: list[PaperCheck]


@dataclass(frozen=True)
class Verdict:
    """Whether a paper holds every facet, with the sentence for each facet that holds."""

    holds: bool
    sentences: dict[str, str]


class VerdictCache:
    """(facet, paper, model) → (holds, sentence), in one SQLite file beside the store."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("pragma journal_mode=wal")
            self._db.execute(
                "create table if not exists verdicts (facet text, paper text, hash text, "
                "model text, holds integer, sentence text, primary key (facet, paper, model))"
            )

    def get(self, facet: str, paper: Paper, model: str) -> tuple[bool, str] | None:
        with self._lock:
            row = self._db.execute(
                "select holds, sentence, hash from verdicts where facet=? and paper=? and model=?",
                (facet_key(facet), paper.id, model),
            ).fetchone()
        if row is None or row[2] != paper.content_hash():
            return None
        return bool(row[0]), str(row[1])

    def put(self, facet: str, paper: Paper, model: str, holds: bool, sentence: str) -> None:
        with self._lock:
            self._db.execute(
                "insert or replace into verdicts values (?, ?, ?, ?, ?, ?)",
                (facet_key(facet), paper.id, paper.content_hash(), model, int(holds), sentence),
            )


def facet_key(facet: str) -> str:
    """One key for a facet however it is written ("Graph Neural Networks" = graph neural network)."""
    return " ".join(topic_tokens(facet))


class LLMScreen:
    """Screens papers against facets with an LLM, `batch` abstracts per request."""

    def __init__(self, llm: LLM, cache: VerdictCache, model: str, batch: int = 8) -> None:
        self.llm = llm
        self.cache = cache
        self.model = model
        self.batch = max(1, batch)

    def screen(self, facets: list[str], papers: list[Paper]) -> dict[str, Verdict]:
        """A verdict for each paper it could judge (cached or answered); the others are
        left out, for the scan to decide."""
        found: dict[str, dict[str, tuple[bool, str]]] = {}
        asked: list[Paper] = []
        for paper in papers:
            known = {f: self.cache.get(f, paper, self.model) for f in facets}
            if all(v is not None for v in known.values()):
                found[paper.id] = {f: v for f, v in known.items() if v is not None}
            else:
                asked.append(paper)
        for group in _groups(asked, self.batch):
            by_id = {p.id: p for p in group}
            for pid, checks in self._ask(facets, group).items():
                found[pid] = checks
                for facet, (holds, sentence) in checks.items():
                    self.cache.put(facet, by_id[pid], self.model, holds, sentence)
        return {
            pid: Verdict(
                holds=all(checks[f][0] for f in facets),
                sentences={f: checks[f][1] for f in facets if checks[f][0]},
            )
            for pid, checks in found.items()
            if all(f in checks for f in facets)
        }

    def _ask(
        self, facets: list[str], papers: list[Paper]
    ) -> dict[str, dict[str, tuple[bool, str]]]:
        from llama_index.core.prompts import PromptTemplate

        criteria = "\n".join(f"{i}. {facet}" for i, facet in enumerate(facets, start=1))
        listed = "\n\n".join(
            f"Paper {i}: {p.title}\nAbstract: {clean_text(p.abstract)}"
            for i, p in enumerate(papers, start=1)
        )
        try:
            reply = self.llm.structured_predict(
                Screening, PromptTemplate(SCREEN_PROMPT), criteria=criteria, papers=listed
            )
        except Exception as exc:  # the scan decides for these papers instead
            log.info("LLM screening not used (%s: %s)", type(exc).__name__, exc)
            return {}
        return _checked(reply, facets, papers)


def _checked(
    reply: Screening, facets: list[str], papers: list[Paper]
) -> dict[str, dict[str, tuple[bool, str]]]:
    """The reply's verdicts that hold up: known paper and criterion numbers, and a "yes"
    only with a sentence its abstract holds (else it counts as "no")."""
    out: dict[str, dict[str, tuple[bool, str]]] = {}
    for entry in reply.papers:
        if not 1 <= entry.paper <= len(papers):
            continue
        paper = papers[entry.paper - 1]
        abstract = _squashed(f"{paper.title} {paper.abstract}")
        checks: dict[str, tuple[bool, str]] = {}
        for check in entry.checks:
            if not 1 <= check.criterion <= len(facets):
                continue
            sentence = check.sentence.strip()
            shown = bool(sentence) and _squashed(sentence) in abstract
            checks[facets[check.criterion - 1]] = (check.holds and shown, sentence if shown else "")
        if all(f in checks for f in facets):
            out[paper.id] = checks
    return out


def _squashed(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _groups(papers: list[Paper], size: int) -> Iterator[list[Paper]]:
    for start in range(0, len(papers), size):
        yield papers[start : start + size]
