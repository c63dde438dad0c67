"""A glossary of the corpus's research topics: each name, its other names, and a plain-words
definition that does not use the name (`glossary.jsonl`, shipped with the package).

Two uses. A facet of a question is matched by every name of its topic ("explainability"
is also written "interpretability") and, when it is one of several facets that must all
hold, by the names of the topics that are kinds of it (a CLIP paper studies a
vision-language model; `narrower`, curated from the topic list alone). And a question that describes a topic without naming
it is matched against the definitions by sentence embedding: a description is a
paraphrase of a definition far more than of any abstract, so "train a small network to
imitate a big one" finds "knowledge distillation", which the abstracts' own vectors do
not. Only topics the corpus writes are in it (selected mechanically from phrases of
titles and acronym definitions; the definitions were written without the eval questions).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.text import topic_tokens


@dataclass(frozen=True)
class Entry:
    topic: str
    aliases: tuple[str, ...]
    definition: str
    narrower: tuple[str, ...] = ()  # topics that are kinds of this one (CLIP of VLMs)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.topic, *self.aliases)


@cache
def entries() -> tuple[Entry, ...]:
    text = resources.files("rag.sets").joinpath("glossary.jsonl").read_text(encoding="utf-8")
    return tuple(
        Entry(r["topic"], tuple(r["aliases"]), r["definition"], tuple(r.get("narrower", ())))
        for r in map(json.loads, text.splitlines())
        if r
    )


@cache
def _by_name() -> dict[tuple[str, ...], Entry]:
    found: dict[tuple[str, ...], Entry] = {}
    for entry in entries():
        for name in entry.names:
            found.setdefault(tuple(topic_tokens(name)), entry)
    return found


def entry_named(phrase: str) -> Entry | None:
    """The entry one of whose names `phrase` is (case, hyphens and plurals folded)."""
    return _by_name().get(tuple(topic_tokens(phrase)))


def kinds(entry: Entry) -> list[Entry]:
    """The entries that are kinds of `entry`, at any depth ("reinforcement learning" →
    offline RL, RLHF, …; "generative models" → diffusion models → consistency models)."""
    found: dict[str, Entry] = {}
    waiting = list(entry.narrower)
    while waiting:
        narrower = entry_named(waiting.pop())
        if narrower is not None and narrower.topic not in found and narrower is not entry:
            found[narrower.topic] = narrower
            waiting += narrower.narrower
    return list(found.values())


class Definitions:
    """The definitions' vectors, embedded once, matched against a description."""

    def __init__(self, embed_model: BaseEmbedding) -> None:
        self.entries = entries()
        texts = [e.definition for e in self.entries]
        vectors = np.asarray(embed_model.get_text_embedding_batch(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = vectors / np.clip(norms, 1e-12, None)
        self.embed_model = embed_model

    def closest(self, description: str, limit: int) -> list[tuple[Entry, float]]:
        """The entries whose definitions are nearest the description, nearest first."""
        query = np.asarray(self.embed_model.get_query_embedding(description), dtype=np.float32)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        similarity = self.vectors @ query
        order = np.argsort(-similarity)[:limit]
        return [(self.entries[int(i)], float(similarity[i])) for i in order]
