"""icml-rag: cited question answering over ICML 2024 abstracts.

Public API (everything else is internal):

    from rag import Settings, Assistant
    assistant = Assistant.from_settings(Settings())
    answer = assistant.ask("Which paper explains why feedback alignment works?")
"""

from rag.assistant import Assistant, EmptyStoreError, InputError
from rag.corpus import CorpusError, LoadIssue, load_corpus
from rag.ingest import IngestReport, ingest
from rag.prompts import ABSTAIN_TEXT
from rag.settings import Settings
from rag.store import ModelMismatchError, PaperStore, StoreError
from rag.synthesis import AnswerError
from rag.types import Answer, ChatMessage, Citation, Filters, Paper, Related, RetrievedPaper

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
