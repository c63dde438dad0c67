"""CloseNames gives difflib.get_close_matches' answer while scoring only the names whose
character-count bound reaches the cutoff (rag.catalogue.close_names)."""

from __future__ import annotations

import difflib
import random

import pytest

from rag.catalogue.close_names import ALPHABET, CloseNames


def _name(rng: random.Random, letters: str) -> str:
    words = [
        "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
        for _ in range(rng.randint(1, 3))
    ]
    return " ".join(words)


@pytest.mark.parametrize("seed", range(4))
def test_the_same_matches_as_difflib_over_every_name(seed: int) -> None:
    rng = random.Random(seed)
    # more distinct characters than the alphabet has columns, so some share the last one
    letters = (
        "abcdefghijklmnopqrstuvwxyz" + "éèöüßçñłøåæœ" + "АБВГДЕЖЗИЙКЛМНОП" + "李王张刘陈杨赵黄周吴"
    )
    assert len(set(letters)) > ALPHABET
    names = list(
        dict.fromkeys(_name(rng, letters[: rng.choice([8, 30, len(letters)])]) for _ in range(1500))
    )
    finder = CloseNames(names)
    for _ in range(40):
        base = rng.choice(names)
        # a near miss of a real name (dropped, swapped or changed letters) or a fresh word
        word = list(base)
        for _ in range(rng.randint(0, 3)):
            at = rng.randrange(len(word))
            word[at] = rng.choice(letters)
        typed = "".join(word) if rng.random() < 0.8 else _name(rng, letters)
        for cutoff in (0.6, 0.75, 0.9):
            n = rng.choice([1, 3, 5])
            assert finder.closest(typed, n, cutoff) == difflib.get_close_matches(
                typed, names, n=n, cutoff=cutoff
            ), (typed, cutoff)


def test_no_names_or_an_empty_word() -> None:
    assert CloseNames([]).closest("hinton", 5, 0.75) == []
    assert CloseNames(["geoffrey hinton"]).closest("", 5, 0.75) == []
    assert CloseNames(["geoffrey hinton", "jeffrey hinton"]).closest("geoffrey hintn", 5, 0.75) == [
        "geoffrey hinton",
        "jeffrey hinton",
    ]
