"""What an asker says around the question itself: their situation before it ("Before I
email Shirui Pan about a collaboration: how many papers did he have?"), a correction after it
("Actually, only the orals"), an aside ("For a survey I'm writing on RLHF: …"), "Same question
for X:", "question about X ⏎ which papers of theirs …". Each is read back into one plain
question, with the pointer words ("he", "their", "that university") said as the name.
"""

from __future__ import annotations

import re

from rag.text import SPELLED_VALUES, STATUS_WORD, STOPWORDS

# a full stop that ends a short form, not a sentence ("University of St. Gallen")
_SHORT_FORMS = ("St", "Mt", "Dr", "Prof", "Inc", "Ltd", "Co", "Corp")
NOT_AN_END = "".join(rf"(?<!\b{w})" for w in _SHORT_FORMS)  # before the stop
_NOT_ENDED = "".join(rf"(?<!\b{w}[.])" for w in _SHORT_FORMS)  # after it

_OWNING = ("its", "their", "his", "her")


ITS = re.compile(r"\b(?:its|their|his|her|it|they|he|she)\b", re.I)


def named_for(pointer: re.Pattern[str], who: str, text: str) -> str:
    """`text` with its first pointer word said as `who` ("his" as "X's", "he" as "X")."""
    return pointer.sub(
        lambda m: f"{who}'s" if m.group(0).lower() in _OWNING else who, text, count=1
    )


def corrected(text: str) -> str:
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
    if not ITS.search(rest):  # no "their" / "its": the question, about X
        return f"{rest.strip().rstrip('?.!')} (from {who})?"
    return named_for(ITS, who, rest)


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
    r"\s*[—–,;-]+\s*what\s+(?:have\s+you\s+got|do\s+you\s+have|can\s+you\s+find)\s*\?*\s*$"
    # how the answer may look: ", just a count", "A count is fine.", "Titles please."
    r"|(?<=[\w?.!])\s*(?:[—–,;-]+|(?<=[?.!]))\s*(?:(?:a|just\s+(?:a|the))\s+)?(?:count|number|list|"
    r"titles?)(?:\s+(?:is|are|would\s+be)\s+(?:fine|enough|ok(?:ay)?|great|plenty))?"
    r"(?:,?\s+please|\s+pls)?\s*[.!?]*\s*$",
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


def same_question(text: str) -> str:
    """ "Same question for X: …": the question, about X (said once if it says X itself)."""
    found = _SAME_FOR.match(text)
    if found is None:
        return text
    what, rest = found.group("what").strip(), found.group("rest").strip()
    if what.casefold() in rest.casefold():
        return rest
    return f"{rest.rstrip(' ?.!')} from {what}?"


# "Quick sanity check for a grant report: what's the paper total for Elias Stengel-Eskin?"
_PREAMBLE = re.compile(r"^\s*(?P<pre>[^:?!.]{3,80}):\s*(?P<rest>[^:]+\?)\s*$")
_THEM = re.compile(r"\b(?:of|among)\s+(?:them|these|those)\b", re.I)


def preamble_dropped(text: str) -> str:
    """The question after a lower-case note on why it is asked, when the question names
    its own subject ("Large Language Models: which papers …" keeps its topic; "diffusion
    models: which ones use guidance?" names none after it)."""
    found = _PREAMBLE.match(text)
    if found is None or re.search(r"[A-Z]", found.group("pre")[1:]):
        return text
    if re.match(
        r"\s*(?:which|what|who|how|did|do|does|is|are|was|were|any|can|could)\b",
        found.group("pre"),
        re.I,
    ):
        return text  # "Which had more papers: Duke, LMU Munich or KTH?" asks before the colon
    rest = found.group("rest").strip()
    if STATUS_WORD.search(found.group("pre")) or _THEM.search(rest):
        return text  # "spotlights only: how many of them …": a filter, and what "them" is
    return rest[:1].upper() + rest[1:] if _NAMED_IN.search(rest) else text


def aside_first(text: str) -> str:
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


def _place_after(words: str) -> re.Pattern[str]:
    """A capitalised place's name after one of `words` ("at the University of Utah")."""
    return re.compile(
        rf"\b(?:{words})\s+(?:the\s+)?"
        r"((?-i:[A-Z])[\w&'’.-]*(?:\s+(?:of\s+|the\s+|and\s+|for\s+)?(?-i:[A-Z])[\w&'’.-]*)*)"
    )


_AT_PLACE = _place_after("at|from|with|for|joining|visiting")
# a place a sentence is about, for a question's "there" ("a slide on X …")
_PLACE_SAID = _place_after("at|from|with|for|joining|visiting|on|about")
# what a question calls the place it named before ("that university")
PLACE_WORDS = r"(?:university|institution|institute|company|lab|school|organi[sz]ation|place)"
_THAT_ONE = re.compile(rf"\b(?:that|this)\s+{PLACE_WORDS}\b", re.I)
_CONTEXT_COLON = re.compile(
    r"^\s*(?P<ctx>(?:before|after|when|while|since|as|because|once|my|our|i|i['’]m|we|we['’]re)\b"
    r"[^:?]{4,}?)\s*:\s*(?P<rest>[^:]+\?)\s*$",
    re.I,
)


# a remark after a ranking's question that says how many: "I'd like the five with the
# most", "three names are enough"
_N_WITH_THE_MOST = re.compile(
    rf"\b(?:the\s+)?(?P<n>\d{{1,2}}|{'|'.join(w for w in SPELLED_VALUES if ' ' not in w)})\s+"
    r"(?:with\s+the\s+(?:most|highest|largest|biggest)|names\s+(?:is|are)\s+(?:plenty|enough|"
    r"fine))\b",
    re.I,
)
# a sentence, then the question
_SAID_THEN_ASK = re.compile(
    rf"^\s*(?P<ctx>[^?]+?(?<!\b[A-Z]){NOT_AN_END}[.!])\s+(?P<rest>[A-Z][^.!?]*\?)\s*$"
)
# a question that only points back: "What are the papers?", "Which are they?"
_BARE_ASK = re.compile(
    r"^\s*(?:what|which)\s+(?:are|were)\s+(?:the(?:y|se|ir)?|those)(?:\s+(?:papers|titles|ones|"
    r"works))?\s*\?\s*$",
    re.I,
)
_TWO_NAMES = re.compile(
    r"(?P<a>(?-i:[A-Z])[\w'’.-]+(?:\s+(?-i:[A-Z])[\w'’.-]+){1,3})\s+(?:and|&)\s+"
    r"(?P<b>(?-i:[A-Z])[\w'’.-]+(?:\s+(?-i:[A-Z])[\w'’.-]+){1,3})"
)
# "they" asked together: "Did they end up on the same paper?", "did they co-author"
_THEY = re.compile(r"\bthey\b", re.I)
_THEY_TOGETHER = re.compile(
    r"\bthey\b.*\b(?:same\s+paper|together|co-?authors?|co-?authored|co-?wr[io]te|collaborat\w*|"
    r"jointly|a\s+paper\s+in\s+common)\b",
    re.I,
)
# "… at X. Did anyone there …?": the people at the place the sentence before named
_THERE = re.compile(
    r"\b(?P<who>anyone|anybody|someone|somebody|people|researchers|authors|an\s+author|folks|they)\s+"
    r"(?:from\s+|over\s+)?there\b",
    re.I,
)
_SAID_THERE = re.compile(
    rf"^\s*(?P<ctx>[^?]+?{NOT_AN_END}[.!])\s+(?P<rest>[A-Z][^.!?]*{_THERE.pattern}[^.!?]*\?)\s*$",
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


# what a situation said its business was, for a question's "about it" after it
_ABOUT_WHAT = re.compile(r"\b(?:about|on|regarding)\s+(?P<what>[^,;.!?]+?)\s*[.!]?\s*$", re.I)
_ABOUT_IT = re.compile(r"\b(about|on)\s+(?:it|that|this)\b", re.I)
_NAMES_SOMEONE = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]+(?:\s+[A-Z][\w-]+)+")


# "Tongliang Liu is on my thesis committee. Were any of the papers he co-wrote …?"
_SAID_OF = re.compile(
    r"^\s*(?P<who>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’.-]+){1,3})\s+(?:is|was|has|had|works|worked|"
    r"just|recently|used\s+to)\b[^.!?]*[.!]\s+(?P<rest>[A-Z][^.!]*\?)\s*$"
)
_OF_THEIRS = re.compile(r"\bof\s+theirs\b", re.I)
_THOSE = re.compile(r"\bof\s+(?:those|them|these)(?:\s+(?:papers|works|publications))?\b", re.I)
_ONLY_STATUS = re.compile(
    rf"\?\s*(?:(?:only|just)\s+)?(?P<statuses>{_STATUS_WORDS}(?:\s*(?:,|and|or|&)\s*{_STATUS_WORDS})*)"
    r"(?:\s+only)?\s*[.!]?\s*$",
    re.I,
)
# lower case only ("Niao He" is a name); "they", "them" are as often the papers
_PERSON_POINTER = re.compile(r"\b(?:he|she|him|his|her)\b")
_ANOTHER_NAME = re.compile(r"\b[A-Z][a-z]+\s+[A-Z][\w'’-]+")


# sentences that ask nothing, then the question with a pointer word in it
_SAID_BEFORE = re.compile(
    rf"^\s*(?P<ctx>[^?]+?(?<!\b[A-Z]){NOT_AN_END}[.!])\s+(?P<rest>[A-Z][^.!?]*\b(?:theirs|their|his|hers|her|they|he|she|"
    r"the\s+(?:candidate|applicant|professor))\b[^.!?]*\?)\s*$"
)
# "the candidate" as the person said before: "is the candidate first author", "the
# applicant's papers" (not "the candidate generation")
_THE_ONE = (
    r"\bthe\s+(?:candidate|applicant|professor)\b(?=['’]s\b|\s+(?:is|was|has|had|have|got|get|"
    r"publish\w*|wrote|written|co-?author\w*|first|last|ever)\b)"
)
# the pointer in a question about someone's papers ("did they get any orals", "which of
# their papers", "how many papers did he have"), not "are they any good", "use it"
_POINTS_TO_AUTHOR = re.compile(
    r"\b(?:papers?|orals?|spotlights?|posters?|works?|anything|something)\s+of\s+(?:theirs|his|hers)\b|"
    r"\b(?:their|his|her|they|he|she)\b(?:\s+[\w-]+){0,3}?\s+(?:papers?|orals?|spotlights?|"
    r"posters?|works?|get|got|have|had|publish\w*|wr[io]te|written|present\w*|(?:co-?)?author\w*)\b"
    rf"|{_THE_ONE}",
    re.I,
)
# "I'm going through X's faculty application. How often is the candidate first author?"
_THE_PERSON = re.compile(_THE_ONE, re.I)


def _said_again(sentence: str, question: str) -> bool:
    """Every name of a sentence before the question is in the question too ("Writing a short
    bio for Pan Li. Did any of Pan Li's papers …"): the sentence adds only the situation."""
    if re.search(r"\bpapers?\b", sentence, re.I):
        return False  # "I need papers on conformal prediction for a talk with X.": a request
    named = [n.rstrip(".") for n in _CAPITALISED.findall(sentence.split(" ", 1)[-1])]
    return bool(named) and all(n in question for n in named)


def context_dropped(text: str) -> str:
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
        return named_for(_PERSON_POINTER, who, said.group("rest"))
    if said and _OF_THEIRS.search(rest) and not _ANOTHER_NAME.search(rest[1:]):
        # "X is joining my committee. How many papers of theirs were in ICML 2024?"
        return _OF_THEIRS.sub(f"from {said.group('who')}", rest, count=1)
    dashed = _CONTEXT_DASH.match(text)
    places = _AT_PLACE.findall(dashed.group("ctx")) if dashed else []
    place = places[-1] if len(set(places)) == 1 else ""
    if dashed and place and _THAT_ONE.search(dashed.group("rest")):
        # "My supervisor is spending her sabbatical at the University of Georgia — which
        # spotlight papers did that university get?"
        return _THAT_ONE.sub(place, dashed.group("rest"), count=1)
    if dashed and place and _POINTS_TO_AUTHOR.search(dashed.group("rest")):
        # "Our lab is hosting a visitor from University of St. Gallen next week — can I see
        # their ICML 2024 papers?"
        rest = dashed.group("rest").strip()
        return named_for(_PERSON_OR_GROUP, place, rest[:1].upper() + rest[1:])
    then = _SAID_THEN_ASK.match(text)
    who = _one_name(then.group("ctx")) if then else ""
    if then and who and _BARE_ASK.match(then.group("rest")):
        # "My advisor told me to read everything Lifan Yuan presented. What are the papers?"
        return f"What are {who}'s papers?"
    two = _TWO_NAMES.search(then.group("ctx")) if then else None
    if then and two and _THEY_TOGETHER.search(then.group("rest")):
        # "Pretty sure A and B are frequent collaborators. Did they end up on the same
        # paper?": the two said before
        return _THEY.sub(f"{two.group('a')} and {two.group('b')}", then.group("rest"), count=1)
    there = _SAID_THERE.match(text)
    places = [p for p in _PLACE_SAID.findall(there.group("ctx")) if p != "ICML"] if there else []
    if there and not places:  # "how visible Télécom Paris was at ICML 2024": its one name
        places = [name] if (name := _one_name(there.group("ctx"))) else []
    if there and len(set(places)) == 1:
        # "My cousin just started a postdoc at the University of Utah. Did anyone there land
        # an oral?": the people at the one place said before
        place = places[0].rstrip(".")
        return _THERE.sub(lambda m: f"{m.group('who')} from {place}", there.group("rest"), count=1)
    said_first = _CONTEXT_COLON.match(text)
    if said_first:  # "Before I email Shirui Pan about …: how many papers did he have?"
        who = _one_name(said_first.group("ctx"))
        if who and _PERSON_OR_GROUP.search(said_first.group("rest")):
            text = named_for(_PERSON_OR_GROUP, who, said_first.group("rest"))
            return text[:1].upper() + text[1:]
    purpose = _PURPOSE.match(text)
    # one name, one thing: "teaching Machine Learning at MIT", "comparing Stanford and MIT"
    # say two ("their" is either), and "it" is as often the paper as the place
    who = _alone(_CAPITALISED.findall(purpose.group("ctx"))) if purpose else ""
    if purpose and who and _PERSON_OR_GROUP.search(purpose.group("rest")):
        # "I'm introducing X before his keynote and want to mention how often he was …",
        # "We're setting up an exchange with X, so I'd like to know which of their papers …"
        rest = named_for(_PERSON_OR_GROUP, who, purpose.group("rest").strip().rstrip(".!"))
        return f"{rest.rstrip('?')}?"
    before = _SAID_BEFORE.match(text)
    ctx = before.group("ctx") if before else ""
    about = _ABOUT_WHAT.search(ctx)
    # "I'm writing to X about HELM.": the one name before what it is about
    who = (_one_name(ctx) or (_one_name(ctx[: about.start()]) if about else "")).rstrip(".")
    rest = before.group("rest") if before else ""
    if who and not _NAMED_IN.search(rest[1:]) and _POINTS_TO_AUTHOR.search(rest):
        # "I'm thinking of applying to the University of Geneva. Did they get any …?": the
        # one name said before for the question's "they" / "its" / "he"
        # "What papers of theirs were accepted?": the papers from the name said before
        rest = re.sub(r"\bof\s+(?:theirs|his|hers)\b", f"from {who}", rest, count=1)
        if about and who not in about.group("what"):
            # "I'm writing to X about HELM. Which of his papers are about it?": about HELM
            rest = _ABOUT_IT.sub(rf"\g<1> {about.group('what').strip()}", rest, count=1)
        named = _THE_PERSON.sub(who, rest, count=1)
        return named if named != rest else named_for(_PERSON_OR_GROUP, who, rest)
    if (
        purpose
        and not ITS.search(purpose.group("rest"))
        and _NAMED_IN.search(purpose.group("rest"))
    ):
        # "I'm working on robotics and want to know which Li Wei papers were orals": the
        # question after the asker's situation, which is no filter of it
        rest = purpose.group("rest").strip().rstrip(".!")
        return f"{rest[:1].upper()}{rest[1:].rstrip('?')}?"
    interest = _INTEREST.match(text)
    if interest and _POINTING.search(interest.group("rest")):
        pointer = re.compile(r"\b(?:them|these|this|it)\b", re.I)
        return pointer.sub(interest.group("what").strip(), interest.group("rest"), count=1)
    # remarks after the question ("A one-line answer is fine.") ask nothing, but "top 5 is
    # plenty" says how many
    if "?" in text:
        tail = text[text.rindex("?") :]
        top = re.search(r"\btop\s+\w+", tail, re.I)
        n_with = _N_WITH_THE_MOST.search(tail)  # "I'd like the five with the most."
        only = _ONLY_STATUS.match(text[text.rindex("?") :])
        text = text[: text.rindex("?") + 1]
        if top:
            text = f"{text[:-1]} ({top.group(0)})?"
        elif n_with:
            text = f"{text[:-1]} (top {n_with.group('n')})?"
        elif only:  # "What did X have? Spotlights only.": a filter said after the question
            text = f"{text[:-1]} ({only.group('statuses')})?"
    dropped = _DOING.sub("", _SITUATION.sub("", text, count=1), count=1)
    # a message around the question: sentences before it that ask nothing and name no one
    # sentence ends, not initials ("M. Sugiyama") nor "vs." / "e.g." / "et al."
    sentences = re.split(
        rf"(?<![A-Z][.])(?<!\bvs[.])(?<!\be[.]g[.])(?<!\bi[.]e[.])(?<!\bal[.]){_NOT_ENDED}"
        r"(?<=[.!?])\s+(?=[A-Z])",
        dropped.strip(),
    )
    while (
        len(sentences) > 1
        and "?" not in sentences[0]
        and (not _NAMES_SOMEONE.search(sentences[0]) or _said_again(sentences[0], sentences[-1]))
    ):
        sentences = sentences[1:]
    dropped = " ".join(sentences)
    # "Since I'm interested in diffusion models, which … are about them?": the clause
    # is what "them" stands for
    return text if dropped != text and _POINTING.search(dropped) else dropped


def question_about_then(text: str) -> str:
    """ "quick question about X ⏎ which papers of theirs …": the question, about X."""
    return _QUESTION_ABOUT_THEN.sub(_about_then, text, count=1)


def remarks_dropped(text: str) -> str:
    """The question without what the asker is doing before it ("Filling in a spreadsheet:")
    or a remark after it ("— what have you got?")."""
    return _WHAT_HAVE_YOU.sub("", _ACTIVITY.sub("", text, count=1))
