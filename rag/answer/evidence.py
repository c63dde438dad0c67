"""Which sentences of the retrieved abstracts answer the question, and how sure we are.

Sentence score = cosine(question, sentence) blended with an idf-weighted share of the
question's content terms that the sentence contains. The same signals, plus agreement
between the dense and BM25 rankings, give the evidence confidence behind abstention
(a threshold on one retrieval score alone cannot separate unanswerable questions: the
top-1 cosine's answerable and unanswerable distributions overlap on the dev questions).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.answer.gaps import find_gaps
from rag.answer.premises import RARE_NAME_DOCS, title_run
from rag.answer.question_parts import question_parts
from rag.answer.scored import Evidence, ScoredSentence
from rag.answer.term_stats import TermStats
from rag.embedding.lru import LRUCache
from rag.retrieval.retriever import NAMED_PAPERS
from rag.text import NAME, content_terms, rare_names, split_sentences, titled_in, writes_name
from rag.types import Paper, RetrievedPaper

# The rest of a question (its names aside) fits another paper by this much more: the name
# is misplaced, not the paper asked about.
MISNAMED_MARGIN = 0.3
NAMED_CONFIDENCE = 0.6  # at least this sure of a paper the question names by a rare name
TITLED_BONUS = 0.01  # a paper whose title the question writes ranks first by this much
PAIR_WEIGHT = 0.3
# "Code is available at https://…" echoes the method's name but answers nothing.
BOILERPLATE_WEIGHT = 0.5
_BOILERPLATE = re.compile(
    r"https?://|github\.com|\b(code|data|models?|implementation)s?\b[^.]{0,40}\b(is|are)\b"
    r"[^.]{0,20}\b(publicly |freely |openly )?(available|released)",
    re.I,
)
# Logistic weights over [best sentence cosine, query-term coverage, retriever agreement];
# fitted on eval/datasets/dev.jsonl by `python -m eval calibrate` (eval/README.md says how).
# Words every abstract could answer: a question made of nothing else ("What does the paper
# contribute?") names no topic, so no retrieved paper is *its* answer, however well it scores.
FRAME_TERMS = frozenset(
    content_terms(
        "paper papers work study studies article abstract author authors contribute contributes "
        "contribution contributions propose proposes proposed main key idea ideas new novel "
        "method methods approach approaches result results find finds finding findings show "
        "shows present presents introduce introduces use uses used do does about tell explain "
        "describe summarize summarise summary"
    )
)
CONFIDENCE_WEIGHTS = (9.0, 5.0, 0.6)
CONFIDENCE_BIAS = -6.4


@dataclass
class QueryTerms:
    weights: dict[str, float]  # stemmed content term -> idf
    bigrams: set[tuple[str, str]]  # adjacent content terms of the question


class EvidenceScorer:
    """Scores the sentences of retrieved abstracts against a question (see the module doc).

    Sentence vectors are kept in an in-memory LRU (and, through the embedding model's
    persistent cache, across processes); the warm-up fills both ahead of questions.
    """

    def __init__(
        self, embed_model: BaseEmbedding, stats: TermStats, cache_size: int = 20_000
    ) -> None:
        self.embed_model = embed_model
        self.stats = stats
        self._cache: LRUCache[str, np.ndarray] = LRUCache(cache_size)

    def embed_sentences(self, sentences: list[str]) -> np.ndarray:
        """One row per sentence (repeats allowed); unseen sentences cost the model once."""
        known: dict[str, np.ndarray] = {}
        for text in dict.fromkeys(sentences):
            cached = self._cache.get(text)
            if cached is not None:
                known[text] = cached
        missing = [s for s in dict.fromkeys(sentences) if s not in known]
        if missing:
            vectors = self.embed_model.get_text_embedding_batch(missing)
            for text, vector in zip(missing, vectors, strict=True):
                known[text] = np.asarray(vector, dtype=np.float32)
                self._cache.put(text, known[text])
        return np.stack([known[s] for s in sentences])

    def query_terms(self, question: str) -> QueryTerms:
        terms = content_terms(question)
        return QueryTerms(
            weights={t: self.stats.idf(t) for t in set(terms)},
            bigrams=set(pairwise(terms)),
        )

    def lexical(self, query: QueryTerms, text: str) -> float:
        """idf-weighted share of the question's terms in `text`, and of its word pairs.

        Pairs matter: "feedback alignment" (a learning rule) must not be matched by every
        RLHF abstract that says "human feedback" and "alignment" apart.
        """
        total = sum(query.weights.values())
        if not total:
            return 0.0
        terms = content_terms(text)
        present = set(terms)
        unigram = sum(w for t, w in query.weights.items() if t in present) / total
        if not query.bigrams:
            return unigram
        pairs = set(pairwise(terms))
        bigram = len(query.bigrams & pairs) / len(query.bigrams)
        return (1 - PAIR_WEIGHT) * unigram + PAIR_WEIGHT * bigram

    def _writes_rare_name(self, question: str, paper: Paper, papers: int) -> bool:
        """Whether the paper writes a name of the question that at most `papers` papers do."""
        return self._writes_rare_name_in(question, f"{paper.title} {paper.abstract}", papers)

    def _writes_rare_name_in(self, question: str, text: str, papers: int) -> bool:
        return any(
            writes_name(name, text) for name in rare_names(question, self.stats.doc_freq, papers)
        )

    def _coins_rare_name(self, question: str, paper: Paper) -> bool:
        """Whether the paper's title holds a rare name of the question, or its abstract
        introduces one ("an estimator which we call CoxSig", "we propose X", "X (…)")."""
        for name in rare_names(question, self.stats.doc_freq, NAMED_PAPERS):
            said = re.escape(name)
            if writes_name(name, paper.title) or re.search(
                rf"\b(?:call|dub|name|term|propose|introduce|present|develop|design)\w*\s+"
                rf"(?:[\w-]+\s+){{0,6}}?{said}\b|\b{said}\s*(?:\(|,\s+(?:a|an|the)\b|:)",
                paper.abstract,
            ):
                return True
        return False

    def _named_alone(self, question: str, n: int, texts: list[str]) -> bool:
        """Whether source `n` (of `texts`, title and abstract) writes a name at most
        NAMED_PAPERS papers write, and every name of the question another source writes."""
        if not self._writes_rare_name_in(question, texts[n - 1], NAMED_PAPERS):
            return False
        return all(
            writes_name(name, texts[n - 1])
            for name in set(NAME.findall(question))
            if any(writes_name(name, t) for i, t in enumerate(texts, start=1) if i != n)
        )

    def _misnamed(self, question: str, n: int, texts: list[str]) -> set[str]:
        """The rare names source `n` writes, when the rest of the question fits another
        source far better: "How does KIVI merge tokens in vision-language transformers?"
        asks of CrossGET's method under KIVI's name (a premise the answer must not keep)."""
        asked = set(NAME.findall(question))
        names = {m for m in asked if writes_name(m, texts[n - 1])}
        rest = self.query_terms(NAME.sub(" ", question))
        others = [t for i, t in enumerate(texts, start=1) if i != n]
        if any(writes_name(m, t) for m in asked - names for t in others):
            return set()  # "How do DRQ and Isaacs Deep Q-Network …": names of two papers
        if not names or not rest.weights:
            return set()
        fits = [self.lexical(rest, t) for t in texts]
        best_other = max((f for i, f in enumerate(fits, start=1) if i != n), default=0.0)
        return names if best_other - fits[n - 1] >= MISNAMED_MARGIN else set()

    def score(self, question: str, sources: list[RetrievedPaper]) -> Evidence:
        if not sources:
            return Evidence()
        query_terms = self.query_terms(question)
        entries: list[tuple[int, int, str]] = []
        for number, source in enumerate(sources, start=1):
            for position, sentence in enumerate(split_sentences(source.paper.abstract)):
                entries.append((number, position, sentence))
        query = np.asarray(self.embed_model.get_query_embedding(question), dtype=np.float32)
        cosines = self.embed_sentences([text for _, _, text in entries]) @ query
        sentences = []
        for (n, pos, text), cos in zip(entries, cosines, strict=True):
            # A sentence is read under its paper's title: "This study introduces a unified
            # framework…" is about feedback alignment when the title says so.
            title = sources[n - 1].paper.title
            lexical = self.lexical(query_terms, f"{title} {text}")
            weight = BOILERPLATE_WEIGHT if _BOILERPLATE.search(text) else 1.0
            sentences.append(ScoredSentence(n, pos, text, float(cos) * weight, lexical * weight))
        top = sources[0]
        paper_lexical = [
            self.lexical(query_terms, f"{s.paper.title} {s.paper.abstract}") for s in sources
        ]
        best_sentence: dict[int, float] = {}
        for scored in sentences:
            best_sentence[scored.source] = max(best_sentence.get(scored.source, -1.0), scored.score)
        relevance = {
            n: 0.5 * best_sentence.get(n, 0.0) + 0.5 * paper_lexical[n - 1]
            for n in range(1, len(sources) + 1)
        }
        texts = [f"{s.paper.title} {s.paper.abstract}" for s in sources]
        parts = question_parts(question)
        # a detail asked of a named paper ("how many hours did QuRater take") fits a paper
        # that states such details; a misplaced name asks how it does what another does
        detail = any(part.kind != "other" for part in parts)
        misnamed: set[str] = (
            set()
            if detail
            else set().union(
                *(
                    self._misnamed(question, n, texts)
                    for n, s in enumerate(sources, start=1)
                    if self._writes_rare_name(question, s.paper, NAMED_PAPERS)
                    # "What does LoCoCo do that bifurcated attention doesn't?": another
                    # source named by its title's words makes it a question of two papers
                    and not any(
                        title_run(question, o.paper.title, self.stats.doc_freq)
                        for m, o in enumerate(sources, start=1)
                        if m != n
                    )
                )
            )
        )
        # A question that writes a paper's title, or a name at most NAMED_PAPERS papers
        # write ("QuRater") and no other of its names another paper writes ("CTAN and
        # PATH-WL"), is about that paper, whatever else scores.
        for n, source in enumerate(sources, start=1):
            if titled_in(question, source.paper.title) or (
                not misnamed and self._named_alone(question, n, texts)
            ):
                relevance[n] = max(relevance.values()) + TITLED_BONUS
                break
        evidence = Evidence(
            sentences=sentences,
            paper_relevance=relevance,
            parts=parts,
            misnamed=misnamed,
            best_cosine=max([s.cosine for s in sentences] + [top.dense_score or -1.0]),
            coverage=paper_lexical[0],
            agreement=_agreement(top),
        )
        evidence.confidence = confidence(
            evidence.best_cosine, evidence.coverage, evidence.agreement
        )
        # "… the datasets used to evaluate CoxSig": a rare name, written as a word by the
        # paper both retrievers rank in their top 3, or by at most NAMED_PAPERS papers (the
        # retriever put them first), says which paper is asked about
        # ("the cheapest place to rent an H100": a name the paper only mentions, that
        # neither retriever ranks it near the top for, names no paper; "CoxSig" it coins does)
        named_top = self._writes_rare_name(question, top.paper, NAMED_PAPERS) and (
            evidence.agreement > 0 or self._coins_rare_name(question, top.paper)
        )
        if (named_top and not evidence.misnamed) or (
            evidence.agreement >= 1.0
            and self._writes_rare_name(question, top.paper, RARE_NAME_DOCS)
            and not evidence.misnamed
        ):
            evidence.confidence = max(evidence.confidence, NAMED_CONFIDENCE)
        evidence.paper_confidence = {
            n: confidence(
                max([s.cosine for s in sentences if s.source == n] + [-1.0]),
                paper_lexical[n - 1],
                _agreement(source),
            )
            for n, source in enumerate(sources, start=1)
        }
        evidence.specific = bool(set(query_terms.weights) - FRAME_TERMS)
        evidence.gaps = find_gaps(self.stats, question, sources, evidence)
        return evidence


def _agreement(top: RetrievedPaper) -> float:
    """1 when both retrievers put the top paper in their top 3, 0.5 when one did."""
    ranks = [r for r in (top.dense_rank, top.bm25_rank) if r is not None]
    if not ranks:
        return 0.0
    return sum(1.0 for r in ranks if r <= 3) / 2.0


def confidence(best_cosine: float, coverage: float, agreement: float) -> float:
    w = CONFIDENCE_WEIGHTS
    z = w[0] * best_cosine + w[1] * coverage + w[2] * agreement + CONFIDENCE_BIAS
    return 1.0 / (1.0 + math.exp(-z))
