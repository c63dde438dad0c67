"""Which sentences of the retrieved abstracts answer the question, and how sure we are.

Sentence score = cosine(question, sentence) blended with an idf-weighted share of the
question's content terms that the sentence contains. The same signals, plus agreement
between the dense and BM25 rankings, give the evidence confidence behind abstention
(a threshold on one retrieval score alone cannot separate unanswerable questions: the
top-1 cosine's answerable and unanswerable distributions overlap on the dev questions).
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from rag.answer.contradictions import contradicted
from rag.answer.premises import (
    RARE_NAME_DOCS,
    names_the_paper,
    title_run,
    titled_in,
    unmentioned,
    unwritten,
    without_request,
)
from rag.answer.question_parts import QuestionPart, question_parts
from rag.answer.supplied import Gaps, check_abstract
from rag.catalogue.terms import paper_words
from rag.embedding.lru import LRUCache
from rag.retrieval.retriever import NAMED_PAPERS
from rag.text import COINED, NAME, content_terms, rare_names, split_sentences, writes_name
from rag.types import Paper, RetrievedPaper

LEXICAL_WEIGHT = 0.35
# The rest of a question (its names aside) fits another paper by this much more: the name
# is misplaced, not the paper asked about.
MISNAMED_MARGIN = 0.3
NAMED_CONFIDENCE = 0.6  # at least this sure of a paper the question names by a rare name
# Another paper this likely to answer, and not far below the best, may be the one asked about.
OTHER_PAPER_CONFIDENCE, OTHER_PAPER_MARGIN = 0.5, 0.25
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
class ScoredSentence:
    source: int  # 1-based number of the source it comes from
    position: int  # index of the sentence in its abstract
    text: str
    cosine: float
    lexical: float

    @property
    def score(self) -> float:
        return (1 - LEXICAL_WEIGHT) * self.cosine + LEXICAL_WEIGHT * self.lexical


@dataclass
class Evidence:
    sentences: list[ScoredSentence] = field(default_factory=list)
    # 1-based source number -> how well the paper as a whole answers (best sentence + terms)
    paper_relevance: dict[int, float] = field(default_factory=dict)
    best_cosine: float = 0.0
    coverage: float = 0.0
    agreement: float = 0.0
    confidence: float = 0.0
    specific: bool = True  # the question names something besides FRAME_TERMS
    # 1-based source number -> the confidence model applied to that paper alone (0-1)
    paper_confidence: dict[int, float] = field(default_factory=dict)
    parts: list[QuestionPart] = field(default_factory=list)
    gaps: Gaps | None = None
    # rare names a retrieved paper writes while the rest of the question fits another one
    misnamed: set[str] = field(default_factory=set)
    # The extractive answer's chosen sentences, kept so its citations' snippets reuse them
    # (rag.answer.extractive.ExtractiveSynthesizer.select).
    selected: list[ScoredSentence] | None = None

    def best_for(self, source: int, limit: int = 2) -> list[ScoredSentence]:
        mine = [s for s in self.sentences if s.source == source]
        return sorted(mine, key=lambda s: s.score, reverse=True)[:limit]


@dataclass
class QueryTerms:
    weights: dict[str, float]  # stemmed content term -> idf
    bigrams: set[tuple[str, str]]  # adjacent content terms of the question


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
        evidence.gaps = self.gaps(question, sources, evidence)
        return evidence

    def gaps(self, question: str, sources: list[RetrievedPaper], evidence: Evidence) -> Gaps:
        """What the question asks of its best paper that the abstract does not give:
        typed parts no sentence supplies; names and rare words the paper never uses (of a
        paper the question names; else only rare names); words no abstract writes."""
        question = without_request(question)
        source = max(evidence.paper_relevance, key=lambda n: evidence.paper_relevance[n])
        paper = sources[source - 1].paper
        found = check_abstract(question, evidence.parts, paper.abstract, paper.title, source)
        doc_freq = self.stats.doc_freq
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
                return (
                    paired and bool(COINED.search(w)) and self.stats.name_count(w) <= RARE_NAME_DOCS
                )

            found.unmentioned = [
                w
                for w in absent
                if nowhere_else(w) or (doc_freq(w) > RARE_NAME_DOCS and not anothers(w))
            ]
            return found
        # Not asked of one named paper: words no abstract writes say the papers do not
        # cover what it asks about ("LLM agents on *Android* phones").
        stats = self.stats
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
                check_abstract(question, [part], p.abstract, p.title, 0).supplied
                for p in plausible[:2]
            )
        ]
        return found


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
