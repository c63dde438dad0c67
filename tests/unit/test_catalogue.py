"""The catalogue's name and institution matching, on a small hand-made set of papers."""

from __future__ import annotations

import pytest

from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import acronym, fold
from rag.types import Paper


def paper(pid: str, authors: list[str], affiliations: list[str], status: str = "Poster") -> Paper:
    return Paper(
        id=pid,
        title=f"Title {pid}",
        authors=authors,
        abstract="An abstract.",
        status=status,
        extra={"affiliations": affiliations, "pmlr_key": f"key{pid}"},
    )


CATALOGUE = Catalogue.of(
    [
        paper("p1", ["Masashi Sugiyama", "Jianye HAO"], ["RIKEN", "Tianjin University"], "Oral"),
        paper("p2", ["Masashi Sugiyama"], ["The University of Tokyo"]),
        paper("p3", ["Mahito Sugiyama"], ["National Institute of Informatics"]),
        paper(
            "p4",
            ["José Miguel Hernández-Lobato", "Jakob Nicolaus Foerster"],
            ["University of Cambridge"],
        ),
        paper("p5", ["Michael Jordan"], ["Massachusetts Institute of Technology"], "Spotlight"),
        paper("p6", ["Kenji Kawaguchi"], ["MIT-IBM Watson AI Lab"]),
        paper(
            "p7",
            ["Ann Lee"],
            ["EPFL - EPF Lausanne", "Swiss Federal Institute of Technology Lausanne"],
        ),
        paper("p8", ["Bo Chen"], ["Department of Computer Science, National Tsing Hua University"]),
        paper("p9", ["Wei Xu"], ["Tsinghua University"]),
        paper("p10", ["Li Na"], ["Nanjing University"]),
        paper("p11", ["Li Na"], ["Nanjing University of Science and Technology"]),
    ]
)
# Institutions users name by a short or other form.
PLACES = Catalogue.of(
    [
        paper("p12", ["Ada Berg"], ["Allen Institute for Artificial Intelligence"], "Oral"),
        paper("p13", ["Ada Berg"], ["Allen Institute for AI"]),
        paper("p14", ["Ada Berg"], ["Hong Kong University of Science and Technology"]),
        paper("p15", ["Cai Wen"], ["Institute of Automation, Chinese Academy of Sciences"]),
        paper("p16", ["Cai Wen"], ["Microsoft Research"], "Oral"),
        paper("p17", ["Cai Wen"], ["California Institute of Technology"]),
        paper("p18", ["Luca Beurer-Kellner", "Yu Luo"], ["Harvard University", "Meta Facebook"]),
        paper("p19", ["Yu Luo"], ["Harvard University"], "Spotlight"),
        paper("p20", ["Bo Dai"], ["Huawei Technologies Ltd.", "Michigan State University"]),
        paper("p21", ["Bo Dai"], ["Department of Statistics, University of Sydney"], "Oral"),
        paper("p22", ["Eve Kim"], ["Imperial College London"], "Oral"),
        paper("p23", ["Eve Kim"], ["Adobe Systems"], "Spotlight"),
    ]
)


def names(typed: str) -> list[str]:
    return [p.name for p in CATALOGUE.match_author(typed).people]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("Masashi Sugiyama", ["Masashi Sugiyama"]),
        ("masashi sugiyama", ["Masashi Sugiyama"]),
        ("jianye hao", ["Jianye HAO"]),
        ("Jose Miguel Hernandez-Lobato", ["José Miguel Hernández-Lobato"]),
        ("Jakob Foerster", ["Jakob Nicolaus Foerster"]),  # a middle name the user left out
        ("Michael I. Jordan", ["Michael Jordan"]),  # a middle initial the catalogue lacks
        ("K. Kawaguchi", ["Kenji Kawaguchi"]),
        ("Sugiyama Masashi", ["Masashi Sugiyama"]),  # family name first
    ],
)
def test_names_are_matched_as_users_type_them(typed: str, expected: list[str]) -> None:
    assert names(typed) == expected


def test_a_name_fitting_several_people_returns_them_all_most_papers_first() -> None:
    assert names("M. Sugiyama") == ["Masashi Sugiyama", "Mahito Sugiyama"]
    assert names("Sugiyama") == ["Masashi Sugiyama", "Mahito Sugiyama"]


def test_an_unknown_name_gets_the_closest_known_ones() -> None:
    match = CATALOGUE.match_author("Masashi Sugiyamma")
    assert match.people == () and "Masashi Sugiyama" in match.suggestions
    assert CATALOGUE.match_author("Geoffrey Hinton", suggest=False).suggestions == ()


def test_institutions_by_words_acronym_and_other_names() -> None:
    assert CATALOGUE.match_institution("MIT").papers == {"p5"}
    assert CATALOGUE.match_institution("massachusetts institute of technology").papers == {"p5"}
    assert CATALOGUE.match_institution("EPFL").papers == {"p7"}
    assert CATALOGUE.match_institution("University of Tokyo").papers == {"p2"}


def test_shortened_words_and_the_other_names_users_type() -> None:
    # "AI" is "Artificial Intelligence" in most affiliations, and the other way round
    assert PLACES.match_institution("Allen Institute for AI").papers == {"p12", "p13"}
    assert PLACES.match_institution("AI2").papers == {"p12", "p13"}
    assert PLACES.match_institution("Caltech").papers == {"p17"}
    assert PLACES.match_institution("CASIA").papers == {"p15"}
    assert PLACES.match_institution("HKUST").papers == {"p14"}
    # a company's own words around its name ("Technologies Ltd."), and its other name
    assert PLACES.match_institution("Huawei").papers == {"p20"}
    assert PLACES.match_institution("Meta").papers == {"p18"}


def test_a_tie_too_big_to_list_is_cut_at_the_level_above() -> None:
    many = Catalogue.of(
        [paper("t1", ["Top One", "Top Two"], [])]
        + [paper(f"u{k}", ["Top One", f"Single {k}"], []) for k in range(15)]
    )
    # "Top One" 16 papers; "Top Two" and 15 others tied at 1: the tie is not listed
    assert many.top_authors(limit=3) == [("Top One", 16)]
    assert [n for _, n in many.top_authors(limit=20)] == [16] + [1] * 16


def test_a_hyphened_family_name_alone_finds_its_person() -> None:
    assert [p.name for p in PLACES.match_author("Beurer-Kellner").people] == ["Luca Beurer-Kellner"]


def test_another_institution_sharing_the_words_is_reported_not_counted() -> None:
    mit = CATALOGUE.match_institution("MIT")
    assert [a for a, _ in mit.related] == ["MIT-IBM Watson AI Lab"]
    tsinghua = CATALOGUE.match_institution("Tsinghua")
    assert tsinghua.papers == {"p9"}


def test_word_order_and_longer_names_of_other_institutions() -> None:
    assert CATALOGUE.match_institution("Tokyo University").papers == {"p2"}
    nanjing = CATALOGUE.match_institution("Nanjing University")
    assert nanjing.papers == {"p10"}
    assert [a for a, _ in nanjing.related] == ["Nanjing University of Science and Technology"]


def test_statuses_and_top_authors() -> None:
    assert CATALOGUE.with_status(["oral", "Spotlight"]) == {"p1", "p5"}
    # a tie at the cut keeps both names
    assert sorted(CATALOGUE.top_authors(limit=1)) == [("Li Na", 2), ("Masashi Sugiyama", 2)]


def test_fold_and_acronym() -> None:
    assert fold("Hüllermeier, Eyke!") == "hullermeier eyke"
    assert acronym("Korea Advanced Institute of Science & Technology") == "kaist"
    assert acronym("École Polytechnique Fédérale de Lausanne") == "epfl"


def test_a_name_cut_by_a_comma_run_together_or_in_the_plural() -> None:
    from rag.catalogue.names import names_institution, spellings

    umass = spellings("umass amherst")
    cut = "College of Information and Computer Science, University of Massachusetts, Amherst"
    assert names_institution(cut, umass) is True
    assert names_institution("University of Massachusetts, Boston", umass) is not True
    peng = spellings(fold("Peng Cheng Lab"))
    assert "pengcheng lab" in peng and "peng cheng laboratory" in peng
    assert names_institution("PengCheng Lab", peng) is True
    assert names_institution("Pengcheng Labs", peng) is True
    assert names_institution("Zhejiang Lab", peng) is None
    llnl = spellings(fold("Lawrence Livermore National Lab"))
    assert names_institution("Lawrence Livermore National Labs", llnl) is True


def test_other_word_orders_and_other_names_of_an_institution() -> None:
    from rag.catalogue.names import names_institution, spellings

    bosch = spellings(fold("Bosch Center for AI"))
    assert names_institution("Bosch Artificial Intelligence Center", bosch) is True
    assert names_institution("Bosch Center for Artificial Intelligence", bosch) is True
    assert names_institution("Ecole Normale Supérieure de Paris", spellings("ens")) is True
    xidian = spellings("xidian university")
    assert names_institution("Xi'an University of Electronic Science and Technology", xidian)
    assert not names_institution("Xi'an Jiaotong University", xidian)


def test_the_letters_precheck_never_changes_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """names_institution skips strings whose letters cannot hold a name; every skipped
    string must be one the full reading finds no name in (runs together, initials,
    plural lab words, mistyped "university", an acronym's lab, a patron's name)."""
    from rag.catalogue import names as n

    strings = [
        "PengCheng Laboratory",
        "Peng Cheng Lab, Shenzhen",
        "Massachusetts Institute of Technology",
        "MIT-IBM Watson AI Lab",
        "Nokia Bell Laboratories",
        "Univeristy of Tokyo",
        "MMLab of CUHK",
        "The Chinese University of Hong Kong",
        "Rheinische Friedrich-Wilhelms Universität Bonn",
        "KTH Royal Institute of Technology",
        "University of Illinois, Urbana-Champaign",
        "Harvard Medical School",
        "Tsinghua Shenzhen International Graduate School",
        "CSIRO's Data61",
        "ENS Lyon",
        "University at Buffalo, SUNY",
    ]
    typed = [
        "Peng Cheng Lab", "MIT", "Bell Labs", "University of Tokyo", "CUHK",
        "University of Bonn", "KTH", "UIUC", "Harvard", "Tsinghua University", "CSIRO",
        "ENS", "University at Buffalo", "Chinese University of Hong Kong", "Bonn",
    ]  # fmt: skip
    pairs = [(s, n.spellings(fold(t))) for s in strings for t in typed]
    assert not n._may_name("Nanjing University", n.spellings("tsinghua university"))
    checked = [n.names_institution(s, names) for s, names in pairs]
    n.names_institution.cache_clear()
    monkeypatch.setattr(n, "_may_name", lambda affiliation, names: True)
    full = [n.names_institution(s, names) for s, names in pairs]
    n.names_institution.cache_clear()
    assert checked == full
    assert sum(v is not None for v in full) >= 15  # the cases above do reach a verdict


def test_an_institutions_name_in_its_own_language() -> None:
    gent = Catalogue.of([paper("g1", ["Ann Kim"], ["Universiteit Gent"])])
    assert gent.match_institution("Ghent University").papers == {"g1"}
    assert gent.match_institution("University of Ghent").papers == {"g1"}


def test_a_units_institution_written_by_its_initials_or_its_former_name() -> None:
    from rag.catalogue.names import names_institution, spellings

    iscas = spellings(fold("Institute of Software, Chinese Academy of Sciences"))
    assert names_institution("Institute of Software, CAS", iscas) is True
    assert names_institution("Institute of Automation, CAS", iscas) is not True
    telecom = spellings(fold("Télécom Paris"))
    assert names_institution("Télécom ParisTech", telecom) is True
    assert names_institution("Ensae ParisTech", telecom) is None
    genentech = spellings(fold("Genentech"))
    assert names_institution("Prescient Design, Genentech", genentech) is True
    assert names_institution("Prescient Design", genentech) is True


def test_a_university_in_its_own_language_and_other_names() -> None:
    from rag.catalogue.names import names_institution, spellings

    aix = spellings(fold("Aix-Marseille University"))
    assert names_institution("Université d'Aix-Marseille", aix) is True
    assert names_institution("Université de Lorraine", spellings(fold("Lorraine University")))
    wien = spellings(fold("TU Wien"))
    assert names_institution("TU Wien Vienna University of Technology", wien) is True
    mainz = spellings(fold("Johannes Gutenberg University Mainz"))
    assert names_institution("University of Mainz", mainz) is True
