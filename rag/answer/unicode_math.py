"""LaTeX in quoted abstract text, shown as Unicode where nothing typesets it.

The extractive answerer quotes abstracts verbatim, so answers carry `$\\sim 3.7\\times$`,
`$O(d\\sqrt{NKT})$` or a bare `2\\times`. The browser typesets them (KaTeX, see `ui.render`);
a terminal or an API client that shows plain text gets `readable_math`: ~3.7×, O(d√(NKT)).

The rule for what gets converted: text meant to be read as it is — `rag ask`/`rag chat`
output, the OpenAI message `content`, `/v1/ask`'s `plain_text` — is converted; structured
fields (`answer`, citation titles and snippets, set rows) keep the abstract's own LaTeX, so
a client can typeset it and match it against the corpus.

Math is `$…$` or `$$…$$` paired as Pandoc pairs it (the opening `$` followed by a non-space,
the closing one preceded by a non-space and not followed by a digit), so "costs $5 or $6"
stays prices. Inside math everything is converted (commands, `^`/`_` scripts, braces);
outside it only known commands are, and `[n]` markers, brackets, `^` and `_` are left alone.
Malformed input (unbalanced braces, a trailing backslash) is converted as far as it goes
and never raises.
"""

from __future__ import annotations

import re
import unicodedata

from rag.answer.references import answer_with_references
from rag.types import Answer

MATH = re.compile(
    r"(?<![\\$])\$\$(?P<display>[^$]{1,2000}?)\$\$"
    r"|(?<![\\$])\$(?P<inline>(?=\S)[^$\n]{1,500}?(?<=\S))\$(?![\d$])"
)
_OUTSIDE_COMMAND = re.compile(r"\\([A-Za-z]+)|\\([%&#$_{}])")
_SPACES = re.compile(r"[ \t]{2,}")
# "$\sim 3.7\times$" reads "~3.7×": a relation that opens the math prefixes its number.
_LEADING_RELATION = re.compile(r"^([~≈≤≥<>]) +")
_TRAILING_OPERATOR = re.compile(r" +([×%])$")
# "{\it italic}" in running text: the group and its switch both go.
_OLD_FONT_GROUP = re.compile(r"\{\\(?:it|bf|em|rm|sf|tt|sc|small)\s+([^{}\n]{0,200})\}")
_OPEN_FORMULA = 520  # a `$` this far back can no longer open an inline formula (<= 500)
_MAX_DEPTH = 12  # deeper brace nesting is flattened, not recursed into

_GREEK = dict(
    zip(
        "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu "
        "nu xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
        "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split(),
        "αβγδεεζηθϑικλμνξοπϖρϱσςτυφφχψωΓΔΘΛΞΠΣΥΦΨΩ",
        strict=True,
    )
)
# "symbol name name …" groups: every name is shown as its symbol.
_SYMBOL_TABLE = r"""
× times | · cdot cdotp | ~ sim | ≈ approx | ≃ simeq | ≅ cong | ≤ leq le leqslant
≥ geq ge geqslant | ≠ neq ne | ≲ lesssim | ≳ gtrsim | ≪ ll | ≫ gg | ≡ equiv
≔ triangleq coloneqq | ∝ propto | ± pm | ∓ mp | ∞ infty | ∈ in | ∉ notin | ⊂ subset
⊆ subseteq | ∪ cup | ∩ cap | ∖ setminus | ∅ emptyset varnothing
→ rightarrow to longrightarrow | ← leftarrow gets | ⇒ Rightarrow implies | ⇐ Leftarrow
↔ leftrightarrow | ⇔ Leftrightarrow iff | ↦ mapsto | ↑ uparrow | ↓ downarrow | ∀ forall
∃ exists | ¬ neg lnot | ∧ wedge land | ∨ vee lor | ∂ partial | ∇ nabla | Σ sum | ∏ prod
∫ int | ℓ ell | ℏ hbar | ⋆ star ast | ∘ circ | • bullet | ⊗ otimes | ⊕ oplus | ⊙ odot
ᵀ top | ⊥ perp bot | ′ prime | † dagger | ≻ succ | ≺ prec
‖ Vert lVert rVert | ⟨ langle | ⟩ rangle | ⌊ lfloor | ⌋ rfloor | ⌈ lceil | ⌉ rceil
{ lbrace | } rbrace | … ldots dots cdots | \ backslash | § S
"""
_SYMBOLS = {
    **_GREEK,
    **{
        name: symbol
        for group in _SYMBOL_TABLE.replace("\n", " | ").split(" | ")
        if group.strip()
        for symbol, *names in [group.split()]
        for name in names
    },
    **dict.fromkeys(["quad", "qquad"], " "),
    **dict.fromkeys(["mid", "vert"], "|"),  # the table's own separator
}
# Operator names keep their word: "\log n" reads as "log n".
_WORDS = frozenset(
    "log ln exp min max sup inf lim arg argmin argmax det Pr sin cos tan tanh sigmoid "
    "softmax poly polylog mod gcd deg dim ker rank tr".split()
)
# Font and size switches (`{\bf x}`, `\small`) and sizing (`\left(`): only their effect goes.
_DROPPED = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr displaystyle textstyle scriptstyle "
    "it bf rm sf tt cal em small large Large normalsize footnotesize tiny limits nolimits "
    "noindent".split()
)
# Commands whose one argument is shown as it is.
_CONTENT = frozenset(
    "text textrm textbf textit texttt textsf textsc textnormal emph mathrm mathbf mathit "
    "mathtt mathsf mathnormal boldsymbol bm operatorname mbox hbox underline overline "
    "mathfrak mathscr overrightarrow".split()
)
_CALLIGRAPHIC = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "𝒜ℬ𝒞𝒟ℰℱ𝒢ℋℐ𝒥𝒦ℒℳ𝒩𝒪𝒫𝒬ℛ𝒮𝒯𝒰𝒱𝒲𝒳𝒴𝒵", strict=True))
_DOUBLE = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "𝔸𝔹ℂ𝔻𝔼𝔽𝔾ℍ𝕀𝕁𝕂𝕃𝕄ℕ𝕆ℙℚℝ𝕊𝕋𝕌𝕍𝕎𝕏𝕐ℤ", strict=True))
_DOUBLE.update({"1": "𝟙"})
_ACCENTS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "vec": "\u20d7", "dot": "\u0307"}
_ACCENTS.update(widehat=_ACCENTS["hat"], widetilde=_ACCENTS["tilde"])
_SUPERSCRIPT = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW*′",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ*′",
        strict=True,
    )
)
_SUPERSCRIPT["ᵀ"] = "ᵀ"  # `^\top` arrives already converted
_SUBSCRIPT = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
_CALLIGRAPHIC_COMMANDS = frozenset({"mathcal", "mathbb", "mathbbm"})
_WITH_ARGUMENTS = frozenset({"frac", "tfrac", "dfrac", "sqrt", "begin", "end"})
_ORDINARY = frozenset(_GREEK) | {"ell", "partial", "nabla", "hbar"}
_KNOWN = frozenset(_SYMBOLS) | _WORDS | _DROPPED | _CONTENT | _CALLIGRAPHIC_COMMANDS
_KNOWN |= frozenset(_ACCENTS) | _WITH_ARGUMENTS
_ESCAPED = {"%": "%", "&": "&", "#": "#", "$": "$", "_": "_", "{": "{", "}": "}", "|": "‖"}
_SPACING = {",": " ", ";": " ", ":": " ", "!": "", " ": " ", "\\": " "}


def readable_math(text: str) -> str:
    """`text` with its LaTeX shown as Unicode: `$2\\times$` → 2×, `$\\mathbb{R}^d$` → ℝᵈ."""
    out: list[str] = []
    last = 0
    for match in MATH.finditer(text):
        out.append(_outside(text[last : match.start()]))
        body = match.group("display") or match.group("inline") or ""
        converted = _SPACES.sub(" ", _Math(body).convert()).strip()
        converted = _TRAILING_OPERATOR.sub(r"\1", _LEADING_RELATION.sub(r"\1", converted))
        out.append(unicodedata.normalize("NFC", converted))  # "O" + tilde is one "Õ"
        last = match.end()
    out.append(_outside(text[last:]))
    return "".join(out)


_TEX_DOUBLE = re.compile(r"``([^`'\n]{1,200}?)''")
_TEX_SINGLE = re.compile(r"(?<![`\w])`([^`'\n]{1,100}?)'(?!')")


def tex_quotes(text: str) -> str:
    """TeX's quotes as typographic ones: ``extreme'' → “extreme”, `a' → ‘a’."""
    if "`" not in text:
        return text
    return _TEX_SINGLE.sub(r"‘\1’", _TEX_DOUBLE.sub(r"“\1”", text))


def plain_text(answer: Answer) -> str:
    """The answer and its numbered references as a reader sees them in plain text: the
    OpenAI message content, `/v1/ask`'s `plain_text`."""
    return readable_math(answer_with_references(answer))


def _outside(text: str) -> str:
    """Known commands in running text (`2\\times faster`, `50\\%`); everything else as is."""
    if "\\" not in text:
        return text
    text = _OLD_FONT_GROUP.sub(r"\1", text)
    out: list[str] = []
    last = 0
    for match in _OUTSIDE_COMMAND.finditer(text):
        name, escaped = match.group(1), match.group(2)
        if match.start() < last or (escaped is None and name not in _KNOWN):
            continue  # inside an argument already converted, or not LaTeX we know
        out.append(text[last : match.start()])
        if escaped is not None:
            out.append(_ESCAPED[escaped])
            last = match.end()
        else:  # the command and its arguments, read as math would read them
            math = _Math(text)
            math.i = match.start() + 1
            out.append(math.command())
            last = math.i
    out.append(text[last:])
    return "".join(out)


class _Math:
    """One math body converted left to right; each argument is converted on its own."""

    def __init__(self, source: str, depth: int = 0) -> None:
        self.s = source
        self.i = 0
        self.depth = depth

    def convert(self) -> str:
        out: list[str] = []
        while self.i < len(self.s):
            out.append(self._next())
        return "".join(out)

    def _sub(self, source: str) -> str:
        if self.depth >= _MAX_DEPTH:
            return source.replace("{", "").replace("}", "")
        return _Math(source, self.depth + 1).convert()

    def _next(self) -> str:
        ch = self.s[self.i]
        self.i += 1
        if ch == "\\":
            return self.command()
        if ch == "{":
            return self._sub(self._group())
        if ch == "}":
            return ""  # unbalanced: dropped
        if ch in "^_":
            return self._script(ch)
        if ch == "~":
            return " "
        return ch

    def _group(self) -> str:
        """The text up to the `}` that closes the `{` just read (or to the end)."""
        depth, start = 1, self.i
        while self.i < len(self.s):
            ch = self.s[self.i]
            self.i += 1
            if ch == "\\":
                self.i += 1  # an escaped brace does not count
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return self.s[start : self.i - 1]
        return self.s[start:]

    def _argument(self) -> str:
        """The next argument, unconverted: a {group}, a command, or one character."""
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1
        if self.i >= len(self.s):
            return ""
        ch = self.s[self.i]
        self.i += 1
        if ch == "{":
            return self._group()
        if ch == "\\":
            name = self._name()
            return "\\" + (name or self.s[self.i - 1 : self.i])
        return ch

    def _name(self) -> str:
        start = self.i
        while self.i < len(self.s) and self.s[self.i].isascii() and self.s[self.i].isalpha():
            self.i += 1
        return self.s[start : self.i]

    def command(self) -> str:
        """The command whose name starts at `i` (after its backslash), with its arguments."""
        name = self._name()
        if not name:
            if self.i >= len(self.s):
                return ""  # a trailing backslash
            ch = self.s[self.i]
            self.i += 1
            return _ESCAPED.get(ch, _SPACING.get(ch, ch))
        if name in _SYMBOLS:
            if name in _ORDINARY:  # "\\Delta W" is ΔW: TeX drops the space after a name
                end = len(self.s) - len(self.s[self.i :].lstrip(" "))
                if self.s[end : end + 1].isalnum():
                    self.i = end
            return _SYMBOLS[name]
        if name in _WORDS:  # "\\log n", "\\log{n}": the word stays apart from its argument
            before = self.s[self.i - len(name) - 2 : self.i - len(name) - 1]
            following = self.s[self.i : self.i + 1]
            spaced = following.isalnum() or following in ("{", "\\")
            return (
                ("" if before in ("", " ", "(", "[", "{") else " ") + name + (" " if spaced else "")
            )
        if name in _DROPPED:
            return ""
        return self._command_with_arguments(name)

    def _command_with_arguments(self, name: str) -> str:
        if name in ("frac", "tfrac", "dfrac"):
            top, bottom = self._sub(self._argument()), self._sub(self._argument())
            return f"{_atom(top)}/{_atom(bottom)}"
        if name == "sqrt":
            root = ""
            if self.s[self.i : self.i + 1] == "[":
                end = self.s.find("]", self.i)
                end = len(self.s) if end < 0 else end
                root, self.i = self._sub(self.s[self.i + 1 : end]), end + 1
            inner = self._sub(self._argument())
            inner = inner.strip()
            bare = len(inner) == 1 or re.fullmatch(r"\d+|\(.*\)", inner)
            return f"{_superscript(root) or root}√{inner if bare else f'({inner})'}"
        if name in _CALLIGRAPHIC_COMMANDS:
            inner = self._sub(self._argument())
            table = _CALLIGRAPHIC if name == "mathcal" else _DOUBLE
            return "".join(table.get(ch, ch) for ch in inner)
        if name in _ACCENTS:
            inner = self._sub(self._argument())
            return inner + _ACCENTS[name] if len(inner) == 1 else inner
        if name in _CONTENT:
            return self._sub(self._argument())
        if name in ("begin", "end"):  # an environment's name is not text
            self._argument()
            return ""
        return name  # an unknown command reads better as its name than with a backslash

    def _script(self, mark: str) -> str:
        while self.s[self.i : self.i + 1] == " ":
            self.i += 1
        if self.s[self.i : self.i + 1] == "\\":  # "_\\textrm{Flow}": the command with its argument
            self.i += 1
            inner = self.command().strip()
        else:
            inner = self._sub(self._argument()).strip()
        mapped = _superscript(inner) if mark == "^" else _subscript(inner)
        if mapped:
            return mapped
        if mark == "^" and inner in ("*", "′", "ᵀ"):
            return inner
        return f"{mark}{_atom(inner)}" if inner else ""


def _atom(text: str) -> str:
    """`text` as one unit after an operator: bracketed unless a single token."""
    text = text.strip()
    if re.fullmatch(r"[\w.]+|\(.*\)|\[.*\]|\|.*\|", text) or len(text) <= 1:
        return text
    return f"({text})"


def _superscript(text: str) -> str:
    if text and all(ch in _SUPERSCRIPT for ch in text):
        return "".join(_SUPERSCRIPT[ch] for ch in text)
    return ""


def _subscript(text: str) -> str:
    if text and all(ch in _SUBSCRIPT for ch in text):
        return "".join(_SUBSCRIPT[ch] for ch in text)
    return ""


class ReadableStream:
    """Streamed deltas of raw answer text in, deltas of `readable_math` text out.

    A delta can end inside a command (`\\ti`) or between the two `$` of a formula, so only
    text up to the last space outside any open formula is converted and sent; `rest` then
    completes what was sent to the readable full message.
    """

    def __init__(self) -> None:
        self.raw = ""
        self.sent = ""

    def feed(self, delta: str) -> str:
        self.raw += delta
        shown = readable_math(self.raw[: _stable_end(self.raw)])
        if not shown.startswith(self.sent):
            return ""  # converting more text changed what was sent: wait for `rest`
        new, self.sent = shown[len(self.sent) :], shown
        return new

    def rest(self, full: str) -> str:
        """What to send after everything fed so the reader sees `readable_math(full)`."""
        shown = readable_math(full)
        for prefix in (self.sent, self.sent.rstrip()):
            if shown.startswith(prefix):
                return shown[len(prefix) :]
        # The final text is not what was streamed (e.g. an LLM answer became an abstention):
        # sent text cannot be retracted, so the final one follows in full.
        return "\n\n" + shown


def _stable_end(raw: str) -> int:
    """Where converting `raw[:end]` cannot change once more text arrives: the end, or the
    last space if the last word may be LaTeX, or earlier, before a `$` that may still open
    a formula."""
    end = max(raw.rfind(" "), raw.rfind("\n"))
    if not any(mark in raw[end + 1 :] for mark in "\\${"):
        end = len(raw)  # a last word with no LaTeX in it goes out whole, as it came
    if end <= 0:
        return 0
    prefix = raw[:end]
    paired = [m.span() for m in MATH.finditer(prefix)]
    for at in (m.start() for m in re.finditer(r"(?<!\\)\$", prefix)):
        unpaired = not any(start <= at < stop for start, stop in paired)
        if unpaired and end - at < _OPEN_FORMULA and "\n" not in prefix[at:]:
            return at  # the earliest `$` that a later one may still close
    return end
