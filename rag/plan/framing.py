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
from rag.text import STOPWORDS, neighbour_swaps

# The conference named in a question ("at ICML 2024", "this year's"): no topic, no name.
VENUE = re.compile(
    r"\b(?:at|in|from|of)?\s*(?:the\s+)?(?:2024['’]s\s+|2024\s+)?"
    r"(?:icml|international\s+conference\s+on\s+machine\s+learning)(?:\s*[-'’]?\s*(?:20)?24)?\b"
    r"(?:\s+conference)?(?:\s+in\s+vienna)?(?:\s+(?:this|last)\s+year)?(?:\s+(?:in|of)\s+2024)?"
    r"|\bthis\s+year['’]?s?\b",
    re.I,
)

# "Who wrote …", "Who is the first author of …": asked of the paper named after it
WHO_WROTE = re.compile(
    r"^\s*who(?:['’]s|\s+is|\s+are|\s+was|\s+were)?\s+(?:the\s+)?"
    r"(?:(?P<place>first|last|lead|senior)[- ])?(?:(?:authors?|writers?)\s+(?:of|on|behind)"
    r"|wrote)\s+(?:the\s+(?:paper|work)\s+(?:(?:on|about|introducing|proposing|that\s+"
    r"(?:introduced|introduces|proposed|proposes))\s+)?)?",
    re.I,
)

_GREETING = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear \w+)(?:\s+there)?(?![\w-])[\s!,.:]*)?"
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
    r"(?:i['’]d|i\s+would|i)\s+(?:like|want|love)\s+(?:to\s+(?:see|know|get)\s+|a\s+list\s+of\s+)|"
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
    r"(?:\s+(?:at|in)\s+ICML\s*(?:20)?24)?\s*\?*\s*$",
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


def plain_question(question: str) -> str:
    """The question without a greeting or a request around it: "Hi! Could you tell me how
    many …" asks "how many …"; "I'm looking for X. How many are there?" asks "How many X?"."""
    text = in_english(_typed_plainly(question))
    text = _corrected(text)
    text = _QUESTION_ABOUT_THEN.sub(_about_then, text, count=1)
    text = _listed_criteria(text)
    text = _same_question(text)
    text = _aside_first(text)
    added = _ADD_UP.match(text)
    if added:  # "Add up the paper counts of A and B — what's the total?"
        text = f"How many ICML 2024 papers do {added.group('who').strip()} have combined?"
    placed = _PLACE_THEN.match(text)
    who = placed.group("who") if placed else ""
    # "TU Berlin at ICML 2024: papers with 'adaptive' in the title?"
    if placed and (_PLACE_NOUN.search(who) or re.search(r"\b[A-Z]{2,}", who)):
        text = f"{placed.group('rest').rstrip(' ?')} (from {who})?"
    text = re.sub(r"\band\s*/\s*or\b", "or", text)  # "by A and/or B": either's
    text = _GREETING.sub("", text, count=1)
    taken = _TAKE.match(text) or (None if _HOW_MANY_LAST.search(text) else _DASHED.match(text))
    if taken and _ITS.search(taken.group("rest")):  # "Take X. How many of its papers …"
        what = taken.group("what").strip()
        text = _named_for(_ITS, what, taken.group("rest"))
    text = _THANKS.sub("", text)
    text = _ACTIVITY.sub("", text, count=1)  # "Filling in a spreadsheet: …"
    text = _WHAT_HAVE_YOU.sub("", text)  # "… — what have you got?"
    owned = _PAPER_COUNT.match(text)
    if owned:  # "What was the University of Arizona's paper count at ICML 2024?"
        what = owned.group("what").lower()
        noun = f"{what}s" if what in ("oral", "spotlight", "poster") else "papers"
        rest = re.sub(
            r"^\s*(?:at|for|in)\s+ICML\s*(?:20)?24\b", "", owned.group("rest"), flags=re.I
        )
        text = f"How many ICML 2024 {noun} does {owned.group('who').strip()} have{rest}?"
    quick = _QUICK_COUNT.match(text)
    if quick:
        text = f"How many ICML 2024 papers does {quick.group('what').strip()} have?"
    text = _HONORIFIC.sub("", text)  # "Dr. Gregory W. Wornell had …": the name itself
    if not _LOOKING_FOR.match(text):
        text = _context_dropped(text)
    text = _GREETING.sub("", text, count=1)
    text = _TELL_ME.sub("", _REQUEST.sub("", text, count=1), count=1)
    text = _HONORIFIC.sub("", text)  # "Prof. Kyunghyun Cho" is Kyunghyun Cho
    text = _ROUGHLY.sub("", text)  # "Roughly how many …": the count is exact anyway
    text = _IF_SO.sub("?", text)  # "Is X on any papers? If so, which?": the list asked
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
_FRAME_TYPED = ("which", "papers", "publish", "published", "accepted", "authors", "spotlights")
_REAL_WORDS = frozenset(
    "paper author spotlight accept accepts publishes publisher publishing witch wish whish "
    "white while".split()
)
_FIELD = re.compile(r"\b(author|status|venue|affiliation|institution|title):(\"[^\"]+\"|\S+)", re.I)
# "Give me the list, no commentary.": how to answer, not what
_NO_COMMENT = re.compile(
    r"[\s.,;]*(?:give me |just )?(?:the )?(?:list|titles?)(?: only)?[,;]?\s*"
    r"(?:no|without)\s+(?:commentary|comments?|explanations?|details)\b[.!]?"
    r"|[\s.,;]*(?:no|without)\s+(?:commentary|comments?|explanations?)\b[.!]?"
    # "— just the titles, no abstracts.": at the end of the message
    r"|\s*[—–-]+\s*(?:just|only)\s+(?:the\s+)?(?:titles?|list|names)"
    r"(?:[,;]?\s*(?:no|without)\s+(?:abstracts?|summaries|details))?\s*[.!]?\s*$",
    re.I,
)


_OWNING = ("its", "their", "his", "her")
_TAKE = re.compile(
    r"^\s*(?:take|consider|look at|as for|about|regarding)\s+(?P<what>[^.?!:]+)[.:]\s*(?P<rest>.+)$",
    re.I,
)
# "Tongji University — count its papers with three to five authors"
_DASHED = re.compile(r"^\s*(?P<what>[A-Z][^—–?.!:]+?)\s*[—–]+\s*(?P<rest>[^—–]+)$")
_ITS = re.compile(r"\b(?:its|their|his|her|it|they|he|she)\b", re.I)


def _named_for(pointer: re.Pattern[str], who: str, text: str) -> str:
    """`text` with its first pointer word said as `who` ("his" as "X's", "he" as "X")."""
    return pointer.sub(
        lambda m: f"{who}'s" if m.group(0).lower() in _OWNING else who, text, count=1
    )


def _corrected(text: str) -> str:
    """A question the asker corrects after it: "What did X publish? Actually, scratch that:
    only the papers where X is the first author." asks that question itself; "Actually, only
    the orals" / "… only the ones by X" narrow the question asked. Anything else after it
    ("No rush, just the titles", "Actually, only the ones using DPO") is left as typed."""
    found = _CORRECTION.search(text)
    if found is None:
        return text
    asked = text[: found.start() + 1].strip()
    rest = re.sub(r"^\s*(?:only|just)\s+(?:the\s+)?(?:ones|papers)?\s*", "", found.group("rest"))
    rest = rest.strip(" .!?")
    where = re.match(r"(?:where|in\s+which|on\s+which)\s+(?P<said>.+)$", rest, re.I)
    if where and _NAMED_IN.search(where.group("said")) and _ONLY_NAMES_ASKED.match(asked):
        return f"On which ICML 2024 papers {where.group('said')}?"
    narrowed = _NARROWED.fullmatch(rest)
    if narrowed:  # "only the orals", "just the ones by Chelsea Finn"
        return f"{asked[:-1].strip()} ({rest})?"
    return text


def _about_then(found: re.Match[str]) -> str:
    """The question after "question about X", with X for its "theirs" / "their" / "its"."""
    who = found.group("who").strip()
    rest = re.sub(r"\bof\s+(?:theirs|his|hers|its)\b", f"from {who}", found.group("rest"), count=1)
    if rest != found.group("rest"):
        return rest
    if not _ITS.search(rest):  # no "their" / "its": the question, about X
        return f"{rest.strip().rstrip('?.!')} (from {who})?"
    return _named_for(_ITS, who, rest)


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
    # "Hamburg's 2 ICML 2024 orals": its orals, however many there are
    text = re.sub(
        r"(?<=['’]s)\s+\d{1,3}(?=\s+(?:ICML\s*(?:20)?24\s+)?(?:orals|spotlights|posters|papers)\b)",
        "",
        text,
        flags=re.I,
    )
    text = _SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m.group(0).lower()], text)
    return re.sub(r"(?<![\w'’\"‘“])[A-Za-z]{3,}(?:['’]s)?(?![\w'’\"”])", _frame_word, text)


def _frame_word(found: re.Match[str]) -> str:
    word = found.group(0)
    lower = word.lower().replace("’", "'")
    if lower in _FRAME_TYPED or (word[0].isupper() and found.start() > 0):
        return word  # a name ("Wich" inside a question) stays as typed
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


_THANKS = re.compile(
    r"[\s,.!]*\b(?:(?:(?:many|great)\s+)?thanks?(?:\s+you)?(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?|"
    r"thx|ty|cheers|(?:i\s+)?appreciate\s+it|much\s+appreciated)[\s.!]*$",
    re.I,
)
_PAPER_COUNT = re.compile(
    # "Yisong Yue's ICML 2024 paper tally?" asks it too
    # "Florida International University — ICML 2024 paper count?"
    r"^\s*(?:what(?:['’]s|\s+is|\s+was)\s+)?(?:the\s+)?(?P<who>[^?:—–]+?)(?:['’]s?\s+|\s*[—–]\s*)"
    r"(?:ICML\s*(?:20)?24\s+)?"
    r"(?P<what>paper|publication|accepted[- ]paper|oral|spotlight|poster)\s+(?:count|tally|total)\b"
    r"(?P<rest>[^?]*)\?*\s*$",
    re.I,
)
# "Filling in a spreadsheet:", "Updating our lab page —": what the asker is doing, before
# the question
_ACTIVITY = re.compile(
    r"^\s*(?:(?:i['’]m|we['’]re|just)\s+)?(?:filling|putting|writing|making|preparing|updating|"
    r"compiling|building|organi[sz]ing|planning|drafting|collecting|gathering|assembling)\b"
    # the thing made is a document ("a spreadsheet"), not a method ("building GNNs:")
    r"[^:—–?]{0,40}\b(?:spreadsheet|table|list|report|survey|slides?|deck|page|wiki|doc|"
    r"document|summary|newsletter|blog(?:\s+post)?|review|overview|sheet|database|dashboard)s?"
    r"\b[^:—–?]{0,20}(?::|\s[—–])\s*(?=\S)",
    re.I,
)
# "looking for X's stuff — what have you got?": a remark after the request
_WHAT_HAVE_YOU = re.compile(
    r"\s*[—–,;-]+\s*what\s+(?:have\s+you\s+got|do\s+you\s+have|can\s+you\s+find)\s*\?*\s*$",
    re.I,
)
_SAME_FOR = re.compile(
    r"^\s*(?:and\s+)?(?:the\s+)?same\s+(?:question|thing)\s+for\s+(?P<what>[^:?]+):\s*(?P<rest>.+)$",
    re.I,
)
_ASIDE_FIRST = re.compile(
    r"^\s*(?P<aside>(?:for|because\s+of|since|as)\s+(?:an?|my|our|the)\s+[^:?]*?\b(?:i['’]m|i\s+am|"
    r"we['’]re|we\s+are|i|we)\b[^:?]*):\s*(?P<rest>\S.*)$",
    re.I,
)


def _same_question(text: str) -> str:
    """ "Same question for X: …": the question, about X (said once if it says X itself)."""
    found = _SAME_FOR.match(text)
    if found is None:
        return text
    what, rest = found.group("what").strip(), found.group("rest").strip()
    if what.casefold() in rest.casefold():
        return rest
    return f"{rest.rstrip(' ?.!')} from {what}?"


def _aside_first(text: str) -> str:
    """ "For a survey I'm writing on continual learning: how many titles use the word
    'continual'?": the question; the aside's subject kept when the question does not say
    it ("For a survey I'm writing on RLHF: which papers were orals?")."""
    found = _ASIDE_FIRST.match(text)
    if found is None:
        return text
    rest = found.group("rest")
    subject = re.search(r"\b(?:on|about|into|of|at)\s+(?P<s>[^,;]+)$", found.group("aside"), re.I)
    said = subject.group("s").strip() if subject else ""
    words = [w for w in re.findall(r"[A-Za-z][\w-]{3,}", said) if w.lower() not in STOPWORDS]
    if not said or any(w.casefold() in rest.casefold() for w in words):
        return rest
    return f"{rest.rstrip(' ?.!')} about {said}?"


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
    r"(?:\s+(?:at|in)\s+ICML\s*(?:20)?24)?\s*\?*\s*$",
    re.I,
)
# "What did X publish? Actually, scratch that: only the papers where X is first author."
_CORRECTION = re.compile(
    r"[?.!]\s+(?:actually|correction|(?:sorry|wait|no),?\s+(?:i\s+mean|scratch\s+that))[,:.!]?\s*"
    r"(?:scratch\s+that|never\s*mind|let\s+me\s+rephrase|i\s+mean|make\s+(?:it|that))?[,:.!]?\s*"
    r"(?P<rest>(?:only|just)\b[^?.!]+[?.!]?)\s*$",
    re.I,
)
# what a correction may narrow a question to: statuses, or an author or institution named
_STATUS_WORDS = r"(?:orals?|spotlights?|posters?)"
_NARROWED = re.compile(
    rf"(?:the\s+)?{_STATUS_WORDS}(?:\s*(?:,|and|or|&)\s*(?:the\s+)?{_STATUS_WORDS})*"
    r"|(?:ones\s+|papers\s+)?(?:by|from|with)\s+(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*)*",
    re.I,
)
_NAMED_IN = re.compile(r"\b(?-i:[A-Z])[\w'’-]+\s+(?-i:[A-Z])[\w'’-]+")
# a question that asks only for someone's papers ("What did X publish at ICML 2024?")
_ONLY_NAMES_ASKED = re.compile(
    r"^\s*(?:what|which(?:\s+\w+)?\s+papers?)\s+(?:did|does|has|have)\s+[^?]+?\s+"
    r"(?:publish(?:ed)?|write|wrote|have|had|present(?:ed)?|get|got)"
    r"(?:\s+(?:at|in)\s+ICML\s*(?:20)?24)?\s*\?$",
    re.I,
)
# "hey, quick question about Morgan Stanley ⏎ which papers of theirs …"
# (the lines may come joined by a space: a new question word starts the question)
_QUESTION_ABOUT_THEN = re.compile(
    r"^\s*(?:(?:hi|hello|hey)\b[\s,!]*)?(?:a\s+)?(?:quick\s+)?(?:question|q)\s+(?:about|on|regarding)\s+"
    r"(?P<who>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?:of\s+|the\s+|and\s+|&\s+)?(?-i:[A-Z])[\w&.'’-]*)*)"
    r"(?:\s*[\n:.!—–-]+\s*|\s+(?=(?:which|what|how|who|did|does|do|is|are|any|were|was)\b))"
    r"(?P<rest>[^\n]+)$",
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
# "Since I'm applying for a PhD at Aalto, …": the asker's situation, not the question
_SITUATION = re.compile(
    r"^\s*(?:since|as|because)\s+(?:i|we)(?:['’]m|['’]re| am| are)?\b[^,?]*,\s*", re.I
)
# "I'm putting together a reading list for our group.": what the asker is doing
_DOING = re.compile(
    r"^\s*(?:i|we)(?:['’]m|['’]re| am| are)\s+(?!looking\b|searching\b)\w+ing\b[^.?!]*[.!]\s+(?=[A-Z])",
    re.I,
)


_POINTING = re.compile(
    r"\b(?:them|these|those|this|that|it|they)\b[^\w]*$|\b(?:them|these|this)\b", re.I
)


# what the asker is doing and, after it, what they want to know
_PURPOSE = re.compile(
    r"^\s*(?:i|we)(?:['’]m|['’]re| am| are)\s+\w+ing\b(?P<ctx>[^.?!]*?)[,;]?\s+(?:and|so)\s+"
    r"(?:(?:i|we)(?:['’]d|\s+would)?\s+)?(?:like|want|need|wish|have)\s+to\s+"
    r"(?:know|mention|say|find\s+out|check|see|learn|cite|note|ask)\s+(?P<rest>.+)$",
    re.I,
)
# a name in the situation: "Mario Fritz", "Wuhan University", "University of California,
# Berkeley", "MIT"
_CAPITALISED = re.compile(
    r"\b[A-Z][\w'’.-]*(?:(?:\s+(?:of\s+|the\s+|and\s+)?|,\s+)[A-Z][\w'’.-]*)+|\b[A-Z]{2,}\b"
)
_CONTEXT_DASH = re.compile(
    r"^\s*(?P<ctx>(?:my|our|i|i['’]m|we|we['’]re)\b[^—–?]+?)\s*[—–]\s*(?P<rest>[^—–]+\?)\s*$", re.I
)
_AT_PLACE = re.compile(
    r"\b(?:at|from|with|for|joining|visiting)\s+(?:the\s+)?"
    r"((?-i:[A-Z])[\w&'’.-]*(?:\s+(?:of\s+|the\s+|and\s+|for\s+)?(?-i:[A-Z])[\w&'’.-]*)*)"
)
# what a question calls the place it named before ("that university")
PLACE_WORDS = r"(?:university|institution|institute|company|lab|school|organi[sz]ation)"
_THAT_ONE = re.compile(rf"\b(?:that|this)\s+{PLACE_WORDS}\b", re.I)
_CONTEXT_COLON = re.compile(
    r"^\s*(?P<ctx>(?:before|after|when|while|since|as|because|once|my|our|i|i['’]m|we|we['’]re)\b"
    r"[^:?]{4,}?)\s*:\s*(?P<rest>[^:]+\?)\s*$",
    re.I,
)


def _one_name(context: str) -> str:
    """The one name a situation says ("Before I email Shirui Pan about …"), or ""."""
    named = [
        re.sub(r"['’]s$", "", n)
        for n in _CAPITALISED.findall(context.split(" ", 1)[-1])
        if n != "ICML"
    ]
    return _alone(named)


def _alone(named: list[str]) -> str:
    """The one name of a situation, or "" when it says none or two ("Stanford and MIT")."""
    return named[0] if len(named) == 1 and not re.search(r"\s(?:and|&)\s", named[0]) else ""


_PERSON_OR_GROUP = re.compile(r"\b(?:he|she|his|her|they|their)\b", re.I)
_INTEREST = re.compile(
    r"^\s*(?:(?:since|as|because)\s+)?(?:i|we)(?:['’]m|['’]re| am| are)\s+(?:interested in|"
    r"working on|studying|researching|looking into)\s+(?P<what>[^,.?!]+)[,.!]\s*(?P<rest>.+)$",
    re.I,
)


_NAMES_SOMEONE = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]+(?:\s+[A-Z][\w-]+)+")


# "Tongliang Liu is on my thesis committee. Were any of the papers he co-wrote …?"
_SAID_OF = re.compile(
    r"^\s*(?P<who>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’.-]+){1,3})\s+(?:is|was|has|had|works|worked|"
    r"just|recently|used\s+to)\b[^.!?]*[.!]\s+(?P<rest>[A-Z][^.!]*\?)\s*$"
)
_THOSE = re.compile(r"\bof\s+(?:those|them|these)(?:\s+(?:papers|works|publications))?\b", re.I)
_ONLY_STATUS = re.compile(
    rf"\?\s*(?:(?:only|just)\s+)?(?P<statuses>{_STATUS_WORDS}(?:\s*(?:,|and|or|&)\s*{_STATUS_WORDS})*)"
    r"(?:\s+only)?\s*[.!]?\s*$",
    re.I,
)
# lower case only ("Niao He" is a name); "they", "them" are as often the papers
_PERSON_POINTER = re.compile(r"\b(?:he|she|him|his|her)\b")
_ANOTHER_NAME = re.compile(r"\b[A-Z][a-z]+\s+[A-Z][\w'’-]+")


def _context_dropped(text: str) -> str:
    """The question without the asker's situation before it ("I'm putting together a
    reading list for our group. Could you tell me …", "Since I'm applying at Aalto, …");
    "Since I'm interested in X, which … are about them?" asks about X; "X is on my
    committee. Were any of the papers he co-wrote …?" asks about X's papers."""
    said = _SAID_OF.match(text)
    rest = said.group("rest") if said else ""
    # "Percy Liang is my advisor. Has Tatsunori Hashimoto … where he is first author?"
    if said and _THOSE.search(rest) and not _ANOTHER_NAME.search(rest[1:]):
        # "X had a few papers in ICML 2024. How many of those ended up as posters?"
        return _THOSE.sub(f"of {said.group('who')}'s papers", rest, count=1)
    if said and _PERSON_POINTER.search(rest) and not _ANOTHER_NAME.search(rest[1:]):
        who = said.group("who")
        return _named_for(_PERSON_POINTER, who, said.group("rest"))
    dashed = _CONTEXT_DASH.match(text)
    places = _AT_PLACE.findall(dashed.group("ctx")) if dashed else []
    place = places[-1] if len(set(places)) == 1 else ""
    if dashed and place and _THAT_ONE.search(dashed.group("rest")):
        # "My supervisor is spending her sabbatical at the University of Georgia — which
        # spotlight papers did that university get?"
        return _THAT_ONE.sub(place, dashed.group("rest"), count=1)
    said_first = _CONTEXT_COLON.match(text)
    if said_first:  # "Before I email Shirui Pan about …: how many papers did he have?"
        who = _one_name(said_first.group("ctx"))
        if who and _PERSON_OR_GROUP.search(said_first.group("rest")):
            text = _named_for(_PERSON_OR_GROUP, who, said_first.group("rest"))
            return text[:1].upper() + text[1:]
    purpose = _PURPOSE.match(text)
    # one name, one thing: "teaching Machine Learning at MIT", "comparing Stanford and MIT"
    # say two ("their" is either), and "it" is as often the paper as the place
    who = _alone(_CAPITALISED.findall(purpose.group("ctx"))) if purpose else ""
    if purpose and who and _PERSON_OR_GROUP.search(purpose.group("rest")):
        # "I'm introducing X before his keynote and want to mention how often he was …",
        # "We're setting up an exchange with X, so I'd like to know which of their papers …"
        rest = _named_for(_PERSON_OR_GROUP, who, purpose.group("rest").strip().rstrip(".!"))
        return f"{rest.rstrip('?')}?"
    interest = _INTEREST.match(text)
    if interest and _POINTING.search(interest.group("rest")):
        pointer = re.compile(r"\b(?:them|these|this|it)\b", re.I)
        return pointer.sub(interest.group("what").strip(), interest.group("rest"), count=1)
    # remarks after the question ("A one-line answer is fine.") ask nothing, but "top 5 is
    # plenty" says how many
    if "?" in text:
        top = re.search(r"\btop\s+\w+", text[text.rindex("?") :], re.I)
        only = _ONLY_STATUS.match(text[text.rindex("?") :])
        text = text[: text.rindex("?") + 1]
        if top:
            text = f"{text[:-1]} ({top.group(0)})?"
        elif only:  # "What did X have? Spotlights only.": a filter said after the question
            text = f"{text[:-1]} ({only.group('statuses')})?"
    dropped = _DOING.sub("", _SITUATION.sub("", text, count=1), count=1)
    # a message around the question: sentences before it that ask nothing and name no one
    # sentence ends, not initials ("M. Sugiyama") nor "vs." / "e.g." / "et al."
    sentences = re.split(
        r"(?<![A-Z][.])(?<!\bvs[.])(?<!\be[.]g[.])(?<!\bi[.]e[.])(?<!\bal[.])(?<=[.!?])\s+(?=[A-Z])",
        dropped.strip(),
    )
    while (
        len(sentences) > 1 and "?" not in sentences[0] and not _NAMES_SOMEONE.search(sentences[0])
    ):
        sentences = sentences[1:]
    dropped = " ".join(sentences)
    # "Since I'm interested in diffusion models, which … are about them?": the clause
    # is what "them" stands for
    return text if dropped != text and _POINTING.search(dropped) else dropped


_SORTED = re.compile(
    r",?\s*(?:newest|oldest|latest|most\s+recent)\s+first\b|"
    r",?\s*(?:sorted|ordered|ranked|arranged)\s+(?:by|on)\s+(?:the\s+)?\w+|"
    r",?\s*in\s+(?:alphabetical|chronological)\s+order",
    re.I,
)
