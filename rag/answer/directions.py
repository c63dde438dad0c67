"""Premises an abstract turns the other way: "Why does X slow training down" against "X
speeds training up", "online" asked of "A General Offline Algorithm …". The pairs of
opposite words, what each says changes, and the guards that tell a claim from a question
or a comparison."""

from __future__ import annotations

import re

from rag.answer.claims import ASKING, CONTRASTING, YES_NO
from rag.text import content_terms, initials

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
# "why did task accuracy fall" against "accuracy on tasks improves": a measure where more
# is better (an error that drops improves), named before the verb; one way only, as an
# abstract tells of the drop it fixes ("… leads to a performance drop")
_FALLS = (
    r"(?:accuracy|performance|quality|reward|rewards|success(?: rate)?|scores?)\s+"
    r"(?:(?!(?:and|or|while|but|whereas|as|when|because|if)\b)[\w'-]+\s+){0,3}?"
    r"(?:falls?|fell|drops?|dropped|declines?|declined|deteriorat(?:es?|ed))",
    r"improves?|improved|improving|rises?|rose|boosts?|boosted",
)
_ONE_WAY = (_CENTRALIZED, _ALWAYS, _IMPLIES, _FALLS)
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
# "gets easier", "is harder to imitate": said of the subject ("harder problems" is no claim;
# "which is easier" asks; "harder in the dense regime than in the sparse one" compares)
_BECOMES = r"(?:gets?|got|getting|becomes?|became|is|are|was|were|grows?)\s+(?:much\s+|far\s+)?"
_EASIER = (
    r"(?<!which )" + _BECOMES + r"easier",
    _BECOMES + r"(?:harder|more difficult)(?![^.;]*\bthan\b)",
)
# The setting a method is for, as the field names its kinds; a paper may name the other
# one as a contrast ("unlike episodic RL"), so only an abstract never writing the asked
# setting says otherwise.
_SETTINGS = (
    (r"episodic|finite[- ]horizon", r"infinite[- ]horizon"),
    (r"(?<!un)discounted", r"undiscounted|average[- ]reward"),
    (r"observational", r"randomi[sz]ed (?:controlled )?(?:experiments?|trials?)"),
    (r"(?<!a)synchronous(?:ly)?|lock-?step", r"asynchronous(?:ly)?"),
    (r"single-agent", r"multi-agent"),
    # "a stationary point" of any objective is no setting
    (
        r"(?<!-)(?<!non)stationary(?!\s+(?:points?|distributions?|solutions?|states?|measures?))",
        r"non-stationary|nonstationary",
    ),
    (
        r"(?:re)?train\w* (?:over and over|again and again|repeatedly)|repeated(?:ly)? "
        r"(?:deploy\w*|retrain\w*)",
        r"one-shot",
    ),
)
_UNLESS_WRITTEN = frozenset(
    t
    for pair in (_SUPERVISION, _CONTINUOUS, _DEPTH, _BANDIT, _EASIER, *_SETTINGS)
    for t in (pair, (pair[1], pair[0]))
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
        r"worse|falls? behind|underperforms?|lags? behind|"
        # "trail conventional GCNs", not "an audit trail"
        r"(?<!audit )(?<!paper )(?<!a )(?<!the )trails?(?= behind| the| its| their| existing| "
        r"conventional| standard| prior| previous| other| most| all)|fails? to|degrades?|"
        r"hurts?|"
        r"los(?:e|es|ing) (?:performance|accuracy)",
        r"better|outperforms?|surpass(?:es)?|beats?|improves?|improved|superior|enhanced",
    ),
    (r"shorter|shortens?|shortened", r"longer|lengthens?|lengthened"),
    # "bounds that come out weaker than SGD's" against "sharper than SGD"
    (r"weaker|looser", r"sharper|tighter"),
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
    # "stealing gets easier the more closely the queries match" against "harder to imitate
    # when …": said of what comes before, so no thing after it to match
    _EASIER,
    *_SETTINGS,
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
    "than the a an it its does do did is are was were compared relative versus "
    # "trail conventional graph convolutional networks": the kind of rival, not the rival
    "conventional existing standard classical traditional prior previous".split()
)
# A title's "Improved …" is no claim about what a question asks; its "Online …" is.
_TITLED = frozenset(t for t in _TURNS if not any(set(t) == set(d) for d in _DIRECTIONS))
SHARED_WORDS = 2  # content words a premise and a sentence must share to be about one thing


_OTHERS = re.compile(
    r"\b(?:previous|prior|existing|earlier|conventional|traditional)\s+(?:\w+\s+)?"
    r"(?:efforts?|methods?|works?|approach(?:es)?|models?|studies|techniques|algorithms)\b"
)
_NOT_SO = re.compile(r"\s+(?:no|zero|neither|nothing|little|without)\b", re.I)
_AT_LEAST = re.compile(
    r"\b(?:more|less|fewer) than (?=[\d$~]|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
    r"a few|a dozen|a handful|a hundred|a thousand|a million|half)\b)"
)
_DENIED = re.compile(
    r"\b(?:cannot|can ?not|unlike|instead of|rather than|not just|beyond|existing|traditional|"
    r"conventional)\b[^.;,]*$"
)


def turned(question: str, sentences: list[str], title: str) -> str:
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
        if _AT_LEAST.match(asked, claim.start()):
            continue  # "when more than two models are merged": a quantity, no direction
        # "… 33.5M. Does it fall behind LoRA there?": asked whether, nothing claimed
        # ("Does *the slower* finetuning come from …?", "Is it because X increases …?" still
        # suppose it)
        asking = re.split(r"[.?!]\s+", asked[: claim.start()])[-1]
        if (
            YES_NO.search(asking)
            and not re.search(r"\b(?:the|its|their|this|a|an)\s+$", asking)
            and not re.search(r"\b(?:because|since|given|as)\b", asking)
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
            turned = re.search(rf"\b(?:{opposite})\b(?!-)", low)  # not "better-known"
            if turned and compared and subject & set(content_terms(low[turned.end() :])):
                continue
            # "Why are earlier bounds looser?" agrees with "ours are tighter than the earlier
            # bounds": the question's subject is what the sentence compares against
            if turned:
                # (words the sentence writes before its comparative are the thing compared:
                # "observed utilities … lower than their true utilities")
                versus = re.match(r"(?:\s+[\w-]+){0,3}?\s+than\b", low[turned.end() :])
                compared_with = (
                    set(content_terms(low[turned.end() + versus.end() :]))
                    - set(content_terms(low[: turned.start()]))
                    if versus
                    else set()
                )
                if subject & compared_with:
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
