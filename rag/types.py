"""Typed, JSON-serialisable objects that cross module and process boundaries."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Paper(BaseModel):
    """One paper of a corpus: what is embedded, shown and cited."""

    id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    abstract: str
    url: str = ""
    status: str = ""
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Every other source field, kept as metadata."
    )

    def content_hash(self) -> str:
        """Changes whenever anything that is embedded or shown changes."""
        payload = json.dumps(
            [self.title, self.authors, self.abstract, self.url, self.status, self.extra],
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class Filters(BaseModel):
    """Restrictions on which papers may be retrieved. All given ones must hold."""

    model_config = ConfigDict(extra="forbid")

    status: list[str] | None = Field(
        None, description="Keep papers with one of these statuses (Oral, Spotlight, Poster)."
    )
    author: str | None = Field(
        default=None, description="Case-insensitive substring of any author name."
    )
    title: str | None = Field(default=None, description="Case-insensitive substring of the title.")
    paper_ids: list[str] | None = Field(default=None, description="Keep only these paper ids.")

    def is_empty(self) -> bool:
        return not (self.status or self.author or self.title or self.paper_ids)

    def accepts(self, paper: Paper) -> bool:
        if self.status and paper.status.casefold() not in {s.casefold() for s in self.status}:
            return False
        if self.author:
            needle = self.author.casefold()
            if not any(needle in name.casefold() for name in paper.authors):
                return False
        if self.title and self.title.casefold() not in paper.title.casefold():
            return False
        return not (self.paper_ids and paper.id not in set(self.paper_ids))


class MatchedChunk(BaseModel):
    chunk_id: str
    text: str
    score: float


class RetrievedPaper(BaseModel):
    """A paper with the chunks that matched the query and the scores behind its rank."""

    paper: Paper
    score: float = Field(description="Score used for ranking (fused score in hybrid mode).")
    dense_score: float | None = Field(default=None, description="Best chunk cosine similarity.")
    bm25_score: float | None = Field(default=None, description="Best chunk BM25 score.")
    dense_rank: int | None = None
    bm25_rank: int | None = None
    chunks: list[MatchedChunk] = Field(default_factory=list)


# What a calibrated relevance means to a reader; the raw `score` (a rank fusion number that
# changes with the mode and top_k) is kept in JSON but never shown.
RELEVANCE_HIGH = 0.7
RELEVANCE_MEDIUM = 0.4


def relevance_label(value: float | None) -> str | None:
    """ "high" (>= .7), "medium" (>= .4) or "low" for a calibrated 0-1 relevance; None if unset."""
    if value is None or value != value:  # NaN is no estimate either
        return None
    if value >= RELEVANCE_HIGH:
        return "high"
    return "medium" if value >= RELEVANCE_MEDIUM else "low"


_RELEVANCE_DOC = "Calibrated 0-1 chance the paper is relevant (None: not estimated)."


class Citation(BaseModel):
    """A numbered source that the answer actually cites."""

    n: int
    paper_id: str
    title: str
    authors: list[str]
    url: str
    status: str = ""
    snippet: str = Field(description="The sentence(s) of the abstract the citation rests on.")
    score: float = Field(description="Retrieval rank score: orders papers, means nothing alone.")
    relevance: float | None = Field(default=None, description=_RELEVANCE_DOC)
    pmlr_key: str = Field(default="", description="The PMLR proceedings key (for BibTeX).")


class Related(BaseModel):
    """A nearby paper shown with an abstention: related, not support."""

    paper_id: str
    title: str
    authors: list[str]
    url: str
    status: str = ""
    score: float = Field(description="Retrieval rank score: orders papers, means nothing alone.")
    relevance: float | None = Field(default=None, description=_RELEVANCE_DOC)


PlanKind = Literal["paper", "list", "count", "metadata", "compare", "similar"]


class PlanConstraints(BaseModel):
    """What the question restricts papers to, resolved against the catalogue."""

    authors: list[str] = Field(
        default_factory=list, description="Catalogue names; all must be authors."
    )
    affiliations: list[str] = Field(default_factory=list, description="Institutions as typed.")
    first_author: str = Field(default="", description="Catalogue name: the papers' first author.")
    last_author: str = Field(default="", description="Catalogue name: the papers' last author.")
    not_first: bool = Field(
        default=False, description="The one author named is on the papers, but not first."
    )
    not_last: bool = Field(
        default=False, description="The one author named is on the papers, but not last."
    )
    position: int = Field(
        default=0,
        description="The one author named is at this place (1 = first) in the list; "
        "negative: counted from its end (-2 = second to last).",
    )
    any_of: list[str] = Field(
        default_factory=list,
        description="Institutions as typed, joined by 'or': an author from one of them.",
    )
    excluded: list[str] = Field(
        default_factory=list,
        description="Ruled out: an affiliation's part ('not Shenzhen': its affiliation "
        "strings naming it are not counted), an institution no author may be from, or a "
        "person who may not be an author.",
    )
    statuses: list[str] = Field(default_factory=list, description="Oral, Spotlight, Poster.")
    title_words: list[str] = Field(default_factory=list)
    not_title_words: list[str] = Field(
        default_factory=list, description="Words the papers' titles must not hold."
    )
    any_title_words: list[str] = Field(
        default_factory=list, description="Words of which the titles must hold at least one."
    )
    no_affiliations: bool = Field(
        default=False, description="Papers that list no affiliation at all."
    )
    institution_kinds: list[Literal["company", "academic"]] = Field(
        default_factory=list,
        description="Kinds of institution the affiliations must include, each ('both "
        "industry and academia': a company and a university).",
    )
    without_kinds: list[Literal["company", "academic"]] = Field(
        default_factory=list,
        description="Kinds of institution no affiliation may be ('only academic authors': "
        "no company).",
    )
    text_words: list[str] = Field(
        default_factory=list,
        description="Words the title or abstract must write ('Which papers mention ChatGPT?').",
    )
    not_text_words: list[str] = Field(
        default_factory=list,
        description="Words neither the title nor the abstract may write ('… but not GPT-3.5').",
    )
    any_text_words: list[str] = Field(
        default_factory=list,
        description="Names of which the title or abstract must write at least one ('mention "
        "MuJoCo or D4RL').",
    )
    only_one: bool = Field(
        default=False, description="Exactly one of the people in `any_of`, not several."
    )
    min_authors: int = Field(default=0, description="Papers with at least this many authors.")
    max_authors: int = Field(default=0, description="Papers with at most this many authors.")
    read_as: dict[str, str] = Field(
        default_factory=dict, description="Misspelt names as typed -> the catalogue's name."
    )
    affiliation_place: Literal["", "first", "last", "first and last", "every"] = Field(
        default="",
        description="Whose affiliation the institutions must be: the first author's, the "
        "last author's, both of theirs, or every author's ('written entirely by people from X'); empty: "
        "any author's.",
    )

    def is_empty(self) -> bool:
        return not (
            self.authors
            or self.first_author
            or self.last_author
            or self.affiliations
            or self.any_of
            or self.statuses
            or self.title_words
            or self.any_title_words
            or self.text_words
            or self.any_text_words
            or self.not_title_words
            or self.not_text_words
            or self.no_affiliations
            or self.institution_kinds
            or self.without_kinds
            or self.min_authors
            or self.max_authors
        )


class Unresolved(BaseModel):
    """A name in the question that fits no author or institution, or several people;
    institutions asked by country ("Chinese universities"), which the catalogue cannot tell;
    or what it does not record ("unrecorded": the acceptance rate, citations, reviews, awards;
    `suggestions` holds which)."""

    kind: Literal["author", "institution", "country", "unrecorded"]
    text: str
    candidates: list[tuple[str, int]] = Field(
        default_factory=list, description="(name, papers) of every fitting person."
    )
    suggestions: list[str] = Field(default_factory=list, description="Closest known names.")


Ranking = Literal[
    "authors",
    "coauthors",
    "first_authors",
    "last_authors",
    "most_authors",
    "fewest_authors",
    "shortest_title",
    "longest_title",
    "title_words",
    "institutions",
    "universities",
    "companies",
    "institutes",
]


Statistic = Literal[
    "", "share", "authors", "authors_per_paper", "papers_per_author", "institutions", "countries"
]


class QueryPlan(BaseModel):
    """What the question was understood to ask (returned with every answer)."""

    kind: PlanKind
    topic: str = Field(default="", description="The topic words, without the question's frame.")
    constraints: PlanConstraints = Field(default_factory=PlanConstraints)
    ranking: Ranking | None = Field(
        default=None,
        description="'Who has the most papers'; 'coauthors': with the named author(s) most; "
        "'first_authors' / 'last_authors': most papers as the first / last author; "
        "'most_authors' / 'fewest_authors': the papers with the longest / shortest author "
        "lists; 'shortest_title' / 'longest_title': by the title's length in characters; "
        "'institutions' / 'universities' / 'companies': the institutions with the most papers.",
    )
    at_least: int = Field(
        default=0, description="`ranking`: every author with at least this many papers."
    )
    each_status: bool = Field(
        default=False,
        description="`ranking` of authors: only the authors with a paper of each of the "
        "constraints' statuses ('Which authors had both an oral and a spotlight?').",
    )
    by_share: bool = Field(
        default=False,
        description="`ranking` of institutions: by the share of each one's papers that have "
        "the statuses asked ('the highest share of orals among its papers'), not their number.",
    )
    top: int = Field(
        default=0,
        description="`ranking`: how many authors ('the top 5'); 0: 10 authors, or the papers "
        "tied at the longest / shortest author list.",
    )
    position: int = Field(
        default=0,
        description="`ranking` of authors or institutions: the place asked ('ranks second': "
        "2), answered with the names at that count level (ties kept); `written_by`: the "
        "author's place in the byline ('the second author'); 0: none.",
    )
    statistic: Statistic = Field(
        default="",
        description="A number about the papers the constraints select: 'share': their share "
        "of all papers (or of the statuses in `share_of`); 'authors': how many distinct "
        "author names; 'authors_per_paper': the mean and median byline length; "
        "'papers_per_author': the mean papers per distinct author name; 'institutions': how "
        "many institutions (said not to be countable exactly); 'countries': how many "
        "countries (said not to be recorded).",
    )
    share_of: list[str] = Field(
        default_factory=list,
        description="`statistic` 'share': the statuses of the papers it is a share of "
        "('What % of the orals …': ['Oral']); empty: all papers.",
    )
    share_of_topic: bool = Field(
        default=False,
        description="`statistic` 'share' of a topic: the share is of the papers about the "
        "topic ('What share of the papers on federated learning were spotlights?'), not of "
        "all papers (or of `share_of`) ('What % of papers are about diffusion?').",
    )
    share_within: PlanConstraints | None = Field(
        default=None,
        description="`statistic` 'share': the authors, institutions or title words of the "
        "papers it is a share of ('What share of Google's papers were spotlights?'); none: "
        "all papers (or those of `share_of`).",
    )
    affiliation_of: bool = Field(
        default=False,
        description="'Where is X from?', 'What is X's affiliation?': the affiliations listed "
        "beside the one author named, on their papers, counted.",
    )
    unresolved: list[Unresolved] = Field(default_factory=list)
    like_paper: str = Field(
        default="",
        description="`similar`: the id of the paper named; `written_by`: the paper whose "
        "authors are asked.",
    )
    written_by: Literal["", "all", "first", "last", "status", "who"] = Field(
        default="",
        description="'Who wrote <paper>', 'how many authors does <paper> have', 'where are "
        "its authors from': its authors ('all'; with `position`, the author at that place), "
        "or its first or last author; 'status': how it was presented ('Was GaLore an "
        "oral?'); 'who': whether the people or institutions in `constraints` wrote it ('Is "
        "the GaLore paper from Caltech?'); answered from the catalogue (`kind` metadata, the "
        "paper in `like_paper`).",
    )
    not_about: str = Field(
        default="",
        description="The papers the constraints select that are not about this topic ('Which "
        "of Sergey Levine's papers are not about robotics?'); those judged about it are left "
        "out and named.",
    )
    facets: list[str] = Field(
        default_factory=list,
        description="The topic's facets, all of which must hold for a paper to belong "
        "(adversarial robustness + graph neural networks); one facet for a plain topic.",
    )
    unread: str = Field(
        default="",
        description="Words beside the names that were read as neither a topic nor a "
        "constraint; the answer says it did not use them.",
    )
    compared: list[str] = Field(
        default_factory=list,
        description="`compare`: the papers or methods the question names or describes.",
    )
    source: Literal["parser", "llm"] = "parser"


class AggregatePaper(BaseModel):
    """One row of a set answer: a paper, why it belongs, and (for comparisons) its cells."""

    n: int
    paper_id: str
    title: str
    authors: list[str]
    url: str = ""
    status: str = ""
    pmlr_key: str = ""
    why: str = Field(
        default="", description="The sentence or catalogue fact that puts it in the set."
    )
    score: float | None = Field(default=None, description="Membership confidence 0-1 (topic sets).")
    membership: Literal["exact", "clearly", "touches", "possibly", "closest", "named"] = Field(
        default="exact",
        description="exact: a catalogue fact; clearly / touches: judged about the topic or "
        "only touching on it; possibly: may combine every facet of the topic (unsure); "
        "closest: ranked near the question, not judged a member; named: a paper the "
        "question names.",
    )
    facet_sentences: dict[str, str] = Field(
        default_factory=dict, description="Per facet of the topic, the sentence showing it."
    )
    cells: dict[str, str] = Field(default_factory=dict)


class Aggregate(BaseModel):
    """A question about the conference as a set: the count and every member, cited."""

    kind: PlanKind
    count: int | None = Field(
        description="The papers the answer is about: exact from the catalogue, or those "
        "judged clearly about a topic. None: no count is claimed (the rows are the closest "
        "papers, ranked)."
    )
    touching: int = Field(
        default=0, description="Further papers judged to touch on the topic, listed after."
    )
    exact: bool = Field(description="True when taken from the catalogue, not judged.")
    papers: list[AggregatePaper] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    ranking: list[tuple[str, int]] = Field(default_factory=list)
    value: float | None = Field(
        default=None,
        description="A statistic asked of the papers: a share in %, distinct author names, "
        "a mean byline length (`QueryPlan.statistic`).",
    )
    notes: list[str] = Field(
        default_factory=list, description="Ambiguities and what was not counted."
    )


class SuggestedTopic(BaseModel):
    """A named topic offered when the question described its topic in other words, or one
    of the people or institutions a name the question typed fits ("NTU")."""

    topic: str
    count: int = Field(description="Papers judged clearly about it (asking it gives this).")
    question: str = Field(description="The question that asks for it by name.")


class Answer(BaseModel):
    """What every way in returns for one question (`rag ask --json`, `/v1/ask`): the answer
    text with [n] markers and the citations behind them, or an abstention (`abstained`,
    with `related` papers that are not support), plus the evidence and timings."""

    question: str
    standalone_question: str = Field(
        "", description="The question actually retrieved for (follow-ups are rewritten)."
    )
    answer: str
    abstained: bool
    backend: str
    model: str | None = None
    mode: str
    citations: list[Citation] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    confidence: float = Field(0.0, description="Evidence confidence used for abstention.")
    evidence: dict[str, float] = Field(
        default_factory=dict,
        description="Signals behind `confidence` (best_cosine, coverage, agreement).",
    )
    missing: list[str] = Field(
        default_factory=list,
        description="Parts of the question the cited abstract does not state (the paper was "
        "found; the detail was not). The answer says so and quotes what the abstract does say.",
    )
    not_mentioned: list[str] = Field(
        default_factory=list,
        description="Names and rare words of the question that the paper it names never "
        "uses: a premise the abstract does not share.",
    )
    contradicted: list[str] = Field(
        default_factory=list,
        description="Sentences of the cited abstract that state the opposite of the question's "
        'premise ("why does X raise the variance" where the abstract says it reduces it); '
        "with an LLM, also what its answer says the abstract states instead.",
    )
    invalid_citations_removed: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
    plan: QueryPlan | None = Field(default=None, description="How the question was understood.")
    aggregate: Aggregate | None = Field(
        default=None, description="Set questions: every member, cited."
    )
    suggested_topics: list[SuggestedTopic] = Field(
        default_factory=list,
        description="Named topics the closest papers share, when the question described "
        "its topic in other words: each asks the named question.",
    )


class ChatMessage(BaseModel):
    role: Literal["user", "assistant", "system"]
    content: str
