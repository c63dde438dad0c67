"""Comparisons of the papers or methods a question names ("Compare SAMformer and Timer",
"compare the paper that … with MiniLLM"): each name resolved to the paper that introduces
it, each description to the paper that best fits it, and one comparison row per paper,
cited. A name that resolves to no paper is said, never replaced by a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rag.catalogue.catalogue import Catalogue
from rag.sets.answer_rows import article, citation, plain, row, set_answer
from rag.sets.compare import COLUMNS, comparison_cells
from rag.text import NAME, asks_papers, split_sentences
from rag.types import Aggregate, AggregatePaper, Answer, Filters, Paper, QueryPlan

# a verb naming one's own method ("we present", "called"), not a noun ("a recent development")
_INTRODUCES = (
    r"(?:propos(?:e|es|ed|ing)|introduc(?:e|es|ed|ing)|present(?:s|ed|ing)?|develop(?:s|ed|ing)?|"
    r"design(?:s|ed|ing)?|call(?:s|ed)?|dub(?:s|bed)?|name[sd]?|term(?:s|ed)?|coin(?:s|ed)?)"
)
DESCRIBED_WORDS = 4  # a longer reference is a description of a paper, not its name
CONCEPT_PAPERS = 5  # a name more abstracts write than this is a concept, not one paper's
OWN_NAME_USES = 3  # an abstract writing a name this often calls its own method so


@dataclass
class NamedPaper:
    """One thing the question compares, and the paper it was resolved to (None: none)."""

    text: str
    paper: Paper | None
    how: str  # "named" | "described" | "" (unresolved)


Describe = Callable[[str], Paper | None]  # the paper that best fits a description


class NamedPapers:
    def __init__(self, catalogue: Catalogue, describe: Describe) -> None:
        self.catalogue = catalogue
        self.describe = describe

    def resolve(self, text: str) -> NamedPaper:
        named = self.catalogue.named_paper(text) or self._introducing(text)
        if named is None and (written := self.catalogue.written_as(text)):
            # "readagent" typed for the abstract's "ReadAgent"
            named = self.catalogue.named_paper(written) or self._introducing(written)
        if named is not None:
            return NamedPaper(text, named, "named")
        if len(text.split()) >= DESCRIBED_WORDS:
            found = self.describe(text)
            if found is not None:
                return NamedPaper(text, found, "described")
        return NamedPaper(text, None, "")

    def _introducing(self, name: str) -> Paper | None:
        return introducing(self.catalogue, name)


def introducing(catalogue: Catalogue, name: str) -> Paper | None:
    """Of the papers writing `name`, the one that introduces it: its title, or a sentence
    proposing it ("we propose X", "called X"), ahead of every other."""
    found = catalogue.papers_naming(name)
    if len(found) <= 1:
        return found[0] if found else None
    if len(found) > CONCEPT_PAPERS:  # "diffusion models", "GANs": a field's, no paper's
        return None
    scored = sorted(((_introduces(p, name), p.id, p) for p in found), reverse=True)
    best, second = scored[0], scored[1]
    return best[2] if best[0] > second[0] else None


# "What is BASED?", "Which paper introduced MOMENT?", "Explain GaLore in simple terms.":
# what a coined name is, or whose it is, and nothing more
_DEFINED = re.compile(
    # "What are the main results of MOMENT?", "whats the deal with MusicRL", "summarize X"
    r"^\s*(?:what\s+(?:are|were)\s+the\s+(?:(?:main|key|headline|major|core)\s+)?(?:results|"
    r"findings|contributions|takeaways|claims)\s+(?:of|in|from)|what['’]?s\s+the\s+deal\s+with|"
    r"summari[sz]e|give\s+me\s+(?:a\s+)?(?:summary|rundown|tl;?dr)\s+of|"
    r"what\s+(?:is|are|was|does|did)|what['’]s|whats|explain|describe|define|tell\s+me\s+about|"
    r"(?:which|what)\s+(?:icml\s+(?:20)?24\s+)?(?:paper|work|article|abstract)\s+"
    r"(?:(?:at|from|in)\s+icml(?:\s+(?:20)?24)?\s+)?"
    r"(?:first\s+)?(?:introduced|introduces|proposed|proposes|presented|presents|came\s+up\s+"
    r"with|coined|developed)|who\s+(?:introduced|proposed|came\s+up\s+with|developed|created|"
    r"made|wrote))\s+(?:the\s+|an?\s+)?(?:paper\s+)?(?P<name>[^?.!,;]+?)"
    r"(?:\s+(?:paper|method|model|architecture|framework|benchmark|algorithm|approach))?"
    r"(?:\s+stand\s+for|\s+(?:all\s+)?about|\s+(?:propose|introduce|do|contribute|show|find|achieve|report|claim|"
    r"demonstrate))?(?:\s+in\s+(?:simple|plain|layman['’]?s?)\s+(?:terms|english|words)|"
    r"\s+briefly|\s+exactly)?"
    # "…, and how does it work?": what it is, asked again
    r"(?:\s*,?\s+and\s+(?:how\s+does\s+it\s+work|what\s+does\s+it\s+do|what\s+is\s+it\s+"
    r"(?:used\s+)?for|what\s+problem\s+does\s+it\s+(?:tackle|solve|address)|who\s+"
    r"(?:introduced|proposed|wrote)\s+it))?\s*[?.!]*\s*$",
    re.I,
)
DEFINED_WORDS = 3  # a longer name is a description ("What is the best optimizer for GANs?")


_ATTRIBUTED = re.compile(
    r"\b(?:introduced|introduces|proposed|proposes|came\s+up\s+with|coined|developed|invented"
    r"|created)\b",
    re.I,
)
EARLIER_SHOWN = 3  # the papers an answer about earlier work cites
EARLIER_PAPERS = 3  # abstracts writing a name, none proposing it: earlier work


# "What's the KIVI paper's compression result?", "What are GaLore's main findings?": what
# one named paper reports, asked of it
_OWNED_RESULT = re.compile(
    r"^\s*what(?:['’]s|\s+is|\s+are|\s+were)\s+(?:the\s+)?(?P<name>[^?'’]{1,40}?)(?:\s+paper)?['’]s?\s+"
    r"(?:main\s+|key\s+|headline\s+|reported\s+)?(?:[\w-]+\s+){0,2}(?:results?|findings?|"
    r"contributions?|conclusions?|claims?)\s*[?.!]*\s*$",
    re.I,
)


def _coined_asked(question: str, attributed: bool = False) -> str:
    """The coined name a question asks to define ("What is BASED?"), or with `attributed`
    whose it is ("Which paper introduced Mamba?"); "" when it asks otherwise, or names a
    word ("what is attention") or a description rather than a name."""
    owned = _OWNED_RESULT.match(question) if not attributed else None
    if owned is not None:
        name = owned.group("name").strip(" '\"“”‘’*")
        if name and len(name.split()) <= DEFINED_WORDS and re.search(r"[A-Z]", name):
            return name
    found = _DEFINED.match(question)
    if found is None or (attributed and not _ATTRIBUTED.search(question[: found.start("name")])):
        return ""
    name = found.group("name").strip(" '\"“”‘’*")
    if not name or len(name.split()) > DEFINED_WORDS or not re.search(r"[A-Z]", name):
        return ""
    return name


def earlier_work(
    question: str, standalone: str, plan: QueryPlan, catalogue: Catalogue
) -> Answer | None:
    """ "Which paper introduced Mamba?": a name many abstracts write and none introduces is
    earlier work; said so, with the papers that use it most, rather than one of them quoted
    as if it were the origin."""
    name = _coined_asked(standalone, attributed=True)
    if not name or catalogue.headed(name) is not None:
        return None
    papers = catalogue.papers_naming(name)
    word = _as_word(name)
    proposed = any(_proposes(p, word) for p in papers)
    if len(papers) < EARLIER_PAPERS or (len(papers) <= CONCEPT_PAPERS and proposed):
        return None  # one of a few may well introduce it: the cited answer reads them
    papers.sort(key=lambda p: (-len(re.findall(word, f"{p.title} {p.abstract}")), p.id))
    rows = [
        row(n, p, next((s for s in split_sentences(p.abstract) if re.search(word, s)), ""))
        for n, p in enumerate(papers[:EARLIER_SHOWN], start=1)
    ]
    shown = ", ".join(f"*{plain(r.title)}* [{r.n}]" for r in rows)
    text = (
        f"No ICML 2024 abstract introduces {name}: {len(papers)} abstracts write it as "
        f"earlier work they use or build on, among them {shown}."
    )
    aggregate = Aggregate(kind="metadata", count=len(papers), exact=True, papers=rows)
    cited = [citation(r) for r in rows]
    return set_answer(question, standalone, plan, text, cited, aggregate, abstained=True)


def _proposes(paper: Paper, word: str) -> bool:
    """Whether a sentence of the abstract writes the name beside a verb proposing it, or as
    the short name of "our" method ("we test our Score Entropy … models (SEDD)")."""
    # the name a few words after the verb ("we present a new method---the Simformer"), not
    # far along a list ("presents an evaluation … of OPT, LLaMA2, Falcon, …")
    near = rf"\b{_INTRODUCES}\b(?:\s+\S+){{0,{PROPOSED_WITHIN}}}?\s+\S*?{word}"
    return any(
        not re.search(r"(?i)\b(?:including|such as|e\.g\.|like)\b[^.;]*" + word, s)
        and (
            re.search(near, s, re.I)
            or re.search(rf"\bour\b[^.]*\([\s*]*{word}", s, re.I)  # "our … models (SEDD)"
            or re.search(rf"\bas\s+an?\s+[\"“']?{word}", s)  # "(as an “LMulator”)"
        )
        for s in split_sentences(paper.abstract)
    )


def _loosely(name: str) -> str:
    """The name as a word set off by anything but letters and digits ("---the Simformer---"),
    not a part of another name ("MAML-based")."""
    return rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9]|-(?:based|style|like|inspired))"


PROPOSED_WITHIN = 6  # words between a proposing verb and the name it proposes


# "What is the spotlight paper Genie about?", "the Vision Mamba oral paper": a status said of
# a paper the question names, which only narrows, or is wrong
_STATUS_OF_NAMED = re.compile(
    r"\bthe\s+(?P<status>oral|spotlight|poster)(?:\s+(?:paper|work|presentation))?\s+"
    r"(?P<name>[A-Z][\w+-]*(?:\s+[A-Z][\w+-]*){0,2})(?![\w+-])"
    r"|\bthe\s+(?P<name2>[A-Z][\w+-]*(?:\s+[A-Z][\w+-]*){0,2})\s+(?P<status2>oral|spotlight|"
    r"poster)(?:\s+paper)?\b",
)


@dataclass
class StatusSaid:
    question: str  # the question without the status ("What is the paper Genie about?")
    paper: Paper
    said: str  # the status the question gave it ("spotlight")


def status_said(question: str, catalogue: Catalogue) -> StatusSaid | None:
    """A status the question gives a paper it names by its title's opening: taken out of
    the question (it picks no set), with the status said, to be checked against the
    paper's own."""
    found = _STATUS_OF_NAMED.search(question)
    if found is None:
        return None
    name = found.group("name") or found.group("name2")
    status = (found.group("status") or found.group("status2")).lower()
    paper = catalogue.headed(name)
    if paper is None:
        return None
    plain_ = f"the paper {name}" if found.group("name") else f"the {name} paper"
    rest = f"{question[: found.start()]}{plain_}{question[found.end() :]}"
    return StatusSaid(rest, paper, status)


# "The I/O complexity paper: what does it prove, and is it an oral?", "which environments
# does X test on? is it a spotlight?": a status asked of the one paper the rest asks about
_STATUS_OF_IT = re.compile(
    r"(?:\s*\?\s*|\s*[,;:—–]\s*(?:and\s+|but\s+)?|\s+and\s+|\s+-\s+)(?:also\s+)?"
    r"(?:(?:is|was)\s+(?:it|this|that)(?:\s+(?:paper|one|work))?\s+(?:(?:accepted|selected|"
    r"presented)\s+as\s+)?|did\s+(?:it|this|that)(?:\s+(?:paper|one|work))?\s+(?:get|receive|"
    r"win)\s+)(?:an?\s+)?(?P<status>oral|spotlight|poster)(?:\s+(?:paper|or\s+not))?\s*[?.!]*\s*$",
    re.I,
)


@dataclass
class StatusOfIt:
    question: str  # the question without the status asked ("… what does it prove?")
    said: str  # the status asked ("oral")
    asked: str  # the question as asked, status and all


# "What is GaLore about? Any spotlights?": after a question about one paper, its status
_ANY_STATUS = re.compile(
    r"(?:\s*\?\s*|\s*[,;:—–]\s*(?:and\s+)?|\s+-\s+)(?:and\s+)?(?:(?:is|was)\s+it\s+)?(?:an?|any)\s+"
    r"(?P<status>oral|spotlight|poster)s?(?:\s+or\s+not)?\s*[?.!]*\s*$",
    re.I,
)


def status_of_it(question: str) -> StatusOfIt | None:
    """A status asked after a question about one paper ("…, and is it an oral?", "What is
    GaLore about? Any spotlights?"), taken off to be said of the paper the rest is answered
    from; None where none is asked or the rest asks no question of its own."""
    found = _STATUS_OF_IT.search(question)
    if found is None and (any_ := _ANY_STATUS.search(question)):
        found = any_ if not asks_papers(question[: any_.start()]) else None
    rest = question[: found.start()].rstrip(" ,;:—–-") if found else ""
    if found is None or len(rest.split()) < 3:
        return None
    if re.match(r"(?i)\s*(?:which|what)\s+(?:paper|work|one|ICML)\b", rest):
        return None  # "Which paper introduces …, and is it an oral?": the status picks it
    return StatusOfIt(f"{rest.rstrip('?.! ')}?", found.group("status").lower(), question)


def _status_was(paper: Paper, said: str) -> str:
    """ "*Genie* was an oral at ICML 2024", and ", not a spotlight" where `said` is not it."""
    own = paper.status.lower()
    was = f"*{plain(paper.title)}* was {article(own)} {own} at ICML 2024"
    return was if own == said else f"{was}, not {article(said)} {said}"


def status_of_it_note(asked: StatusOfIt, paper: Paper, n: int) -> str:
    """ "Yes: *X* was an oral at ICML 2024 [1].", or "No: … a poster …, not a spotlight [1]."."""
    held = paper.status.lower() == asked.said
    return f"{'Yes' if held else 'No'}: {_status_was(paper, asked.said)} [{n}]."


def status_note(said: StatusSaid) -> str:
    """ "*Genie* was an oral at ICML 2024, not a spotlight.", or "" where the status holds."""
    if said.paper.status.lower() == said.said:
        return ""
    return f"{_status_was(said.paper, said.said)}."


def without_owners(question: str, people: list[str], places: list[str]) -> str:
    """The question without the people and places whose papers it is asked among ("What
    does the paper by Collin Burns on weak supervision find?" → "What does the paper on
    weak supervision find?"): the filters keep to their papers, and a name in the text
    would be read as something an abstract should write."""
    text = question
    for name in [*people, *places]:
        parts = [re.escape(w) for w in name.split()]
        whole = r"[\s,]+".join(parts)
        said = f"(?:{whole}|{parts[-1]})" if name in people else f"(?:{whole})"
        text = re.sub(
            rf"\s*\b(?:by|from|of|at)\s+(?:the\s+)?{said}(?:['’]s)?\b|\b{said}['’]s\b|\b{said}\b",
            " ",
            text,
            flags=re.I,
        )
    return re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def defined_asked(question: str, catalogue: Catalogue) -> Paper | None:
    """The one paper whose coined name the question asks to define or attribute ("What is
    BASED?": the paper proposing BASED), when the name opens its title or its abstract
    introduces it and no other abstract proposes or keeps using it; else None."""
    name = _coined_asked(question)
    if not name:
        return None
    paper = catalogue.headed(name)
    if paper is None:  # "How Optimal is FlashAttention?" writes it, proposes it not
        # "What is Falcon?": a paper that lists Falcon among the models it tests is not
        # Falcon's; the abstract must propose it ("we present the Simformer", "our … (SEDD)")
        paper = introducing(catalogue, name)
        paper = paper if paper is not None and _proposes(paper, _loosely(name)) else None
    if paper is None or _proposed_elsewhere(catalogue, paper, name):
        return None
    return paper


def _introduces(paper: Paper, name: str) -> float:
    word = _as_word(name)
    score = 3.0 if re.search(word, paper.title) else 0.0
    for sentence in split_sentences(paper.abstract):
        if re.search(word, sentence) and re.search(rf"\b{_INTRODUCES}\b", sentence, re.I):
            score += 2.0
            break
    return score + 0.1 * len(re.findall(word, paper.abstract))


# "which paper improves on Medusa?", "papers that build on KTO": asks for other papers
_ASKS_WHICH = re.compile(
    r"\b(?:which|what|any|other|another)\s+(?:other\s+)?(?:papers?|works?|methods?|approaches|"
    r"studies|articles?)\b|\b(?:papers?|works?|methods?|approaches)\s+(?:that|which|where)\b"
    # "apart from EAGLE, how else …", "alternatives to Medusa", "what builds on DoRA"
    r"|\b(?:apart\s+from|besides|other\s+than|except|instead\s+of|alternatives?\s+to|how\s+else|"
    r"build(?:s|ing)?\s+(?:on|upon)|improv(?:e|es|ing)\s+(?:on|upon)|extend(?:s|ing)?|beyond)\b",
    re.I,
)


def papers_named(question: str, catalogue: Catalogue) -> list[Paper]:
    """The papers a question asks about by the coined name opening their title ("LoRA+",
    "DoRA" of "DoRA: Weight-Decomposed Low-Rank Adaptation", "Vision Mamba") or proposed
    in their abstract and asked as a paper's ("the KTO paper"). None when it asks which
    paper (another one) does something, when a name is also proposed by another paper
    ("LESS"), or when it names another paper it does not resolve so: asked of several
    papers, it keeps them all."""
    if _ASKS_WHICH.search(question):
        return []
    # a title's opening of two or three words ("Vision Mamba") is looked up whole first
    titled = _titled(question, catalogue, longest=3)
    taken = {w for span in titled for w in span.split()}
    found: dict[str, Paper] = {}
    for span, opened in titled.items():
        if _proposed_elsewhere(catalogue, opened, span):
            return []
        found.setdefault(opened.id, opened)
    unheaded: list[str] = []
    for match in _NAMED.finditer(question):
        name = match.group(0)
        if name in taken:
            continue
        paper = catalogue.headed(name)
        if paper is None and _asked_as_paper(name, question):
            paper = _proposing(catalogue, name)  # "the KTO paper": its abstract's name
        if paper is None:
            unheaded.append(name)  # a concept ("Bradley-Terry"), or another paper's name
            continue
        if _proposed_elsewhere(catalogue, paper, name):
            return []
        found.setdefault(paper.id, paper)
    # "What do LoRA+ and Aug-PE each do?": another paper proposes a name asked beside it
    if found and any(_proposing(catalogue, name) is not None for name in unheaded):
        return []
    return list(found.values())


def titled_in(question: str, catalogue: Catalogue) -> list[str]:
    """The papers a question names by two or more words opening their titles ("Vision
    Mamba", "the Long Is More paper"): named beyond doubt, they lead the sources."""
    return sorted({p.id for p in _titled(question, catalogue, longest=4).values()})


def _titled(question: str, catalogue: Catalogue, longest: int) -> dict[str, Paper]:
    """Runs of two to `longest` capitalised words naming a paper: its title's whole name
    ("Vision Mamba"), or three words or more opening it ("Long Is More" of "Long Is More
    for Alignment: …")."""
    runs = [m.group(0).split() for m in _TITLED.finditer(question)]
    spans = [" ".join(r[i:j]) for r in runs for i in range(len(r))
             for j in range(i + 2, i + longest + 1) if j <= len(r)]  # fmt: skip
    titled = {span: paper for span in spans if (paper := catalogue.headed(span)) is not None}
    titled |= {
        span: paper
        for span in spans
        if span not in titled and (paper := catalogue.opening(span)) is not None
    }
    return titled


def _asked_as_paper(name: str, question: str) -> bool:
    """ "the KTO paper", "KTO's": the name asked as a paper's."""
    return re.search(rf"{re.escape(name)}(?:\s+paper|['’]s)\b", question) is not None


def _as_word(name: str) -> str:
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])"


# a coined name: "KTO", "DoRA", "LoRA+", "tinyBenchmarks", "Medusa" after a lower-case word
_NAMED = re.compile(
    rf"(?:(?<![\w-])[A-Z][a-z]+-[A-Z][\w-]*|{NAME.pattern}|(?<![\w-])[a-z]+[A-Z][\w-]*)\+?"
)  # "Aug-PE" too


def _proposing(catalogue: Catalogue, name: str) -> Paper | None:
    """The one paper whose abstract proposes `name` ("We call this approach KTO"), where
    others only write it."""
    found = [p for p in catalogue.papers_naming(name) if _introduces(p, name) >= 2]
    return found[0] if len(found) == 1 else None


_TITLED = re.compile(r"(?<![\w-])[A-Z][\w-]*(?:\s+[A-Z][\w-]*)+(?![\w-])")


def _proposed_elsewhere(catalogue: Catalogue, paper: Paper, name: str) -> bool:
    """Another abstract proposes a method of the same name ("LESS" for a KV cache), or
    uses it as its own: spelt out before it in brackets, or written again and again."""
    word = _as_word(name)
    return any(
        other.id != paper.id
        and (
            _introduces(other, name) >= 2
            or f"({name})" in other.abstract
            or len(re.findall(word, other.abstract)) >= OWN_NAME_USES
        )
        for other in catalogue.papers_naming(name)
    )


def pinned(question: str, catalogue: Catalogue, filters: Filters | None) -> list[str]:
    """The papers a cited answer keeps to: those the question names, when it names any
    ("what datasets does LoRA+ use" is asked of LoRA+, not of a paper that writes
    "datasets" and "LoRA"), and the caller's filters leave them all; else none."""
    named = papers_named(question, catalogue)
    if filters is not None and not all(filters.accepts(p) for p in named):
        return []
    return [p.id for p in named]


def named_comparison(
    question: str, plan: QueryPlan, standalone: str, resolved: list[NamedPaper]
) -> Answer:
    """One row per resolved paper (in the question's order, each once), every cell quoted
    from its abstract; names that resolved to nothing are said first."""
    papers: list[tuple[NamedPaper, Paper]] = []
    for item in resolved:
        if item.paper is not None and all(item.paper.id != p.id for _, p in papers):
            papers.append((item, item.paper))
    rows = [_row(n, item, paper) for n, (item, paper) in enumerate(papers, start=1)]
    missing = [item.text for item in resolved if item.paper is None]
    lines = []
    if missing:
        names = " or ".join(f"“{m}”" for m in missing)
        lines.append(f"No ICML 2024 abstract names or fits {names}.")
    if rows:
        lines.append(
            f"{'Compared' if len(rows) > 1 else 'Found'} side by side — each paper's problem, "
            "method and main finding, quoted from its abstract:"
        )
        lines += [_line(r) for r in rows]
    aggregate = Aggregate(
        kind="compare", count=len(rows), exact=False, papers=rows, columns=list(COLUMNS)
    )
    return set_answer(
        question,
        standalone,
        plan,
        "\n".join(lines),
        [citation(r) for r in rows],
        aggregate,
        backend="comparison",
        mode="catalogue",
        abstained=not rows,
    )


def _row(n: int, item: NamedPaper, paper: Paper) -> AggregatePaper:
    how = "named" if item.how == "named" else "described"
    why = f"{how} in the question as “{item.text}”"
    cells = comparison_cells(paper.abstract)
    return row(n, paper, why).model_copy(update={"membership": "named", "cells": cells})


def _line(r: AggregatePaper) -> str:
    parts = [f"{name}: “{r.cells[name]}”" for name in COLUMNS if r.cells.get(name)]
    said = " ".join(parts) if parts else "its abstract states no problem, method or finding"
    return f"- *{plain(r.title)}* [{r.n}] — {said}"
