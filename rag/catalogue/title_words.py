"""A phrase as titles may write it: the last word singular or plural ("agents" holds
"agent"; "geometry" holds "geometries") and in American spelling ("maximisation" is
written "maximization")."""

from __future__ import annotations

import re


def phrase_pattern(key: str) -> tuple[re.Pattern[str], str]:
    """The pattern matching folded `key` as a whole phrase in a folded title, and a part
    every match holds (SQL narrows with it, the pattern decides)."""
    *head, last = key.split()
    forms = _word_forms(last) | _word_forms(_american(last))
    said = "|".join(re.escape(" ".join([*head, f])) for f in sorted(forms, key=len)[::-1])
    pattern = re.compile(rf"(?:^| )(?:{said})(?: |$)")
    common = min(forms, key=len)
    while not all(f.startswith(common) for f in forms):
        common = common[:-1]
    return pattern, " ".join([*head, common])


def _american(word: str) -> str:
    """The American spelling titles use: "maximisation", "defence", "modelling"."""
    for british, american in _SPELLINGS:
        word = re.sub(british, american, word)
    return word


_SPELLINGS = (
    (r"is(ation|ations|e|es|ed|ing)$", r"iz\1"),
    (r"ys(e|es|ed|ing)$", r"yz\1"),
    (r"our(s?)$", r"or\1"),
    (r"^defence", "defense"),
    (r"^offence", "offense"),
    (r"ll(ing|ed)$", r"l\1"),
)


def _word_forms(word: str) -> set[str]:
    """A title word as typed, singular or plural: "agents" holds "agent"; "geometry" holds
    "geometries"."""
    singular = {word}
    if word.endswith("ies") and len(word) > 4:
        singular.add(word[:-3] + "y")
    elif word.endswith("es") and len(word) > 4:
        singular |= {word[:-2], word[:-1]}
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        singular.add(word[:-1])
    forms = set(singular)
    for w in singular:
        forms |= {w + "s", w + "es"}
        if w.endswith("y") and len(w) > 2:
            forms.add(w[:-1] + "ies")
    return forms
