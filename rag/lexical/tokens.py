"""bm25s' tokenization, without importing bm25s (a slow import): the lexical index's terms."""

from __future__ import annotations

import re
import threading

import Stemmer

from rag.text import STOPWORDS

# bm25s.stopwords.STOPWORDS_EN, the list the corpus side of the bm25s index dropped; copied
# so that opening the index does not import bm25s.
CORPUS_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)
# bm25s' list has 33 words ("which", "what", "explain" are not among them); question
# phrasing would outweigh the topic words, so queries drop our fuller list as well.
QUERY_STOPWORDS = STOPWORDS | CORPUS_STOPWORDS
_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s' default token pattern
_stemmer = Stemmer.Stemmer("english")
_stem_lock = threading.Lock()  # a PyStemmer object is not safe to share between threads


def tokenize(text: str, stopwords: frozenset[str] = CORPUS_STOPWORDS) -> list[str]:
    """bm25s' tokenization: lower-case words of 2+ characters, stopwords out, stemmed."""
    words = [w for w in _WORD.findall(text.lower()) if w not in stopwords]
    with _stem_lock:
        return list(_stemmer.stemWords(words))


def query_tokens(query: str) -> list[str]:
    """A question's terms: our fuller stopword list, or bm25s' own if that leaves none
    ("a method" is all question words)."""
    return tokenize(query, QUERY_STOPWORDS) or tokenize(query)
