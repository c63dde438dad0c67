"""Premises an abstract goes against: the question supposes one thing, a sentence says another.

"Why does X slow training down" against "X speeds training up", "three algorithms"
against "two algorithms are proposed", "90% accuracy" against "80.1% accuracy", "the first
to …" asked as "which earlier …", a rare word of the question written only about earlier
work. Each returns the sentence that says otherwise, which the answer quotes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answer.claims import ASKING, CONTRASTING, EARLIER
from rag.answer.credited import (
    credited_elsewhere,
    first_credited,
    first_of_its_kind,
    none_exists,
    of_earlier_work,
)
from rag.answer.misstated import miscounted, misnumbered, misquoted
from rag.answer.question_parts import initials, stems_match
from rag.answer.swapped import swapped_roles
from rag.text import content_terms

# Read one way only: a federated paper is compared with centralized training all the time,
# but a question saying "centralized" of a federated paper has its premise wrong.
_CENTRALIZED = (r"centralized|centralised", r"decentralized|decentralised|federated")
# "always harmful" against "either beneficial or harmful …", one way only.
_ALWAYS = (
    r"always",
    r"either\b[^.;]*\bor|depending on|depends on|not always|['’]t always|in some cases",
)
# "a high ROC AUC guarantees a high PR AUC" against "does not necessarily imply", one way
_IMPLIES = (
    r"guarantees|ensures|implies",
    r"(?:does|do|need)\s+not\s+necessarily\s+(?:imply|guarantee|ensure|mean|lead\s+to)|"
    r"need\s+not\s+(?:imply|mean)",
)
_ONE_WAY = (_CENTRALIZED, _ALWAYS, _IMPLIES)
# Kinds of input a paper is about one of, though it may name the other ("for both
# continuous and discrete"): said otherwise only when the abstract never writes the asked one.
_CONTINUOUS = (r"continuous", r"categorical|discrete")
_BANDIT = (r"semi-bandit", r"full-bandit|full bandit")
_DEPTH = (r"rgb-?d|stereo", r"monocular")
# Papers on learning without labels write about labeled data too.
_SUPERVISION = (
    r"(?<!-)supervised|(?<!-)labeled|labelled",
    r"unsupervised|self-supervised|unlabeled|unlabelled|label-free|weakly[- ]supervised|"
    r"weak (?:supervision|annotations?|labels?)",
)
# "a positive externality" against "a negative externality", not where "positive pairs"
# are written beside "negative pairs"
_SIGN = (r"positive", r"negative")
# "has to send many queries" against "with merely one or a few queries"
_MANY = (  # one way: "a single" in a question is too often a plain article
    r"(?<!how )(?<!so )(?<!as )(?<!of )(?:many|numerous|lots of|a large number of)",
    r"(?:(?:only|merely|just)\s+(?:one|a few|a single|a handful of)(?:\s+or\s+a\s+few)?|"
    r"(?:merely|only)\s+one\s+or\s+a\s+few)(?![\w-])",
)
_AVOIDED = re.compile(
    r"\b(?:avoid\w*|prevent\w*|mitigat\w*|reduc\w*|without|no|eliminat\w*)\W+(?:\w+\W+)?$"
)
_COVERING = re.compile(r"\b(?:both|general|arbitrary|any)\b")
_UNLESS_WRITTEN = frozenset(
    t for pair in (_SUPERVISION, _CONTINUOUS, _DEPTH, _BANDIT) for t in (pair, (pair[1], pair[0]))
)
# A premise and an abstract that go opposite ways: "end up with higher variance" against
# "reduce variance", "fall behind DT" against "outperform DT", "NP-hard" against "polynomial".
_DIRECTIONS = (
    (
        r"higher|larger|greater|stronger|more|increases?|increased|increasing|grows?|worsens?|"
        r"rais(?:e|es|ed|ing)|inflated|overestimat(?:e|es|ed|ing)",
        r"lower|smaller|weaker|fewer|less|reduces?|reduced|reducing|decreases?|decreased|shrinks?|"
        r"sav(?:es?|ed|ings?)|lowers?|lowering|deflated|underestimat(?:e|es|ed|ing)",
    ),
    _SIGN,
    _MANY,
    (
        r"worse|falls? behind|underperforms?|lags? behind|fails? to|degrades?|hurts?|"
        r"los(?:e|es|ing) (?:performance|accuracy)",
        r"better|outperforms?|surpass(?:es)?|beats?|improves?|improved|superior|enhanced",
    ),
    (r"shorter|shortens?|shortened", r"longer|lengthens?|lengthened"),
    (
        r"slower|more slowly|slows?(?: down)?|slowed(?: down)?",
        r"faster|more quickly|speeds? up|sped up|accelerat(?:es?|ed|ing)|"
        r"increase[sd]? (?:in )?(?:both )?(?:the )?(?:convergence )?speed",
    ),
    # "the cluster number K it requires as input" against "free from the input of a
    # predefined cluster number"
    (
        r"requires?|required|requiring|needs?|relies? on",
        r"free from|without (?:requiring|needing)|no need (?:for|of)|does not (?:require|need)|"
        r"eliminat(?:es?|ing) the need",
    ),
    # "how quickly does it grow with the number of objectives" against "independent of the
    # number of objectives"
    (
        r"grows? with|scales? with|increases? with|depends? on|grow as|"
        r"(?:linear|linearly|quadratic|quadratically|polynomial|polynomially) in",
        r"independent of|does not depend on|regardless of|free of",
    ),
)
_OPPOSITES = (
    *_DIRECTIONS,
    (r"np-hard|intractable|exponential", r"tractable|polynomial"),
    (r"inner loop|double-loop|nested loop|two-loop", r"single-loop|single loop"),
    _SUPERVISION,
    (r"online", r"offline"),
    (r"model-free", r"model-based"),
    (
        r"known in advance|known a priori|known beforehand|prior knowledge of|needs? to know|"
        r"(?:supplied|given|specified|provided) (?:in advance|beforehand|a priori)",
        r"(?:absence of|without|no) (?:any )?(?:prior )?knowledge|learned on-the-fly|"
        r"parameter-free",
    ),
    (r"(?<!-)convex", r"non-convex|nonconvex"),
    (r"synthetic", r"real-world"),
    (r"white-box", r"black-box"),
    _CONTINUOUS,
    _DEPTH,
    _IMPLIES,
    _BANDIT,
    (r"approximation errors?|approximate solutions?|inexact", r"exact solutions?|exactly"),
    *_ONE_WAY,
)
# (said, opposite) in the order they are tried: each pair both ways but the one-way ones.
_TURNS = tuple(
    turn
    for pair in _OPPOSITES
    for turn in ((pair,) if pair in (*_ONE_WAY, _MANY) else (pair, (pair[1], pair[0])))
)
_DIRECTED = frozenset(t for t in _TURNS if any(set(t) == set(d) for d in _DIRECTIONS))


def _changed_thing(after: str) -> str:
    """What a direction word says changes: the first content word after it, within three
    words ("more *reward*", "higher *variance*"); "" when none follows."""
    for word in re.findall(r"[a-z][\w-]*", after)[:3]:
        terms = content_terms(word)
        if terms and terms[0] not in ASKING and word not in _FILLERS:
            return terms[0]
    return ""


def _says_of(low: str, said: str, thing: str) -> bool:
    """The sentence writes the direction word with the thing right after it."""
    return any(
        thing in content_terms(" ".join(low[m.end() :].split()[:3]))
        for m in re.finditer(rf"\b(?:{said})\b", low)
    )


def _names_thing(sentence: str, thing: str, after: str) -> bool:
    """The sentence writes the thing, or the acronym of the name it starts ("DT")."""
    if thing in content_terms(sentence):
        return True
    short = initials(after)
    return any(a.lower() in short for a in re.findall(r"\b[A-Z][A-Z0-9]+s?\b", sentence))


_FILLERS = frozenset(
    "than the a an it its does do did is are was were compared relative versus".split()
)
# A title's "Improved …" is no claim about what a question asks; its "Online …" is.
_TITLED = frozenset(t for t in _TURNS if not any(set(t) == set(d) for d in _DIRECTIONS))
SHARED_WORDS = 2  # content words a premise and a sentence must share to be about one thing


def contradicted(
    question: str,
    sentences: list[str],
    title: str,
    doc_freq: Callable[[str], int] | None = None,
) -> str:
    """The abstract sentence (or title) that goes against the question's premise, or "":
    one that states the opposite (`_OPPOSITES`) about the same words, a different count of
    the same things ("three algorithms" against "two algorithms are proposed"), or, given
    `doc_freq`, the only place a rare word of the question is written being about earlier
    work ("the RNN-based slot update in PSB" against "existing models … rely on RNN-based
    implementation")."""
    return (
        _turned(question, sentences, title)
        or miscounted(question, sentences)
        or misnumbered(question, sentences)
        or misquoted(question, sentences)
        or _negated(question, sentences)
        or credited_elsewhere(question, sentences)
        or first_credited(question, sentences, doc_freq)
        or swapped_roles(question, sentences, title)
        or _other_domain(question, sentences, title)
        or _other_testbed(question, sentences, title)
        or first_of_its_kind(question, sentences)
        or none_exists(question, sentences)
        or _overgeneral(question, sentences)
        or (of_earlier_work(question, sentences, title, doc_freq) if doc_freq else "")
    )


# "for any non-convex potential", "whatever the noise level": a claim about every case
# ("across all nodes" says how a method works, not where a result holds).
_EVERY_CASE = re.compile(
    r"\b(?:(?:for|on|to|with|under)\s+(?:any|every|arbitrary)|over\s+(?:any|every)|"
    r"whatever(?:\s+the)?|regardless\s+of(?:\s+the)?)\s+((?:[\w-]+\s+){0,2}[\w-]+)",
    re.I,
)
_PHRASE_END = re.compile(
    r"\b(?:of|on|at|in|to|for|with|and|or|is|are|was|were|does|do|can|that|which|where|"
    r"when|as|by|from|so|but|then|its|their)\b",
    re.I,
)
# An abstract that claims every case too: "for all SNR regimes", "general graphs",
# "distribution-agnostic", "a wide range of".
_ALL_CASES = re.compile(
    r"\b(?:any|all|every|each|arbitrary|general|generic|universal|universally|broad|wide|"
    r"whatever|regardless|no matter|agnostic|free|independent|various|varying|different|"
    r"diverse|many|most)\b",
    re.I,
)
SCOPE_WINDOW = 4  # words between a universal word and the thing it ranges over
# Said of every case wherever it stands in the sentence: "regardless of the nature of …"
_EVERY_WAY = re.compile(
    r"\b(?:regardless of|irrespective of|no matter|for (?:all|any|every)|whatever)\b", re.I
)
# A sentence that bounds where its claim holds: "in the noiseless setting", "under some
# assumptions", "for data coming from a mixture of …".
_SOME_CASES = re.compile(
    r"\b(?:only|under|assum\w*|settings?|cases?|class(?:es)?|famil(?:y|ies)|mixtures?|"
    r"special|restricted|specific|certain|particular|some|provided|coming from|"
    r"(?!regard)\w+less)(?![\w-])|\\le(?:q)?\b|≤|\\ge(?:q)?\b|≥",  # "with $\\beta\\le 2$"
    re.I,
)


def _narrowed(sentence: str, stems: frozenset[str], asked: set[str]) -> bool:
    """The sentence writes the thing with a modifier the question does not have ("linear
    models" for "any model class"): a kind of it, not every one."""
    words = re.findall(r"[\w-]+", sentence)
    for i, word in enumerate(words[1:], start=1):
        if any(stems_match(t, stems) for t in content_terms(word)):
            before = content_terms(words[i - 1])
            if before and not set(before) & (asked | stems) and words[i - 1].isalpha():
                return True
    return False


def _overgeneral(question: str, sentences: list[str]) -> str:
    """The sentence that writes the thing a question claims of every case, when no
    sentence claims it of every case ("for any non-convex potential" against "for
    non-convex periodic functions")."""
    if _YES_NO.search(question):
        return ""  # "Did it succeed on every single task?" asks whether, it claims nothing
    for claim in _EVERY_CASE.finditer(question):
        phrase = _PHRASE_END.split(re.sub(r"^(?:whether|if)\s+", "", claim.group(1)), 1)[0]
        stems = frozenset(t for t in content_terms(phrase) if len(t) >= 4)
        if not stems:
            continue
        writing: list[str] = []
        for sentence in sentences:
            words = re.findall(r"[\w-]+", sentence)
            places = [
                i
                for i, w in enumerate(words)
                if any(stems_match(t, stems) for t in content_terms(w))
            ]
            if not places:
                continue
            near = " ".join(
                " ".join(words[max(0, i - SCOPE_WINDOW) : i + SCOPE_WINDOW + 1]) for i in places
            )
            if _ALL_CASES.search(near) or _EVERY_WAY.search(sentence):
                return ""  # the abstract says it of every case too
            writing.append(sentence)
        asked = set(content_terms(question))
        # a sentence saying where the claim holds; else one naming a kind of the thing
        bounded = [s for s in writing if _SOME_CASES.search(s)] or [
            s for s in writing if _narrowed(s, stems, asked)
        ]
        if bounded:  # the one most about what the question asks
            return max(bounded, key=lambda s: len(asked & set(content_terms(s))))
    return ""


# Kinds of data, each a group of kinds a paper is about one of: "voice recordings" asked of
# a paper on images, "protein networks" of one on citation networks.
_DOMAINS = (
    {
        "image": r"images?|photos?|photographs?|pixels?|vision|visual|imagenet|cifar",
        "video": r"videos?|vision|visual",
        # "sounds interesting", "her voice": only as data
        # "symbolic music" (piano rolls, MIDI) is no audio
        "audio": r"audio|speech|(?<!symbolic )music|acoustic|spoken|(?:voice|sound) (?:recordings?|data|signals?)",
        "symbolic music": r"symbolic music|piano[- ]rolls?|midi",
        "graph": r"graphs?|node[- ]classification",
        "tabular": r"tabular",
        "touch": r"tactile|touch|haptic",
    },
    {
        "citation": r"citation",
        "social": r"social networks?",
        "biology": r"protein|proteins|genes?|gene regulatory|molecular",
        "traffic": r"traffic|road networks?",
    },
)


def _other_domain(question: str, sentences: list[str], title: str) -> str:
    """The sentence showing the paper works on another kind of data than the question says
    ("voice recordings" of an image-anonymization metric)."""
    sentences = [s for s in sentences if not _URL.search(s)]  # "a demo video is at https://…"
    text = " ".join([title, *sentences]).lower()
    asked = question.lower()
    for group in _DOMAINS:
        said = {k for k, words in group.items() if re.search(rf"\b(?:{words})\b", asked)}
        written = {k for k, words in group.items() if re.search(rf"\b(?:{words})\b", text)}
        if said - written and written - said:  # "audio" of a vision-and-touch paper
            other = "|".join(group[k] for k in written)
            return next(
                (s for s in [title, *sentences] if re.search(rf"\b(?:{other})\b", s.lower())), ""
            )
    return ""


# "on the cutting stock problem" against "On the graph coloring problem, we show …"
_TESTBED = re.compile(
    r"\b(?:on|for|in|with)\s+(?:the\s+)?(?P<name>(?:[\w-]+\s+){0,3}?[\w-]+)\s+"
    r"(?P<kind>problem|benchmark|dataset|game|environment)s?\b",
    re.I,
)
_ANY_TESTBED = frozenset(
    content_terms(
        "several standard various popular common widely used public multiple diverse "
        "challenging real world synthetic many different benchmark established classic "
        "existing new large scale small well known these those our two three four five six "
        "seven eight nine ten dozen numerous"
    )
)
_TESTED = re.compile(
    r"\b(?:show|shows|experiment|experiments|evaluat\w*|demonstrat\w*|achiev\w*|results?|"
    r"outperform\w*|test\w*|empirical\w*)\b",
    re.I,
)


def _other_testbed(question: str, sentences: list[str], title: str) -> str:
    """The sentence reporting the test on another named problem or benchmark than the one
    the question names, whose words the abstract never writes."""
    written = set(content_terms(" ".join([title, *sentences])))
    for asked in _TESTBED.finditer(question):
        words = [w for w in content_terms(asked.group("name")) if w not in ASKING]
        if len(words) < 2 or any(stems_match(w, frozenset(written)) for w in words):
            continue  # "the same problem", or one the abstract writes
        kind = asked.group("kind").lower()
        for sentence in sentences:
            for said in _TESTBED.finditer(sentence):
                other = set(content_terms(said.group("name"))) - ASKING - _ANY_TESTBED
                # "several standard benchmarks", "eight benchmarks" name none
                named = other and not any(c.isdigit() for c in said.group("name"))
                if said.group("kind").lower() == kind and named and _TESTED.search(sentence):
                    return sentence
    return ""


_URL = re.compile(r"https?://|www\.|github", re.I)
# "not only … but also" adds, it denies nothing; "don't" ends a word, no boundary before it
_NEGATION = re.compile(
    r"(?:\b(?:not|cannot|never|no longer|fails? to|without)\b|n['’]t\b)"
    r"(?!\s+(?:only|just|merely|simply|even)\b)",
    re.I,
)
# "How does D3S get distillation methods to scale …": the question asks how the paper
# overcomes what a sentence says earlier methods cannot do
_ENABLING = re.compile(
    r"\b(?:get|gets|make|makes|let|lets|help|helps|allow|allows|enable|enables)\b", re.I
)
_YES_NO = re.compile(
    r"(?:^|[,;?]\s*|\b(?:plus|and|also|or)\s+)(?:did|does|do|is|are|was|were|can|could|has|have)"
    r"\s+(?:it|they|this|that|the|its|their)\b",
    re.I,
)
NEGATED_SUBJECT = 2  # content words of what the sentence denies of, shared with the question
NEGATED_WINDOW = 6  # words between the subject and the predicate in the question


def _negated(question: str, sentences: list[str]) -> str:
    """A sentence denying what the question states: "volume-preserving flows are not
    universal" against "If volume-preserving flows are universal, …"."""
    if _NEGATION.search(question) or _ENABLING.search(question) or CONTRASTING.search(question):
        return ""
    if _YES_NO.search(question):
        return ""  # "… plus did it need any pre-training?" asks; "without any" answers it
    asked = [content_terms(w) for w in re.findall(r"[\w-]+", question)]
    for sentence in sentences:
        if EARLIER.search(sentence):
            continue  # what earlier work cannot do is no denial of the question's claim
        for negation in _NEGATION.finditer(sentence):
            before = content_terms(
                " ".join(re.findall(r"[\w-]+", sentence[: negation.start()])[-4:])
            )
            after = content_terms(" ".join(re.findall(r"[\w-]+", sentence[negation.end() :])[:2]))
            if not after or len(before) < NEGATED_SUBJECT:
                continue
            predicate = after[0]
            for i, terms in enumerate(asked):
                # "is not known" against "knows": one word family
                if not any(stems_match(predicate, frozenset([t])) for t in terms):
                    continue
                # the subject before the predicate, or its object after ("knows the function")
                window = asked[max(0, i - NEGATED_WINDOW) : i + NEGATED_WINDOW + 1]
                near = {t for ts in window for t in ts} - set(terms)
                if sum(b in near for b in before) >= NEGATED_SUBJECT:
                    return sentence
    return ""


_OTHERS = re.compile(
    r"\b(?:previous|prior|existing|earlier|conventional|traditional)\s+(?:\w+\s+)?"
    r"(?:efforts?|methods?|works?|approach(?:es)?|models?|studies|techniques|algorithms)\b"
)
_NOT_SO = re.compile(r"\s+(?:no|zero|neither|nothing|little|without)\b", re.I)
_AT_LEAST = re.compile(r"\b(?:more|less|fewer) than (?=[\d$~])")
_DENIED = re.compile(
    r"\b(?:cannot|can ?not|unlike|instead of|rather than|not just|beyond|existing|traditional|"
    r"conventional)\b[^.;,]*$"
)


def _turned(question: str, sentences: list[str], title: str) -> str:
    asked = question.lower()
    words = set(content_terms(question)) - set(content_terms(title)) - ASKING
    named = set(content_terms(question)) & set(content_terms(title))
    for said, opposite in _TURNS:
        claim = re.search(rf"\b(?:{said})\b(?!-)", asked)  # not "better-known facts"
        # "does not depend on" holds "depend on": the opposite outside the claim itself
        if claim is None or any(
            not (claim.start() <= m.start() and m.end() <= claim.end())
            for m in re.finditer(rf"\b(?:{opposite})\b", asked)
        ):
            continue
        before = asked[max(0, claim.start() - 40) : claim.start()]
        if _UNDONE.search(before) or _COMPARED.search(before):
            continue  # "tackle the exponential number of tests": the premise is undone
        if _NOT_SO.match(asked[claim.end() : claim.end() + 60]):
            continue  # "requires no labels", "slow without the method": not the claim it reads
        # "more reward" is turned by "less reward", not by "reduced variance"
        after = question[claim.end() : claim.end() + 60]  # "fall behind Decision Transformer"
        thing = _changed_thing(after.lower()) if (said, opposite) in _DIRECTED else ""
        if (said, opposite) in _DIRECTED and _POINTED.match(after):
            continue  # "to what value did it lower it": a change of a thing asked before
        signed = set((said, opposite)) in (set(_SIGN), set(_MANY))
        if signed and thing and any(_says_of(s.lower(), said, thing) for s in sentences):
            continue  # "positive pairs" written too: the abstract agrees somewhere
        if (said, opposite) in _TITLED and re.search(rf"\b(?:{said})\b", title.lower()):
            continue  # the title says it: "… for Constrained Non-Convex Optimization"
        # an abstract that says "always" (or, of its title, the asked setting) itself agrees
        stated = any(re.search(rf"\b(?:{said})\b", s.lower()) for s in sentences)
        if stated and ((said, opposite) == _ALWAYS or (said, opposite) in _UNLESS_WRITTEN):
            continue  # "labeled source data" beside the "self-supervised" the abstract writes too
        # "Why is Y slower than the method?" agrees with "the method is faster than Y":
        # a sentence with the question's subject after its own direction word
        compared = re.match(r"\s*than\b", question[claim.end() : claim.end() + 30].lower())
        than = re.search(r"\bthan\s+((?:[\w-]+\s*){1,4})", asked[claim.end() : claim.end() + 60])
        than_words = set(content_terms(than.group(1))) - ASKING if than else set()
        subject = set(content_terms(asked[max(0, claim.start() - 60) : claim.start()])) - ASKING
        for sentence in sentences:
            low = sentence.lower()
            turned = re.search(rf"\b(?:{opposite})\b", low)
            if turned and compared and subject & set(content_terms(low[turned.end() :])):
                continue
            # "stronger … than widely used methods" is "widely used methods … weaker": the
            # compared thing before the opposite comparative (not before a verb, "saving")
            comparative = turned is not None and re.fullmatch(r"\w+er|less|fewer", turned.group(0))
            if (
                turned
                and comparative
                and than_words
                & set(content_terms(low[max(0, turned.start() - 80) : turned.start()]))
            ):
                continue
            if turned and _OTHERS.search(low[: turned.start()]):
                continue  # "previous efforts have resulted in …": said of earlier work
            guarded = signed or (said, opposite) in _UNLESS_WRITTEN
            if (
                turned
                and guarded
                and _AVOIDED.search(low[max(0, turned.start() - 30) : turned.start()])
            ):
                continue  # "avoiding negative transfer" says the positive one
            near = low[max(0, turned.start() - 60) : turned.end() + 60] if turned else ""
            if turned and guarded and _COVERING.search(near):
                continue  # "categorical … as well as general bounded observations"
            # "saving more than 40% memory": "more than" a number is a quantity, no direction;
            # "cannot be addressed by offline methods": what the paper is not
            kept = any(
                not _DENIED.search(low[max(0, m.start() - 40) : m.start()])
                for m in re.finditer(rf"\b(?:{said})\b", _AT_LEAST.sub(" ", low))
            )
            held = set(content_terms(sentence))
            shared = len(words & held)
            if thing and not _names_thing(sentence, thing, after):
                continue
            # "always harmful" against "either beneficial or harmful": the word qualified
            qualified = (said, opposite) == _ALWAYS and bool(set(content_terms(after)[:1]) & held)
            qualified = qualified or (signed and bool(thing))  # the thing itself is shared
            if signed and not thing:
                continue  # "picking one model out of many": many of nothing named
            if turned and not kept and (shared >= SHARED_WORDS or qualified):
                return sentence
        # the title says what the paper is: "A General Online Algorithm …" asked "offline"
        low = title.lower()
        if (
            (said, opposite) in _TITLED
            and not stated
            # "how does it depart from the usual offline …": a contrast around the claim
            and not CONTRASTING.search(_clause_of(asked, claim.start(), claim.end()))
            and re.search(rf"\b(?:{opposite})\b", low)
            and not re.search(rf"\b(?:{said})\b", low)
            and len(named - set(content_terms(claim.group(0)))) >= SHARED_WORDS
        ):
            return title
    return ""


def _clause_of(text: str, start: int, end: int) -> str:
    """The clause holding text[start:end]: back to the last and on to the next , ; ? ."""
    before = re.split(r"[,;?.]", text[:start])[-1]
    after = re.split(r"[,;?.]", text[end:], maxsplit=1)[0]
    return before + text[start:end] + after


_POINTED = re.compile(r"\s+(?:it|them)\b", re.I)
_UNDONE = re.compile(
    r"\b(?:tackle|tackles|address|addresses|avoid|avoids|overcome|overcomes|reduce|reduces|"
    r"mitigate|mitigates|eliminate|eliminates|instead of|rather than|not|without|beyond|"
    r"prevent|prevents|fix|fixes)\b[^.?]*$"
)
# "relative to a version trained offline": a premise about what the paper is compared with.
_COMPARED = re.compile(
    r"\b(?:relative to|compared (?:to|with)|than|versus|vs|against|beats?|outperforms?)\b[^.?]*$"
)
