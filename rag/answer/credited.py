"""Whose claim a premise is: a thing the question says the paper made that the abstract
credits to cited work, says no one has, or says the paper is the first to do; a rare word
of the question written only about earlier work. Each check returns the sentence that says
otherwise, or ""."""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answer.claims import ASKING, CONTRASTING, EARLIER, OURS
from rag.text import content_terms

PRIOR_WORK_DOCS = 40  # a question word this rare names a part of a method, not the problem


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


def none_exists(question: str, sentences: list[str]) -> str:
    """A sentence saying no such thing exists, when the question supposes one was made
    ("What test has been proposed to detect whether an LLM is conscious?" against "there
    is still no reliable test for consciousness"), unless the paper then makes one."""
    asked = _ASKED_KIND.search(question)
    if asked is None:
        return ""
    kind = (asked.group("kind") or asked.group("there")).lower()[:5]  # "method" is a stopword
    rest = set(content_terms(question[asked.end() :])) - ASKING
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


def first_of_its_kind(question: str, sentences: list[str]) -> str:
    """ "Which earlier algorithm with logarithmic regret does it improve on?" against "the
    first … with logarithmic regret": the question supposes what the abstract says no one
    did before."""
    if not _WHICH_EARLIER.search(question):
        return ""
    words = set(content_terms(question)) - ASKING
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


def credited_elsewhere(question: str, sentences: list[str]) -> str:
    """A sentence crediting to cited earlier work what the question says the paper
    designed or discovered ("What led the SPABA authors to design the PAGE estimator?"
    against "the PAGE method (Li et al., 2021)")."""
    claim = _CREDITED.search(question)
    if claim is None or CONTRASTING.search(question[: claim.start()]):
        return ""
    if re.search(r"\bet al\b|\b(?:19|20)\d{2}\b|\b(?:proposed|introduced) by\b", question):
        return ""  # the question itself credits someone ("the method Li et al. proposed")
    # the name right after the claim ("design the PAGE estimator"), not one after "from";
    # or a term of two or three words ("introduces the leap exponent to …")
    rest = question[claim.end() :]
    named = re.match(
        r"\s+(?:the\s+|a\s+)?(?P<name>[A-Z][\w#+-]*[A-Z0-9#+][\w#+-]*)", rest
    ) or re.search(
        # "DANE, the federated method proposed in …": the name before the claim
        r"(?P<name>[A-Z][\w#+-]*[A-Z0-9#+][\w#+-]*),?\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,4}$",
        question[: claim.start()],
    )
    termed = re.match(
        r"\s+(?:the|a|an)\s+(?P<term>(?:(?!(?:to|that|which|for|in|as|and)\b)[a-z][\w-]*\s+){1,3}?"
        r"[a-z][\w-]*?)(?=\s+(?:to|that|which|for|in|as|and|,)\b|[,?.])",
        rest,
    )
    if named is None and termed is None:
        return ""
    name = named.group("name") if named else termed.group("term") if termed else ""
    term = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
    for sentence in (s.replace("*", "") for s in sentences):  # "the *sparse token selection* task"
        for cited in _CITATION.finditer(sentence):
            before = sentence[max(0, cited.start() - CREDITED_WINDOW) : cited.start()]
            if re.search(rf"{term}\s+(?:\w+\s+){{0,5}}$", before):
                return sentence
            # "Sanford et al. (2023) proposed the sparse token selection task"
            after = sentence[cited.end() : cited.end() + CREDITED_WINDOW]
            if re.match(
                rf"\s*(?:\w+\s+)?{_CREDITED.pattern}\s+(?:the\s+|a\s+)?{term}", after, re.I
            ):
                return sentence
        # "we revisit DANE, an established method": not the paper's own
        if re.search(
            rf"\b(?:revisit(?:s|ing)?|re-examine\w*)\s+(?:the\s+)?{term}|{term},?\s+an?\s+"
            rf"(?:established|existing|classical|classic|well-known|popular|standard)\b",
            sentence,
            re.I,
        ):
            return sentence
    return ""


# "How does the Riemannian Diffusion Mixture approximate the heat kernel …": a mechanism
# asked of the paper itself.
_HOW_IT = re.compile(r"^\s*how (?:does|do|is|are|did|can)\b", re.I)


def of_earlier_work(
    question: str, sentences: list[str], title: str, doc_freq: Callable[[str], int]
) -> str:
    """The sentence about earlier work that alone writes a rare word the question gives to
    the paper itself ("How does the RNN-based slot update in PSB stay stable?")."""
    if not _HOW_IT.search(question) or CONTRASTING.search(question):
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
        if word in own or word in ASKING or not 0 < doc_freq(word) <= PRIOR_WORK_DOCS:
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
    if EARLIER.search(sentence) and not OURS.search(sentence):
        return True
    places = [m.start() for m in re.finditer(r"[\w-]+", sentence) if word in content_terms(m[0])]
    return bool(places) and all(_NOT_OURS.search(sentence[max(0, i - 60) : i]) for i in places)


# "the first token", "our first contribution": an order or a position, no priority
_ORDINAL = (
    r"(?:step|stage|phase|layer|layers|round|term|half|time|part|author|order|place|one|two|"
    r"few|token|tokens|word|words|sentence|epoch|iteration|block|element|item|position|"
    r"contribution|result|question|case|component|module)"
)
# "the first to show that …", "the first panel-selection algorithm with …", "first
# discovered catapult dynamics": the question credits the paper with a first
_FIRST_CLAIM = re.compile(
    rf"\bthe\s+first\s+(?!{_ORDINAL}\b)(?:[\w-]+\s+){{0,3}}?(?:to|that|which|with|for)\b|"
    r"\bfirst\s+(?:discovered|showed|shown|proposed|introduced|demonstrated|observed|"
    r"identified|found|noticed|described)\b",
    re.I,
)
_ASKS_WHETHER = re.compile(
    r"^\s*(?:is|was|are|were|did|does|do|has|have|had|can|could)\b|\bwhether\b|\bif\b", re.I
)
# a sentence telling of work before the paper: a citation, "we build upon", "originally"
_BEFORE = re.compile(
    r"(?i:\b(?:build(?:s|ing)?\s+(?:up)?on|built\s+(?:up)?on|originally|"
    r"(?:introduced|proposed|developed|shown|observed)\s+(?:recently\s+|earlier\s+|first\s+)?by|"
    r"(?:existing|previous|prior|earlier|recent)\s+(?:[\w-]+\s+)?(?:works?|papers?|studies|study|"
    r"literature|research))\b)"
    # "Zhang et al. (ICML 2021, …)", "Woodruff and Yasuda (FOCS 2022)", "(Lu, 2023)"
    r"|\b[A-Z][\w'’-]+\s+et\s+al\b"
    r"|\b[A-Z][\w'’-]+\s+(?:and|&)\s+[A-Z][\w'’-]+\s*\((?:[A-Z]+\s*)?['’]?\d{2,4}\b"
    r"|\([A-Z][\w'’-]+,?\s+\d{4}\)",
)
# "first observed by Lewkowycz et al.": the question itself credits someone
_CREDITS = re.compile(
    r"\bet\s+al\b|\b(?:19|20)\d{2}\b|\b(?:proposed|introduced|observed|developed|shown|"
    r"discovered|described)\s+(?:\w+\s+)?by\b",
    re.I,
)
# "we give the first …", "for the first time": a priority the paper claims ("we first present
# …" is an order)
_FIRST_OURS = re.compile(
    rf"\b(?:the|our)\s+first\b(?!\s+{_ORDINAL}\b)|\bfor\s+the\s+first\s+time\b|\bfirst[- ]ever\b",
    re.I,
)
FIRST_CLAIM_SHARED = 2  # words a sentence about earlier work shares with the claim


def first_credited(
    question: str, sentences: list[str], doc_freq: Callable[[str], int] | None = None
) -> str:
    """The sentence crediting earlier work with what the question says the paper was the
    first to do ("the first to show that nonsmooth ITD converges linearly" against "We
    build upon the work by Bolte et al. (2022), who prove linear convergence of nonsmooth
    ITD"), unless the abstract claims that first itself."""
    claim = _FIRST_CLAIM.search(question)
    if claim is None or _ASKS_WHETHER.search(question[: claim.start()]):
        return ""
    if _CREDITS.search(question):
        return ""  # "catapults, first observed by Lewkowycz et al.": the question credits them
    said = re.split(r"[;?]|[.!]\s", question[claim.start() :], maxsplit=1)[0]
    words = set(content_terms(said)) - ASKING - set(content_terms("first the"))
    if not words:
        return ""

    shared = [words & set(content_terms(s)) for s in sentences]  # stemmed once per sentence
    before = [bool(_BEFORE.search(s)) for s in sentences]
    if any(
        _FIRST_OURS.search(s) and not earlier and len(common) >= FIRST_CLAIM_SHARED
        for s, earlier, common in zip(sentences, before, shared, strict=True)
    ):
        return ""  # "BiLLM, for the first time, …", "This is the first …": the paper claims it
    for sentence, earlier, common in zip(sentences, before, shared, strict=True):
        rare = doc_freq is not None and any(0 < doc_freq(w) <= PRIOR_WORK_DOCS for w in common)
        if earlier and (len(common) >= FIRST_CLAIM_SHARED or (bool(common) and rare)):
            return sentence
    return ""
