"""How many papers use a word: the counts behind idf weights, rare names and the words no
abstract writes."""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Callable, Mapping

from rag.catalogue.terms import paper_words
from rag.text import content_terms
from rag.types import Paper


class TermStats:
    """Inverse document frequencies over the catalogue's titles and abstracts: `paper_count`
    says how many of the `n_docs` papers use a (stemmed) word. The pipeline's reads the
    counts kept in the store's index file (rag.catalogue.terms); `counted` counts papers
    in memory."""

    def __init__(
        self,
        paper_count: Callable[[str], int],
        n_docs: int,
        prefixed: Callable[[str], bool] | None = None,
        named: Callable[[str], bool] | None = None,
        name_count: Callable[[str], int] | None = None,
    ) -> None:
        self.paper_count = paper_count
        self.n_docs = max(1, n_docs)
        self.prefixed = prefixed or (lambda stem: False)  # whether a counted word starts so
        self.named = named or (lambda word: False)  # an author or institution of the catalogue
        # papers writing a whole name ("VLM-CaR": 1, though "VLM" and "car" are common)
        self.name_count = name_count or self.doc_freq

    @classmethod
    def counted(cls, papers: Mapping[str, Paper]) -> TermStats:
        df: Counter[str] = Counter()
        for paper in papers.values():
            df.update(paper_words(paper))
        ordered = sorted(df)

        def prefixed(stem: str) -> bool:
            at = bisect.bisect_left(ordered, stem)
            return at < len(ordered) and ordered[at].startswith(stem)

        return cls(lambda term: df.get(term, 0), len(papers), prefixed)

    def doc_freq(self, text: str) -> int:
        """How many papers use the word(s) of `text`: the most used one's count."""
        return max((self._count(t) for t in content_terms(text)), default=0)

    def _count(self, term: str) -> int:
        # The counts are read per word from the live index file, n_docs when the pipeline
        # was built: an ingest in between can put a count past it until the next reload.
        return min(self.paper_count(term), self.n_docs)

    def idf(self, term: str) -> float:
        df = self._count(term)
        return math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))
