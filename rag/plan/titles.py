"""What a question asks of titles: words they contain, lack, start with, either of two or
both; "position papers" are titled "Position: …"."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rag.text import edits_within_one
from rag.types import PlanConstraints

if TYPE_CHECKING:
    from rag.catalogue.catalogue import Catalogue

_TITLE_WORDS = re.compile(
    # "orals (that) carry the word 'protein' in their title": the verb and "the word" too
    r"(?:\b(?:carry|carries|bear|bears|feature|features|use|uses|contain|contains|include|"
    r"includes|mention|mentions|have|has|with)\s+)?(?:the\s+(?:word|term)\s+)?"
    r"['\"“](?P<quoted>[^'\"”]+)['\"”]\s+in\s+(?:the|their|its)\s+titles?"
    # "the paper by X that has 'classifier' in it": a quoted word in it is its title's
    r"|\b(?:has|have|had|with|having|contains?|containing)\s+(?:the\s+(?:word|term)\s+)?"
    r"['\"“‘](?P<init>[\w-]+)['\"”’]\s+in\s+it\b"
    # "the most 'Bayesian' titles"
    r"|['‘\"“](?P<before>[^'’\"”]+)['’\"”]\s+titles\b"
    # "Which 'reasoning' papers got orals?": a word quoted as written, in the title
    r"|(?<!\w)['‘\"“](?P<quotedpapers>[\w-]+)['’\"”]\s+papers\b"
    r"|\btitles?\s+match(?:es|ing)?\s+['\"“](?P<pattern>[^'\"”]+)['\"”]"
    # "speech in title icml 2024 papers": a terse query's word before "in title"
    r"|^\s*['\"“‘]?(?P<lead>[\w-]+)['\"”’]?\s+in\s+(?:the\s+)?titles?\b"
    # "titles with compositional in them"
    r"|\btitles\s+(?:that\s+|which\s+)?(?:with|have|having)\s+(?:the\s+words?\s+)?['\"“]?"
    r"(?P<inthem>[\w-]+(?:\s+[\w-]+){0,2}?)['\"”]?\s+in\s+them\b"
    # "menton X in the title": the verb typed one letter off
    r"|\b(?:with|have|has|having|men?ti?on|men?ti?ons|men?ti?oning)\s+(?:the\s+words?\s+)?(?P<within>[\w-]+(?:\s+[\w-]+){0,2})\s+in\s+(?:the|their|its)"
    r"\s+titles?(?!\s+or\s+(?:the\s+|their\s+|its\s+)?abstracts?)"  # "title or abstract": either
    r"|\btitles?\s+(?:that\s+|which\s+)?(?:containing|contains?|with|mentioning|mentions?|"
    r"including|includes?|having|has|have|using|uses?)\s+"
    r"(?:the\s+(?:exact\s+)?(?:words?|phrase|term)\s+)?"
    # quoted: its end is the quote's ('can't' keeps its apostrophe)
    r"(?:[\"“](?P<inquotes>[^\"”]+)[\"”]|['‘](?P<insingle>(?:[^'’]|['’](?=\w))+)['’](?!\w)"
    r"|['\"“]?(?P<plain>[\w-]+(?:\s+[\w-]+){0,3}?)['\"”]?(?=\s*[?.,]|\s*$))",
    re.I,
)
# "titles from X at ICML 2024 use the word 'bilevel'": the word said further on
_TITLE_WORD_AFTER = re.compile(
    r"\btitles?\b[^?.!;]{0,80}?(?P<tail>\b(?:contain|use|include|mention|ha(?:ve|s))(?:s|es|ing)?\s+"
    r"the\s+(?:exact\s+)?(?:word|term)\s+(?:['\"“‘](?P<quoted>[\w-]+)['\"”’]|(?P<word>[\w-]+)(?=\s*[?.,]|\s*$)))",
    re.I,
)
# "orals whose title asks a question", "question titles", "titles ending in a question mark"
_TITLE_ASKS = re.compile(
    r"\btitles?\s+(?:that\s+|which\s+)?(?:asks?|poses?|(?:is|are)\s+(?:phrased|worded)\s+as)\s+"
    r"(?:a\s+)?questions?\b|\bquestions?\s+as\s+(?:the(?:ir)?\s+)?titles?\b|\bquestion\s+titles\b"
    r"|\btitles?\s+(?:that\s+|which\s+)?(?:ends?|ending)\s+(?:in|with)\s+a\s+question\s+mark\b"
    # "papers with a question mark in the title"
    r"|\b(?:an?\s+)?question\s+marks?\s+in\s+(?:the(?:ir)?|its)\s+titles?\b"
    # "How many titles contain a question mark?"
    r"|\btitles?\s+(?:that\s+|which\s+)?(?:contain|have|has|include|with|containing|having|"
    r"including)s?\s+(?:an?\s+)?question\s+marks?\b",
    re.I,
)
_TITLE_NOUN = re.compile(r"\btit(?:le[sd]?|ling)\b", re.I)
_QUOTED = re.compile(
    r"(?:\bthe\s+(?:word|term)\s+)?(?:[\"“](?P<d>[\w-]+(?:\s[\w-]+){0,2})[\"”]"
    r"|(?<!\w)['‘](?P<s>[\w-]+(?:\s[\w-]+){0,2})['’](?!\w))"
)
_TITLE_APPEARS = re.compile(
    r"\btitles?\s+(?:does|do)\s+(?:the\s+)?(?:word|term)\s+['\"“]?(?P<word>[\w-]+)['\"”]?\s+"
    r"(?:appear|occur|show\s+up)",
    re.I,
)
_TITLE_LACKS = re.compile(
    r"\b(?:(?:do|does)\s*n['’]?o?t|without|that\s+lack|lacking)\s+(?:mention(?:ing)?|contain(?:ing)?|"
    r"hav(?:e|ing)|us(?:e|ing)|the\s+word)?\s*['\"“]?(?P<word>[\w-]+)['\"”]?\s+in\s+(?:the(?:ir)?\s+)?"
    r"titles?(?=\s*(?:[?.,;]|$))",  # not "without labels in the title generation task"
    re.I,
)
_POSITION_PAPERS = re.compile(
    r"\bposition\s+papers\b", re.I
)  # a set; "the position paper X" is one
_TITLE_START = re.compile(
    r"\btitles?\s+(?:that\s+|which\s+)?(?:start(?:s|ing)?|begin(?:s|ning)?)\s+with\s+(?:the\s+word\s+)?"
    r"(?:['\"“](?P<quoted>[\w-]+):?['\"”]|(?P<word>(?-i:[A-Z])[\w-]*):?)",
    re.I,
)
# "with 'minimax' or 'benchmark' in the title", "titles mentioning either 'a' or 'b'"
_TITLE_EITHER = re.compile(
    r"['\"“](?P<first>[^'\"”]+)['\"”]\s+or\s+['\"“](?P<second>[^'\"”]+)['\"”]\s+in\s+"
    r"(?:the|their|its)\s+titles?"
    r"|\btitles?\s+(?:that\s+|which\s+)?(?:contain|mention|include|ha(?:ve|s)|us(?:e|es)|with)"
    r"(?:s|ing)?\s+(?:either\s+)?['\"“](?P<first2>[^'\"”]+)['\"”]\s+or\s+['\"“](?P<second2>[^'\"”]+)['\"”]",
    re.I,
)
# "titles mention 'video' but not 'image'"
_TITLE_BUT_NOT = re.compile(
    r"\btitles?\s+(?:that\s+|which\s+)?(?:contain|mention|include|ha(?:ve|s)|us(?:e|es)|with)"
    r"(?:s|ing)?\s+['\"“](?P<first>[^'\"”]+)['\"”]\s+(?:but|and)\s+not\s+['\"“](?P<second>[^'\"”]+)['\"”]"
    r"|['\"“](?P<first2>[^'\"”]+)['\"”]\s+but\s+not\s+['\"“](?P<second2>[^'\"”]+)['\"”]\s+in\s+"
    r"(?:the|their|its)\s+titles?",
    re.I,
)
_TITLE_BOTH = re.compile(
    r"\btitles?\s+(?:that\s+|which\s+)?(?:contain|mention|include|ha(?:ve|s)|us(?:e|es)|with)s?"
    r"\s+both\s+(?:the\s+words?\s+)?['\"“](?P<first>[^'\"”]+)['\"”]\s+and\s+"
    r"['\"“](?P<second>[^'\"”]+)['\"”]",
    re.I,
)


# "papers that mention ChatGPT (in the abstract)", "abstracts containing 'Llama 2'": a word
# or name written in the title or abstract, quoted, capitalised, or a short phrase ending
# the question ("mention reinforcement learning"), as written, not judged
_KIND_OF_NAME = (
    r"(?:\s+(?:dataset|benchmark|suite|simulator|model|language\s+model|library|framework|"
    r"environment|corpus|architecture|optimizer|game)s?\b)?"
)
_MENTIONS = re.compile(
    r"\b(?:mention(?:s|ed|ing)?|name-?check(?:s|ed|ing)?|talk(?:s|ed|ing)?\s+about|"
    r"refer(?:s|red|ring)?\s+to|(?:(?<=abstracts\s)|(?<=abstract\s)|"
    r"(?<=abstracts\sthat\s)|(?<=abstract\sthat\s))(?:contain|include|use|say)(?:s|ing)?)\s+"
    r"(?:the\s+(?:word|term|phrase|name)\s+)?"
    # "mention the CIFAR-10 dataset", "the MuJoCo simulator": the name, not its kind
    r"(?:['\"“‘](?P<quoted>[^'\"”’]+)['\"”’]|(?:the\s+)?(?P<plain>(?-i:[A-Z0-9])[\w.+-]*(?:[ -](?-i:[A-Z0-9])[\w.+-]*){0,2})(?![\w.+-])"
    + _KIND_OF_NAME
    +
    # "mention reinforcement learning": a short phrase ending the question, as written
    r"|(?P<phrase>(?-i:[a-z])[\w-]*(?:\s+(?-i:[a-z])[\w-]*){0,2})(?=\s*[?.!]?\s*$|\s+in\s+(?:the|their)\s+abstracts?))"
    r"(?P<where>\s+(?:anywhere\s+)?in\s+(?:the(?:ir)?|its|an?)\s+(?:abstracts?|text|title\s+or\s+abstract))?"
    r"(?!\s+in\s+(?:the(?:ir)?|its)\s+titles?\b)",
    re.I,
)


# "papers that use the D4RL benchmark", "evaluate on the MuJoCo simulator": a named dataset
# or benchmark is used where it is written
_USES_NAMED = re.compile(
    r"\b(?:use[sd]?|using|evaluat(?:e|es|ed|ing)\s+on|(?:train|test|benchmark)(?:s|ed|ing)?\s+on)"
    r"\s+the\s+(?P<plain>(?-i:[A-Z0-9])[\w.+-]*(?:[ -](?-i:[A-Z0-9])[\w.+-]*){0,2})\s+"
    r"(?:dataset|benchmark|suite|simulator|environment|corpus)s?\b"
    # "Which papers evaluate Gemini?", "… evaluate on Llama 3?", "what did papers say about
    # GPT-5?": a name ending the question, as written
    r"|\b(?:evaluat(?:e|es|ed|ing)(?:\s+on)?|(?:test|benchmark)(?:s|ed|ing)?\s+on|"
    # "Which papers use Llama-2 70B?": a model's name with its version, as written
    r"(?:use[sd]?|using|fine-?tun(?:e|es|ed|ing))(?=\s+(?:the\s+)?[A-Z][\w.+-]*[\s-]?\d)|"
    r"report(?:s|ed|ing)?\s+(?:results?|numbers|scores?)\s+on|(?:say|said|"
    r"says|write|wrote|writes)\s+about)\s+(?:the\s+)?"
    r"(?P<ending>(?-i:[A-Z])[\w.+-]*(?-i:[A-Z0-9])[\w.+-]*(?:[ -](?-i:[A-Z0-9])[\w.+-]*){0,2}"
    r"|(?-i:[A-Z][a-z]+)(?:[ -]\d[\w.]*))(?=\s*[?.!]?\s*$|\s*,?\s*(?:or|and/or|/)\s+(?:the\s+)?"
    r"(?-i:[A-Z0-9])[\w.+-]*\s*[?.!]?\s*$)",
    re.I,
)
# "… but not GPT-3.5", ", and not Llama 2": a name the papers must not write, after one
# they must
_BUT_NOT = re.compile(
    r"\s*,?\s*(?:but|and|yet)\s+(?:do(?:es)?\s+)?not\s+(?:mention\s+)?(?:the\s+)?"
    r"(?P<word>['\"“‘]?(?-i:[A-Z0-9])[\w.+-]*(?:[ -](?-i:[A-Z0-9])[\w.+-]*){0,2}['\"”’]?)"
    r"(?=\s*[?.!,]|\s*$|\s+in\s+(?:the|their)\s+)",
    re.I,
)
# "… MuJoCo or D4RL": another name, either of them
_OR_NAME = re.compile(
    r"\s*,?\s*(?:or|and/or|/)\s+(?:the\s+)?(?P<word>(?-i:[A-Z0-9])[\w.+-]*(?:[ -](?-i:[A-Z0-9])[\w.+-]*){0,2})"
    r"(?![\w.+-])(?:\s+(?:datasets?|benchmarks?|suites?|simulators?|environments?))?"
    r"(?=\s*[?.!,]|\s*$)",
    re.I,
)
_BY_NAME = re.compile(
    r"^\s*,?\s*(?:specifically|explicitly|by\s+name|at\s+all|directly|verbatim)\b", re.I
)
# "that do not mention", "which don't mention", "never mention", "without mentioning"
_NEGATED = re.compile(
    r"\s*\b(?:(?:that|which|who)\s+)?(?:(?:do|does|did)\s+not|(?:do|does|did)n['’]t|never|"
    r"without)\s*$",
    re.I,
)
_GOES_ON = frozenset(
    "in and or but at from with for on of that which who whose as by than to".split()
)  # words after a mentioned name that start the question's next part
MENTION_DESCRIBED = 3  # lower-case words after "mention" that describe, not name


def text_words(
    text: str, constraints: PlanConstraints, written: Callable[[str], bool] | None = None
) -> str:
    """A word the title or abstract must write ("Which papers mention ChatGPT?"), taken out
    of the question's text. `written`: whether some title or abstract writes a phrase; a
    lower-case description none writes ("mention watermarking llm outputs") asks for a
    topic."""
    found = _MENTIONS.search(text) or _USES_NAMED.search(text)
    if found is None:
        return text
    groups = found.groupdict()
    word = (
        groups.get("quoted")
        or groups.get("plain")
        or groups.get("ending")
        or groups.get("phrase")
        or ""
    ).strip()
    word = word.rstrip(".")
    if not word or word.lower() in ("icml", "icml 2024"):
        return text
    either = _OR_NAME.match(text[found.end() :]) if not groups.get("quoted") else None
    named = [word, either.group("word")] if either else [word]
    if groups.get("ending") and not any(re.search(r"\d|[a-z][A-Z]|[A-Z]-[a-z]", w) for w in named):
        return text  # "evaluate LLMs": a field's acronym, judged as a topic
    said_about = re.search(r"(?i)\b(?:say|said|says|write|wrote|writes)\s+about\b", found.group(0))
    if said_about and written is not None and written(word):
        return text  # "What did papers say about GPT-4V?": what they say is asked, quoted
    after = re.match(r"\s+([a-z][\w-]*)", text[found.end() :])
    if (
        groups.get("plain")
        and re.search(r"(?i)\bthe\s+$", text[: found.start("plain")])
        and (after and after.group(1) not in _GOES_ON)
    ):
        return text  # "mention the Hessian matrix": a name in a phrase, not the name alone
    if groups.get("phrase") and re.match(r"(?i)talk|refer", found.group(0)):
        # "papers that talk about reinforcement learning": a topic, its frame said
        return re.sub(
            r"(?i)\b(?:talk(?:s|ed|ing)?\s+about|refer(?:s|red|ring)?\s+to)\s+",
            "about ",
            text,
            count=1,
        )
    # "mention watermarking llm outputs": a description, not a name ("Claude 3", "sparse
    # autoencoders" are taken as written, and an exact none is the answer)
    phrase = groups.get("phrase") and len(word.split()) >= MENTION_DESCRIBED
    if phrase and written is not None and not written(word):
        return text
    before = re.sub(r"(?i)\b(?:specifically|explicitly|directly)\s*$", "", text[: found.start()])
    negated = _NEGATED.search(before)
    if negated:  # "LLM papers that do not mention fine-tuning": papers that do not write it
        constraints.not_text_words.append(word)
        return f"{before[: negated.start()]} {text[found.end() :]}"
    rest = text[found.end() :]
    if either:  # "evaluate on MuJoCo or D4RL": one of them written
        constraints.any_text_words += [word, either.group("word").strip()]
        return f"{before} {rest[either.end() :]}"
    constraints.text_words.append(word)
    # "mention Llama 2 specifically": how it is written, no topic
    rest = _BY_NAME.sub("", rest, count=1)
    lacking = _BUT_NOT.match(rest)
    if lacking:  # "mention GPT-4 but not GPT-3.5": the other name left out
        constraints.not_text_words.append(lacking.group("word").strip())
        rest = rest[lacking.end() :]
    return f"{before} {rest}"


_NOT_POSITION = re.compile(
    r"(?:\b(?:not|aren['’]t|isn['’]t|weren['’]t|excluding|except|other\s+than|besides)\s+"
    r"(?:(?:any|the|a)\s+)?|\bnon-?\s*)$",
    re.I,
)


def title_words(text: str, constraints: PlanConstraints) -> str:
    """Constraints on the words of titles ("titles starting with 'Differentially'",
    "'video' but not 'image' in the title"), taken out of the question's text."""
    position = _POSITION_PAPERS.search(text)
    if position:  # "position papers": titled "Position: …"
        before = text[: position.start()]
        negated = _NOT_POSITION.search(before)
        if negated:  # "orals that are not position papers", "non-position papers"
            constraints.not_title_words.append("^position")
            before = before[: negated.start()]
        else:
            constraints.title_words.append("^position")
        text = before + " papers" + text[position.end() :]
    asks = _TITLE_ASKS.search(text)
    if asks:  # "a title that asks a question": a question mark in it
        constraints.title_words.append("?")
        text = text[: asks.start()] + " titles " + text[asks.end() :]
    lacking = _TITLE_LACKS.search(text)
    if lacking:  # "don't mention forecasting in the title"
        constraints.not_title_words.append(lacking.group("word"))
        return text[: lacking.start()] + " " + text[lacking.end() :]
    appears = _TITLE_APPEARS.search(text)
    if appears:  # "In how many titles does the word X appear?"
        constraints.title_words.append(appears.group("word"))
        return text[: appears.start()] + " titles " + text[appears.end() :]
    start = _TITLE_START.search(text)
    if start:  # "titles starting with 'Differentially'": the first word
        constraints.title_words.append("^" + (start.group("quoted") or start.group("word")))
        return text[: start.start()] + " " + text[start.end() :]
    either = _TITLE_EITHER.search(text)
    if either:
        first, second = (
            either.group("first") or either.group("first2"),
            either.group("second") or either.group("second2"),
        )
        constraints.any_title_words += [first.strip(), second.strip()]
        return text[: either.start()] + " titles " + text[either.end() :]
    but_not = _TITLE_BUT_NOT.search(text)
    if but_not:
        constraints.title_words.append((but_not.group("first") or but_not.group("first2")).strip())
        constraints.not_title_words.append(
            (but_not.group("second") or but_not.group("second2")).strip()
        )
        return text[: but_not.start()] + " titles " + text[but_not.end() :]
    both = _TITLE_BOTH.search(text)
    if both:  # "titles contain both 'backdoor' and 'attack'": each must be in the title
        constraints.title_words += [both.group("first").strip(), both.group("second").strip()]
        return text[: both.start()] + " " + text[both.end() :]
    match = _TITLE_WORDS.search(text)
    if match is None:
        after = _TITLE_WORD_AFTER.search(text)
        if after:  # the title's words kept ("Which titles from X …"), the word's frame out
            constraints.title_words.append(after.group("quoted") or after.group("word"))
            return text[: after.start("tail")] + " " + text[after.end() :]
        quoted = _QUOTED.findall(text)
        # not "the titles of 'Sergey Levine' papers" (titles asked for) nor "papers on
        # 'grokking'" (a topic said as one)
        asked_for = re.search(
            r"\btitles?\s+of\s+(?:the\s+|all\s+|their\s+)?(?:['\"“‘]|(?:[\w-]+\s+)?papers?\b|works?\b)",
            text,
            re.I,
        )
        # "title of the 'matching' paper by X": the word quoted before "paper" is a title's
        one_paper = re.search(r"\bthe\s+['\"“‘][\w-]+['\"”’]\s+paper\b", text, re.I)
        asked_for = None if one_paper else asked_for
        about = re.search(r"\b(?:on|about|regarding)\s+['\"“‘]", text, re.I)
        if len(quoted) == 1 and _TITLE_NOUN.search(text) and not (asked_for or about):
            # "Is 'denoising' in any of X's titles?", "the title had 'hypothesis' in it",
            # "Papers titled with the word 'domain'": one word quoted beside titles is theirs
            constraints.title_words.append(quoted[0][0] or quoted[0][1])
            return _QUOTED.sub(" ", text, count=1)
        return text
    words = (
        match.group("quoted")
        or match.group("pattern")
        or match.group("inthem")
        or match.group("lead")
        or match.group("quotedpapers")
        or match.group("init")
        or match.group("within")
        or match.group("before")
        or match.group("inquotes")
        or match.group("insingle")
        or match.group("plain")
        or ""
    ).strip()
    words = re.sub(r"^(?:an?|the)\s+", "", words, flags=re.I)  # "an LLM in their title"
    quoted = _QUOTED.findall(text)
    if _POINTER_WORD.fullmatch(words) and len(quoted) == 1:
        # "… on 'optimization', counting papers whose title contains that word": the one
        # word quoted before
        words = quoted[0][0] or quoted[0][1]
        text = _QUOTED.sub(" ", text, count=1)
        match = _TITLE_WORDS.search(text) or match
    if words:
        constraints.title_words.append(words)
    return text[: match.start()] + " " + text[match.end() :]


# a title word said as a pointer to the word said before it
_POINTER_WORD = re.compile(r"(?:that|this|the\s+same)\s+(?:word|term)|it|that|this", re.I)


def mend_title_typos(
    constraints: PlanConstraints, catalogue: Catalogue, doc_freq: Callable[[str], int] | None
) -> None:
    """A title word that neither titles nor abstracts write, one letter inside it off the
    only title word so close ("explration"), is read as it and said so (`read_as`); a word
    the corpus writes is a word ("poison", "inefficient", "isotropic"), not a typo."""
    constraints.title_words = [
        _mended(word, constraints, catalogue, doc_freq) for word in constraints.title_words
    ]


def _mended(
    word: str,
    constraints: PlanConstraints,
    catalogue: Catalogue,
    doc_freq: Callable[[str], int] | None,
) -> str:
    typed = word.lower()
    if re.search(r"[^a-z]", typed) or doc_freq is None or doc_freq(typed) or catalogue.titled(word):
        return word
    close = [w for w in catalogue.title_vocabulary() if _one_letter_inside(typed, w)]
    # "explorations" beside "exploration" is the same word
    close = [c for c in close if not any(c != o and c.startswith(o) for o in close)]
    if len(close) != 1:
        return word
    constraints.read_as[word] = close[0]
    return close[0]


def _one_letter_inside(typed: str, word: str) -> bool:
    """One letter added, dropped or changed, not the first or the last ("explration" for
    "exploration"; not "Mamba2" for "Mamba" nor "emerging" for "merging")."""
    return (
        min(len(typed), len(word)) >= 5
        and typed != word
        and (typed[0], typed[-1]) == (word[0], word[-1])
        and edits_within_one(typed, word)
    )
