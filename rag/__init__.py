"""icml-rag: cited question answering over ICML 2024 abstracts.

Public API (everything else is internal):

    from rag import Settings, Assistant
    assistant = Assistant.from_settings(Settings())
    answer = assistant.ask("Which paper explains why feedback alignment works?")
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from rag.corpus import CorpusError, LoadIssue, load_corpus
from rag.ingest import IngestReport, ingest
from rag.prompts import ABSTAIN_TEXT
from rag.settings import Settings
from rag.store import ModelMismatchError, PaperStore, StoreError
from rag.synthesis import AnswerError
from rag.types import Answer, ChatMessage, Citation, Filters, Paper, Related, RetrievedPaper

if TYPE_CHECKING:
    from rag.assistant import Assistant, EmptyStoreError, InputError

# The answer path (engine, retrievers, BM25: ~1.5 s of imports on 2 cores) loads on first
# use, so `rag ingest` and `from rag import Settings` don't pay for it.
_LAZY = {"Assistant", "EmptyStoreError", "InputError"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module("rag.assistant"), name)
    raise AttributeError(f"module 'rag' has no attribute {name!r}")


__all__ = [
    "ABSTAIN_TEXT",
    "Answer",
    "AnswerError",
    "Assistant",
    "ChatMessage",
    "Citation",
    "CorpusError",
    "EmptyStoreError",
    "Filters",
    "IngestReport",
    "InputError",
    "LoadIssue",
    "ModelMismatchError",
    "Paper",
    "PaperStore",
    "Related",
    "RetrievedPaper",
    "Settings",
    "StoreError",
    "ingest",
    "load_corpus",
]
