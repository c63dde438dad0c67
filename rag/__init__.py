"""icml-rag: cited question answering over ICML 2024 abstracts.

Public API (everything else is internal):

    from rag import Settings, Assistant
    assistant = Assistant.from_settings(Settings())
    answer = assistant.ask("Which paper explains why feedback alignment works?")

The stages, in the order data flows (one sub-package each):
corpus → embedding → store → retrieval → answer → {cli, api} (and ui/, eval/ outside).

Every name below is imported on first use: `import rag` costs nothing, and `from rag
import Settings` does not load chromadb, llama-index, torch or gradio.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.answer.prompts import ABSTAIN_TEXT
    from rag.assistant import Assistant
    from rag.corpus.records import LoadIssue, load_corpus
    from rag.errors import (
        AnswerError,
        BackendError,
        CorpusError,
        EmptyStoreError,
        InputError,
        ModelMismatchError,
        RagError,
        StoreError,
    )
    from rag.ingestion import IngestReport, ingest
    from rag.settings import Settings
    from rag.store.chroma import PaperStore
    from rag.types import Answer, ChatMessage, Citation, Filters, Paper, Related, RetrievedPaper

_HOMES = {
    "rag.answer.prompts": ["ABSTAIN_TEXT"],
    "rag.assistant": ["Assistant"],
    "rag.corpus.records": ["LoadIssue", "load_corpus"],
    "rag.errors": [
        "AnswerError",
        "BackendError",
        "CorpusError",
        "EmptyStoreError",
        "InputError",
        "ModelMismatchError",
        "RagError",
        "StoreError",
    ],
    "rag.settings": ["Settings"],
    "rag.store.chroma": ["PaperStore"],
    "rag.ingestion": ["IngestReport", "ingest"],
    "rag.types": [
        "Answer",
        "ChatMessage",
        "Citation",
        "Filters",
        "Paper",
        "Related",
        "RetrievedPaper",
    ],
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rag' has no attribute {name!r}")
    return getattr(import_module(module), name)


__all__ = [
    "ABSTAIN_TEXT",
    "Answer",
    "AnswerError",
    "Assistant",
    "BackendError",
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
    "RagError",
    "Related",
    "RetrievedPaper",
    "Settings",
    "StoreError",
    "ingest",
    "load_corpus",
]
