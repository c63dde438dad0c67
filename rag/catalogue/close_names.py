"""`difflib.get_close_matches` over many names without scoring most of them.

get_close_matches runs three ratios per candidate in Python: slow over thousands of
authors for a name that fits no one, and linear in the catalogue.
`CloseNames` keeps each name's character counts in a matrix and bounds difflib's
`quick_ratio` (2 x characters in common / total length) for every name at once; difflib
then scores only the names whose bound reaches the cutoff. The answer is difflib's over
all names: a match must pass quick_ratio, and the bound is never below it (characters
outside the counted alphabet share one column, which can only add to what is in common),
and get_close_matches orders its result by (score, name), not by input order.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

import numpy as np

ALPHABET = 63  # the most used characters get a column each; the rest share the last


class CloseNames:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        used = Counter(ch for name in self.names for ch in name)
        self._column = {ch: i for i, (ch, _) in enumerate(used.most_common(ALPHABET))}
        self._counts = np.stack([self._histogram(n) for n in self.names]) if self.names else None
        self._lengths = np.fromiter((len(n) for n in self.names), np.int64, len(self.names))

    def _histogram(self, text: str) -> np.ndarray:
        counts = np.zeros(ALPHABET + 1, dtype=np.int32)
        for ch in text:
            counts[self._column.get(ch, ALPHABET)] += 1
        return counts

    def closest(self, word: str, n: int, cutoff: float) -> list[str]:
        """What `difflib.get_close_matches(word, names, n, cutoff)` returns."""
        if self._counts is None or not word:
            return difflib.get_close_matches(word, self.names, n=n, cutoff=cutoff)
        common = np.minimum(self._counts, self._histogram(word)).sum(axis=1)
        bound = 2.0 * common / (self._lengths + len(word))
        kept = [self.names[i] for i in np.flatnonzero(bound >= cutoff - 1e-9)]
        return difflib.get_close_matches(word, kept, n=n, cutoff=cutoff)
