"""What kind of body an institution is: a university, a company, or a public one."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from rag.catalogue.names import fold

InstitutionKind = Literal["", "academic", "company"]

_ACADEMIC = re.compile(
    r"\b(?:universit\w*|college|school|academy|polytechnic|politecnico|ecole|eth|ethz|epfl|"
    r"kaist|postech|mit|caltech|institute of technology|technion|hochschule|ucl|ucla|nyu|kaust|"
    r"mbzuai|academia|leuven|institute of science and technology austria|ista)\b"
)
# research bodies named without a public body's word: neither universities nor companies
_RESEARCH_BODIES = re.compile(
    r"\b(?:inria|cnrs|mila|riken|mpi|eleutherai|kyutai|idsia|far ai|baai|bigai|csiro|data61)\b"
)
# a company's own research academy ("JD Explore Academy", "DAMO Academy") is the company's
_COMPANY_ACADEMY = re.compile(r"^(?:jd|damo|alibaba damo)\b.*\bacademy\b")
# a joint lab named for its two partners ("MIT-IBM Watson AI Lab"); the second is group 1
JOINT_LAB = re.compile(r"^\s*[A-Za-z]+-([A-Za-z]+)\b")
# first words many names begin with: no company's own
SHARED_FIRST = frozenset(
    "international national general united american china chinese global first new "
    "advanced applied digital".split()
)
# not a company either: public and non-profit research bodies
_PUBLIC = re.compile(
    r"\b(?:institute|institut|zentrum|centro|helmholtz|fraunhofer|laboratory|laboratories|"
    r"national|centre|center|foundation|council|agency|hospital|ministry|observatory|lab)\b"
)


# research organisations counted whole, over their institutes ("Institute of Automation,
# Chinese Academy of Sciences" is the Academy's; every Max Planck Institute the Society's)
PARENT_BODIES = re.compile(
    r"\b(?P<cas>chinese academy of sciences?)\b|\b(?P<mpg>max planck)\b|"
    r"\b(?P<helmholtz>helmholtz|cispa)\b|\b(?P<astar>a star|agency for science technology and research)\b"
)
PARENT_NAMES = {
    "cas": "Chinese Academy of Sciences",
    "mpg": "Max Planck Society",
    "helmholtz": "Helmholtz Association",
    "astar": "A*STAR",
}


def kind_of(name: str, spellings: Iterable[str] = ()) -> InstitutionKind:
    """ "academic" (a university, a school, an institute of one), "company", or "" (a
    public or non-profit research body: a national lab, Inria, Mila, a foundation)."""
    # most of its spellings: some may name a partner ("MIT-IBM Watson AI Lab, IBM Research")
    spellings = list(spellings)
    folded = fold(name)
    if PARENT_BODIES.search(folded) and "universit" not in folded:
        return ""  # an academy of sciences, a society of institutes: public research bodies
    if _RESEARCH_BODIES.search(folded) and "universit" not in folded:
        return ""  # Inria, CNRS, Mila, RIKEN: research institutes, not universities
    if _COMPANY_ACADEMY.search(folded):
        return "company"
    # a joint lab ("MIT-IBM Watson AI Lab") says nothing of what its company is
    spellings = [s for s in spellings if not JOINT_LAB.match(s)]
    academic = sum(bool(_ACADEMIC.search(fold(s))) for s in spellings)
    if _ACADEMIC.search(folded) or (spellings and 2 * academic >= len(spellings)):
        return "academic"
    return "" if _PUBLIC.search(folded) else "company"
