"""Questions about the catalogue asked in another language, in English.

Only the frames people use to ask for someone's papers or a title word's count, in
French, Spanish, German, Italian, Portuguese, Dutch and Romanian; the names they name are kept as
typed (the catalogue matches them), and a topic in another language is left as it is.
"""

from __future__ import annotations

import re

# Which papers / how many papers an author had, asked in French, Spanish or German
_PAPERS_WORD = (
    r"(?:art[íi]culos|trabajos|publicaciones|papers?|articles|papiers|travaux|"
    r"beitr[äa]ge|artikel|arbeiten|ver[öo]ffentlichungen|articoli|lavori|pubblicazioni|"
    r"artigos|trabalhos|publica[çc][õo]es|artikelen|publicaties|articole|lucr[ăa]ri)"
)
_VENUE_AT = r"(?:en|a|à|au|al|auf|bei|in|an|na|no|em|op|la)\s+(?:der\s+|la\s+|el\s+)?(?P<venue>ICML\s*(?:20)?24)"
_ARTICLE = re.compile(
    r"^(?:(?:de|del|d['’]|von|vom|of|la|el|le|les|los|las|der|die|das|the)\s*)+", re.I
)
_FOREIGN = (
    # "¿Qué artículos de X se presentaron en ICML 2024?"; "Quels articles d'X ont été
    # publiés à ICML 2024 ?"
    (re.compile(
        rf"^[¿\s]*(?:qu[ée]|cu[áa]les|quel(?:le)?s?)\s+{_PAPERS_WORD}\s+(?:de\s+|del\s+|d['’])"
        r"(?P<who>.+?)\s+(?:se\s+presentaron|se\s+publicaron|fueron\s+\w+|ont\s+été\s+\w+|"
        rf"sont\s+\w+)\s+{_VENUE_AT}\s*[?.!]*\s*$", re.I,
    ), "Which {venue} papers are from {who}?"),
    # "Quali articoli ha pubblicato X a ICML 2024?", "Quais artigos X publicou na ICML 2024?"
    (re.compile(
        rf"^\s*(?:quali|quais)\s+{_PAPERS_WORD}\s+(?:ha\s+(?:pubblicato|presentato)\s+"
        rf"(?P<who>.+?)|(?P<who2>.+?)\s+(?:publicou|apresentou))\s+{_VENUE_AT}\s*[?.!]*\s*$", re.I,
    ), "Which papers did {who} publish at {venue}?"),
    # "Welke papers van X zijn geaccepteerd op ICML 2024?"
    (re.compile(
        rf"^\s*welke\s+{_PAPERS_WORD}\s+van\s+(?P<who>.+?)\s+(?:zijn|werden)\s+\w+\s+{_VENUE_AT}"
        r"\s*[?.!]*\s*$", re.I,
    ), "Which {venue} papers are from {who}?"),
    # "Welche Beiträge hat X auf der ICML 2024 veröffentlicht?"
    (re.compile(
        rf"^\s*welche\s+{_PAPERS_WORD}\s+(?:hat|haben|hatte)\s+(?P<who>.+?)\s+{_VENUE_AT}"
        r"(?:\s+\w+)?\s*[?.!]*\s*$", re.I,
    ), "Which papers did {who} publish at {venue}?"),
    # "¿Cuántos artículos tiene X en ICML 2024?", "Wie viele Beiträge hat X auf der ICML
    # 2024?", "Combien d'articles X a-t-il publiés à ICML 2024 ?"
    (re.compile(
        rf"^[¿\s]*(?:cu[áa]nt[oa]s|wie\s*viele|combien\s+(?:de\s+|d['’])|quant[io]s?|quant[ae]s?|"
        rf"c[âa]te)\s*{_PAPERS_WORD}\s+(?:ha\s+(?:pubblicato|presentato)\s+)?"
        r"(?:(?:tiene|tuvo|public[óo]|present[óo]|hat|haben|hatte|are|a\s+avut|a\s+publicat)\s+)?"
        r"(?P<who>.+?)"
        r"(?:\s+a-t-(?:il|elle)(?:\s+\w+)?|\s+(?:publicou|apresentou|ha\s+pubblicato|ha\s+presentato))?"
        rf"\s+{_VENUE_AT}(?:\s+\w+)?\s*[?.!]*\s*$", re.I,
    ), "How many papers did {who} publish at {venue}?"),
)  # fmt: skip


# "Quantos títulos da ICML 2024 contêm a palavra 'conformal'?" and the same in Spanish,
# Italian, French, German: a title word counted
_TITLES_WITH_WORD = re.compile(
    r"^[¿\s]*(?:quant[oa]s|cu[áa]nt[oa]s|quanti|combien\s+de|wie\s*viele)\s+"
    r"(?:t[íi]tulos|titoli|titres|titel)\s+(?:da|de|do|di|del|der|des)?\s*(?:la\s+|l['’]\s*)?"
    r"(?P<venue>ICML\s*(?:20)?24)\s+(?:cont[êe]m|contienen|contengono|contiennent|enthalten)\s+"
    r"(?:a\s+palavra|la\s+palabra|la\s+parola|le\s+mot|das\s+wort)\s+(?P<word>\S.*?)\s*[?.!]*\s*$",
    re.I,
)


def in_english(text: str) -> str:
    """An author's or institution's papers asked in French, Spanish or German, in English
    (the frame only: the name is kept as typed). Only a capitalised name: "artículos de
    aprendizaje", "articles sur Mamba", "Arbeiten zu …" are about a topic."""
    titled = _TITLES_WITH_WORD.match(text)
    if titled:
        word = re.sub(r"«\s*|\s*»", "'", titled.group("word"))  # « transformer »
        return f"How many {titled.group('venue')} titles contain the word {word}?"
    for pattern, english in _FOREIGN:
        found = pattern.match(text)
        said = (found.group("who") or found.groupdict().get("who2") or "") if found else ""
        who = _ARTICLE.sub("", said.strip())
        if found and who[:1].isupper() and "," not in who:
            return english.format(who=who, venue=found.group("venue"))
    return text
