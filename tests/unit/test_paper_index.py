"""The catalogue read from the index file (rag.catalogue.index + rag.catalogue.catalogue)
stays equal to the papers it holds through adds, replacements and removals, and to a file
filed afresh: every look-up is checked against a brute-force pass over the records."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from rag.catalogue import index as paper_index
from rag.catalogue.catalogue import Catalogue
from rag.catalogue.names import affiliations_of, fold, names_institution, spellings
from rag.lexical.index import LexicalIndex
from rag.types import Filters, Paper

AUTHORS = [
    "Masashi Sugiyama", "M. Sugiyama", "Mahito Sugiyama", "José Miguel Hernández-Lobato",
    "Jose Miguel Hernandez-Lobato", "Ann Lee", "Ann B. Lee", "Jianye HAO", "Michael Jordan",
    "Michael I. Jordan", "Zoë Kravitz", "Li Wei", "Wei Li", "李伟", "Иван Петров",
]  # fmt: skip
PLACES = [
    "Stanford University", "Massachusetts Institute of Technology", "MIT-IBM Watson AI Lab",
    "University of Tokyo", "The University of Tokyo", "RIKEN", "Google DeepMind, London",
    "National Tsing Hua University", "Tsinghua University", "EPFL",
]  # fmt: skip
STATUSES = ["Oral", "Spotlight", "Poster", "poster"]
WORDS = ["graph", "graphs", "diffusion", "policy", "learning", "kernel", "Transformer"]


NAMES = ["BiLLM", "GraphsGPT", "Zoë-Net"]


def random_paper(rng: random.Random, pid: str) -> Paper:
    title = " ".join(rng.sample(WORDS, rng.randint(1, 4))).capitalize()
    named = rng.choice([None, *NAMES])
    return Paper(
        id=pid,
        title=f"{named}: {title}" if named and rng.random() < 0.5 else title,
        authors=rng.sample(AUTHORS, rng.randint(0, 3)),
        abstract=" ".join(rng.choices(WORDS, k=8)) + (f" We introduce {named}." if named else ""),
        status=rng.choice(STATUSES),
        extra={"affiliations": rng.sample(PLACES, rng.randint(0, 3))},
    )


def write(index: LexicalIndex, papers: list[Paper], remove: tuple[str, ...] = ()) -> None:
    add = [
        (p.id, f"h{hash(p.model_dump_json())}", [(f"{p.id}::0", p.abstract, {"title": p.title})])
        for p in papers
    ]
    index.replace_papers(list(remove), add, {p.id: p for p in papers})


def random_filters(rng: random.Random) -> Filters:
    return Filters(
        status=rng.choice([None, ["oral"], ["POSTER", "Spotlight"]]),
        author=rng.choice([None, "sugiyama", "ann", "zoë", "Lee", "李", "петров"]),
        title=rng.choice([None, "graph", "KERNEL", "diffusion learning"]),
        paper_ids=rng.choice([None, [f"p{i}" for i in rng.sample(range(80), 20)]]),
    )


def named_by_old_rules(records: dict[str, Paper], reference: str) -> str | None:
    """The rules of Catalogue.named_paper as a pass over every record."""
    key = fold(reference.strip(" '\"“”‘’*"))
    name = re.compile(rf"(?<![\w-]){re.escape(reference.strip())}(?![\w-])")
    rules = [
        lambda p: fold(p.title) == key,
        lambda p: ":" in p.title and fold(p.title.split(":", 1)[0]) == key,
        lambda p: set(key.split()) <= set(fold(p.title).split()),
        lambda p: bool(name.search(p.abstract)),
    ]
    for rule in rules if key else []:
        found = [p.id for p in records.values() if rule(p)]
        if len(found) == 1:
            return found[0]
    return None


def _title_holds(title: str, typed: str) -> bool:
    """The typed phrase in the title, its last word singular or plural either way."""
    *head, last = typed.split()
    words = title.split()
    for i in range(len(words) - len(head)):
        if words[i : i + len(head)] != head:
            continue
        word = words[i + len(head)]
        shorter, longer = sorted((word, last), key=len)
        if word == last or longer in (shorter + "s", shorter + "es"):
            return True
        if (word.endswith("ies") and word[:-3] + "y" == last) or (
            last.endswith("ies") and last[:-3] + "y" == word
        ):
            return True
    return False


def check_against_records(catalogue: Catalogue, records: dict[str, Paper]) -> None:
    assert dict(catalogue.papers.items()) == records and len(catalogue) == len(records)
    for name in [*AUTHORS, "Nobody Here"]:
        key = fold(name)  # a name that folds to nothing (another script) is no one's key
        want = {p.id for p in records.values() if key and key in {fold(a) for a in p.authors}}
        assert catalogue.people_named(name) == want, name
    rng = random.Random(len(records))
    for _ in range(30):
        filters = random_filters(rng)
        if not filters.is_empty():
            assert catalogue.matching(filters) == {
                p.id for p in records.values() if filters.accepts(p)
            }, filters
    for words in WORDS:
        want = {p.id for p in records.values() if _title_holds(fold(p.title), fold(words))}
        assert catalogue.titled(words) == want, words
    references = [*NAMES, *WORDS, "graph kernel", "Policy learning", "nothing like it"]
    references += [p.title for p in records.values()][:10]
    for reference in references:
        named = catalogue.named_paper(reference)
        assert (named.id if named else None) == named_by_old_rules(records, reference), reference
    for typed in ["Stanford", "MIT", "Tokyo University", "Tsinghua", "EPFL", "DeepMind"]:
        names = spellings(fold(typed))
        want = {
            p.id
            for p in records.values()
            if any(names_institution(a, names) for a in affiliations_of(p))
        }
        assert catalogue.match_institution(typed).papers == want, typed
        assert catalogue.knows_institution(typed) == bool(
            any(names_institution(a, names) for p in records.values() for a in affiliations_of(p))
        )
    counts: Counter[str] = Counter()
    for paper in records.values():
        for author in dict.fromkeys(fold(a) for a in paper.authors if fold(a)):
            counts[author] += 1
    ranked = catalogue.top_authors(limit=100)
    assert sorted(n for _, n in ranked) == sorted(counts.values())
    assert {fold(name): n for name, n in ranked} == dict(counts)


@pytest.mark.parametrize("seed", range(4))
def test_the_file_catalogue_follows_every_write(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    index = LexicalIndex(tmp_path / "lex")
    records = {f"p{i}": random_paper(rng, f"p{i}") for i in range(30)}
    write(index, list(records.values()))
    for round_ in range(3):
        gone = rng.sample(sorted(records), 5)
        changed = [
            random_paper(rng, pid) for pid in rng.sample(sorted(set(records) - set(gone)), 5)
        ]
        new = [random_paper(rng, f"n{round_}-{i}") for i in range(4)]
        for pid in gone:
            del records[pid]
        records.update({p.id: p for p in changed + new})
        write(index, changed + new, remove=tuple(gone))
        # A paper whose chunks are indexed before its record is not in the catalogue yet.
        index.replace_papers([], [(f"late{round_}", "h", [(f"late{round_}::0", "x", {})])], {})
        check_against_records(index.catalogue(), records)
        # An affiliation no paper has any more is no longer looked up.
        keyed = {r[0] for r in index._db.execute("select affiliation from place_keys")}
        assert keyed == {a for p in records.values() for a in affiliations_of(p)}
    # The last papers of an affiliation go: it is no longer looked up.
    epfl = [pid for pid, p in records.items() if "EPFL" in affiliations_of(p)]
    index.replace_papers(epfl, [], {})
    for pid in epfl:
        del records[pid]
    keyed = {r[0] for r in index._db.execute("select affiliation from place_keys")}
    assert "EPFL" not in keyed and not index.catalogue().knows_institution("EPFL")
    check_against_records(index.catalogue(), records)
    # A file written before the tables were kept (or with older name rules) is filed afresh.
    index.set_meta(paper_index.FILLED_KEY, "names-0")  # tables of older name rules
    with index._db:
        index._db.execute("delete from paper_people")
    index.close()
    check_against_records(LexicalIndex(tmp_path / "lex").catalogue(), records)


@pytest.mark.parametrize("seed", range(3))
def test_filters_pick_what_filters_accept(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    papers = [random_paper(rng, f"p{i}") for i in range(60)]
    catalogue = Catalogue.of(papers)
    for _ in range(40):
        filters = random_filters(rng)
        if filters.is_empty():
            continue
        want = {p.id for p in papers if filters.accepts(p)}
        assert catalogue.matching(filters) == want, filters


def test_records_are_read_as_asked_for_and_cached(tmp_path: Path) -> None:
    papers = [random_paper(random.Random(1), f"p{i}") for i in range(5)]
    records = Catalogue.of(papers).papers
    assert list(records) == [p.id for p in papers] and len(records) == 5
    assert records["p3"] == papers[3] and records["p3"] is records["p3"]
    assert "p9" not in records and records.get("p9") is None and 4 not in records
    with pytest.raises(KeyError):
        records["p9"]
    assert list(records.values()) == papers and dict(records.items()) == {p.id: p for p in papers}
    # many: in the order asked, unknown ids left out, cached and uncached alike
    assert records.many(["p4", "p9", "p3", "p0"]) == [papers[4], papers[3], papers[0]]


def test_a_name_before_a_title_colon_names_that_paper(tmp_path: Path) -> None:
    """Rule 2 on its own: "graph transformers" is the head of one title and, as words, in
    two (so rule 3 cannot decide), and no abstract writes it."""
    papers = [
        Paper(id="a", title="Graph Transformers: Scaling Up", abstract="One."),
        Paper(id="b", title="Transformers on a graph", abstract="Two."),
    ]
    index = LexicalIndex(tmp_path / "lex")
    write(index, papers)
    for catalogue in (index.catalogue(), Catalogue.of(papers)):
        named = catalogue.named_paper("Graph transformers")
        assert named is not None and named.id == "a"
        assert catalogue.named_paper("transformers graph") is None  # two titles hold both
