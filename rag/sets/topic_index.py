"""The corpus as the topic scan reads it: each paper's title and abstract as folded words
and phrases, which papers hold each word, and the ways a phrase is written (variants of
its words, acronyms the abstracts define, its words near each other). Built once per
store state from the catalogue and the chunk vectors (`Pipeline.topics`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

import numpy as np

from rag.text import STOPWORDS, stem, topic_tokens
from rag.types import Paper

NEAR = 3  # words a facet's phrase may spread over beyond its own length
PREFIX = 7  # words sharing this many first letters are one word's variants ("molecul…")
SMALL = STOPWORDS | {"the", "of", "and", "or", "a", "an", "for", "in", "on", "to", "with", "by",
                      "from", "via", "is", "are", "we", "our", "this", "that", "as", "at", "be"}  # fmt: skip


def _ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def _phrases(words: list[str]) -> set[tuple[str, ...]]:
    return {
        g for n in (1, 2, 3) for g in _ngrams(words, n) if g[0] not in SMALL and g[-1] not in SMALL
    }


class TopicIndex:
    """What the scan reads, built once per store state from the catalogue and chunk vectors."""

    def __init__(
        self, papers: Mapping[str, Paper], chunk_vectors: np.ndarray, chunk_papers: list[str]
    ) -> None:
        self.ids = sorted(papers)
        self.papers = papers
        position = {pid: i for i, pid in enumerate(self.ids)}
        self.chunk_rows = np.array([position.get(p, -1) for p in chunk_papers], dtype=np.int64)
        keep = self.chunk_rows >= 0
        self.chunk_rows, self.chunks = self.chunk_rows[keep], chunk_vectors[keep]
        means = np.zeros((len(self.ids), chunk_vectors.shape[1] if chunk_vectors.size else 1))
        np.add.at(means, self.chunk_rows, self.chunks)
        norms = np.linalg.norm(means, axis=1, keepdims=True)
        self.means = means / np.clip(norms, 1e-12, None)
        # One pass over the records (a file-backed catalogue streams them in one query).
        texts = {p.id: (p.title, p.abstract) for p in papers.values()}
        self.titles = [topic_tokens(texts[p][0]) for p in self.ids]
        self.docs = [
            [*t, "|", *topic_tokens(texts[p][1])]
            for t, p in zip(self.titles, self.ids, strict=True)
        ]
        self.doc_phrases = [_phrases(d) for d in self.docs]
        self.df: Counter[tuple[str, ...]] = Counter()
        for phrases in self.doc_phrases:
            self.df.update(phrases)

        # word → the papers whose title or abstract has it: a phrase is counted only in
        # the papers that have all its words (a few dozen), not in every abstract.
        self.word_papers: dict[str, set[int]] = {}
        for i, words in enumerate(self.docs):
            for word in set(words):
                self.word_papers.setdefault(word, set()).add(i)
        self._stems: dict[str, frozenset[str]] | None = None
        self._acronyms: dict[str, set[tuple[str, ...]]] | None = None

    def _texts(self) -> list[tuple[str, str]]:
        return [(self.papers[p].title, self.papers[p].abstract) for p in self.ids]

    def support(self, phrase: str) -> int:
        """Papers whose title or abstract writes `phrase` (case, hyphens and plurals folded)."""
        words = tuple(topic_tokens(phrase))
        if not words or any(w not in self.word_papers for w in words):
            return 0
        return int(np.count_nonzero(self.count(words)[0]))

    def variants(self, word: str) -> frozenset[str]:
        """The corpus's words sharing `word`'s stem or its first `PREFIX` letters
        ("robotics" → robot, robotic, robots; "molecules" → molecular)."""
        if self._stems is None:
            stems: dict[str, set[str]] = {}
            for w in self.word_papers:
                stems.setdefault(stem(w), set()).add(w)
                if len(w) > PREFIX:
                    stems.setdefault(w[:PREFIX] + "…", set()).add(w)
            self._stems = {k: frozenset(v) for k, v in stems.items()}
        found = self._stems.get(stem(word), frozenset()) | {word}
        if len(word) > PREFIX:
            found |= self._stems.get(word[:PREFIX] + "…", frozenset())
        return found

    def acronyms(self) -> dict[str, set[tuple[str, ...]]]:
        """Acronyms the abstracts define, with their long forms: "gnn" → graph neural network."""
        if self._acronyms is None:
            found: dict[str, set[tuple[str, ...]]] = {}
            for title, abstract in self._texts():
                text = f"{title}. {abstract}"
                for match in _DEFINED.finditer(text):
                    key = match.group(1).lower().replace("-", "")
                    form = _long_form(
                        key, topic_tokens(text[max(0, match.start() - 80) : match.start()])
                    )
                    if form is not None:
                        found.setdefault(stem(key), set()).add(form)
            self._acronyms = found
        return self._acronyms

    def phrase_presence(self, phrase: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Per paper, occurrences of `phrase` with each word free to be any variant of its
        stem, and whether the title has it (the facet check: "robots" for "robotics")."""
        return self._occurrences([self.variants(w) for w in phrase])

    def _occurrences(self, slots: list[frozenset[str]]) -> tuple[np.ndarray, np.ndarray]:
        in_doc = np.zeros(len(self.ids))
        in_title = np.zeros(len(self.ids))
        candidates = set.intersection(
            *(set().union(*(self.word_papers.get(v, set()) for v in slot)) for slot in slots)
        )
        for i in candidates:
            in_doc[i] = occurrences(self.docs[i], slots)
            in_title[i] = occurrences(self.titles[i], slots) > 0
        return in_doc, in_title

    def near_presence(self, phrase: tuple[str, ...]) -> np.ndarray:
        """Per paper, whether every word of `phrase` (any variant, any order) occurs within
        a window of NEAR more words than the phrase: "robustness against graph injection
        attacks" for "robustness to attacks", "neural networks on graphs"."""
        content = [w for w in phrase if w not in SMALL] or list(phrase)
        slots = [self.variants(w) for w in content]
        found = np.zeros(len(self.ids))
        candidates = set.intersection(
            *(set().union(*(self.word_papers.get(v, set()) for v in slot)) for slot in slots)
        )
        width = len(phrase) + NEAR
        for i in candidates:
            words = self.docs[i]
            places = [[k for k, w in enumerate(words) if w in slot] for slot in slots]
            found[i] = float(_within(places, width))
        return found

    def count(self, phrase: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Occurrences of `phrase` per paper (title and abstract), and whether the title has it."""
        return self._occurrences([frozenset([w]) for w in phrase])


# "graph neural networks (GNNs)": a long form right before its acronym in brackets.
_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9-]*[A-Z][a-z]?s?)\)")


def _within(places: list[list[int]], width: int) -> bool:
    """Whether one window of `width` positions holds a position from every list."""
    for anchor in places[0]:
        for start in range(anchor - width + 1, anchor + 1):
            if all(any(start <= k < start + width for k in spots) for spots in places):
                return True
    return False


def occurrences(words: list[str], slots: list[frozenset[str]]) -> int:
    """How often `words` has the phrase whose word slots are `slots` (each a variant set)."""
    n, first = len(slots), slots[0]
    return sum(
        1
        for k in range(len(words) - n + 1)
        if words[k] in first and all(words[k + j] in slots[j] for j in range(1, n))
    )


def _long_form(acronym: str, words: list[str]) -> tuple[str, ...] | None:
    """The last words of `words` whose initials spell the acronym ("llms": large language
    model), or None."""
    for letters in dict.fromkeys([acronym, acronym[:-1] if acronym.endswith("s") else ""]):
        size = len(letters)
        if 2 <= size <= len(words) and "".join(w[0] for w in words[-size:]) == letters:
            return tuple(words[-size:])
    return None
