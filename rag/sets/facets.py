"""A topic's facets: "adversarial robustness of graph neural networks" is two topics that
must both hold, and "papers that shrink a big network into a small one" names no topic.

The split is made only where the corpus supports it: a topic is cut at a joining word
("for", "of", "under", "applied to", "X-based Y", "combine X with Y") only when each side
is a phrase that at least `MIN_SUPPORT` abstracts write, and never when the whole phrase is
one the abstracts write ("theory of mind", "mixture of experts"). A side that names the
conference's own subject ("machine learning", "neural networks") holds for every paper and
is dropped. What only frames a topic is no part of it: listed verbs ("build or adapt",
"generate, edit or predict"), a generic head after "-based" ("LLM-based systems"), and a
bracket saying "or similar …"; examples ("such as", "including") and bracketed names
("(non-IID)") are alternatives. A topic written as a clause ("… that imitates it", "while
each party keeps its data") or with no phrase the abstracts write is *described*: no count
can be claimed for it.
Pure functions over a `support` look-up, so they are tested without a store.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rag.sets.glossary import entry_named
from rag.text import STOPWORDS

MIN_SUPPORT = 3  # abstracts that must write a side's phrase for it to be a facet
MAX_FACETS = 3
GENERIC_SHARE = 0.2  # a phrase in more of the abstracts names the field, not a topic
# The conference's own subject: true of every paper, so never a facet of its own.
GENERIC = frozenset(
    {"machine learning", "deep learning", "learning", "neural network", "deep neural network",
     "neural net", "model", "method", "algorithm", "ml", "ai", "artificial intelligence",
     "deep model", "data", "approach", "technique", "framework", "system",
     "machine learning model", "deep learning model", "neural network model"}
)  # fmt: skip
# A head noun that a named topic may carry or drop ("quantization methods").
GENERIC_HEADS = frozenset(
    {"method", "approach", "technique", "algorithm", "model", "problem", "framework", "task",
     "setting", "paper", "work", "system", "architecture", "data", "output"}
)  # fmt: skip
# Joining words, longest first; "and" joins facets only after "combine"/"both".
_JOINS = (
    "applied to", "combined with", "in combination with", "together with", "in the context of",
    "for", "in", "on", "of", "with", "under", "using", "via", "to", "through", "within",
    "over", "from", "against",
)  # fmt: skip
# "jailbreaking | large language models", "explainable or interpretable | reinforcement
# learning": one modifier (or two alternative ones) before a longer phrase.
_MODIFIED = re.compile(r"^([\w-]+(?:\s+(?:or|and)\s+[\w-]+)?)\s+([\w-]+(?:\s+[\w-]+)+)$")
_FRAME = re.compile(
    r"^(?:(?:combine|combines|combining|apply|applies|applying|use|uses|using|leverage|"
    r"leverages|leveraging|employ|employs|employing|study|studies|studying|bring|brings|"
    r"integrate|integrates|integrating|train|trains|build|builds|building|learn|learns|both|"
    r"give|gives|provide|provides|introduce|introduces|propose|proposes|present|presents|"
    r"make|makes|making|offer|offers|discuss|discusses|discussing|explore|explores|exploring|"
    r"investigate|investigates|investigating|examine|examines|examining|cover|covers|"
    r"covering|consider|considers|considering|address|addresses|addressing|tackle|tackles|"
    r"tackling|focus\s+on|focuses\s+on|focusing\s+on|deal\s+with|deals\s+with|"
    r"(?:evaluate|evaluates|evaluated|evaluating|report\s+results|reports\s+results|test|tests|"
    r"tested|testing|experiment|experiments)\s+(?:on|with)|"
    r"the|a|an)\s+)+",
    re.I,
)
_BASED = re.compile(r"\b([\w-]+?)-(?:based|driven|powered|guided|enhanced|assisted)\s+", re.I)
# "LLM-based systems", "diffusion-based or flow-matching models": the kind of thing named
# by its head noun alone is no facet, so only what it is based on remains.
_BASED_GENERIC = re.compile(
    r"\b([\w-]+?)-(?:based|driven|powered|guided|enhanced|assisted)((?:\s+or\s+[\w-]+)?)\s+"
    r"(?:(?:generative\s+)?(?:models?|modell?ing)|systems?|methods?|approach(?:es)?|techniques?|"
    r"frameworks?|algorithms?|"
    r"pipelines?|solutions?|tools?)\b",
    re.I,
)
_BASED_OR = re.compile(
    r"\b([\w-]+?)-(?:based|driven|powered|guided|enhanced|assisted)\s+or\s+", re.I
)
# Verbs that only frame what a side is about, when two or more are listed ("build or
# adapt", "generate, edit or predict", "understanding or generating"), or these alone
# at the start of a side ("to simulate physical systems", "to detect anomalies").
# (Base and -ing forms that also name a topic, "training", "design", "editing", are left.)
_LISTED_VERBS = (
    r"build|builds|building|adapt|adapts|adapting|train|trains|fine-tune|fine-tunes|finetune|"
    r"analyse|analyses|analyze|analyzes|analysing|analyzing|generate|generates|generating|"
    r"edit|edits|predict|predicts|predicting|understand|understands|understanding|simulate|"
    r"simulates|simulating|detect|detects|detecting|solve|solves|solving|improve|improves|"
    r"improving|evaluate|evaluates|evaluating|develop|develops|developing|create|creates|"
    r"creating|apply|applies|applying|put|puts|putting|estimate|estimates|estimating|"
    r"decompose|decomposes|decomposing|calibrate|calibrates|calibrating|increase|increases|"
    r"increasing|explain|explains|explaining|measure|measures|measuring|reduce|reduces|reducing"
)
_NOT_A_JOIN = r"(?!(?:of|for|in|on|with|to|and|or|by|from)\b)"
_VERB_LIST = re.compile(
    rf"^(?:(?:{_LISTED_VERBS})(?:\s*,\s*(?:and\s+|or\s+)?|\s+or\s+|\s+and\s+|\s+and/or\s+))+"
    rf"(?:{_LISTED_VERBS})\s+{_NOT_A_JOIN}(?=\S)",
    re.I,
)
_SIDE_VERB = re.compile(
    r"^(?:generate|generates|generating|simulate|simulates|simulating|detect|detects|"
    rf"detecting|adapt|adapts|adapting|put|puts|putting|solve|solves|solving)\s+{_NOT_A_JOIN}"
    r"(?=\S)",
    re.I,
)
# ("multiple instance learning", "different privacy notions": those two name things.)
_QUANTIFIER = re.compile(r"^(?:several|many|various)\s+(?=\S)", re.I)
# Words a clause has and a named topic does not: pronouns, quantifiers, subordinators
# (an article counts half: "the robustness of a GNN" is still a noun phrase).
CLAUSE_WORDS = frozenset(
    "it its itself they their them one ones each every some several many certain that "
    "which whether while without whose who when where so if as such already own something "
    "someone anything how much what why rather than almost still far".split()
)
ARTICLES = frozenset({"a", "an", "the"})
NARROWED = 3  # a named topic this many times as widely written as it with a modifier
APART_SHARE = 0.05  # a word in more abstracts than this is no facet of a two-word topic
SPECIFIC_SHARE = 0.02  # a single word in more abstracts than this names no topic alone
NAMED_COVER = 0.5  # share of a topic's words inside phrases the abstracts write
DESCRIBED_CLAUSE = 2.0
DESCRIBED_WORDS = 12  # a topic longer than this is a description, whatever its words

Support = Callable[[str], int]  # abstracts that write a phrase (title or abstract)


@dataclass
class TopicReading:
    """How a topic reads against the corpus: its facets, and whether it is named."""

    facets: list[str]
    described: bool
    dropped: list[str] = field(default_factory=list)  # generic sides left out


def words(text: str) -> list[str]:
    return re.findall(r"[\w-]+(?:\.[\w-]+)*", text)


def _clean(side: str) -> str:
    side = _VERB_LIST.sub("", side.strip(" ,;:.?!"))
    side = _QUANTIFIER.sub("", _FRAME.sub("", side))
    return re.sub(r"\s+", " ", side).strip(" ,;:.?!")


def _side(side: str) -> str:
    """One side of a cut, its framing verb gone: "to *generate* molecules" → molecules."""
    side = _clean(side)
    return _clean(_SIDE_VERB.sub("", side)) or side


_SMALL_MODIFIERS = STOPWORDS | CLAUSE_WORDS | ARTICLES | {"other", "similar", "related"}


def _length(text: str) -> int:
    """Words of a topic, its "or"/"and" between alternatives not counted."""
    return sum(1 for w in words(text) if w.lower() not in ("or", "and"))


def too_long_to_name(text: str) -> bool:
    """Longer than any topic's name: a description, whatever its words."""
    return _length(text) > DESCRIBED_WORDS


def _singular(word: str) -> str:
    w = word.lower()
    return w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w


def is_generic(phrase: str, support: Support, total: int) -> bool:
    key = " ".join(_singular(w) for w in words(phrase))
    return key in GENERIC or (total > 0 and support(phrase) > GENERIC_SHARE * total)


def alternatives(phrase: str) -> list[str]:
    """ "backdoor attacks or defenses against backdoors" → each alternative on its own."""
    parts = re.split(r",|;|\bor\b|\band\b|\(|\)|\bi\.e\.|\be\.g\.", phrase)
    return [c for c in (_clean(p) for p in parts) if c]


def written(phrase: str, support: Support) -> int:
    """Abstracts writing the phrase itself, or it without a generic head noun
    ("quantization methods" → "quantization")."""
    best = support(phrase)
    ws = words(phrase)
    if len(ws) > 1 and _singular(ws[-1]) in GENERIC_HEADS:
        best = max(best, support(" ".join(ws[:-1])))
    return best


def phrase_support(phrase: str, support: Support) -> int:
    """Abstracts writing the phrase or one of its alternatives ("backdoor attacks or
    defenses" → "backdoor attacks", "defenses")."""
    said = [c for c in alternatives(phrase) if not _empty_words(c)]  # not "study it" → "it"
    return max(written(c, support) for c in [phrase, *said])


def _empty_words(text: str) -> bool:
    return all(w.lower() in _SMALL_MODIFIERS for w in words(text))


def _supported(side: str, support: Support, total: int) -> bool:
    return bool(words(side)) and phrase_support(side, support) >= MIN_SUPPORT


def _splits(text: str, support: Support) -> list[tuple[str, str]]:
    """Every (left, right) cut of `text` at one joining word, and a modifier cut before a
    trailing phrase the abstracts write ("jailbreaking | large language models")."""
    out = []
    for join in _JOINS:
        for m in re.finditer(rf"(?<![\w-]){re.escape(join)}(?![\w-])", text, re.I):
            left, right = _side(text[: m.start()]), _side(text[m.end() :])
            if not (left and right) or _idiom(join, text[m.end() :]):
                continue
            out.append((left, right))
    if re.match(r"^\s*(?:combine|combines|combining|both)\b", text, re.I):
        body = _clean(text)
        for m in re.finditer(r"(?<![\w-])and(?![\w-])", body, re.I):
            left, right = _clean(body[: m.start()]), _clean(body[m.end() :])
            if left and right:
                out.append((left, right))
    modified = _MODIFIED.match(text)
    if modified is not None and written(modified.group(2), support) >= MIN_SUPPORT:
        modifier, phrase = modified.group(1), modified.group(2)
        said = [w for w in words(modifier) if w.lower() not in ("or", "and")] + words(phrase)[:1]
        if not any(w.lower() in _SMALL_MODIFIERS for w in said):
            out.append((modifier, phrase))
    return out


Memo = dict[tuple[str, int], "list[str] | None"]


def _facets(
    text: str, support: Support, total: int, room: int, memo: Memo | None = None
) -> list[str] | None:
    """The fewest supported facets `text` reads as (itself when supported whole), at most
    `room` of them; None when it does not split into supported phrases. `memo`: the sides
    already read in this topic ("learning for learning for …" reaches each side many ways)."""
    joint = re.match(r"^\s*(?:combine|combines|combining|both)\b", text, re.I)
    text = _clean(text)
    if not text or room < 1:
        return None
    # "combine causal inference and RL": both, not either ("vision and language" is one)
    if joint and room > 1 and written(text, support) < MIN_SUPPORT:
        for m in re.finditer(r"(?<![\w-])and(?![\w-])", text, re.I):
            left, right = _clean(text[: m.start()]), _clean(text[m.end() :])
            left = _shared_head(left, right, support)
            a = _facets(left, support, total, room - 1, memo) if left and right else None
            b = _facets(right, support, total, room - len(a), memo) if a else None
            if a and b:
                return a + b
    if written(text, support) >= MIN_SUPPORT or _each_written(text, support):
        return [text]
    memo = {} if memo is None else memo
    if (text, room) in memo:
        return memo[(text, room)]
    split = None
    if _length(text) <= DESCRIBED_WORDS:  # longer is a description, whatever its cuts
        split = _best_split(text, support, total, room, memo)
    if split is None and _supported(text, support, total):
        split = [text]  # its alternatives are written ("code generation or program synthesis")
    memo[(text, room)] = split
    return split


def _shared_head(left: str, right: str, support: Support) -> str:
    """A bare modifier shares the other side's head: "supervised and unsupervised learning"
    is "supervised learning" and "unsupervised learning", "online and offline RL" two kinds of RL."""
    said, other = words(left), right.split()
    if len(said) != 1 or len(other) < 2:
        return left
    shared = f"{left} {' '.join(other[1:])}"
    return shared if written(shared, support) >= MIN_SUPPORT else left


def _each_written(text: str, support: Support) -> bool:
    """Alternatives the abstracts each write: "backdoor attacks or defenses against
    backdoors" is one facet, not cut at "against"."""
    said = [_clean(c) for c in re.split(r"\bor\b", text)]
    # a side of no words ("(") is no alternative either
    if any(not words(c) or words(c)[0].lower() in _JOIN_WORDS for c in said):
        return False  # "…, for time series" joins a facet
    return len(said) > 1 and all(written(c, support) >= MIN_SUPPORT for c in said)


def _best_split(text: str, support: Support, total: int, room: int, memo: Memo) -> list[str] | None:
    best: list[str] | None = None
    for left, right in _splits(text, support):
        a = _facets(left, support, total, room - 1, memo)
        b = _facets(right, support, total, room - 1, memo) if a is not None else None
        # A generic side ("machine learning to …") is no facet: the other side is the topic.
        if a is None and is_generic(left, support, total):
            a, b = [], _facets(right, support, total, room, memo)
        elif b is None and a is not None and is_generic(right, support, total):
            b = []
        if a is None or b is None or not a + b:
            continue
        if best is None or len(a + b) < len(best):
            best = a + b
    return best


def _remembering(support: Support) -> Support:
    """`support` asked once per phrase of one topic (its sides recur across cuts)."""
    cache: dict[str, int] = {}

    def remembered(phrase: str) -> int:
        if phrase not in cache:
            cache[phrase] = support(phrase)
        return cache[phrase]

    return remembered


# "attacks on, or robustness of, VLMs": one facet of alternatives, then the other.
_SHARED_JOIN = re.compile(r"\s+(?:on|of|in|for|to|with),\s+or\s+(.+?)\s+(on|of|in|for|to|with),\s+")


def read_topic(topic: str, support: Support, total: int) -> TopicReading:
    """The topic's facets (generic sides dropped) and whether the corpus names it."""
    support = _remembering(support)
    plain, examples = plain_topic(topic)
    if plain != topic:
        reading = _read(plain, support, total)
        # only a reading into phrases the abstracts write, each naming something, stands
        if not reading.described and all(_specific(f, support) for f in reading.facets):
            # the examples are kinds of the last facet, those that name something alone
            # ("phase retrieval", "inpainting"; not "text")
            named = [
                e for e in examples if len(words(e)) > 1 or support(e) <= SPECIFIC_SHARE * total
            ]
            if named and reading.facets:
                reading.facets[-1] = " or ".join([reading.facets[-1], *named])
            return reading
    return _read(topic, support, total)


def _narrowed(text: str, support: Support) -> list[str] | None:
    """A modifier and a named topic the abstracts write far more widely, read as two
    facets: "online | continual learning" (the field's papers are not all online); a name
    of its own ("graph neural networks") is not cut."""
    ws = words(text)
    if len(ws) < 3 or entry_named(text) is not None or "-" in ws[0]:
        return None
    head = " ".join(ws[1:])
    if ws[0].lower() in _SMALL_MODIFIERS or entry_named(head) is None:
        return None
    if support(head) < NARROWED * max(1, written(text, support)):
        return None
    return [ws[0], head]


def _apart(text: str, support: Support, total: int) -> bool:
    """Two words the abstracts write, each on its own, never together."""
    pair = words(text)
    if len(pair) != 2 or is_generic(text, support, total):
        return False
    together = max(support(text), support(f"{pair[0]} {_singular(pair[1])}"))
    # each word names a field on its own ("representations" in 368 abstracts names none)
    return together < MIN_SUPPORT and all(
        MIN_SUPPORT <= support(w) <= APART_SHARE * total for w in pair
    )


def _specific(facet: str, support: Support) -> bool:
    """Whether a facet names something: a phrase the abstracts write, or a short one of
    words they use ("federated unlearning"), and not one verb or head noun ("handle",
    "systems")."""
    ws = words(facet)
    if len(ws) == 1 and (_singular(ws[0]) in GENERIC_HEADS or _VERB_ALONE.match(ws[0])):
        return False
    if phrase_support(facet, support) >= MIN_SUPPORT:
        return True
    return len(ws) <= 3 and all(support(w) > 0 for w in ws)


_VERB_ALONE = re.compile(
    rf"^(?:{_LISTED_VERBS}|get|gets|handle|handles|keep|keeps|tell|do|scale|scales|let|lets)$",
    re.I,
)


def _read(topic: str, support: Support, total: int) -> TopicReading:
    text, names = _bracketed(topic)
    text = _SHARED_JOIN.sub(lambda m: f" or {m.group(1)} {m.group(2)} ", text)
    text = _INCLUDING.sub(lambda m: f" or {m.group(1)}{m.group(2)}", text)
    text = _SUCH_AS.sub(", ", text)
    # "score-based generative models" is itself written: only unwritten ones are rewritten
    text = _BASED_GENERIC.sub(_unless_written(support, r"\1\2 "), text)
    text = _BASED_OR.sub(lambda m: f"{m.group(1)} or ", text)
    text = _BASED.sub(_unless_written(support, r"\1 for "), text)
    joint = re.match(r"^\s*(?:combine|combines|combining|both)\b", text, re.I)
    text = _clean(text)
    if not text:
        return TopicReading([], described=True)
    # "… (model collapse / self-consuming loops)": the question names what it describes;
    # "neural operators, i.e. networks that map functions": it names it, then glosses it.
    head = _GLOSS.split(topic, maxsplit=1)[0]
    hinted = any(phrase_support(h, support) >= MIN_SUPPORT for h in name_hints(topic)) or (
        head != topic and not _clause_like(head) and phrase_support(head, support) >= MIN_SUPPORT
    )
    found = _facets(f"combine {text}" if joint else text, support, total, MAX_FACETS)
    if _apart(text, support, total):
        found = words(text)  # "federated unlearning": two facets, no abstract combines them
    elif found == [text] and (narrowed := _narrowed(text, support)) is not None:
        found = narrowed
    if found is None:
        # No split into written phrases: a noun phrase mostly made of them is still named
        # ("feature attribution methods for explaining individual predictions"), whole.
        phrase = not _clause_like(topic) and coverage(text, support, total) >= NAMED_COVER
        return TopicReading([_named_too(text, names)], described=not (hinted or phrase))
    facets = [f for f in found if not is_generic(f, support, total)]
    dropped = [f for f in found if f not in facets]
    if not facets:  # every side generic: the topic is what it says, whole
        facets = [text]
    facets = [_named_too(f, names) for f in facets]
    described = _clause_like(_clean(topic)) and not hinted  # "introduce a …" is only a frame
    return TopicReading(facets, described=described, dropped=dropped)


# What only elaborates a topic, to its end: ", where the model sees the stream once",
# "instead of numeric rewards", ", e.g. relative to the WL test".
_ELABORATION = re.compile(
    r"(?:\s*,\s*(?:where|whereby|e\.g\.|for example|for instance|i\.e\.)|"
    r"\s*,?\s+(?:instead of|rather than))(?:\s|,|$).*$",
    re.I | re.S,
)
# "attacks that only need black-box access", "samplers that can cope with multimodal
# targets": a relative clause that says what the things work with joins a second facet.
_RELATIVE_JOIN = re.compile(
    r"\s+(?:that|which|who)\s+(?:(?:only|can|must|also|still)\s+)*(?:needs?|uses?|requires?|"
    r"rel(?:y|ies) on|learns? from|operates? on|handles?|copes? with|works? with|deals? with|"
    r"runs? on|targets?|address(?:es)?|tackles?)\s+",
    re.I,
)
# Examples at the end of a topic too long to read otherwise: "inverse problems such as
# deblurring, inpainting, super-resolution or phase retrieval".
_EXAMPLES = re.compile(
    r"(?:\s*,\s*|\s+)(?:such as|including|especially|in particular|like)\s"
    r"(?:(?!\b(?:that|which|who|as|to|when|while)\b).)*$",
    re.I | re.S,
)
# A bracketed list ending a long topic, "(DP-SGD, private ERM, …)"; not a name, "(GNNs)".
_LISTED_BRACKET = re.compile(r"\s*\([^()]*,[^()]*\)\s*$")


def plain_topic(topic: str) -> tuple[str, list[str]]:
    """The topic without what only elaborates it, relative clauses read as joins, and,
    when it is still longer than a description, without its examples (returned apart:
    "deblurring", "phase retrieval" are kinds of the inverse problems they follow)."""
    text = _ELABORATION.sub("", topic).strip(" ,;:.")
    text = _RELATIVE_JOIN.sub(" with ", text) or topic
    examples: list[str] = []
    if _length(text) > DESCRIBED_WORDS:
        tail = _EXAMPLES.search(text)
        listed = alternatives(_EXAMPLE_LEAD.sub("", tail.group(0))) if tail else []
        listed = [e for e in listed if words(e)]  # "… like, …": no example said
        # a tail going on with "…, in drug discovery" qualifies the topic: not only examples
        if tail is not None and not any(words(e)[0].lower() in _JOIN_WORDS for e in listed):
            examples = [e for e in listed if len(words(e)) <= 4]
            text = text[: tail.start()].strip(" ,;:.") or text
        text = _LISTED_BRACKET.sub("", text).strip(" ,;:.") or text
    return text, examples


_EXAMPLE_LEAD = re.compile(r"^\W*(?:such as|including|especially|in particular|like)\s+", re.I)
_JOIN_WORDS = frozenset(j for j in _JOINS if " " not in j)

# "foundation models, including LLMs, for …": the included kind is one more alternative.
_INCLUDING = re.compile(
    rf",\s*(?:including|especially|in particular)\s+{_NOT_A_JOIN}([^,;()]+?)(,|$)", re.I
)
# "physical systems such as fluids, particles or PDEs": the examples are alternatives.
_SUCH_AS = re.compile(r",?\s+such as\s+", re.I)
# A bracket inside the topic (more words follow it): "(or flow-matching)" is an
# alternative where it stands; "(non-IID)" another name for what it follows; "(or similar
# sequence models)" says nothing a paper must write.
_BRACKET = re.compile(r"\s*\(([^()]{1,40})\)(?=\s+\w)")
_VAGUE_BRACKET = re.compile(r"^(?:or|and)?\s*(?:similar|other|related|comparable)\b", re.I)


def _unless_written(support: Support, template: str) -> Callable[[re.Match[str]], str]:
    """A substitution that leaves a match the abstracts write as it stands."""

    def chosen(m: re.Match[str]) -> str:
        # the match with up to three words after it: "score-based" + "generative models"
        after = words(m.string[m.end() :])[:3]
        phrases = [" ".join([m.group(0).strip(), *after[:n]]) for n in range(len(after) + 1)]
        if any(support(phrase) >= MIN_SUPPORT for phrase in phrases):
            return m.group(0)
        return m.expand(template)

    return chosen


def _bracketed(topic: str) -> tuple[str, dict[str, str]]:
    """The topic with its inner brackets resolved, and the names they gave (word they
    follow → name)."""
    names: dict[str, str] = {}

    def resolve(m: re.Match[str]) -> str:
        inside = m.group(1).strip()
        if _VAGUE_BRACKET.match(inside) or re.fullmatch(r"\d+|[a-z]|[ivx]+", inside, re.I):
            return ""  # "(or similar …)", "(1)", "(b)": nothing a paper must write
        if re.match(r"^or\s+", inside, re.I):
            return f" {inside}"
        before = words(topic[: m.start()])
        if not before:
            return f"{inside} "  # "(non-IID) data": the bracket is the topic's first word
        if len(words(inside)) <= 3:
            names.setdefault(before[-1].lower(), inside)
        return ""

    return _BRACKET.sub(resolve, topic), names


def _named_too(facet: str, names: dict[str, str]) -> str:
    """A facet holding the word a bracketed name followed gains that name as an
    alternative: "heterogeneous client data" → "heterogeneous client data or non-IID"."""
    extra = [name for word, name in names.items() if word in (w.lower() for w in words(facet))]
    return " or ".join([facet, *extra])


def _idiom(join: str, after: str) -> bool:
    """Whether the joining word starts a fixed phrase: "learning in context" is in-context
    learning, not a topic "in" a context."""
    following = words(after)
    return bool(following) and (join.lower(), following[0].lower()) in _IDIOMS


_IDIOMS = frozenset(
    {("in", "context"), ("in", "distribution"), ("on", "device"), ("on", "policy"),
     ("of", "distribution"), ("in", "silico"), ("in", "vivo"), ("in", "vitro"), ("over", "time")}
)  # fmt: skip


_GLOSS = re.compile(r",?\s*\b(?:i\.e\.|e\.g\.|such as|that is|namely)|\s*\(", re.I)
_HINT = re.compile(
    r"\(([^()]{2,80})\)|\b(?:i\.e\.|e\.g\.|a\.k\.a\.|also (?:called|known as)|known as|"
    r"so-called)\s*,?\s*([^,;()]{2,60})",
    re.I,
)


def name_hints(topic: str) -> list[str]:
    """Names the question gives for what it describes: in brackets, after "i.e.", "e.g.",
    "known as", each "/"-separated name on its own."""
    out = []
    for match in _HINT.finditer(topic):
        text = match.group(1) or match.group(2) or ""
        out += [h.strip() for h in re.split(r"/|\bor\b|,", text) if h.strip()]
    return out


def coverage(text: str, support: Support, total: int) -> float:
    """Share of the text's words inside phrases the abstracts write: runs of 2+ words that
    any abstract writes (a rare topic is still a named one), or single words rare enough to
    name something."""
    ws = words(text)
    covered = [False] * len(ws)
    for size in range(min(len(ws), 5), 0, -1):
        for start in range(len(ws) - size + 1):
            if all(covered[start : start + size]):
                continue
            found = support(" ".join(ws[start : start + size]))
            if found < 1 or (size == 1 and found > SPECIFIC_SHARE * total):
                continue
            covered[start : start + size] = [True] * size
    small = CLAUSE_WORDS | ARTICLES | STOPWORDS
    content = [i for i, w in enumerate(ws) if w.lower() not in small and len(w) > 2]
    return sum(covered[i] for i in content) / len(content) if content else 0.0


def _clause_like(topic: str) -> bool:
    """A topic written as a clause describes; a named topic is a noun phrase."""
    ws = [w.lower() for w in words(_SUCH_AS.sub(", ", topic))]  # "such as" gives examples
    clause = sum(1.0 for w in ws if w in CLAUSE_WORDS) + sum(0.5 for w in ws if w in ARTICLES)
    return clause >= DESCRIBED_CLAUSE or _length(topic) > DESCRIBED_WORDS
