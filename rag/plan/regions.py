"""Institutions asked by their country, city or region ("Chinese universities", "companies
in Korea", "Hong Kong universities"): the catalogue records none, so no count is claimed,
and the institutions whose names say the place are offered instead."""

from __future__ import annotations

import re

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import COUNTRIES
from rag.types import Unresolved

# institutions asked by their country, which the catalogue does not record: "Chinese
# universities", "companies in Korea", "European labs"
_NATION = (
    rf"(?:{COUNTRIES}|Europe|Asia|Africa|(?:North|South|Latin)\s+America|the\s+US|the\s+UK|"
    r"Chinese|American|Korean|Japanese|German|French|British|Canadian|Indian|Israeli|Swiss|Dutch|"
    r"Italian|Spanish|Swedish|Australian|Singaporean|Taiwanese|Belgian|Austrian|Danish|Finnish|"
    r"Norwegian|European|Asian|African|US|UK)"
)
_CLASS_NOUN = (
    r"(?:universit(?:y|ies)|unis?|institutions?|institutes?|compan(?:y|ies)|firms?|labs?|"
    r"laboratories|schools|organi[sz]ations|research\s+groups)"
)
# (the class's noun in lower case: "Chinese University of Hong Kong" is one institution)
_BY_COUNTRY = re.compile(
    rf"(?-i:\b(?P<nation>{_NATION}))\s+(?-i:{_CLASS_NOUN})\b(?!\s+(?:of|for|at)\s+[A-Z])"
    rf"|\b(?-i:{_CLASS_NOUN})\s+(?:in|from|based\s+in|located\s+in)\s+(?:the\s+)?"
    rf"(?-i:(?P<nation2>{_NATION}))\b",
    re.I,
)
# a city or region many institutions' names say: "Hong Kong universities", "labs in Beijing"
_PLURAL_CLASS = (
    r"(?:universities|unis|institutions|institutes|companies|firms|labs|laboratories|schools|"
    r"organi[sz]ations|research\s+groups)"
)
_PLACE_CLASS = re.compile(
    rf"\b(?P<place>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)\s+{_PLURAL_CLASS}\b"
    rf"|\b{_PLURAL_CLASS}\s+(?:in|from|based\s+in|located\s+in)\s+(?P<place2>[A-Z][\w-]+"
    r"(?:\s+[A-Z][\w-]+)?)"
)


def asked_by_place(question: str, catalogue: Catalogue) -> Unresolved | None:
    """Institutions asked by their country or city ("Chinese universities", "Hong Kong
    universities"), which the catalogue does not record; the institutions whose names
    say the place, when two or more do."""
    found = _BY_COUNTRY.search(question)
    place = (found.group("nation") or found.group("nation2")) if found else ""
    named = catalogue.readings(place) if re.match(r"[A-Z]", place) else []
    if found is None:
        found = _PLACE_CLASS.search(question)
        place = (found.group("place") or found.group("place2")) if found else ""
        named = catalogue.readings(place) if found else []
        if found is None or len(named) < 2:
            return None
    return Unresolved(kind="country", text=found.group(0), candidates=named[:8])
