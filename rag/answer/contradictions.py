"""Premises an abstract goes against: the question supposes one thing, a sentence says another.

"Why does X slow training down" against "X speeds training up", "three algorithms"
against "two algorithms are proposed", "90% accuracy" against "80.1% accuracy", "the first
to …" asked as "which earlier …", a rare word of the question written only about earlier
work. Each returns the sentence that says otherwise, which the answer quotes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answer.question_parts import initials, stems_match
from rag.text import NAME, NUMBER_WORDS, content_terms

# Read one way only: a federated paper is compared with centralized training all the time,
# but a question saying "centralized" of a federated paper has its premise wrong.
_CENTRALIZED = (r"centralized|centralised", r"decentralized|decentralised|federated")
# "always harmful" against "either beneficial or harmful …", one way only.
_ALWAYS = (
    r"always",
    r"either\b[^.;]*\bor|depending on|depends on|not always|['’]t always|in some cases",
)
_ONE_WAY = (_CENTRALIZED, _ALWAYS)
# Kinds of input a paper is about one of, though it may name the other ("for both
# continuous and discrete"): said otherwise only when the abstract never writes the asked one.
_CONTINUOUS = (r"continuous", r"categorical|discrete")
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
    t for pair in (_SUPERVISION, _CONTINUOUS, _DEPTH) for t in (pair, (pair[1], pair[0]))
)
# A premise and an abstract that go opposite ways: "end up with higher variance" against
# "reduce variance", "fall behind DT" against "outperform DT", "NP-hard" against "polynomial".
_DIRECTIONS = (
    (
        r"higher|larger|greater|more|increases?|increased|increasing|grows?|worsens?|"
        r"rais(?:e|es|ed|ing)|inflated|overestimat(?:e|es|ed|ing)",
        r"lower|smaller|fewer|less|reduces?|reduced|reducing|decreases?|decreased|shrinks?|"
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
        r"known in advance|known a priori|known beforehand|prior knowledge of|needs? to know",
        r"(?:absence of|without|no) (?:any )?prior knowledge|learned on-the-fly|parameter-free",
    ),
    (r"(?<!-)convex", r"non-convex|nonconvex"),
    (r"synthetic", r"real-world"),
    (r"white-box", r"black-box"),
    _CONTINUOUS,
    _DEPTH,
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
        if terms and terms[0] not in _ASKING and word not in _FILLERS:
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
PRIOR_WORK_DOCS = 40  # a question word this rare names a part of a method, not the problem


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
        or _miscounted(question, sentences)
        or _misnumbered(question, sentences)
        or _misquoted(question, sentences)
        or _negated(question, sentences)
        or _credited_elsewhere(question, sentences)
        or _other_domain(question, sentences, title)
        or _first_of_its_kind(question, sentences)
        or _none_exists(question, sentences)
        or _overgeneral(question, sentences)
        or (_of_earlier_work(question, sentences, title, doc_freq) if doc_freq else "")
    )


# "for any non-convex potential", "whatever the noise level": a claim about every case
# ("across all nodes" says how a method works, not where a result holds).
_EVERY_CASE = re.compile(
    r"\b(?:(?:for|on|to|with|under)\s+(?:any|every|arbitrary)|"
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
    r"(?!regard)\w+less)(?![\w-])",
    re.I,
)


def _overgeneral(question: str, sentences: list[str]) -> str:
    """The sentence that writes the thing a question claims of every case, when no
    sentence claims it of every case ("for any non-convex potential" against "for
    non-convex periodic functions")."""
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
        bounded = [s for s in writing if _SOME_CASES.search(s)]
        if bounded:
            return bounded[0]
    return ""


# Kinds of data, each a group of kinds a paper is about one of: "voice recordings" asked of
# a paper on images, "protein networks" of one on citation networks.
_DOMAINS = (
    {
        "image": r"images?|photos?|photographs?|pixels?|vision|visual|imagenet|cifar",
        "video": r"videos?|vision|visual",
        # "sounds interesting", "her voice": only as data
        "audio": r"audio|speech|music|acoustic|spoken|(?:voice|sound) (?:recordings?|data|signals?)",
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
NEGATED_SUBJECT = 2  # content words of what the sentence denies of, shared with the question
NEGATED_WINDOW = 6  # words between the subject and the predicate in the question


def _negated(question: str, sentences: list[str]) -> str:
    """A sentence denying what the question states: "volume-preserving flows are not
    universal" against "If volume-preserving flows are universal, …"."""
    if _NEGATION.search(question) or _ENABLING.search(question) or _CONTRASTING.search(question):
        return ""
    asked = [content_terms(w) for w in re.findall(r"[\w-]+", question)]
    for sentence in sentences:
        if _EARLIER.search(sentence):
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
                if predicate not in terms:
                    continue
                near = {t for ts in asked[max(0, i - NEGATED_WINDOW) : i] for t in ts}
                if sum(b in near for b in before) >= NEGATED_SUBJECT:
                    return sentence
    return ""


# "What test has been proposed to …", "Is there a method for …": supposes one exists
_ASKED_KIND = re.compile(
    r"^\s*(?:(?:what|which)\s+(?:[\w-]+\s+){0,2}?(?P<kind>[\w-]+)\s+(?:has|have|had|was|were)\s+"
    r"(?:been\s+)?(?:proposed|developed|introduced|designed|devised|suggested)|"
    r"(?:is|are)\s+there\s+(?:an?\s+|any\s+)?(?:[\w-]+\s+)?(?P<there>[\w-]+)\s+(?:for|to|that))\b",
    re.I,
)
# "there is still no reliable test for consciousness", "the lack of a principled method"
_NONE = re.compile(
    r"\b(?:there\s+(?:is|are|exists?)\s+(?:still\s+|currently\s+|as\s+yet\s+)?no|"
    r"(?:a|the)\s+lack\s+of|absence\s+of|(?:do|does)\s+not\s+(?:yet\s+|currently\s+)?have|"
    r"no(?=\s+(?:reliable|known|existing|principled|general|practical)\b))"
    r"\s+(?:an?\s+|any\s+)?(?P<said>(?:[\w-]+\s+){0,7}[\w-]+)",
    re.I,
)
_OWN_MAKING = re.compile(
    r"\b(?:we|our|this (?:paper|work))\b[^.]*\b(?:propose|introduce|develop|present|design)", re.I
)


def _none_exists(question: str, sentences: list[str]) -> str:
    """A sentence saying no such thing exists, when the question supposes one was made
    ("What test has been proposed to detect whether an LLM is conscious?" against "there
    is still no reliable test for consciousness"), unless the paper then makes one."""
    asked = _ASKED_KIND.search(question)
    if asked is None:
        return ""
    kind = (asked.group("kind") or asked.group("there")).lower()[:5]  # "method" is a stopword
    rest = set(content_terms(question[asked.end() :])) - _ASKING
    for sentence in sentences:
        for none in _NONE.finditer(sentence):
            said = none.group("said").lower()
            if re.search(rf"\b{re.escape(kind)}", said) and set(content_terms(said)) & rest:
                owned = any(
                    _OWN_MAKING.search(s) and re.search(rf"\b{re.escape(kind)}", s.lower())
                    for s in sentences
                )
                return "" if owned else sentence
    return ""


def _first_of_its_kind(question: str, sentences: list[str]) -> str:
    """ "Which earlier algorithm with logarithmic regret does it improve on?" against "the
    first … with logarithmic regret": the question supposes what the abstract says no one
    did before."""
    if not _WHICH_EARLIER.search(question):
        return ""
    words = set(content_terms(question)) - _ASKING
    for sentence in sentences:
        shared = len(words & set(content_terms(sentence)))
        if _FIRST.search(sentence) and shared >= FIRST_SHARED:
            return sentence
    return ""


_WHICH_EARLIER = re.compile(r"\b(?:which|what)\s+(?:earlier|previous|prior|existing)\b", re.I)
_FIRST = re.compile(
    r"\b(?:is|are|be|as) the first\b|\bfor the first time\b|\bthe first (?:to|work|method|algorithm|result)",
    re.I,
)
FIRST_SHARED = 3  # words a "first" sentence shares with the question: the same thing


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
    words = set(content_terms(question)) - set(content_terms(title)) - _ASKING
    named = set(content_terms(question)) & set(content_terms(title))
    for said, opposite in _TURNS:
        claim = re.search(rf"\b(?:{said})\b", asked)
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
        subject = set(content_terms(asked[max(0, claim.start() - 60) : claim.start()])) - _ASKING
        for sentence in sentences:
            low = sentence.lower()
            turned = re.search(rf"\b(?:{opposite})\b", low)
            if turned and compared and subject & set(content_terms(low[turned.end() :])):
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
            and not _CONTRASTING.search(question)  # "how does it depart from the usual …"
            and re.search(rf"\b(?:{opposite})\b", low)
            and not re.search(rf"\b(?:{said})\b", low)
            and len(named - set(content_terms(claim.group(0)))) >= SHARED_WORDS
        ):
            return title
    return ""


# "three algorithms", "two new algorithms": a count, at most one word between, and a plural
# noun; not "GPT-4 outputs", "Llama 2 models", "2.5 times" ("one" is too often a pronoun).
_COUNTED = re.compile(
    r"(?<![\w.,-])(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,3})"
    r"(?![\w.,-])\s+(?:[a-z][\w-]*\s+)?([a-z][a-z-]+[^s\W]s)\b",
    re.I,
)
_NAMED_NUMBER = re.compile(r"[A-Z][\w-]*\s+$")  # "Llama 2 models": a name's number
_NOT_COUNTED = frozenset({"times", "across", "this", "its", "was", "has", "as", "is", "orders"})


def _counts(text: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for m in _COUNTED.finditer(text):
        number, noun = m[1].lower(), m[2].lower()
        before = text[max(0, m.start() - 30) : m.start()]
        if noun in _NOT_COUNTED or (_NAMED_NUMBER.search(before) and before.strip()[-1:] != "."):
            continue
        value = int(number) if number.isdigit() else NUMBER_WORDS[number]
        found.setdefault(noun, set()).add(value)
    return found


def _miscounted(question: str, sentences: list[str]) -> str:
    """A sentence giving another count of things the question counts, where the abstract
    never gives the question's count."""
    asked = _counts(question)
    if not asked:
        return ""
    given = [(_counts(s), s) for s in sentences]
    for noun, numbers in asked.items():
        stated = set().union(*(counts.get(noun, set()) for counts, _ in given))
        if stated and not stated & numbers:
            return next(s for counts, s in given if noun in counts)
    return ""


# A measured value: "93.2%", "3.5x", "$2\times$", "10 times"; its kind is its unit.
# "a 2-approximation" against "a 4-approximate solution", "4-bit" against "2-bit and 3-bit"
_NUMBERED = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)-([a-z]{3,})\b", re.I)


def _misnumbered(question: str, sentences: list[str]) -> str:
    """The sentence giving a number-word compound of the question's another number, when
    no sentence gives the question's number with that word."""
    for asked in _NUMBERED.finditer(question):
        number, stem = asked.group(1), asked.group(2).lower()[:6]
        spelled = [w for w, n in NUMBER_WORDS.items() if str(n) == number]
        written = [rf"\b{w}-{stem}" for w in spelled] + [rf"(?<![\d.]){re.escape(number)}\s+{stem}"]
        if any(re.search(pattern, s, re.I) for pattern in written for s in sentences):
            continue  # "two-layer" for the asked "2-layer"; "1-5 digit" for "5-digit"
        others = ""
        for sentence in sentences:
            for said in _NUMBERED.finditer(sentence):
                if said.group(2).lower()[:6] != stem:
                    continue
                if said.group(1) == number:
                    return ""  # the abstract says the asked one too
                others = others or sentence
        if others:
            return others
    return ""


_MEASURED = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*"
    r"(?:(%|percent\b)|(x\b|×|\$?\\times\$?|-?fold\b|\s+times\b)|"
    # a unit of its own: "49 FPS", "12 ms", "3.5 bits"
    r"(fps|ms|milliseconds|seconds|hours|days|gb|tb|mb|bits|bpp|db)\b)",
    re.I,
)
MEASURE_WINDOW = 3  # words between a value and what it measures ("93.2% top-1 accuracy")
MEASURE_TOLERANCE = 0.05  # "90%" and "89.7%" are one value, as people round
MEASURE_SHARED = 3  # content words the value's sentence shares with the question


def _measures(text: str) -> list[tuple[float, str, frozenset[str]]]:
    """Each value with its unit ("%" or "x") and the content words beside it; a value in
    words ("in half", "a third", "twice") as the number it stands for."""
    found = []
    for m in [*_MEASURED.finditer(text), *_SAID_MEASURE.finditer(text)]:
        before = re.findall(r"[\w-]+", text[: m.start()])[-MEASURE_WINDOW:]
        after = re.findall(r"[\w-]+", text[m.end() :])[:MEASURE_WINDOW]
        words = frozenset(content_terms(" ".join(before + after))) - _ASKING
        if m.re is _SAID_MEASURE:
            value, unit = _SAID_VALUES[next(g for g in m.groups() if g).lower()]
        else:
            value = float(m[1].replace(",", ""))
            unit = "%" if m[2] else m[4].lower() if m[4] else "x"
            if unit == "x" and value > 1 and _FEWER.match(text[m.end() :]):
                value, unit = round(100 * (1 - 1 / value), 1), "%"  # "2x fewer" is 50% fewer
        # the measured thing, not a name beside it ("MeZO's peak accuracy")
        names = {t for n in NAME.findall(" ".join(before + after)) for t in content_terms(n)}
        found.append((value, unit, words - names))
    return found


_FEWER = re.compile(r"\$?\s*(?:reduction|fewer|less|lower|smaller|cheaper|decrease)\b", re.I)
# Values said in words: "cut … in half" is 50 % fewer, "twice as fast" is 2x.
_SAID_VALUES = {
    "half": (50.0, "%"),
    "a third": (33.3, "%"),
    "a quarter": (25.0, "%"),
    "a tenth": (10.0, "%"),
    "twice": (2.0, "x"),
    "double": (2.0, "x"),
    "triple": (3.0, "x"),
}
_SAID_MEASURE = re.compile(
    r"\b(?:in|by)\s+(half)\b|\bby\s+(a third|a quarter|a tenth)\b|\b(twice|double|triple)\s+"
    r"(?:as|the)\b",
    re.I,
)


def _misquoted(question: str, sentences: list[str]) -> str:
    """A sentence giving another value of what the question quotes ("Given that it reaches
    90% accuracy" against "reaches 80% accuracy"), where the abstract never gives the
    question's value."""
    asked = _measures(question)
    if not asked:
        return ""
    given = [(_measures(s), s) for s in sentences]
    values = [v for measures, _ in given for v, _, _ in measures]
    topic = set(content_terms(question)) - _ASKING
    for value, unit, words in asked:
        if any(abs(v - value) <= MEASURE_TOLERANCE * max(v, value) for v in values):
            continue  # the question's value is the abstract's
        for measures, sentence in given:
            # the same measure ("accuracy" beside both) in a sentence on the same thing
            # a named unit ("FPS") says what is measured; "%" and "x" need a word beside
            same = any(u == unit and (words & w or unit not in ("%", "x")) for _, u, w in measures)
            said = frozenset(content_terms(sentence))
            needed = MEASURE_SHARED if unit in ("%", "x") else MEASURE_SHARED - 1
            if same and sum(stems_match(t, said) for t in topic) >= needed:
                return sentence
    return ""


_CREDITED = re.compile(
    r"\b(?:design(?:s|ed)?|propos(?:e|es|ed)|introduc(?:e|es|ed)|invent(?:s|ed)?|"
    r"develop(?:s|ed)?|discover(?:s|ed)?|came up with|come up with)\b",
    re.I,
)
_CITATION = re.compile(
    r"\(\s*[A-Z][\w'’-]+(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'’-]+)?,?\s*\(?\d{4}\)"
    r"|\b[A-Z][\w'’-]+\s+et\s+al\.?\s*\(\d{4}\)"
)
CREDITED_WINDOW = 60  # characters before a citation that the cited work's name sits in


def _credited_elsewhere(question: str, sentences: list[str]) -> str:
    """A sentence crediting to cited earlier work what the question says the paper
    designed or discovered ("What led the SPABA authors to design the PAGE estimator?"
    against "the PAGE method (Li et al., 2021)")."""
    claim = _CREDITED.search(question)
    if claim is None or _CONTRASTING.search(question[: claim.start()]):
        return ""
    if re.search(r"\bet al\b|\b(?:19|20)\d{2}\b|\b(?:proposed|introduced) by\b", question):
        return ""  # the question itself credits someone ("the method Li et al. proposed")
    # the name right after the claim ("design the PAGE estimator"), not one after "from";
    # or a term of two or three words ("introduces the leap exponent to …")
    rest = question[claim.end() :]
    named = re.match(r"\s+(?:the\s+|a\s+)?(?P<name>[A-Z][\w#+-]*[A-Z0-9#+][\w#+-]*)", rest)
    termed = re.match(
        r"\s+(?:the|a|an)\s+(?P<term>(?:[a-z][\w-]*\s+){1,2}[a-z][\w-]*?)(?=\s+(?:to|that|which|for|in|as|and|,)\b|[,?.])",
        rest,
    )
    if named is None and termed is None:
        return ""
    name = named.group("name") if named else termed.group("term") if termed else ""
    for sentence in sentences:
        for cited in _CITATION.finditer(sentence):
            before = sentence[max(0, cited.start() - CREDITED_WINDOW) : cited.start()]
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])\s+(?:\w+\s+){{0,5}}$", before):
                return sentence
    return ""


# A sentence whose subject is what came before the paper: "Yet, existing generative models
# on manifolds rely on …", "In particular, prior methods …" (an opening clause allowed).
_EARLIER = re.compile(
    r"^(?:[\w ]{0,25},\s*)?(?:the\s+|most\s+|many\s+)?(?:existing|prior|previous|"
    r"conventional|traditional|current|earlier)\s+(?:[\w-]+\s+){0,3}?(?:methods|approaches|"
    r"models|works?|studies|techniques|algorithms|frameworks|solutions)\b",
    re.I,
)
# The paper's own doing, or a comparison with earlier work ("outperform existing …").
_OURS = re.compile(
    r"\b(?:we|our|us|this (?:paper|work)|the proposed|compared (?:to|with)|outperforms?|"
    r"than|unlike|beyond)\b",
    re.I,
)
# "How does the Riemannian Diffusion Mixture approximate the heat kernel …": a mechanism
# asked of the paper itself.
_HOW_IT = re.compile(r"^\s*how (?:does|do|is|are|did|can)\b", re.I)
# A question that asks about earlier work or what the paper changes in it.
_CONTRASTING = re.compile(
    r"\b(?:existing|prior|previous|earlier|traditional|conventional|baselines?|limitations?|"
    r"drawbacks?|weakness(?:es)?|fix(?:es)?|address(?:es)?|overcomes?|avoids?|unlike|"
    r"compared?|versus|vs|instead|rather|replaces?|problems?|issues?|suffers?|why|fails?|"
    r"differ(?:s|ent)?|without|than|depart(?:s|ing)?|usual|usually|standard|typical|typically)\b",
    re.I,
)


def _of_earlier_work(
    question: str, sentences: list[str], title: str, doc_freq: Callable[[str], int]
) -> str:
    """The sentence about earlier work that alone writes a rare word the question gives to
    the paper itself ("How does the RNN-based slot update in PSB stay stable?")."""
    if not _HOW_IT.search(question) or _CONTRASTING.search(question):
        return ""
    own = set(content_terms(title))
    terms = [set(content_terms(s)) for s in sentences]  # stemmed once, read for every word
    opening = next((i for i, s in enumerate(sentences) if _OWN_START.search(s)), 0)
    # "This attack is commonly performed via loopy BP, which, however, lacks guarantees":
    # a shortcoming told before the paper says what it does is earlier work's
    flawed = (
        {s for s in sentences[:opening] if _SHORTCOMING.search(s)}
        if not _COPING.search(question)  # "how does it cope with data that are not …"
        else set()
    )
    for word in dict.fromkeys(content_terms(question)):
        if word in own or word in _ASKING or not 0 < doc_freq(word) <= PRIOR_WORK_DOCS:
            continue
        holding = [s for s, held in zip(sentences, terms, strict=True) if word in held]
        if holding and all(s in flawed or _disowned(s, word) for s in holding):
            return holding[0]
    return ""


_COPING = re.compile(
    r"\b(?:cope|copes|coping|deal|deals|dealing|handle|handles|handling|robust|resilient|"
    r"tolerate|tolerates|despite|even\s+(?:when|if|with)|with\s+no|without|not)\b",
    re.I,
)
_OWN_START = re.compile(r"\b(?:we|our|this (?:paper|work|study))\b", re.I)
_SHORTCOMING = re.compile(
    r"\b(?:however|lacks?|fails?|suffers?|struggles?|limited|limitations?|often|commonly|"
    r"typically|usually|do not|does not|cannot|costly|expensive|inefficient|prohibitive)\b",
    re.I,
)


# "without requiring heat kernel estimations", "instead of the denoising approach"
_NOT_OURS = re.compile(
    r"\b(?:without|instead of|rather than|not require|not rely|no need|avoids?|avoiding|"
    r"free of|unlike)\b(?:(?!\b(?:but|while|and|yet|whereas|nevertheless|still)\b)[^.;,:])*$",
    re.I,
)


def _disowned(sentence: str, word: str) -> bool:
    """Whether every mention of `word` (a stem) in the sentence is not the paper's own:
    the sentence is about earlier work, or the word follows "without", "instead of" …."""
    if _EARLIER.search(sentence) and not _OURS.search(sentence):
        return True
    places = [m.start() for m in re.finditer(r"[\w-]+", sentence) if word in content_terms(m[0])]
    return bool(places) and all(_NOT_OURS.search(sentence[max(0, i - 60) : i]) for i in places)


_UNDONE = re.compile(
    r"\b(?:tackle|tackles|address|addresses|avoid|avoids|overcome|overcomes|reduce|reduces|"
    r"mitigate|mitigates|eliminate|eliminates|instead of|rather than|not|without|beyond|"
    r"prevent|prevents|fix|fixes)\b[^.?]*$"
)
# "relative to a version trained offline": a premise about what the paper is compared with.
_COMPARED = re.compile(
    r"\b(?:relative to|compared (?:to|with)|than|versus|vs|against|beats?|outperforms?)\b[^.?]*$"
)
_ASKING = frozenset(content_terms("why how what which does do did is are paper abstract"))
