"""Topic sets: which papers are about a topic, scored over the whole catalogue.

Every paper gets features from its chunks' vectors (the best chunk's cosine to the topic,
and its mean vector's cosine to the centroid of the ten best-scoring papers: pseudo-
relevance feedback), from the topic's own phrases (how often they occur, whether the title
has them) and from the vocabulary those ten papers share (the topic's own words when the
question describes it: "clients", "federated" for "hospitals train one model without
pooling data"). A logistic model over them, fitted on the dev set questions
(`python -m eval calibrate-sets`), gives each paper a membership probability; members are
the papers at or above `MEMBER`, "clearly" those at or above `CLEAR`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.embedding.lru import LRUCache
from rag.text import STOPWORDS, split_sentences
from rag.types import Paper

FEATURES = ("dense", "dense_rel", "phrase_tf", "phrase_title", "centroid", "centroid_rel",
            "vocab_tf", "vocab_title", "vocab_cover")  # fmt: skip
# Fitted by `python -m eval calibrate-sets` on eval/datasets/sets_dev.jsonl.
WEIGHTS = (7.48, 0.58, 1.12, 0.27, 3.3, 0.28, 0.92, 0.78, 3.29)
BIAS = -9.11
MEMBER = 0.15  # the threshold with the best mean F1, leave-one-question-out on dev
CLEAR = 0.5
SEEDS = 10
VOCABULARY = 8
_SMALL = STOPWORDS | {"the", "of", "and", "or", "a", "an", "for", "in", "on", "to", "with", "by",
                      "from", "via", "is", "are", "we", "our", "this", "that", "as", "at", "be"}  # fmt: skip


def tokens(text: str) -> list[str]:
    """Lower case, hyphens as spaces, plural -s dropped: "Graph-Transformers" → graph transformer."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("-", " "))
    return [w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def _ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def _phrases(words: list[str]) -> set[tuple[str, ...]]:
    return {
        g
        for n in (1, 2, 3)
        for g in _ngrams(words, n)
        if g[0] not in _SMALL and g[-1] not in _SMALL
    }


@dataclass
class Member:
    paper: Paper
    probability: float
    why: str


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
        self.titles = [tokens(texts[p][0]) for p in self.ids]
        self.docs = [
            [*t, "|", *tokens(texts[p][1])] for t, p in zip(self.titles, self.ids, strict=True)
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

    def count(self, phrase: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Occurrences of `phrase` per paper (title and abstract), and whether the title has it."""
        in_doc = np.zeros(len(self.ids))
        in_title = np.zeros(len(self.ids))
        candidates = set.intersection(*(self.word_papers.get(w, set()) for w in phrase))
        n = len(phrase)
        for i in candidates:
            in_doc[i] = sum(1 for g in _ngrams(self.docs[i], n) if g == phrase)
            in_title[i] = any(g == phrase for g in _ngrams(self.titles[i], n))
        return in_doc, in_title


class TopicScanner:
    def __init__(self, index: TopicIndex, embed_model: BaseEmbedding) -> None:
        self.index = index
        self.embed_model = embed_model
        self._recent: LRUCache[str, np.ndarray] = LRUCache(64)  # a follow-up rescans nothing

    def clear_cache(self) -> None:
        """Forget the recent topics' features (a benchmark times every scan cold)."""
        self._recent.clear()

    def features(self, topic: str) -> np.ndarray:
        """One row per catalogue paper (in `index.ids` order), one column per FEATURES."""
        return self._recent.get_or_compute(topic, self._features)

    def _features(self, topic: str) -> np.ndarray:
        ix = self.index
        query = np.asarray(self.embed_model.get_query_embedding(topic), dtype=np.float32)
        dense = np.full(len(ix.ids), -1.0)
        if len(ix.chunks):
            np.maximum.at(dense, ix.chunk_rows, ix.chunks @ query)
        phrase_tf, phrase_title = self._phrase_features(_alternatives(topic))
        first = 0.5 * dense + 0.3 * phrase_tf + 0.2 * phrase_title
        seeds = np.argsort(-first)[:SEEDS]
        centroid = ix.means[seeds].mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
        near = ix.means @ centroid
        vocabulary, weights = self._vocabulary(seeds)
        vocab_tf, vocab_title = self._phrase_features(vocabulary, weights)
        cover = np.zeros(len(ix.ids))
        for phrase, weight in zip(vocabulary, weights, strict=True):
            cover += weight * np.array([phrase in p for p in ix.doc_phrases], dtype=float)
        cover /= sum(weights) or 1.0
        return np.stack(
            [dense, dense - dense.max(), phrase_tf, phrase_title, near, near - near.max(),
             vocab_tf, vocab_title, cover], axis=1
        )  # fmt: skip

    def _phrase_features(
        self, phrases: list[tuple[str, ...]], weights: list[float] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        tf = np.zeros(len(self.index.ids))
        title = np.zeros(len(self.index.ids))
        for k, phrase in enumerate(phrases):
            weight = 1.0 if weights is None else weights[k]
            in_doc, in_title = self.index.count(phrase)
            tf = np.maximum(tf, weight * np.minimum(in_doc, 4) / 4)
            title = np.maximum(title, weight * in_title)
        return tf, title

    def _vocabulary(self, seeds: np.ndarray) -> tuple[list[tuple[str, ...]], list[float]]:
        """Phrases most of the seed papers share and the rest of the catalogue rarely has."""
        shared: Counter[tuple[str, ...]] = Counter()
        for i in seeds:
            shared.update(self.index.doc_phrases[int(i)])
        total = len(self.index.ids)
        scored = sorted(
            (
                (count / len(seeds)) * math.log(total / self.index.df[phrase]),
                phrase,
            )
            for phrase, count in shared.items()
            if count >= 3
        )[::-1]
        chosen = list(islice(scored, VOCABULARY))
        top = chosen[0][0] if chosen else 1.0
        return [p for _, p in chosen], [s / top for s, _ in chosen]

    def unknown_words(self, topic: str) -> list[str]:
        """The topic's words that no title or abstract holds ("wildfires", "haiku"): a topic
        the conference does not cover, however close its neighbours score."""
        return [
            w
            for w in dict.fromkeys(tokens(topic))
            if w not in _SMALL
            and len(w) > 2
            and not w.isdigit()
            and w not in self.index.word_papers
        ]

    def members(self, topic: str, allowed: set[str] | None = None) -> list[Member]:
        """Papers at or above MEMBER probability, most probable first, each with why."""
        x = self.features(topic)
        probability = 1.0 / (1.0 + np.exp(-(x @ np.asarray(WEIGHTS) + BIAS)))
        order = np.argsort(-probability)
        out = []
        words = set(tokens(topic)) - _SMALL
        for i in order:
            if probability[i] < MEMBER:
                break
            pid = self.index.ids[int(i)]  # checked before its record is read
            if allowed is not None and pid not in allowed:
                continue
            paper = self.index.papers[pid]
            out.append(Member(paper, float(probability[i]), sentence_sharing(paper, words)))
        return out


def _alternatives(topic: str) -> list[tuple[str, ...]]:
    """The topic's phrases: "imitation learning or inverse RL" → two alternatives."""
    out = []
    for part in re.split(r",|\bor\b|\band\b|\(|\)|;", topic):
        words = tokens(part)
        while words and words[0] in _SMALL:
            words = words[1:]
        while words and words[-1] in _SMALL:
            words = words[:-1]
        if words and len(words) <= 4:
            out.append(tuple(words))
    return out


def sentence_sharing(paper: Paper, words: set[str]) -> str:
    """The abstract sentence sharing the most of `words` (the first on ties)."""
    sentences = split_sentences(paper.abstract) or [paper.abstract]
    return max(sentences, key=lambda s: len(words & set(tokens(s))))
