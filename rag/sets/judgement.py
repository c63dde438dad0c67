"""Which papers a topic question is about, judged once per question and handed to the answer.

A topic reads as one or more facets (`rag.sets.facets`). One facet: each paper's chance of
being about it (the calibrated scan, `TopicScanner`). Several: each paper's chance of
having every facet, from the facets' features side by side (the lowest and highest of
each feature over the facets, so a paper strong on one facet and absent from the other
scores low). The papers at or above the membership threshold are the members, those at
or above `CLEAR` the ones "clearly" about it; a topic the abstracts do not name
(`described`) gets no members, only the closest papers ranked, and no count.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from rag.sets.facets import TopicReading, read_topic, too_long_to_name
from rag.sets.glossary import Definitions
from rag.sets.screening import LLMScreen, Verdict
from rag.sets.topics import (
    BIAS,
    CLEAR,
    MEMBER,
    WEIGHTS,
    TopicScanner,
    sentence_sharing,
)
from rag.text import topic_tokens
from rag.types import Paper

# Fitted by `python -m eval calibrate-sets` on the dev questions whose topic has facets.
FACET_WEIGHTS = (0.764, 5.233, -0.032, -0.288, -0.05, 2.488, 2.147, 1.494, 1.835, 1.451, 1.596,
                 1.516, 0.902, 0.056, 0.521)  # fmt: skip
FACET_SHARED = (-0.205, 0.713)  # the whole topic's dense match; one sentence writes every facet
FACET_BIAS = -2.056
FACET_MEMBER = 0.3
FACET_CLEAR = 0.4  # below it a member "possibly" combines the facets: a range is said
TINY = 2  # this few members of several facets is said as "only N combine them"
CLOSEST = 10  # papers shown when no set is claimed
SCREEN_BAND = (0.3, 0.9)  # chances, relative to the threshold and absolute, an LLM screens
SUGGESTED = 3  # named topics offered for a described one
ABSENT_SHARE = 0.15  # of a description's words, unknown to the corpus, that make it absent
DEFINITIONS_READ = 8  # glossary entries read, nearest first, to find them
SUGGEST_SIMILARITY = 0.4  # a definition farther from the description is no suggestion
# The closest papers of a described topic blend in the best-matching named topic's ranking,
# fully once its definition is this close (cosine BLEND_FROM + BLEND_SPAN), none below.
BLEND_FROM, BLEND_SPAN = 0.35, 0.3

Outcome = Literal["set", "none", "described"]


@dataclass
class Judged:
    """A paper with its membership chance and the sentence for each facet."""

    paper: Paper
    probability: float
    why: str
    facet_sentences: dict[str, str] = field(default_factory=dict)
    clear: float = CLEAR  # the chance at which it is "clearly" about the topic
    screened: bool = False  # an LLM read its abstract and decided

    @property
    def clearly(self) -> bool:
        return self.probability >= self.clear


@dataclass
class TopicJudgement:
    topic: str
    reading: TopicReading
    members: list[Judged]  # at or above the membership threshold, most probable first
    closest: list[Judged]  # the best-ranked papers, for answers that claim no set
    unknown: list[str] = field(default_factory=list)  # topic words no abstract uses
    # described topics: named topics to offer, (name, papers clearly about it)
    suggestions: list[tuple[str, int]] = field(default_factory=list)

    @property
    def facets(self) -> list[str]:
        return self.reading.facets

    @property
    def clearly(self) -> int:
        return sum(1 for m in self.members if m.clearly)

    @property
    def verdict(self) -> Outcome:
        if self.unknown:
            return "none"
        if self.reading.described:
            return "described"
        if self.members:
            return "set"
        # "no abstract is about <twenty words>" is no claim to make: a description unmatched
        return "described" if any(too_long_to_name(f) for f in self.facets) else "none"


class TopicJudge:
    """Reads a topic against the corpus and judges every paper's membership."""

    def __init__(self, scanner: TopicScanner, screen: LLMScreen | None = None, screened: int = 0):
        self.scanner = scanner
        self.screen = screen
        self.screened = screened  # most papers one question sends to the screen
        self._definitions: Definitions | None = None
        self._lock = threading.Lock()

    @property
    def definitions(self) -> Definitions:
        """The glossary's definitions, embedded on first use (~400 short texts)."""
        with self._lock:
            if self._definitions is None:
                self._definitions = Definitions(self.scanner.embed_model)
            return self._definitions

    def read(self, topic: str) -> TopicReading:
        ix = self.scanner.index
        return read_topic(topic, ix.support, len(ix.ids))

    def probabilities(self, topic: str, facets: list[str]) -> np.ndarray:
        """Each paper's chance of belonging (index order): the about-model for one facet,
        the facet model for several."""
        if len(facets) <= 1:
            return about(self.scanner.facet_features(facets[0] if facets else topic))
        return facet_probability(*self.facet_inputs(topic, facets))

    def facet_inputs(self, topic: str, facets: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The facet model's inputs: each facet's features (facets × papers × features),
        and per paper the whole topic's dense match and whether one sentence writes every
        facet (papers × 2)."""
        stack = np.stack([
            self.scanner.facet_features(f, True, tuple(o for o in facets if o != f)) for f in facets
        ])  # fmt: skip
        whole = self.scanner.features(topic)[:, 0]
        return stack, np.stack([whole, self.scanner.together(facets)], axis=1)

    def judge(
        self, topic: str, allowed: set[str] | None = None, reading: TopicReading | None = None
    ) -> TopicJudgement:
        reading = reading or self.read(topic)
        facets = reading.facets or [topic]
        unknown = self.absent_words(topic, reading)
        probability = self.probabilities(topic, facets)
        suggestions: list[tuple[str, int]] = []
        if reading.described and not unknown:
            suggestions, probability = self._described(topic, probability, allowed)
        several = len(facets) > 1
        member, clear = (FACET_MEMBER, FACET_CLEAR) if several else (MEMBER, CLEAR)
        verdicts = {}
        if self.screen is not None and not reading.described and not unknown:
            verdicts = self._screened(facets, probability, member, allowed)
            for i, verdict in verdicts.items():
                probability[i] = max(probability[i], clear) if verdict.holds else 0.0
        order = np.argsort(-probability)
        members: list[Judged] = []
        closest: list[Judged] = []
        for i in order:
            p = float(probability[i])
            if p < member and len(closest) >= CLOSEST:
                break
            pid = self.scanner.index.ids[int(i)]  # checked before its record is read
            if allowed is not None and pid not in allowed:
                continue
            judged = self._judged(self.scanner.index.papers[pid], p, topic, facets, clear)
            if int(i) in verdicts:
                judged.screened = True
                judged.facet_sentences.update(verdicts[int(i)].sentences)
            if len(closest) < CLOSEST:
                closest.append(judged)
            if p >= member and not reading.described and not unknown:
                members.append(judged)
        if not members and not unknown and any(too_long_to_name(f) for f in facets):
            # a description no paper matched: the named topics it may mean, offered
            suggestions = suggestions or self._described(topic, probability, allowed)[0]
        return TopicJudgement(topic, reading, members, closest, unknown, suggestions)

    def absent_words(self, topic: str, reading: TopicReading) -> list[str]:
        """The words that make a topic absent from the corpus: any word no abstract uses,
        for a named topic; for a description (whose wording is the asker's own: "browses
        websites"), only when such words are ABSENT_SHARE of its words or more."""
        unknown = self.scanner.unknown_words(topic)
        if not reading.described or not unknown:
            return unknown
        said = [w for w in topic_tokens(topic) if w not in _SMALL_WORDS and len(w) > 2]
        return unknown if len(unknown) >= ABSENT_SHARE * max(1, len(said)) else []

    def clearly(self, topic: str, allowed: set[str] | None) -> int:
        """How many papers a named topic, as one facet, has clearly about it (what asking
        for it by name answers), without reading their records."""
        probability = self.probabilities(topic, [topic])
        holding = np.flatnonzero(probability >= CLEAR)
        if allowed is None:
            return len(holding)
        ids = self.scanner.index.ids
        return sum(1 for i in holding if ids[int(i)] in allowed)

    def _described(
        self, description: str, probability: np.ndarray, allowed: set[str] | None
    ) -> tuple[list[tuple[str, int]], np.ndarray]:
        """The named topics whose definitions the description paraphrases (each with the
        papers clearly about it), and the papers ranked by the description and, as far as
        the best match is close, by the topic it names."""
        offered: list[tuple[str, int, float]] = []
        for entry, similarity in self.definitions.closest(description, DEFINITIONS_READ):
            if similarity < SUGGEST_SIMILARITY or len(offered) == SUGGESTED:
                break
            count = self.clearly(entry.topic, allowed)
            if count > 0:
                offered.append((entry.topic, count, similarity))
        if offered:  # "train a small network to imitate a big one" ranks by distillation too
            named = self.probabilities(offered[0][0], [offered[0][0]])
            weight = float(np.clip((offered[0][2] - BLEND_FROM) / BLEND_SPAN, 0.0, 1.0))
            probability = (1 - weight) * probability + weight * named
        return [(name, count) for name, count, _ in offered], probability

    def _screened(
        self, facets: list[str], probability: np.ndarray, member: float, allowed: set[str] | None
    ) -> dict[int, Verdict]:
        """The LLM's verdicts on the papers nearest the cut-off (index → verdict)."""
        assert self.screen is not None
        low, high = SCREEN_BAND[0] * member, SCREEN_BAND[1]
        ids = self.scanner.index.ids
        near = [
            int(i)
            for i in np.flatnonzero((probability >= low) & (probability < high))
            if allowed is None or ids[int(i)] in allowed
        ]
        cut = np.log(member / (1 - member))
        logit = np.log(np.clip(probability, 1e-9, 1 - 1e-9) / np.clip(1 - probability, 1e-9, 1))
        near.sort(key=lambda i: abs(float(logit[i]) - cut))
        chosen = near[: self.screened]
        papers = [self.scanner.index.papers[ids[i]] for i in chosen]
        verdicts = self.screen.screen(facets, papers)
        return {i: verdicts[ids[i]] for i in chosen if ids[i] in verdicts}

    def _judged(
        self, paper: Paper, p: float, topic: str, facets: list[str], clear: float
    ) -> Judged:
        if len(facets) <= 1:
            return Judged(paper, p, sentence_sharing(paper, _words(topic)), clear=clear)
        sentences = {f: sentence_sharing(paper, self._facet_words(f)) for f in facets}
        why = " … ".join(dict.fromkeys(sentences.values()))
        return Judged(paper, p, why, sentences, clear=clear)

    def _facet_words(self, facet: str) -> set[str]:
        ix = self.scanner.index
        out: set[str] = set()
        for form in self.scanner.forms(facet, kinds=True):
            for word in form:
                out |= ix.variants(word)
        return out - _SMALL_WORDS


_SMALL_WORDS = frozenset({"the", "of", "and", "or", "a", "an", "for", "in", "on", "to", "with"})


def _words(topic: str) -> set[str]:
    return set(topic_tokens(topic)) - _SMALL_WORDS


def about(x: np.ndarray) -> np.ndarray:
    """The one-facet model on `TopicScanner.facet_features` rows."""
    return 1.0 / (1.0 + np.exp(-(x @ np.asarray(WEIGHTS) + BIAS)))


def facet_probability(stack: np.ndarray, shared: np.ndarray) -> np.ndarray:
    """The chance that every facet holds: the product of each facet's presence."""
    z = stack @ np.asarray(FACET_WEIGHTS) + (shared @ np.asarray(FACET_SHARED) + FACET_BIAS)
    return np.exp(-np.logaddexp(0.0, -z).sum(axis=0))
