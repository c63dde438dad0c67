"""Topic sets: every paper of the catalogue scored against a topic (or one facet of it).

Every paper gets features from its chunks' vectors (the best chunk's cosine to the topic,
and its mean vector's cosine to the centroid of the ten best-scoring papers: pseudo-
relevance feedback), from the topic's own phrases (how often they occur, whether the title
has them) and from the vocabulary those ten papers share (the topic's own words when the
question describes it: "clients", "federated" for "hospitals train one model without
pooling data"); a facet adds whether the paper writes it at all, in any of its names
(variants, acronyms, the glossary's other names; nearby words), and its match to the
glossary's definition. A logistic model over them, fitted on the dev set questions
(`python -m eval calibrate-sets`), gives each paper a membership probability
(rag.sets.judgement); members are the papers at or above `MEMBER`, "clearly" those at or
above `CLEAR`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import islice

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.embedding.lru import LRUCache
from rag.embedding.vocabulary import whole_words
from rag.sets.facets import GENERIC_SHARE, phrase_support
from rag.sets.glossary import entry_named
from rag.sets.glossary import kinds as kinds_of
from rag.sets.topic_index import SMALL, TopicIndex, occurrences
from rag.text import edits_within_one, neighbour_swaps, split_sentences, stem, topic_tokens
from rag.types import Paper

FACET_FEATURES = ("literal", "literal_title", "word_cover", "written", "defined", "near")
FEATURES = ("dense", "dense_rel", "phrase_tf", "phrase_title", "centroid", "centroid_rel",
            "vocab_tf", "vocab_title", "vocab_cover")  # fmt: skip
# The one-facet membership model on FEATURES + FACET_FEATURES; fitted by
# `python -m eval calibrate-sets` on eval/datasets/sets_dev.jsonl (MEMBER: best mean F1,
# CLEAR: best share of counts within 25 %, leave one question out).
WEIGHTS = (2.736, 2.176, -3.375, -0.127, 1.859, 1.658, 0.893, 0.796, 3.394, 0.568, 0.733, 3.214,
           1.953, 3.124, 0.62)  # fmt: skip
BIAS = -8.383
MEMBER = 0.3
CLEAR = 0.6
SEEDS = 10
SPELLED_SHARE = 2  # an acronym is judged by its long form unless twice as many write the letters
BROADER = 3  # a facet's own word this many times as widely written names something broader
SEED_SHARE = 0.05  # seeds past this share of a small catalogue are the catalogue, not a topic
VOCABULARY = 8
SHARED_HEAD = 3
SHARED_SHARE = 0.1  # of the one word's abstracts, that write it with the shared head


class TopicScanner:
    def __init__(self, index: TopicIndex, embed_model: BaseEmbedding) -> None:
        self.index = index
        self.embed_model = embed_model
        self._recent: LRUCache[str, np.ndarray] = LRUCache(64)  # a follow-up rescans nothing
        self._facets: LRUCache[str, np.ndarray] = LRUCache(64)
        self._parts: LRUCache[tuple[str, ...], np.ndarray] = LRUCache(64)  # facets among several
        self._forms: LRUCache[tuple[str, bool], list[tuple[str, ...]]] = LRUCache(256)

    def clear_cache(self) -> None:
        """Forget the recent topics' features (a benchmark times every scan cold)."""
        self._recent.clear()
        self._facets.clear()
        self._parts.clear()
        self._forms.clear()

    def features(self, topic: str) -> np.ndarray:
        """One row per catalogue paper (in `index.ids` order), one column per FEATURES."""
        return self._recent.get_or_compute(self.spelled_out(topic), self._features)

    def spelled_out(self, topic: str) -> str:
        """ "LLMs" as "large language models": an acronym alone, judged by the one long form
        the abstracts define for it (its vector and phrases say far more than the letters)."""
        words = topic_tokens(topic)
        if len(words) != 1 or len(re.findall(r"[A-Z]", topic)) < 2:
            return topic
        longs = self.index.acronyms().get(stem(words[0]), set())
        if len(longs) != 1:
            return topic
        form = next(iter(longs))
        written = np.count_nonzero(self.index.count(form)[0])
        if SPELLED_SHARE * written < np.count_nonzero(self.index.count(tuple(words))[0]):
            return topic  # "PPO": far more abstracts write the letters than the long form
        long = " ".join(form)
        return f"{long}s" if topic.rstrip().endswith("s") and not long.endswith("s") else long

    def _features(
        self,
        topic: str,
        own: frozenset[str] = frozenset(),
        written: int = 0,
        alien: frozenset[str] = frozenset(),
    ) -> np.ndarray:
        """`own`, `written`: the shared vocabulary leaves out phrases made of these words
        that far more abstracts write than the `written` that write the topic ("graph"
        says nothing of "large graphs"; "federated" does of "federated learning")."""
        ix = self.index
        dense = self._dense(topic)
        phrase_tf, phrase_title = self._phrase_features(_alternatives(topic))
        first = 0.5 * dense + 0.3 * phrase_tf + 0.2 * phrase_title
        seeds = np.argsort(-first)[: min(SEEDS, max(1, int(SEED_SHARE * len(ix.ids))))]
        centroid = ix.means[seeds].mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
        near = ix.means @ centroid
        vocabulary, weights = self._vocabulary(seeds, own, written, alien)
        vocab_tf, vocab_title = self._phrase_features(vocabulary, weights)
        cover = np.zeros(len(ix.ids))
        for phrase, weight in zip(vocabulary, weights, strict=True):
            cover += weight * np.array([phrase in p for p in ix.doc_phrases], dtype=float)
        cover /= sum(weights) or 1.0
        return np.stack(
            [dense, dense - dense.max(), phrase_tf, phrase_title, near, near - near.max(),
             vocab_tf, vocab_title, cover], axis=1
        )  # fmt: skip

    def facet_features(
        self, facet: str, part: bool = False, others: tuple[str, ...] = ()
    ) -> np.ndarray:
        """`features(facet)` and FACET_FEATURES: whether each paper writes the facet at all
        (a facet must be present in a paper, not be its main topic). `part`: the facet is
        one of several (`others`), so a paper writing a kind of it has it too."""
        if part:
            return self._parts.get_or_compute((facet, *others), self._part_features)
        return self._facets.get_or_compute(facet, self._facet_features)

    def _part_features(self, key: tuple[str, ...]) -> np.ndarray:
        return self._facet_features(key[0], kinds=True, others=key[1:])

    def _facet_features(
        self, facet: str, kinds: bool = False, others: tuple[str, ...] = ()
    ) -> np.ndarray:
        ix = self.index
        facet = self.spelled_out(facet)
        literal = np.zeros(len(ix.ids))
        title = np.zeros(len(ix.ids))
        forms = self.forms(facet, kinds)
        for form in forms:
            in_doc, in_title = ix.phrase_presence(form)
            literal = np.maximum(literal, np.minimum(in_doc, 4) / 4)
            title = np.maximum(title, in_title)
        written = (literal > 0).astype(float)  # one mention can make a facet present
        near = np.zeros(len(ix.ids))
        for form in forms:
            near = np.maximum(near, ix.near_presence(form))
        # the facet's words, weighted by rarity: "graph" says more than "neural network"
        cover = np.zeros(len(ix.ids))
        weights = {}
        for word in dict.fromkeys(topic_tokens(facet)):
            if word in SMALL:
                continue
            holding = set().union(*(ix.word_papers.get(v, set()) for v in ix.variants(word)))
            weights[word] = (holding, math.log(len(ix.ids) / max(1, len(holding))))
        total = sum(w for _, w in weights.values()) or 1.0
        for holding, weight in weights.values():
            cover[list(holding)] += weight / total
        # matched by what it means too: the glossary's plain-words definition of its topic
        entry = next(filter(None, (entry_named(" ".join(f)) for f in _alternatives(facet))), None)
        defined = self._dense(entry.definition) if entry is not None else self._dense(facet)
        extra = np.stack([literal, title, cover, written, defined, near], axis=1)
        if not kinds:
            return np.hstack([self.features(facet), extra])
        own = frozenset().union(*(ix.variants(w) for w in topic_tokens(facet) if w not in SMALL))
        written_whole = phrase_support(facet, ix.support)  # any one alternative's abstracts
        alien = self._words_of(others) - own
        return np.hstack([self._features(facet, own, written_whole, alien), extra])

    def _words_of(self, facets: tuple[str, ...]) -> frozenset[str]:
        """Every form of every word the facets are written with, their kinds' names included
        (the wider set measured better; docs/decisions.md)."""
        ix = self.index
        return frozenset(
            v for f in facets for form in self.forms(f, True) for w in form if w not in SMALL
            for v in ix.variants(w)
        )  # fmt: skip

    def _dense(self, text: str) -> np.ndarray:
        """Each paper's best chunk cosine to `text`."""
        ix = self.index
        query = np.asarray(self.embed_model.get_query_embedding(text), dtype=np.float32)
        dense = np.full(len(ix.ids), -1.0)
        if len(ix.chunks):
            np.maximum.at(dense, ix.chunk_rows, ix.chunks @ query)
        return dense

    def together(self, facets: list[str]) -> np.ndarray:
        """1 for the papers with a sentence (or title) that writes every facet: "adversarial
        attacks on graph neural networks" in one sentence, not in two parts of the abstract."""
        ix = self.index
        slots = [[[ix.variants(w) for w in form] for form in self.forms(f, True)] for f in facets]
        written = np.ones(len(ix.ids), dtype=bool)
        for facet in facets:
            others = tuple(o for o in facets if o != facet)  # the features judge() computed
            written &= self.facet_features(facet, True, others)[:, -1] > 0
        out = np.zeros(len(ix.ids))
        for i in np.flatnonzero(written):
            paper = ix.papers[ix.ids[int(i)]]
            for sentence in [paper.title, *split_sentences(paper.abstract)]:
                words = topic_tokens(sentence)
                if all(any(occurrences(words, form) for form in forms) for forms in slots):
                    out[i] = 1.0
                    break
        return out

    def forms(self, facet: str, kinds: bool = False) -> list[tuple[str, ...]]:
        """The ways abstracts write a facet: its alternatives, the other names of its topic
        (rag.sets.glossary) and, with `kinds`, of the topics that are kinds of it, and an
        acronym for its long form or the long forms of an acronym ("GNNs" ↔ graph neural
        networks)."""
        return list(self._forms.get_or_compute((facet, kinds), self._written_forms))

    def _written_forms(self, key: tuple[str, bool]) -> list[tuple[str, ...]]:
        facet, kinds = key
        acronyms = self.index.acronyms()
        found = self._shared_head(list(dict.fromkeys(_alternatives(facet))))
        # "large language model outputs" is written "large language model(s)"
        found += [
            f[:-1]
            for f in found
            if len(f) > 1
            and f[-1] in _DROPPED_HEADS
            and f[:-1] not in _TOO_GENERAL
            # "mixture-of-experts architectures", not "deep" or "efficient architectures"
            and (f[-1] not in _NAMED_HEADS or entry_named(" ".join(f[:-1])) is not None)
        ]
        for form in list(found):  # every name of its topic: "explainability", "interpretability"
            entry = entry_named(" ".join(form))
            if entry is None:
                continue
            for named in [entry, *(kinds_of(entry) if kinds else [])]:
                found += [tuple(topic_tokens(name)) for name in named.names]
        for form in list(found):
            if len(form) == 1:
                found += sorted(acronyms.get(stem(form[0]), ()))
            found += [(a,) for a, longs in acronyms.items() if form in longs]
        return list(dict.fromkeys(found))

    def _shared_head(self, alternatives: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        """ "out-of-distribution or anomaly detection": a one-word alternative takes the last
        one's head noun when abstracts write them together (SHARED_HEAD times or more),
        unless it names a topic itself ("LLMs or vision models")."""
        last = alternatives[-1] if alternatives else ()
        if len(alternatives) < 2 or len(last) < 2:
            return alternatives
        out = []
        for form in alternatives[:-1]:
            headed = (*form, last[-1])
            one_word = len([w for w in form if w not in SMALL]) == 1
            one_word = one_word and entry_named(" ".join(form)) is None
            together = np.count_nonzero(self.index.count(headed)[0]) if one_word else 0
            alone = np.count_nonzero(self.index.count(form)[0]) if one_word else 0
            # "diffusion models" is how "diffusion" is mostly meant, "graph models" not how
            # "graphs" is; "model" alone (in most abstracts) means nothing: "model editing"
            generic = one_word and alone > GENERIC_SHARE * len(self.index.ids)
            supported = together >= SHARED_HEAD and (generic or together >= SHARED_SHARE * alone)
            out.append(headed if supported else form)
        return [*out, last]

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

    def _vocabulary(
        self,
        seeds: np.ndarray,
        own: frozenset[str] = frozenset(),
        written: int = 0,
        alien: frozenset[str] = frozenset(),
    ) -> tuple[list[tuple[str, ...]], list[float]]:
        """Phrases most of the seed papers share and the rest of the catalogue rarely has
        (none made only of `own` words and BROADER times as widely written, none with an
        `alien` word: another facet's words are not this one's evidence)."""
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
            and not alien.intersection(phrase)
            and not (set(phrase) <= own and self.index.df[phrase] > BROADER * max(1, written))
        )[::-1]
        chosen = list(islice(scored, VOCABULARY))
        top = chosen[0][0] if chosen else 1.0
        return [p for _, p in chosen], [s / top for s, _ in chosen]

    def unknown_words(self, topic: str, exact: bool = False) -> list[str]:
        """The topic's words that no title or abstract holds in any form ("wildfires",
        "haiku"): a topic the conference does not cover, however close its neighbours
        score. Words of an example the question gives ("say, who is the CEO") and other
        forms of a word the corpus has ("rotated" for "rotation") do not count, unless
        `exact`: then any word no title or abstract writes as typed."""
        said = _EXAMPLE.sub(" ", topic)
        ix = self.index
        return [
            w
            for w in dict.fromkeys(topic_tokens(said))
            if w not in SMALL
            and len(w) > 2
            and not w.isdigit()
            and not any(v in ix.word_papers for v in ([w] if exact else ix.variants(w)))
        ]

    def spelled(self, word: str) -> str:
        """The corpus's word a topic word no abstract holds is a misspelling of ("protien":
        protein): one letter changed, added, dropped or two swapped, the commonest such
        word, written in SPELLED_PAPERS papers or more; "" when none or when it is short."""
        if len(word) < SPELLED_LENGTH or word.lower().rstrip("s") in _CONFERENCE_WORDS:
            return ""
        if any(c.isdigit() for c in word):
            return ""  # "Mamba2", "Llama3": a version, not a slip
        ix = self.index
        # two letters swapped is a slip ("protien"); one changed, added or dropped only in a
        # long word ("reinforcment"), as short ones are often other real words ("parking")
        close = neighbour_swaps(word)
        if len(word) >= SPELLED_EDIT_LENGTH:
            close |= {
                w
                for w in ix.word_papers
                if abs(len(w) - len(word)) <= 1 and edits_within_one(w, word)
            }
        close = {w for w in close if w[:1] == word[:1]}  # a slip inside a word, not its start
        counts = sorted(((len(ix.word_papers.get(w, ())), w) for w in close), reverse=True)
        return counts[0][1] if counts and counts[0][0] >= SPELLED_PAPERS else ""

    def respelled(self, text: str) -> dict[str, str]:
        """The lower-case words of a question no title or abstract writes that are slips of a
        corpus word ("reinforcment lerning from human feedbak"), each with its reading; a
        plural for a singular ("colleague") is no slip."""
        fixes = {}
        english = whole_words()
        for typed in dict.fromkeys(re.findall(r"(?<![\w'’-])[A-Za-z][a-z]{4,}(?![\w'’-])", text)):
            word = typed.lower()
            if typed != word:  # "Bayesain": a capital's word only with two letters swapped
                right = self.slip(word, swapped_only=True)
                if right and self.unknown_words(word, exact=True) and self._common(right):
                    fixes[typed] = right.capitalize()
                continue
            if not self.unknown_words(word, exact=True) or word in english:
                continue  # "printing", "farming": English the abstracts do not use, no slip
            if self.index.word_papers.get(_american(word)):
                continue  # "quantise", "visualisation": the corpus writes it the US way
            candidates = [self.spelled(word), self._letter_dropped(word)]
            if word.endswith("s"):  # "molecuels": the corpus counts "molecule"
                one = [self.spelled(word[:-1]), self._letter_dropped(word[:-1])]
                candidates += [f"{w}s" for w in one if w]
            right = next((w for w in candidates if w and _a_slip(word, w) and self._common(w)), "")
            if right:
                fixes[word] = right
        return fixes

    def slip(self, word: str, swapped_only: bool = False) -> str:
        """The corpus word a topic word no abstract writes is a slip of: a letter changed,
        added or swapped (`spelled`), or one left out of a shorter word ("lerning");
        `swapped_only`: only two letters swapped ("Bayesain"), for a name typed with a
        capital. "" when none."""
        if swapped_only:
            right = self.spelled(word)
            return right if right and sorted(right) == sorted(word) else ""
        return self.spelled(word) or self._letter_dropped(word)

    def americanised(self, topic: str) -> dict[str, str]:
        """The topic's words the abstracts mostly spell the US way ("optimisation":
        optimization), each with that spelling. `_american` rewrites letters blindly ("our"
        → "or"); only the counts (a common US word, far more used) make its guess safe."""
        ix = self.index
        fixes = {}
        for word in dict.fromkeys(re.findall(r"(?<![\w-])[a-z]{5,}(?![\w-])", topic.lower())):
            us = _american(word)
            typed, written = len(ix.word_papers.get(word, ())), len(ix.word_papers.get(us, ()))
            if us != word and written >= SPELLED_COMMON and written >= US_SHARE * typed:
                fixes[word] = us
        return fixes

    def _common(self, word: str) -> bool:
        """A correction many abstracts write ("learning"), not a rarity ("slicing")."""
        ix = self.index
        return any(
            len(ix.word_papers.get(w, ())) >= SPELLED_COMMON for w in (word, word.rstrip("s"))
        )

    def _letter_dropped(self, word: str) -> str:
        """A word of six or seven letters with one letter left out ("lerning", "feedbak"):
        the one corpus word it is, written in SPELLED_COMMON papers or more; not a letter
        changed ("marking" is no "masking")."""
        if not DROPPED_LENGTH <= len(word) < SPELLED_EDIT_LENGTH:
            return ""
        ix = self.index
        close = [
            w
            for w in ix.word_papers
            if len(w) == len(word) + 1
            and w[:1] == word[:1]
            and edits_within_one(w, word)
            and len(ix.word_papers[w]) >= SPELLED_COMMON
        ]
        return close[0] if len(close) == 1 else ""


def _american(word: str) -> str:
    """ "quantise" → "quantize", "neighbouring" → "neighboring", "modelled" → "modeled"."""
    return word.replace("is", "iz").replace("ys", "yz").replace("our", "or").replace("ll", "l")


def _a_slip(typed: str, word: str) -> bool:
    """Two letters swapped ("protien") or one left out ("lerning"): how fast typing slips; a
    letter changed or added ("printing" → "pointing") is as often another word."""
    if typed.rstrip("s") == word.rstrip("s") or _american(typed) == word:
        return False
    if len(word) == len(typed) + 1:
        return True
    return len(word) == len(typed) and sorted(word) == sorted(typed)


SPELLED_LENGTH = 5  # shorter words are too easily another word
DROPPED_LENGTH = 6  # a letter left out of a shorter word leaves another word too often
SPELLED_COMMON = 20  # a short word's correction is a word many abstracts write
US_SHARE = 5  # a British spelling read the US way where the abstracts write that this much more
SPELLED_EDIT_LENGTH = 8  # shorter words one letter from a corpus word are often real words
# the conference's own words, which no abstract needs to write ("poster" is no "foster")
_CONFERENCE_WORDS = frozenset(
    {"poster", "oral", "spotlight", "icml", "neurips", "iclr", "workshop"}
)
SPELLED_PAPERS = 3  # a correction is a word the corpus uses, not another rarity


# An example inside a question: in brackets, or after "e.g.", "for example", "such as", "say".
_EXAMPLE = re.compile(
    r"\([^()]*\)|\b(?:e\.g\.|for example|for instance|such as|say),?[^,;.]*", re.I
)


# Heads a facet is also written without ("quantization methods"); not "model" ("language").
_DROPPED_HEADS = frozenset(
    {"method", "approach", "technique", "algorithm", "framework", "output", "scheme", "strategy",
     "objective", "loss", "architecture"}
)  # fmt: skip
# heads dropped only where what is left is a glossary topic
_NAMED_HEADS = frozenset({"architecture"})


# What is left of "training loss" or "learning objective" names no topic
_TOO_GENERAL = frozenset(
    (w,) for w in ("training", "learning", "test", "total", "overall", "final", "new", "model")
)


def _alternatives(topic: str) -> list[tuple[str, ...]]:
    """The topic's phrases: "imitation learning or inverse RL" → two alternatives."""
    out = []
    for part in re.split(r",|\bor\b|\band\b|\(|\)|;", topic):
        words = topic_tokens(part)
        # "out-of-distribution" keeps its "out of": a hyphened word is one word
        glued = [topic_tokens(c) for c in re.findall(r"\w+(?:-\w+)+", part)]
        while words and words[0] in SMALL and not any(words[: len(g)] == g for g in glued):
            words = words[1:]
        while words and words[-1] in SMALL:
            words = words[:-1]
        if words and len(words) <= 4:
            out.append(tuple(words))
    return out


def sentence_sharing(paper: Paper, words: set[str]) -> str:
    """The abstract sentence sharing the most of `words` (the first on ties)."""
    sentences = split_sentences(paper.abstract) or [paper.abstract]
    return max(sentences, key=lambda s: len(words & set(topic_tokens(s))))
