"""Questions about papers as a set that a plain reading gets wrong: people with a paper of
each of two statuses, a set less the papers about a topic it negates, institutions ranked
by a share of their papers rather than their number, papers with no affiliation, where
one person is from.

Each reading takes the question and the parser's own `read` (question in, plan out), and
returns the plan it means, or None when the question is not of its kind."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from rag.plan.rankings import PLACE_RANKINGS
from rag.types import PlanConstraints, QueryPlan

Read = Callable[[str], QueryPlan]

# people with papers of two statuses: "Which authors had both an oral and a spotlight?",
# "Who presented an oral as well as a poster?"
_EACH_STATUS = re.compile(
    r"\b(?:which|what|who|how\s+many|(?:did|does|do|was|were|is|are)\s+(?:there\s+)?any)\b[^?]*?"
    r"\b(?:authors?|researchers?|people|persons|who|names|anyone|anybody|someone)\b"
    r"[^?]*?\b(?:both\s+)?(?:an?\s+|at\s+least\s+one\s+)?(?:oral|spotlight|poster)s?\s+"
    r"(?:and|as\s+well\s+as|plus)\s+(?:also\s+)?(?:an?\s+|at\s+least\s+one\s+)?"
    r"(?:oral|spotlight|poster)s?\b",
    re.I,
)
# papers with no affiliation at all: "list no affiliation", "without any affiliations",
# "whose affiliations are missing"
_NO_AFFILIATION = re.compile(
    r"\b(?:list(?:s|ing)?\s+|with\s+|have\s+|has\s+)?(?:no|without(?:\s+any)?|missing|lacking|"
    # "papers that don't have any affiliation listed"
    r"(?:don['’]t|doesn['’]t|do\s+not|does\s+not)\s+(?:have|list|give)\s+(?:any\s+|an\s+)?)\s*"
    r"(?:listed\s+)?affiliations?\b"
    # "no affiliation with industry", "in China": a kind or place, not an empty list
    r"(?!\s+(?:with|from|at|to)\b|\s+in\s+(?!the\s+(?:data|metadata|corpus|catalog|records)))"
    r"(?:\s+(?:information|info|data|details))?(?:\s+(?:at\s+all|listed))?"
    # "… in the data", "… in the metadata": where it is missing, no topic
    r"(?:\s+(?:in|from)\s+the\s+(?:data(?:set|base)?|metadata|corpus|catalog(?:ue)?|records?))?"
    r"|\b(?:whose\s+)?affiliations?\s+(?:is\s+|are\s+)?(?:missing|empty|blank|not\s+listed)\b",
    re.I,
)
# a topic the papers are said not to be about: "(that) are not about robotics", "unrelated
# to vision"
_NOT_ABOUT = re.compile(
    r"\s*,?\s*(?:but\s+)?(?:(?:that|which)\s+)?(?:(?:are|is|were|was|do|does|did)\s+)?"
    r"(?:not|n['’]t|aren['’]?t|weren['’]?t|don['’]?t|doesn['’]?t|didn['’]?t|isn['’]?t)\s+"
    r"(?:about|on|related\s+to|concerning|in\s+the\s+area\s+of|focused\s+on|involve|use|"
    r"study|address|apply)\s+"
    r"(?P<topic>[^?.!,;]+?)\s*(?=[?.!,;]|$)"
    r"|\s*,?\s*(?:(?:that|which)\s+)?(?:(?:are|is|were|was)\s+)?unrelated\s+to\s+"
    r"(?P<topic2>[^?.!,;]+?)\s*(?=[?.!,;]|$)"
    # "… but are NOT forecasting", "(not vision)", "…, not vision": a topic said plainly
    r"|\s*,?\s+but\s+(?:are|is|were|was)\s+not\s+(?!about\b|on\b|related\b)"
    r"(?P<topic4>(?-i:[a-zA-Z])[^?.!,;]*?)\s*(?=[?.!,;]|$)"
    r"|\s*\(\s*not\s+(?P<topic5>(?-i:[a-z])[^()]*?)\s*\)"
    r"|\s*,\s+not\s+(?!(?:counting|including|from|at|by|in)\b)(?P<topic6>(?-i:[a-z])[^?.!,;()]*?)"
    r"\s*(?=[?.!;]|$)"
    # "graph neural networks but not transformers" (a name, "but not GPT-3.5", is a mention)
    r"|\s*,?\s+but\s+not\s+(?:about\s+|on\s+)?(?!(?:in|as|at|from|by|with|first|last|second|"
    r"third|the|a|an|both|all|any)\b)(?P<topic3>(?-i:[a-z])(?![^?.!,;]*\b(?:position|author|"
    r"authors)\b)[^?.!,;]*?)\s*(?=[?.!,;]|$)",
    re.I,
)
# a claim the papers make, whose own "not" negates nothing about them
_A_FINDING = re.compile(
    r"\b(?:show|shows|showing|shown|find|finds|finding|found|claim|claims|argue|argues|prove|"
    r"proves|demonstrate|demonstrates|suggest|suggests|report|reports|conclude|concludes)\s+"
    r"(?:that|how|why|whether)\b",
    re.I,
)
# an institution ranked by a share of its papers: "the highest share of orals", "the best
# oral rate", "the largest fraction of its papers as spotlights"
_BY_SHARE = re.compile(
    r"\b(?:the\s+)?(?:highest|largest|biggest|greatest|best|top)\s+(?:(?P<status>oral|spotlight|poster)\s+)?"
    r"(?:shares?|fractions?|proportions?|percentages?|percent|rates?|ratios?)(?:\s+of)?\b",
    re.I,
)


# the words titles write most: "What is the most common word in titles?", "the top 5 title
# words among the orals"
_TITLE_WORDS_RANKED = re.compile(
    r"\b(?:(?:the\s+)?(?:most\s+(?:common|frequent|frequently\s+used|used|popular)|commonest|top)"
    r"(?:\s+(?P<n>\d{1,2}))?\s+(?:title\s+)?words?\b(?=[^?]*\btitles?\b)"
    r"|\b(?:the\s+)?top\s+(?P<n2>\d{1,2})\s+title\s+words\b)",
    re.I,
)


# where one person is from: "Where is Volkan Cevher from?", "What is Yuandong Tian's
# affiliation?", "Which institution is Sergey Levine at?", "Who does X work for?"
_WHERE_FROM = re.compile(
    r"\bwhere\s+(?:is|are|was|were|does|do|did)\b[^?]*?\b(?:from|based|work(?:s|ing|ed)?)\b"
    r"|['’]s?\s+(?:current\s+|home\s+|listed\s+)?(?:affiliations?|institutions?|employers?)\b"
    r"|\b(?:what|which)\s+(?:is\s+|are\s+|was\s+)?(?:the\s+)?(?:affiliations?|institutions?|"
    r"universit(?:y|ies)|compan(?:y|ies)|organi[sz]ations?|employers?)\s+(?:is|are|was|were|"
    r"does|do|did|of|for)\b"
    r"|\bwho\s+(?:does|did)\b[^?]*\bwork\s+for\b|\baffiliations?\s+(?:of|for)\b",
    re.I,
)
# a second question after the first: "Where does Yoshua Bengio work and what does he
# work on?", "Which authors work on X and what methods do they propose?"
_ASKS_MORE = r"\band\s+(?:what|which|how|who|where|why|when)\b"
# "where are X's co-authors from": other people's places, not the one named
_OTHERS = re.compile(
    rf"\b(?:co-?authors?|authors|collaborat\w*|students?|team|group|lab)\b|{_ASKS_MORE}", re.I
)


def affiliations_asked(question: str, read: Read) -> QueryPlan | None:
    """ "Where is Volkan Cevher from?": the affiliations listed beside one author's name."""
    if not _WHERE_FROM.search(question) or _OTHERS.search(question):
        return None
    plan = read(question)
    c = plan.constraints
    if len(c.authors) != 1 or c.affiliations or c.any_of or plan.ranking or plan.statistic:
        return None
    name = c.authors[0]
    typed = next((t for t, n in c.read_as.items() if n == name), name)
    if len(typed.split()) < 2 or typed.casefold() not in question.casefold():
        return None  # "Where does Adam work well?": a family name alone is no person asked
    if plan.written_by or plan.like_paper or plan.unresolved:
        return None  # "Where are the authors of GaLore from?": that paper's byline
    kept = PlanConstraints(authors=list(c.authors), statuses=list(c.statuses))
    return QueryPlan(kind="metadata", constraints=kept, affiliation_of=True)


# people asked by what they work on: "Who works on machine unlearning?", "which authors
# work on X? give names", "who published the most on graph neural networks"
_WHO_WORKS = re.compile(
    r"^\s*(?:who|which\s+(?:authors?|researchers?|people|scientists|names))\s+"
    r"(?:(?:is|are)\s+(?:the\s+)?(?:(?:main|leading|key|top|most\s+active|active|prominent)\s+)?"
    r"(?:researchers?|authors?|people|names)?\s*)?"
    r"(?:works?|working|research(?:es|ing)?|publish(?:es|ing)?|(?:published|wrote)(?=\s+the\s+most)|"
    r"writes|focus(?:es|ing)?|specializ\w+|specialis\w+|does\s+research|do\s+research)\s+"
    r"(?:the\s+most\s+(?:papers\s+)?)?(?:on|about|in)\s+(?P<topic>[^?.;]+?)\s*(?:[?.;]|$)",
    re.I,
)


_SECOND_ASKED = re.compile(rf",\s*and\b|{_ASKS_MORE}", re.I)


def who_works_on(question: str, read: Read) -> QueryPlan | None:
    """ "Who works on machine unlearning?": the authors with the most papers about it."""
    said = _WHO_WORKS.search(question)
    if said is None or re.search(r"\bpapers?\b", said.group("topic"), re.I):
        return None  # "Who works on the Medusa paper?": its byline
    if _SECOND_ASKED.search(said.group("topic")):
        return None  # "… and what methods do they propose?": more than a ranking
    plan = read(f"Which authors had the most papers on {said.group('topic')}?")
    if plan.ranking != "authors" or not plan.topic:
        return None
    return plan


# the topics of someone's papers: "What topics does Sergey Levine work on?", "what areas
# do MIT's spotlights cover": their papers, whose titles say it (no topic labels exist)
_TOPICS_OF = re.compile(
    r"^\s*(?:what|which)\s+(?:research\s+)?(?:topics?|areas?|subjects?|themes?|fields?|"
    r"directions?)\s+(?:do|does|did)\s+(?P<who>.+?)\s+(?:cover|span|address|work\s+on|"
    r"focus\s+on|study|tackle|research|publish\s+on|write\s+about)\b[^?]*\??\s*$",
    re.I,
)
_PAPER_NOUN = re.compile(r"\b(?:papers|orals|spotlights|posters|work)\s*$", re.I)


def topics_of(question: str, read: Read) -> QueryPlan | None:
    """ "What topics does Sergey Levine work on?": his papers (their titles say it)."""
    said = _TOPICS_OF.match(question)
    if said is None:
        return None
    who = said.group("who").strip()
    plan = read(f"List {who}" if _PAPER_NOUN.search(who) else f"List {who}'s papers")
    c = plan.constraints
    if plan.kind != "metadata" or plan.topic or not (c.authors or c.affiliations):
        return None
    return plan


def title_words_ranked(question: str, read: Read) -> QueryPlan | None:
    """ "What is the most common word in titles?": the words most titles write."""
    said = _TITLE_WORDS_RANKED.search(question)
    if said is None:
        return None
    rest = f"{question[: said.start()]} papers {question[said.end() :]}"
    rest = re.sub(
        r"\b(?:in|of|across|among)\s+(?:the\s+|their\s+)?titles?\b", " ", rest, flags=re.I
    )
    plan = read(rest)
    if plan.kind != "metadata" or plan.ranking or plan.statistic:
        return None
    top = int(said.group("n") or said.group("n2") or 10)
    return plan.model_copy(update={"ranking": "title_words", "top": top})


def with_each_status(question: str, read: Read) -> QueryPlan | None:
    """ "Which authors had both an oral and a spotlight?": the names with a paper of each."""
    if not _EACH_STATUS.search(question):
        return None
    both = read(question)
    if both.kind != "metadata" or len(both.constraints.statuses) < 2 or both.topic:
        return None
    each: dict[str, object] = {"ranking": "authors", "each_status": True}
    return both.model_copy(update={**each, "at_least": 1, "top": 0})


def not_about(question: str, read: Read) -> QueryPlan | None:
    """The papers a question's names select, less those about a topic it negates ("… by
    Sergey Levine are not about robotics"): the names' plan, with the topic apart."""
    said = _NOT_ABOUT.search(question)
    if said is None:
        return None
    if _A_FINDING.search(question[: said.start()]):
        return None  # "papers that show that LLMs do not use their full context": a claim
    rest = f"{question[: said.start()]}{question[said.end() :]}".strip()
    plan = read(rest if rest.endswith("?") else f"{rest}?")
    c = plan.constraints
    found = ("topic", "topic2", "topic3", "topic4", "topic5", "topic6")
    topic = next(said.group(g) for g in found if said.group(g)).strip()
    # "not about deep learning at all", "don't use any neural networks": the topic
    topic = re.sub(r"(?i)^(?:any|the)\s+|\s+(?:at\s+all|whatsoever)$", "", topic).strip()
    if re.match(
        r"(?i)(?:any(?:one|body)|some(?:one|body)|an?\s+author|authors?|people|"
        r"researchers?|co-?authors?)\b",
        topic,
    ) or re.search(r"(?i)\b(?:from|by)\s", topic):
        return None  # "don't involve anyone from KTH": people left out, no topic
    if (said.group("topic5") or said.group("topic6")) and not plan.topic:
        return None  # "CUHK, not shenzhen": a place left out, read with the places
    if plan.kind in ("list", "count") and plan.topic and not (plan.ranking or plan.statistic):
        # "RL papers that are not about robotics": the topic's papers less those about it
        return plan.model_copy(update={"not_about": topic})
    if plan.kind != "metadata" or plan.topic or plan.ranking or plan.statistic:
        return None
    if re.search(r"(?i)\binvolve\b", said.group(0)):
        return None  # "Duke papers that didn't involve Berkeley": a place left out
    if c.text_words and said.group("topic3"):
        # "papers that mention graph neural networks but not transformers": a word too
        more = c.model_copy(update={"not_text_words": [*c.not_text_words, topic]})
        return plan.model_copy(update={"constraints": more})
    # "Which oral papers are not about deep learning?": the orals less those about it; "Which
    # papers don't use neural networks?": every paper less those about it, judged
    return plan.model_copy(update={"not_about": topic})


def by_share(question: str, read: Read) -> QueryPlan | None:
    """An institution ranking by the share of each one's papers with a status ("the highest
    proportion of orals among its papers"), not by their number."""
    said = _BY_SHARE.search(question)
    if said is None:
        return None
    status = f" {said.group('status')}s" if said.group("status") else ""
    ranked = read(f"{question[: said.start()]} most{status} {question[said.end() :]}")
    if ranked.ranking not in PLACE_RANKINGS or not ranked.constraints.statuses:
        return None
    return ranked.model_copy(update={"by_share": True})


def no_affiliation(text: str, constraints: PlanConstraints) -> str:
    """ "How many papers list no affiliation?": into `constraints`; the text without it."""
    said = _NO_AFFILIATION.search(text)
    if said is None:
        return text
    constraints.no_affiliations = True
    return f"{text[: said.start()]} {text[said.end() :]}"


# "authors from both industry and academia", "industry-academia collaborations", "papers with
# an author from industry", "purely academic papers": kinds of institution, read by name
_INDUSTRY = r"(?:industry|industrial|compan(?:y|ies)|corporate|industry\s+labs?)"
_ACADEMIA = r"(?:academia|academic|universit(?:y|ies))"
_BOTH_KINDS = re.compile(
    rf"\b(?:(?:from|by|with|between|involving)\s+)?(?:authors?\s+(?:from|in)\s+)?(?:both\s+)?"
    rf"(?:{_INDUSTRY}\s*(?:and|&|-|–|/)\s*{_ACADEMIA}|{_ACADEMIA}\s*(?:and|&|-|–|/)\s*{_INDUSTRY})"
    r"(?:\s+(?:authors?|co-?authors?|collaborations?|affiliations?|partnerships?))?\b",
    re.I,
)
_ONLY_KIND = re.compile(
    r"\b(?:(?:only|purely|entirely|exclusively|solely)\s+(?:from\s+|by\s+)?(?P<only>academia|academic|"
    r"industry|industrial|compan(?:y|ies))(?:\s+(?:authors?|institutions?|labs?|affiliations?))?"
    r"|(?:from\s+|by\s+)?(?P<only2>academia|industry)\s+(?:authors\s+)?only"
    r"|(?:with\s+)?(?:no|zero)\s+(?P<none>industry|company|academic|university)\s+(?:authors?|"
    r"affiliations?|co-?authors?|coll?aborators?)|without\s+(?:any\s+)?(?P<without>industry|company|"
    r"academic|university)\s+(?:authors?|affiliations?|co-?authors?|coll?aborators?))\b",
    re.I,
)
_ONE_KIND = re.compile(
    r"\b(?:(?:by|from)\s+)?(?:(?:with|having|has|have)\s+)?(?:an?\s+|any\s+)?(?:authors?|"
    r"co-?authors?|people|researchers)\s+(?:from|in|at)\s+(?:an?\s+)?(?P<kind>industry|"
    r"a\s+company|companies|industry\s+labs?|academia)\b"
    r"|\b(?:from|by)\s+(?P<kind2>industry|academia|companies)(?:\s+(?:labs?|researchers|groups))?\b"
    # "industry papers", "academic papers": the papers' affiliations
    r"|\b(?P<kind3>industry|industrial|academic)(?=\s+(?:papers|orals|spotlights|posters)\b)"
    # "an academic co-author", "a university author", "have industry authors": a byline's kind
    r"|\b(?:(?:an?|any|at\s+least\s+one)\s+|(?<=with\s)|(?<=have\s)|(?<=has\s)|(?<=having\s))"
    r"(?P<kind5>academic|university|industry|company)\s+(?:co-?authors?|authors?|affiliations?|"
    r"researchers?|coll?aborators?|partners?)\b"
    # "Which papers from Stanford involve a company?": the kind ends the ask
    r"|\binvolv(?:e|es|ed|ing)\s+(?:an?\s+|any\s+)?(?P<kind8>company|companies|university|universities|"
    r"industry|academia)(?=\s*[?.!,]|\s*$|\s+(?:and|or)\b)"
    # "an affiliation with industry"
    r"|\b(?:an?\s+|any\s+)?affiliations?\s+(?:with|in|from)\s+(?:an?\s+)?(?P<kind7>industry|academia|"
    r"company|university)\b"
    # "both Meta (FAIR) and a university": a kind beside an institution both must list
    r"|(?<=\bboth\b)(?P<both>[^?,;]{1,60}?)\s+and\s+(?:an?\s+|any\s+)?(?P<kind6>academic|university|"
    r"industry|company)(?:\s+(?:co-?authors?|authors?|affiliations?|researchers?))?\b",
    re.I,
)


def _kind(word: str) -> Literal["company", "academic"]:
    return "academic" if re.match(r"(?i)academ|universit", word) else "company"


def institution_kinds(text: str, constraints: PlanConstraints) -> str:
    """ "papers with authors from both industry and academia": the kinds of institution
    the affiliations must (or must not) include, into `constraints`; the text without it.
    The catalogue reads an affiliation as a company or a university by its name."""
    both = _BOTH_KINDS.search(text)
    if both:
        constraints.institution_kinds = ["company", "academic"]
        return f"{text[: both.start()]} {text[both.end() :]}"
    only = _ONLY_KIND.search(text)
    if only:
        if only.group("only") or only.group("only2"):
            kind = _kind(only.group("only") or only.group("only2"))
            constraints.institution_kinds = [kind]
            constraints.without_kinds = ["academic" if kind == "company" else "company"]
        else:
            constraints.without_kinds = [_kind(only.group("none") or only.group("without"))]
        return f"{text[: only.start()]} {text[only.end() :]}"
    one = _ONE_KIND.search(text)
    if one:
        said = one.group("kind") or one.group("kind2") or one.group("kind3")
        said = said or one.group("kind5") or one.group("kind6") or one.group("kind7")
        said = said or one.group("kind8")
        negated = _NEGATED_KIND.search(text[: one.start()])
        if negated:
            # "written without an industry coauthor", "don't have a university author"
            constraints.without_kinds = [_kind(said)]
            return f"{text[: negated.start()]} {text[one.end() :]}"
        else:
            constraints.institution_kinds = [_kind(said)]
        if one.group("kind6"):  # "both Meta and a university": Meta stays, "both" goes
            return f"{text[: one.start()]} {one.group('both')} {text[one.end() :]}"
        return f"{text[: one.start()]} {text[one.end() :]}"
    return text


# a negation right before the kind: "without an industry coauthor", "lack a university author"
_NEGATED_KIND = re.compile(
    r"\b(?:without|no|lacks?|lacking|(?:do|does|did)\s*n['’]?o?t\s+(?:have|include|list|involve)|"
    r"(?:have|has|had)\s+no|never)\s+(?:(?:a|an|any|at\s+least\s+one|with)\s+)?$",
    re.I,
)
