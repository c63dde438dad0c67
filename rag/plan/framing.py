"""How a question is put around what it asks: greetings, requests, titles before names.

"Hi! Could you tell me how many …" asks "how many …"; "I'm looking for X. How many are
there?" asks "How many X?"; "Prof. Kyunghyun Cho" is Kyunghyun Cho; "…, sorted by title"
orders a table, it names no topic.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from rag.plan.languages import in_english
from rag.plan.situations import (
    ITS,
    aside_first,
    context_dropped,
    corrected,
    named_for,
    preamble_dropped,
    question_about_then,
    remarks_dropped,
    same_question,
)
from rag.text import neighbour_swaps, status_asked_after

# The conference named in a question ("at ICML 2024", "this year's"): no topic, no name.
VENUE = re.compile(
    r"\b(?:at|in|from|of)?\s*(?:the\s+)?(?:2024['’]s\s+|2024\s+)?"
    r"(?:icml|international\s+conference\s+on\s+machine\s+learning)(?:\s*[-'’]?\s*(?:20)?24)?\b"
    r"(?:\s+conference)?(?:\s+in\s+vienna)?(?:\s+(?:this|last)\s+year)?(?:\s+(?:in|of)\s+2024)?"
    r"|\bthis\s+year['’]?s?\b"
    # "the longest title in the conference": the conference itself, no topic
    r"|\b(?:in|at|of|across)\s+(?:the|this)\s+(?:whole\s+|entire\s+)?conference\b(?=\s*[?.!,]|\s*$)",
    re.I,
)

# "Who wrote …", "Who is the first author of …": asked of the paper named after it
WHO_WROTE = re.compile(
    r"^\s*who(?:['’]s|\s+is|\s+are|\s+was|\s+were)?\s+(?:the\s+)?"
    r"(?:(?P<place>first|last|lead|senior)[- ])?(?:(?:authors?|writers?)\s+(?:of|on|behind)"
    r"|wrote|proposed|introduced|developed|created|invented|came\s+up\s+with)\s+(?:the\s+(?:paper|work)\s+(?:(?:on|about|introducing|proposing|that\s+"
    r"(?:introduced|introduces|proposed|proposes))\s+)?)?",
    re.I,
)

_GREETING = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear \w+)(?:\s+there)?(?![\w-])[\s!,.:—–-]*)?"
    # "Hi, thanks in advance: I need …"
    r"(?:(?:many\s+)?thanks?(?:\s+you)?(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?\s*[!,.:;-]+\s*)?"
    r"(?:(?:(?:a\s+)?quick\s+(?:one|question|q)|real\s+quick)\s*[:,.!-]+\s*)?",
    re.I,
)
_REQUEST = re.compile(
    r"^\s*(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+|would\s+you\s+mind\s+|"
    r"i['’]d\s+be\s+grateful\s+if\s+you\s+could\s+|i\s+would\s+be\s+grateful\s+if\s+you\s+could\s+)"
    r"(?=(?:tell|show|give)(?:ing)?\s+me\b|list\b|show\b|find\b|name\b|count\b)",
    re.I,
)
_TELL_ME = re.compile(
    r"^\s*(?:(?:tell|give)(?:ing)?\s+me\s+(?=how many\b|which\b|what\b|the number\b|all\b)|"
    r"(?:i['’]d|i\s+would|i)\s+(?:like|want|love|appreciate)\s+(?:to\s+(?:see|know|get)\s+|"
    r"(?:a|the)\s+list\s+of\s+)|"
    r"remind\s+me\s+(?=how many\b|which\b|what\b|who\b))",
    re.I,
)
_LOOKING_FOR = re.compile(
    r"^\s*i(?:'m|’m| am)\s+(?:looking for|searching for)\s+(?:the\s+|all\s+)?"
    r"(?P<what>[^.!?]+?)(?:[.!?]+\s*(?P<then>how many (?:are|were) there|which (?:ones )?"
    r"(?:are|were) they|which ones|what are they)\s*[?.!]*|[.!?]*)\s*$",
    re.I | re.S,
)


_IF_SO = re.compile(r"\?\s*if\s+so,?\s+(?:which|what|list\s+them|which\s+ones?)[^?]*\?\s*$", re.I)
# "X's papers on offline RL — which ones?": the list asked, said again after the question
_WHICH_ONES = re.compile(
    r"\s*[,;:—–-]+\s*(?:so\s+)?(?:which|what)\s+(?:ones?|are\s+they|papers)\s*\?*\s*$", re.I
)
# Nouns people use for papers ("ICML 2024 works" only beside the venue: "how it works")
_PAPERS_NOUN = re.compile(
    r"\b(?:publications|submissions|articles)\b|(?<=ICML 2024 )works\b|"
    r"(?<=[Ii][Cc][Mm][Ll] 2024 )acceptances\b|"  # not "college acceptances"
    r"(?<=accepted )works\b"
    # "Jieyu Zhang's ICML 2024 stuff", "MIT's ICML 2024 work" (not "the model's output")
    r"|(?<=['’]s )(?:(?:ICML|icml)\s*(?:20)?24\s+(?:stuff|output|work)|stuff)\b",
    re.I,
)
# "List everything from X": every paper from X
_EVERYTHING = re.compile(
    r"^(\s*(?:list|show(?:\s+me)?|give\s+me)\s+)everything(?=\s+(?:from|by)\b)", re.I
)  # not "show me everything about the Vision Mamba paper": one paper
_I_NEED = re.compile(r"^\s*(?:i\s+need|i['’]d\s+need|can\s+you\s+list|could\s+you\s+list)\s+", re.I)
# "Can you pull up X's papers", "Fetch me X's orals": show them
_FETCH = re.compile(
    r"^\s*(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+)?"
    r"(?:pull\s+up|fetch|grab|bring\s+up|dig\s+up|look\s+up)(?:\s+me)?\s+",
    re.I,
)
# "looking for X's papers" (no "I'm"): show them
_LOOKING = re.compile(r"^\s*(?:just\s+)?(?:looking|searching)\s+for\s+", re.I)
# "What came out of X's lab at ICML 2024?", "Show me what X contributed to ICML 2024."
_CAME_FROM = re.compile(
    # a lab, or the venue, says it is about papers (not "what came out of Mamba's analysis")
    r"^\s*(?i:(?:(?:show|tell)\s+me\s+|list\s+)?what\s+)(?:(?i:(?:came|comes)\s+out\s+of\s+)"
    r"(?P<who>[A-Z][^?.!]*?)(?:['’]s\s+(?i:lab|group|team)(?:\s+(?i:at|in)\s+ICML\s*(?:20)?24)?|"
    r"\s+(?i:at|in)\s+ICML\s*(?:20)?24)|(?P<maker>[A-Z][^?.!]*?)\s+"
    r"(?i:contributed|brought|presented|submitted)\s+(?i:to|at|in)\s+ICML\s*(?:20)?24)"
    r"\s*[?.!]*\s*$"
)
_TRUE_THAT = re.compile(
    r"^\s*(?:is\s+it\s+(?:true|correct|right)|am\s+i\s+right|did\s+i\s+hear\s+right)\s+"
    r"(?:that\s+)?(?P<rest>.+)$",
    re.I,
)
_HAD_NONE = re.compile(
    r"\b(?P<verb>had|has|have|got|gets|received|landed)\s+no\s+(?P<status>oral|spotlight|poster)s?"
    r"\b(?!\s+(?!at\b|in\b)[a-z])",  # not "no oral anticoagulants"
    re.I,
)
# "I'd like a count of X's spotlights": give me a count
_COUNT_WANTED = re.compile(
    r"^\s*(?:i['’]d|i\s+would|i)\s+(?:like|want|need|love)\s+(?=(?:a|the)\s+(?:count|number|tally)\s+of\b)",
    re.I,
)
# "How many papers did Meituan put out": publish, in a question about papers (a name
# between; not "get pushed out by generative AI", "does GPT-4 put out longer answers")
_PUT_OUT = re.compile(
    r"\b(?P<did>(?i:did|does|has|have))\s+(?P<who>(?:[A-Z][\w&.'’-]*\s+){1,6})"
    r"(?i:put|churn(?:ed)?|crank(?:ed)?|pump(?:ed)?)\s+out\b"
)
_ABOUT_PAPERS = re.compile(r"\b(?:papers|orals|spotlights|posters|publications)\b", re.I)
_SUBJECT_FIRST = re.compile(
    r"^\s*(?P<who>(?:the\s+)?[A-Z][^?]*?)\s+(?:landed|had|got|published|presented)\s+how\s+many\s+"
    r"(?P<rest>[^?]+?)\s*\?*\s*$"
)
_HOW_MANY_LAST = re.compile(
    r"(?:\s+(?:together|combined|in\s+total))?\s*[:,—–-]\s*(?:how\s+many(?:\s+papers)?|what(?:['’]s|\s+is)\s+"
    r"(?:the|their)\s+(?:ICML\s*(?:20)?24\s+)?(?:paper\s+)?(?:total|count|number|tally))"
    r"(?:\s+(?:at|in|for|from)\s+ICML\s*(?:20)?24)?\s*\?*\s*$",
    re.I,
)
# "Sapienza and HSE between them": names only (not "the parameters of the encoder")
# what may follow a name before "how many": a status, a byline place, an exclusion
_FILTER_SAID = re.compile(
    r"\b(?:orals?|spotlights?|posters?|first|last|senior|authors?|only|not|excluding|except|"
    r"counting|apart|titles?)\b",
    re.I,
)
_NAMES_ONLY = re.compile(
    r"^(?:(?:(?-i:[A-Z])[\w&.'’-]*|and|or|&|between|them|together|combined|both|the|of|for|de|bin)"
    r"[\s,]*)+$"
)
_HOW_MANY_HAVE = re.compile(
    r"^\s*(?P<what>[^:?]+?)\s*:\s*how\s+many\s+(?:of\s+(?:them|these)\s+)?"
    r"(?P<rest>(?:have|had|are|were|list|carry|include)\b[^?]*?)\s*\?*\s*$",
    re.I,
)
_ROUGHLY = re.compile(
    r"^\s*(?:roughly|approximately|about|around|so|and|ok(?:ay)?,?)\s+(?=how\s+many\b)", re.I
)
_HONORIFIC = re.compile(r"\b(?:Prof(?:essor)?|Dr|Mrs?|Ms)\b\.?\s+(?=[A-Z])")


_AS_AFFILIATION = re.compile(
    r"\blist(?:s|ed|ing)?\s+(?P<name>[^?,;]+?)\s+as\s+(?:an?\s+|their\s+|its\s+|the\s+|one\s+)?"
    r"(?:(?P<place>first|last|lead|senior)\s+)?(?:(?:author['’]?s?\s+)?affiliations?|institutions?)\b",
    re.I,
)


_AND_WHICH = re.compile(
    r"^\s*(?:(?:can\s+you\s+|please\s+)?(?:list|show(?:\s+me)?|give(?:\s+me)?)|which\s+are|what\s+are)\s+"
    r"(?P<who>[^?,]+?\b(?:papers|orals|spotlights|posters))\s*,?\s+and\s+which\s+"
    r"(?:ones\s+|of\s+them\s+|of\s+those\s+)?(?:are|were)\s+(?:about|on)\s+(?P<topic>[^?]+?)\s*\??\s*$",
    re.I,
)


# "Which papers are about X, and which of them are orals?", "Diffusion papers from Google,
# and how many are orals?", "List the RLHF papers, then tell me how many of them are orals."
_THEN_HOW_MANY_OF_THEM = re.compile(
    r"^\s*(?P<first>[^?;]*?\b(?P<noun>papers|works|publications)\b[^?;]*?)"
    r"(?:\s*[,;:—–-]?\s*(?:and|then)\s+|\s*[;:—–]\s*)(?:then\s+)?(?:tell\s+me\s+|say\s+)?(?P<ask>how\s+many|which)\s+"
    r"(?:ones\s+|(?:of\s+)?(?:them|those|these)\s+)?"
    r"(?:(?:are|were|got|received|won|came\s+out\s+as)\s+(?:an?\s+)?"
    r"(?P<status>orals?|spotlights?|posters?)(?:\s+papers)?"
    r"|(?:are|were|come|came)\s+from\s+(?:the\s+)?(?P<place>[A-Z][^?]*?))\s*[?.!]?\s*$",
    re.I,
)
# a first part asking a topic ("Diffusion papers", "papers about X", "papers that use X"), not
# only metadata ("papers with an author from HUST, and how many of them were orals?" lists
# them all with their statuses) nor a status already ("which were orals, and which posters")
_TOPIC_ASKED = re.compile(
    # a mention is read as written and listed with its statuses counted: not a topic's
    r"^(?!.*\b(?:orals?|spotlights?|posters?)\b)(?!.*\bmention)"
    r"(?!.*\buse[sd]?\s+the\s+[A-Z0-9][\w.+-]*\s+(?:dataset|benchmark|suite|simulator)s?\b)(?:"
    r"\s*(?!(?:which|what|list|show|find|give|how|the|all|icml|2024)\b)[A-Za-z][\w-]*\s+(?:[\w-]+\s+)?papers\b"
    r"|.*\bpapers\s+(?:are\s+|were\s+)?(?:about|on|study|studying|use|using|"
    r"address|addressing|propose|proposing|tackle|apply|applying)\b"
    r"|.*\b(?:the|all)\s+(?!ICML\b)[\w-]+(?:\s+[\w-]+)?\s+papers\b)",
    re.I,
)
_AND_OF_THEM = re.compile(
    r",?\s+and\s+(?:how\s+many|which)\s+(?:ones\s+)?(?:of\s+(?:them|those|these)\b"
    # "…, and which are orals?": of those papers
    r"|(?:are|were)\s+(?:an?\s+)?(?:orals?|spotlights?|posters?)\s*[?.!]*\s*$)",
    re.I,
)
_LEAD = re.compile(r"^\s*(?:which|what|list|show(?:\s+me)?|find|give\s+me|how\s+many)\s+", re.I)


def _of_them(found: re.Match[str]) -> str:
    """The first part's papers narrowed by the second's status or institution, asked as the
    second part asks: "How many oral papers are about RLHF?"."""
    first, noun = found.group("first"), found.group("noun")
    status, place = found.group("status"), found.group("place")
    at = found.start("noun")
    if status:
        first = f"{first[:at]}{status.rstrip('sS').lower()} {first[at:]}"
    else:
        end = at + len(noun)
        first = f"{first[:end]} from {place.strip()}{first[end:]}"
    first = _LEAD.sub("", re.sub(r"^\s*(?:the|all)\s+", "", first), count=1)
    first = re.sub(r"^\s*(?:the|all)\s+", "", first)
    ask = "How many" if found.group("ask").lower().startswith("how") else "Which"
    return f"{ask} {first}?"


def _author_from(found: re.Match[str]) -> str:
    place = (found.group("place") or "").lower()
    place = {"lead": "first", "senior": "last"}.get(place, place)
    return f"have {'a ' + place if place else 'an'} author from {found.group('name')}"


# "I'm starting a PhD on imitation learning. how many papers on that?": the topic said first
_SAID_TOPIC = re.compile(
    r"^\s*(?:(?:hi|hey|hello)[,!.]?\s+)?(?:i['’]?m|i\s+am|we['’]?re|we\s+are)\s+[^.?!]*?\b"
    r"(?:phd|thesis|project|survey|review|research|work|working|interested|looking|reading)\s+"
    r"(?:on|in|into|about|for)\s+(?P<topic>[^.?!]+?)\s*[.!]\s+(?P<rest>[^.!]*\?)\s*$",
    re.I,
)
_ON_THAT = re.compile(
    r"\b(?P<on>on|about|in)\s+(?:th(?:at|is)\s+(?:topic|area|field)|that|this|it)\b", re.I
)


def _that_topic(text: str) -> str:
    """The question with "that" for the topic its first sentence said ("… on that" → "… on
    imitation learning"); unchanged without both."""
    said = _SAID_TOPIC.match(text)
    if said is None or not _ON_THAT.search(said.group("rest")):
        return text
    topic = said.group("topic").strip()
    return _ON_THAT.sub(lambda m: f"{m.group('on')} {topic}", said.group("rest"), count=1)


def plain_question(question: str) -> str:
    """The question without a greeting or a request around it: "Hi! Could you tell me how
    many …" asks "how many …"; "I'm looking for X. How many are there?" asks "How many X?"."""
    text = in_english(_typed_plainly(question))
    text = _that_topic(status_asked_after(corrected(text)))
    text = question_about_then(text)
    text = _listed_criteria(text)
    text = same_question(text)
    text = preamble_dropped(aside_first(text))
    added = _ADD_UP.match(text)
    if added:  # "Add up the paper counts of A and B — what's the total?"
        text = f"How many ICML 2024 papers do {added.group('who').strip()} have combined?"
    placed = _PLACE_THEN.match(text)
    who = placed.group("who") if placed else ""
    # "TU Berlin at ICML 2024: papers with 'adaptive' in the title?"
    if placed and (_PLACE_NOUN.search(who) or re.search(r"\b[A-Z]{2,}", who)):
        text = f"{placed.group('rest').rstrip(' ?')} (from {who})?"
    text = re.sub(r"\band\s*/\s*or\b", "or", text)  # "by A and/or B": either's
    # "papers that list Google DeepMind as an affiliation": an author from it
    text = _AS_AFFILIATION.sub(_author_from, text)
    of_them = _THEN_HOW_MANY_OF_THEM.match(text)
    # "Which papers are about X, and how many of them are orals?": the topic's papers with
    # their statuses counted (the answer says both); a terse first part is asked as one set
    whole = (
        of_them is not None
        and bool(of_them.group("status"))
        and re.match(r"(?i)\s*(?:how\s+many|which|what)\b", of_them.group("first")) is not None
        and _AND_OF_THEM.search(text) is not None
    )
    if of_them and not whole and _TOPIC_ASKED.search(of_them.group("first")):
        text = _of_them(of_them)  # "…, and how many of them are orals?": the orals among them
    both = _AND_WHICH.match(text)
    if both:  # "list X's papers and which ones are about Y": Y among X's papers, all ranked
        text = f"Which of {both.group('who').strip()} are about {both.group('topic').strip()}?"
    # "Chenghao Deng + Bang An": two people's names (not "LoRA + Quantization")
    text = re.sub(
        r"\b([A-Z][a-z]+ [A-Z][a-z]+)\s+\+\s+(?=[A-Z][a-z]+ [A-Z][a-z]+\b)", r"\1 and ", text
    )
    # "orals + spotlights": both statuses
    text = re.sub(
        r"(?i)\b(orals?|spotlights?|posters?)\s*\+\s*(?=(?:orals?|spotlights?|posters?)\b)",
        r"\1 and ",
        text,
    )
    text = _GREETING.sub("", text, count=1)
    taken = _TAKE.match(text) or (None if _HOW_MANY_LAST.search(text) else _DASHED.match(text))
    if taken and ITS.search(taken.group("rest")):  # "Take X. How many of its papers …"
        what = taken.group("what").strip()
        text = named_for(ITS, what, taken.group("rest"))
    text = _THANKS.sub("", text)
    for pattern, said in _SAID_PLAINLY:  # each wording said as the question it asks
        text = pattern.sub(said, text, count=1)
    text = remarks_dropped(text)  # "Filling in a spreadsheet: …", "… — what have you got?"
    owned = _PAPER_COUNT.match(text)
    if owned:  # "What was the University of Arizona's paper count at ICML 2024?"
        what = (owned.group("what") or "paper").lower()
        noun = f"{what}s" if what in ("oral", "spotlight", "poster") else "papers"
        rest = re.sub(
            r"^\s*(?:at|for|in)\s+ICML\s*(?:20)?24\b", "", owned.group("rest"), flags=re.I
        )
        who = owned.group("who").strip()
        # "intsig's …": a one-word name typed in lower case (longer ones are read as typed)
        who = who.title() if who.islower() and " " not in who else who
        text = f"How many ICML 2024 {noun} does {who} have{rest}?"
    quick = _QUICK_COUNT.match(text)
    if quick:
        text = f"How many ICML 2024 papers does {quick.group('what').strip()} have?"
    text = _HONORIFIC.sub("", text)  # "Dr. Gregory W. Wornell had …": the name itself
    added = _ADDENDUM.match(text)
    if added:  # "X co-authored what? Not the posters — orals and spotlights only.": one question
        text = f"{added.group('asked').rstrip()}, {added.group('added').rstrip(' .!')}?"
    if not _LOOKING_FOR.match(text):
        text = context_dropped(text)
    text = _GREETING.sub("", text, count=1)
    text = _TELL_ME.sub("", _REQUEST.sub("", text, count=1), count=1)
    text = _HONORIFIC.sub("", text)  # "Prof. Kyunghyun Cho" is Kyunghyun Cho
    text = _ROUGHLY.sub("", text)  # "Roughly how many …": the count is exact anyway
    text = _IF_SO.sub("?", text)  # "Is X on any papers? If so, which?": the list asked
    text = _WHICH_ONES.sub("?", text)
    text = _PAPERS_NOUN.sub("papers", text)  # "publications", "submissions": papers
    text = _I_NEED.sub("", text, count=1)  # "I need the papers …", "Can you list …"
    text = _FETCH.sub("Show me ", text, count=1)
    text = _LOOKING.sub("Show me ", text, count=1)
    came = _CAME_FROM.match(text)
    if came:  # "What came out of Victor Veitch's lab?", "Show me what Basel contributed"
        who = came.group("who") or came.group("maker")
        text = f"Which ICML 2024 papers did {who.strip()} publish?"
    true_that = _TRUE_THAT.match(text)
    if true_that and _HAD_NONE.search(true_that.group("rest")):
        # "Is it true that X had no spotlight?": X's spotlights say whether
        text = _HAD_NONE.sub(r"\g<verb> any \g<status>s", true_that.group("rest"))
    text = _COUNT_WANTED.sub("Give me ", text, count=1)
    if _ABOUT_PAPERS.search(text):
        text = _PUT_OUT.sub(_published, text)
    text = _EVERYTHING.sub(r"\1all papers", text, count=1)
    subject_first = _SUBJECT_FIRST.match(text)
    if subject_first:  # "The University of Sydney landed how many works?"
        text = f"How many {subject_first.group('rest')} did {subject_first.group('who')} have?"
    asked_last = _HOW_MANY_LAST.search(text)
    if asked_last:  # "Papers X co-authored: how many?" asks "How many papers X co-authored?"
        before = text[: asked_last.start()].strip(" ,")
        # "NWPU at ICML 2024, not counting posters: how many?": the names, then the rest
        named = re.match(
            r"^(?P<names>[^,]+?)(?P<rest>(?:\s+at\s+ICML\s*(?:20)?24)?,\s*.+)$", before
        )
        if named and not _FILTER_SAID.search(named.group("rest")):
            named = None  # "OpenAI, Anthropic": two names, not a name and a filter
        combined = re.search(r"\b(?:combined|together|in\s+total)\b", asked_last.group(0))
        joined = re.match(r"^(?P<names>.+?),?\s+(?:combined|together|in\s+total)$", before)
        if joined:  # "A and B, combined: how many papers?"
            before, combined = joined.group("names"), joined
        if "," not in before and _NAMES_ONLY.match(before):
            # "Sapienza and HSE between them — what's their total?": their papers
            text = f"How many papers did {before} have{' combined' if combined else ''}?"
        elif named and _NAMES_ONLY.match(named.group("names")):
            text = f"How many papers did {named.group('names')} have{named.group('rest')}?"
        elif not _NAMES_ONLY.match(before):
            text = f"How many {before}?"
        # "OpenAI, Anthropic: how many papers?": each's or both's, not said; left as typed
    # "does Sapienza and HSE between them have": the two, combined
    text = re.sub(
        r"\b(does|do|did)\s+(\S.*?)\s+(?:between\s+them|together)\s+(have|get|publish)\b",
        r"\1 \2 \3 combined",
        text,
        flags=re.I,
    )
    of_them = _HOW_MANY_HAVE.match(text)
    if of_them:  # "Titles containing 'manifold': how many have three authors or fewer?"
        text = f"How many {of_them.group('what').strip()} {of_them.group('rest').strip()}?"
    text = re.sub(r"\b(?:ended|ends|end)\s+up\s+(?:as|being)\s+", "were ", text, flags=re.I)
    shared = _SHARE_ANY.match(text)
    if shared and _PLACE_NOUN.search(shared.group("who")):
        # "Do the University of Siegen and the MPI for Informatics share any paper?"
        text = f"Which ICML 2024 papers are from both {shared.group('who').strip()}?"
    pair = _PAIR_THEN_JOINT.match(text)
    if pair and _PLACE_NOUN.search(pair.group("who")):
        # "Seoul National University and the Ulsan National Institute …: what joint papers
        # do they have?": the papers of both (people are read wherever they are named)
        text = f"Which ICML 2024 papers are from both {pair.group('who').strip()}?"
    together = _PUT_TOGETHER.match(text)
    if together:  # "Putting A's and B's papers together, how many different papers is that?"
        who = re.sub(r"['’]s?\b", "", together.group("who"))
        text = f"How many ICML 2024 papers do {who.strip()} have combined?"
    text = re.sub(r"\bw/o\b\s*", "without ", text, flags=re.I)  # "papers w/o X as coauthor"
    text = re.sub(r"\bw/\s*", "with ", text)  # "papers w/ authors from …"
    text = _SORTED.sub("", text)
    wanted = _LOOKING_FOR.match(text)
    if wanted:
        then = (wanted.group("then") or "").lower()
        what = wanted.group("what").strip(" .?!")
        text = f"{'How many' if then.startswith('how many') else 'Which'} {what}?"
    text = text.strip()
    return text[:1].upper() + text[1:] if text else question


# How people type in a chat box: markdown, emoji, hashtags, shorthand, a field syntax.
_MARKUP = re.compile(r"`|(?<!\w)#(?=[A-Za-z])")  # "`Kersting`", "#ICML2024", not "#1"
_EMPHASIS = re.compile(r"(\*\*)(?=\S)(.+?)(?<=\S)\1")  # "**all**"; "__init__" is code
_SHORTHAND = {"hw": "how", "hv": "have", "pls": "please", "plz": "please"}
# lower case only: "PLS" and "HV" are methods' names
_SHORTHAND_WORD = re.compile(r"\bhw(?=\s+(?:many|much|do|does|did)\b)|\b(?:hv|pls|plz)\b")
# Words of a question's frame, and their typos ("wich", "publsh", "paper's")
_FRAME_TYPED = (
    "which", "papers", "paper", "publish", "published", "accepted", "authors", "spotlights",
    "count", "abstract", "abstracts", "affiliation", "affiliations",
)  # fmt: skip
_REAL_WORDS = frozenset(
    "paper author spotlight accept accepts publishes publisher publishing witch wish whish "
    "white while abstraction abstractions abstractive abstracted affiliated affiliate".split()
)
_FIELD = re.compile(r"\b(author|status|venue|affiliation|institution|title):(\"[^\"]+\"|\S+)", re.I)
# "Give me the list, no commentary.": how to answer, not what
_NO_COMMENT = re.compile(
    r"[\s.,;]*(?:give me |just )?(?:the )?(?:list|titles?)(?: only)?[,;]?\s*"
    r"(?:no|without)\s+(?:commentary|comments?|explanations?|details)\b[.!]?"
    r"|[\s.,;]*(?:no|without)\s+(?:commentary|comments?|explanations?)\b[.!]?"
    # "— just the titles, no abstracts.": at the end of the message
    r"|\s*[—–-]+\s*(?:just|only)\s+(?:the\s+)?(?:titles?|list|names)"
    r"(?:[,;]?\s*(?:no|without)\s+(?:abstracts?|summaries|details))?\s*[.!]?\s*$"
    # "… ? just need the figure", "A number is enough.": the answer's form, after the question
    r"|(?<=[?.!])\s*(?:i\s+)?(?:just|only)\s+(?:need|want)\s+(?:the\s+|a\s+)?(?:figure|number|count|"
    r"total|titles?|list|names)\b[^?.!]*[.!]?\s*$"
    r"|(?<=[?.!])\s*(?:a|the)\s+(?:number|count|figure|list|titles?)\s+(?:is|are|will\s+do|would\s+do)"
    r"(?:\s+(?:enough|fine|plenty|ok|okay|great))?[.!]?\s*$"
    # "… ? not sure i'm spelling the name right": a doubt about the name's spelling
    r"|(?<=[?.!])\s*[^?.!]*\b(?:not\s+sure|unsure|no\s+idea|don['’]?t\s+know|might\s+be)\b[^?.!]*"
    r"\b(?:spell\w*|typo\w*)\b[^?.!]*[.!?]?\s*$",
    re.I,
)


_TAKE = re.compile(
    r"^\s*(?:take|consider|look at|as for|about|regarding)\s+(?P<what>[^.?!:]+)[.:]\s*(?P<rest>.+)$",
    re.I,
)
# "Tongji University — count its papers with three to five authors"
# a sentence after the question that narrows it: "Not the posters — orals and spotlights
# only.", "Leave out the ones with X."
_ADDENDUM = re.compile(
    r"^(?P<asked>[^?]+)\?\s+(?P<added>(?:but\s+)?(?:not|leave|leaving|excluding|except|without|minus|"
    r"skip|skipping|ignore|ignoring|drop|dropping)\b[^?]*?\s*[.!]?)\s*$",
    re.I,
)
_DASHED = re.compile(r"^\s*(?P<what>[A-Z][^—–?.!:]+?)\s*[—–]+\s*(?P<rest>[^—–]+)$")


# "I'm after papers that tick all of these boxes: - X - Y - Z": each box a constraint
_CRITERIA = re.compile(
    r"\b(?:(?:that|which)\s+(?:tick|check|meet|match|satisfy|fit)|matching|meeting|satisfying)\s+"
    r"(?:all\s+)?(?:of\s+)?"
    r"(?:these|the\s+following)(?:\s+(?:boxes|criteria|conditions|requirements|constraints))?"
    r"\s*:?",
    re.I,
)
# a list's marks, on their own lines or (the lines joined) after a colon and spaces
_BULLET = re.compile(r"(?:^|\n|(?<=:)|(?<=\s))\s*(?:[-*•]|\d+[.)])\s+(?=\w)")


def _listed_criteria(text: str) -> str:
    """A request whose conditions are listed as points, as one sentence."""
    listed = re.search(r":\s*(?:[-*•]|\d+[.)])\s+\w", text)
    if listed is None or not _CRITERIA.search(text[: listed.start() + 1]):
        return text  # "Compare these: 1. LoRA 2. DoRA" lists things, not conditions
    head, items = text[: listed.start()], _BULLET.split(text[listed.start() + 1 :])
    head = _CRITERIA.sub(" with", head).strip()
    head = re.sub(
        r"^\s*i['’]?m\s+(?:after|looking\s+for|searching\s+for)\s+", "Which ", head, flags=re.I
    )
    items = [
        re.sub(r"^(?:someone|somebody|an?\s+author)\s+", "an author ", i.strip(" .;,?!"))
        for i in items
    ]
    return f"{head} {' and '.join(i for i in items if i)}?"


def _published(found: re.Match[str]) -> str:
    did = found.group("did")
    verb = "published" if did.lower() in ("has", "have") else "publish"
    return f"{did} {found.group('who')}{verb}"


def _typed_plainly(text: str) -> str:
    """The question as it would be written out: no emoji or markdown, shorthand spelled
    ("hw many … hv @ icml"), typos of frame words mended, field syntax in words."""
    text = "".join(c for c in text if unicodedata.category(c) not in ("So", "Sk", "Cs"))
    text = _MARKUP.sub("", _EMPHASIS.sub(r"\2", text))
    text = _NO_COMMENT.sub(".", text).strip()
    fields = _FIELD.findall(text)
    if fields:
        text = _fields_said(fields, _FIELD.sub(" ", text))
    text = re.sub(r"\s@\s", " at ", text)
    if _CJK_WORD.search(text) and re.search(r"[A-Z][a-z]", text):
        # "Stony Brook University에서 ICML 2024에 …": the Latin names are what it asks about
        text = " ".join(re.findall(r"[A-Za-z0-9][\w.'’&-]*", _SCRIPT_CHANGE.sub(" ", text)))
    # "Hamburg's 2 ICML 2024 orals": its orals, however many there are
    text = re.sub(
        r"(?<=['’]s)\s+\d{1,3}(?=\s+(?:ICML\s*(?:20)?24\s+)?(?:orals|spotlights|posters|papers)\b)",
        "",
        text,
        flags=re.I,
    )
    text = _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m.group(0).lower()], text)
    return re.sub(r"(?<![\w'’\"‘“])[A-Za-z]{3,}(?:['’]s)?(?![\w'’\"”])", _frame_word, text)


# Japanese, Chinese and Korean letters (and, in a question, their full-width punctuation)
CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK = CJK_LETTERS + "\uff00-\uffef"
_CJK_WORD = re.compile(rf"[{_CJK}]")
_SCRIPT_CHANGE = re.compile(rf"(?<=[A-Za-z0-9])(?=[{_CJK}])|(?<=[{_CJK}])(?=[A-Za-z0-9])")


_PLACE_NOUNS = ("university", "institute", "technology")


def _frame_word(found: re.Match[str]) -> str:
    word = found.group(0)
    lower = word.lower().replace("’", "'")
    if word[:1].isupper() and lower not in _PLACE_NOUNS and len(lower) >= 8:
        # "Simon Fraser Univeristy": an institution's noun mistyped, capitalised as typed
        noun = [n for n in _PLACE_NOUNS if n in neighbour_swaps(lower)]
        if noun:
            return noun[0].capitalize()
    if lower in _FRAME_TYPED or (word[0].isupper() and found.start() > 0):
        return word  # a name ("Wich" inside a question) stays as typed
    if lower.endswith("'s") and lower[:-2] in _FRAME_TYPED:
        return word  # "the KIVI paper's result": its owner, no typo for "papers"
    close = difflib.get_close_matches(lower.replace("'", ""), _FRAME_TYPED, n=1, cutoff=0.85)
    close = close or [w for w in _FRAME_TYPED if w in neighbour_swaps(lower)][:1]  # "papesr"
    if not close or lower in _REAL_WORDS or close[0] in lower:
        return word  # "unpublished", "coauthors": words of their own
    return close[0].capitalize() if word[0].isupper() else close[0]


def _fields_said(fields: list[tuple[str, str]], rest: str) -> str:
    """'author:"A" status:oral' as "Which orals by A?"."""
    said = {k.lower(): v.strip('"') for k, v in fields}
    status = said.get("status", "").lower().rstrip("s")
    text = f"Which {status + 's' if status in ('oral', 'spotlight', 'poster') else 'papers'}"
    if "author" in said:
        text += f" by {said['author']}"
    place = said.get("affiliation") or said.get("institution")
    if place:
        text += f" from {place}"
    if "title" in said:
        text += f" with '{said['title']}' in the title"
    return f"{text} {rest.strip()}".strip() + "?"


_SAID_PLAINLY = (
    # "Together AI x ThirdAI collab": the two's joint papers
    (re.compile(
        r"^\s*(?P<a>[A-Z][^?]*?)\s+(?:x|×)\s+(?P<b>[A-Z][^?]*?)\s+(?:collabs?|collaborations?|"
        r"joint\s+(?:papers?|work))\b",
    ), r"Joint papers between \g<a> and \g<b>"),
    # "Is Sea Group at ICML 2024 with any papers?": has it papers
    (re.compile(
        r"^\s*(?:is|was|are|were)\s+(?P<who>(?-i:[A-Z])[^?]*?)\s+(?:(?:at|in)\s+(?:the\s+)?ICML\s*"
        r"(?:20)?24\s+)?(?:with|having)\s+any\s+(?=papers|publications|orals|spotlights|posters)",
        re.I,
    ), r"Does \g<who> have any "),
    # "the icml 2024 paper list for X": X's papers
    (re.compile(r"\b(?:paper|publication)\s+list\s+(?:for|of)\s+", re.I), "papers by "),
    # "X had an oral, right? Which one?": the statement asked
    (re.compile(r"\s*,?\s+right\s*\?\s*(?:which|what)\s+(?:one|paper|was\s+it)\s*\?\s*$", re.I),
     "?"),
    # "How many papers did X end up with?"
    (re.compile(r"\bend(?:ed)?\s+up\s+with\b", re.I), "have"),
    # "the exact title of the paper by X …": the paper (its title is shown)
    (re.compile(r"\b(?:the\s+)?(?:exact|full|complete)\s+titles?\s+of\s+", re.I), ""),
    # "Searching the titles of X for 'w' — what comes up?"
    (re.compile(
        r"^\s*search(?:ing)?\s+(?:the\s+)?(?P<venue>ICML\s*(?:20)?24\s+)?titles\s+of\s+"
        r"(?P<who>.+?)\s+for\s+(?P<w>['\"“‘][^'\"”’]+['\"”’])[^?]*\?\s*$", re.I,
    ), r"Which \g<venue>papers from \g<who> have \g<w> in the title?"),
    # "Is Lenovo among the companies with an oral?": does it have one
    (re.compile(
        r"^\s*is\s+(?P<who>.+?)\s+(?:among|one\s+of)\s+the\s+(?:companies|institutions|"
        r"universities|labs|organi[sz]ations)\s+(?:with|that\s+(?:had|have|got))\s+", re.I,
    ), r"Does \g<who> have "),
    # "How common is 'gaussian' in ICML 2024 titles?": how many titles have it
    (re.compile(
        r"^\s*how\s+(?:common|frequent|popular|widespread)\s+is\s+(?:the\s+word\s+)?"
        r"(?P<w>['\"“‘]?[\w-]+['\"”’]?)\s+in\s+(?:the\s+)?(?P<venue>ICML\s*(?:20)?24\s+)?(?:paper\s+)?"
        r"titles\b", re.I,
    ), r"How many \g<venue>titles contain the word \g<w>"),
    # "which papers is youzhi zhing an author on": papers by the name (read as typed, so a
    # mistyped one is matched as one)
    (re.compile(
        r"\b(?P<what>papers|ones|orals|spotlights|posters)\s+(?:is|was)\s+(?P<who>[\w'’.-]+(?:\s+"
        r"[\w'’.-]+){1,3}?)\s+(?:an?\s+)?(?:co-?)?author\s+(?:on|of)\b", re.I,
    ), r"\g<what> by \g<who>"),
    # "Did A and B end up on the same paper?": a paper together
    (re.compile(
        r"\b(?:(?:end(?:ed)?|wind|wound|show(?:ed)?)\s+up|appear(?:ed)?|(?:are|were)\s+listed)\s+on\s+"
        r"the\s+same\s+(?:paper|author\s+list|byline)\b", re.I,
    ), "write a paper together"),
    # "papers with somebody from X on the author list": an author from X
    (re.compile(
        r"\b(?:somebody|someone|anyone|anybody|people|researchers|an\s+author)\s+from\s+(?P<who>.+?)"
        r"\s+on\s+(?:the|their|its)\s+(?:author\s+lists?|bylines?)\b", re.I,
    ), r"an author from \g<who>"),
    # "papers with USTB on them": from it
    (re.compile(
        r"\bwith\s+(?P<who>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?:of\s+)?(?-i:[A-Z])[\w&.'’-]*){0,5})\s+on\s+"
        r"(?:them|it|the\s+(?:byline|author\s+list|paper))\b", re.I,
    ), r"from \g<who>"),
)  # fmt: skip
_THANKS = re.compile(
    r"[\s,.!]*\b(?:(?:(?:many|great)\s+)?thanks?(?:\s+you)?(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?|"
    r"thx|ty|cheers|(?:i\s+)?appreciate\s+it|much\s+appreciated|"
    # "…, if possible.": a courtesy, no filter
    r"if\s+(?:possible|you\s+(?:can|could)|that['’]s\s+(?:ok|okay|possible))|please)[\s.!]*$",
    re.I,
)
_PAPER_COUNT = re.compile(
    # "Yisong Yue's ICML 2024 paper tally?" asks it too
    # "Florida International University — ICML 2024 paper count?"
    r"^\s*(?:what(?:['’]s|\s+is|\s+was)\s+)?(?:the\s+)?(?P<who>[^?:—–]+?)(?:['’]s?\s+|\s*[—–]\s*)"
    r"(?:ICML\s*(?:20)?24\s+)?"
    r"(?:(?P<what>paper|publication|accepted[- ]paper|oral|spotlight|poster)\s+(?:count|tally|total)\b"
    # "IntSig's ICML 2024 count?", "Google's count at ICML 2024": its papers' count
    r"|(?<=24\s)(?:count|tally)\b|(?:count|tally)(?=\s+(?:at|for|in)\s+ICML\b))"
    r"(?P<rest>[^?]*)[?.!]*\s*$",
    re.I,
)

_ADD_UP = re.compile(
    r"^\s*add\s+up\s+the\s+(?:ICML\s*(?:20)?24\s+)?(?:paper\s+)?counts?\s+(?:of|for)\s+(?P<who>.+?)"
    r"\s*(?:[—–-]+|,)\s*what['’]?s?\s+(?:is\s+)?the\s+total\s*\??\s*$",
    re.I,
)
_PLACE_THEN = re.compile(
    r"^\s*(?P<who>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*){0,5})\s+(?:at|in)\s+ICML\s*(?:20)?24\s*:\s*"
    r"(?P<rest>(?:which\s+|what\s+|any\s+)?(?:papers?|orals?|spotlights?|posters?|titles?)\b.+)$",
    re.I,
)
_SHARE_ANY = re.compile(
    r"^\s*(?:how\s+often\s+)?(?:do|did|does)\s+(?:the\s+)?(?P<who>.+?\s(?:and|&)\s.+?)\s+(?:share|have\s+in\s+common)\s+"
    r"(?:any|an?|some)?\s*(?:ICML\s*(?:20)?24\s+)?(?:papers?|works?|publications?)"
    r"(?:\s+(?:at|in|for|from)\s+ICML\s*(?:20)?24)?\s*\?*\s*$",
    re.I,
)
_PAIR_THEN_JOINT = re.compile(
    r"^\s*(?P<who>[A-Z][^:?]*?\s(?:and|&)\s[^:?]+?)\s*:\s*(?=[^:]*\b(?:they|their|them)\b)"
    r"(?=[^:]*\b(?:joint|together|shared|in\s+common|co-?(?:authored|wrote|written)|"
    r"collaborat\w*)\b)(?=[^:]*\b(?:papers|orals|spotlights|posters|works|publications)\b)[^:]+$",
    re.I,
)
_PLACE_NOUN = re.compile(
    r"\b(?:University|Institute|College|Lab|Laboratory|Academy|School|Inc|Corp|Universit[äé]t?)\b"
)
_PUT_TOGETHER = re.compile(
    r"^\s*(?:putting|taking|counting|adding|lumping)\s+(?P<who>(?-i:[A-Z]).+?['’]s?)\s+(?:ICML\s*(?:20)?24\s+)?"
    r"(?:papers|publications|works)\s+(?:together|up),?\s+how\s+many\s+(?:\w+\s+)?(?:papers|ones)"
    r"\s+(?:is\s+that|are\s+there|does\s+that\s+make|do\s+you\s+get)\s*[?.!]*\s*$",
    re.I,
)
# "Quick count: Karsten Kreis, ICML 2024.": how many papers the name has
_QUICK_COUNT = re.compile(
    r"^\s*(?:quick|fast|rough|approximate)?\s*(?:count|number|tally)\s*:\s*(?P<what>[^?.!]+?)"
    r"(?:,?\s*(?:at\s+|in\s+)?ICML\s*(?:20)?24)?\s*[.?!]*\s*$",
    re.I,
)


_SORTED = re.compile(
    r",?\s*(?:newest|oldest|latest|most\s+recent)\s+first\b|"
    # not "ranked by how many orals they had": that orders institutions, it is the question
    r",?\s*(?:sorted|ordered|ranked|arranged)\s+(?:by|on)\s+(?!how\b|(?:the\s+)?(?:number|count|"
    r"papers?|orals?|spotlights?|posters?|publications?)\b)(?:the\s+)?\w+|"
    r",?\s*in\s+(?:alphabetical|chronological)\s+order",
    re.I,
)
