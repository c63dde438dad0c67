"""Settings (rag/settings.py): environment, .env, aliases, lists, backend rules, docs."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import ValidationError

from rag.settings import BUNDLED_CORPUS, PACKAGE_ROOT, Settings

ENV_EXAMPLE = PACKAGE_ROOT / ".env.example"


def env_example_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "env_example", PACKAGE_ROOT / "scripts" / "env_example.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_defaults_need_no_environment() -> None:
    s = Settings(_env_file=None)
    assert s.data_dir == Path("var") and s.corpus_paths == [BUNDLED_CORPUS]
    assert BUNDLED_CORPUS.is_file()
    assert s.chroma_path == Path("var/chroma") and s.store_location() == "embedded var/chroma"
    assert s.resolved_backend() == "extractive"


def test_environment_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_TOP_K", "7")
    monkeypatch.setenv("RAG_DATA_DIR", "/srv/rag")
    monkeypatch.setenv("RAG_CHROMA_HOST", "db.internal")
    monkeypatch.setenv("RAG_CHROMA_PORT", "9000")
    monkeypatch.setenv("RAG_PROTECT_UI", "false")  # the default is true
    monkeypatch.setenv("rag_retrieval_mode", "bm25")  # names are case-insensitive
    s = Settings(_env_file=None)
    assert (s.top_k, s.data_dir, s.retrieval_mode, s.protect_ui) == (
        7,
        Path("/srv/rag"),
        "bm25",
        False,
    )
    assert s.store_location() == "chroma server http://db.internal:9000"
    # Explicit arguments win over the environment.
    assert Settings(_env_file=None, top_k=3).top_k == 3


def test_dotenv_is_read_and_can_be_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    # isolated_env runs every test in its own temporary working directory.
    Path(".env").write_text("RAG_TOP_K=9\nRAG_COLLECTION=from-dotenv\nOPENAI_API_KEY=sk-dotenv\n")
    s = Settings()
    assert (s.top_k, s.collection) == (9, "from-dotenv")
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == "sk-dotenv"
    monkeypatch.setenv("RAG_TOP_K", "4")  # the real environment wins over .env
    assert Settings().top_k == 4
    ignored = Settings(_env_file=None)
    assert (ignored.top_k, ignored.collection, ignored.openai_api_key) == (4, "icml2024", None)


def test_openai_key_alias_and_secrecy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plain")
    s = Settings(_env_file=None)
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == "sk-plain"
    assert "sk-plain" not in repr(s) and "sk-plain" not in str(s.model_dump())
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("RAG_OPENAI_API_KEY", "sk-prefixed")
    s = Settings(_env_file=None)
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == "sk-prefixed"
    assert Settings(_env_file=None, openai_api_key="sk-arg").resolved_backend() == "openai"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a.jsonl,b.csv", [Path("a.jsonl"), Path("b.csv")]),
        (" a.jsonl , , seeds.txt ", [Path("a.jsonl"), Path("seeds.txt")]),
        ('["x.json", "y.jsonl"]', [Path("x.json"), Path("y.jsonl")]),
        ("only.jsonl", [Path("only.jsonl")]),
    ],
)
def test_comma_separated_corpus_paths(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: list[Path]
) -> None:
    monkeypatch.setenv("RAG_CORPUS_PATHS", value)
    assert Settings(_env_file=None).corpus_paths == expected


def test_comma_separated_cors_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_CORS_ORIGINS", "http://a.test, https://b.test")
    assert Settings(_env_file=None).cors_origins == ["http://a.test", "https://b.test"]
    monkeypatch.setenv("RAG_CORS_ORIGINS", "")
    assert Settings(_env_file=None).cors_origins == []
    monkeypatch.setenv("RAG_CORS_ORIGINS", "[broken")
    with pytest.raises(ValidationError, match="cors_origins"):
        Settings(_env_file=None)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RAG_TOP_K", "0"),
        ("RAG_TOP_K", "many"),
        ("RAG_CHUNK_MAX_TOKENS", "1024"),
        ("RAG_RETRIEVAL_MODE", "magic"),
        ("RAG_BACKEND", "gpt"),
        ("RAG_EMBED_RUNTIME", "cuda"),
        ("RAG_ABSTAIN_THRESHOLD", "1.5"),
        ("RAG_PORT", "70000"),
    ],
)
def test_invalid_values_are_refused(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError, match=variable.removeprefix("RAG_").lower()):
        Settings(_env_file=None)


def test_resolved_backend_rules() -> None:
    def resolved(**kw: object) -> str:
        return Settings(_env_file=None, **kw).resolved_backend()

    assert resolved() == "extractive"
    assert resolved(llm_base_url="http://127.0.0.1:8080/v1") == "openai-compatible"
    assert resolved(openai_api_key="sk-x") == "openai"
    # A key beats a base URL; an empty key counts as no key.
    assert resolved(openai_api_key="sk-x", llm_base_url="http://h/v1") == "openai"
    assert resolved(openai_api_key="", llm_base_url="http://h/v1") == "openai-compatible"
    assert resolved(openai_api_key="") == "extractive"
    # Explicit choices pass through, whatever else is set.
    assert resolved(backend="extractive", openai_api_key="sk-x") == "extractive"
    assert resolved(backend="openai") == "openai"
    assert resolved(backend="openai-compatible") == "openai-compatible"


def test_derived_paths_and_embedding_id() -> None:
    s = Settings(_env_file=None, data_dir=Path("/d"))
    assert (s.chroma_path, s.feedback_path) == (Path("/d/chroma"), Path("/d/feedback.jsonl"))
    assert s.embedding_id() == "all-MiniLM-L6-v2+int8"
    assert Settings(_env_file=None, embed_runtime="onnx").embedding_id() == "all-MiniLM-L6-v2"
    assert Settings(_env_file=None, embed_runtime="torch").embedding_id() == "all-MiniLM-L6-v2"


def test_every_field_is_described() -> None:
    missing = [n for n, f in Settings.model_fields.items() if not (f.description or "").strip()]
    assert missing == []


# --- .env.example ------------------------------------------------------------------------

VARIABLE = re.compile(r"^# ([A-Z][A-Z0-9_]*)=(.*)$")


def example_variables() -> dict[str, str]:
    out = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if match := VARIABLE.match(line):
            assert match.group(1) not in out, f"{match.group(1)} listed twice"
            out[match.group(1)] = match.group(2)
    return out


def test_env_example_lists_exactly_the_settings_fields() -> None:
    listed = set(example_variables())
    expected = {f"RAG_{name.upper()}" for name in Settings.model_fields}
    # openai_api_key is documented under the name users know.
    expected = expected - {"RAG_OPENAI_API_KEY"} | {"OPENAI_API_KEY"}
    assert listed == expected


def test_env_example_is_generated_from_settings() -> None:
    assert ENV_EXAMPLE.read_text(encoding="utf-8") == env_example_module().env_example(), (
        "regenerate it: python scripts/env_example.py > .env.example"
    )


def test_env_example_uncommented_gives_the_defaults(tmp_path: Path) -> None:
    """Every documented value is valid, and is the default (an unchanged copy is a no-op)."""
    values = example_variables()
    dotenv = tmp_path / ".env"
    dotenv.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    from_file = Settings(_env_file=dotenv)
    defaults = Settings(_env_file=None)
    for name in Settings.model_fields:
        got, want = getattr(from_file, name), getattr(defaults, name)
        if name == "corpus_paths":  # documented repo-relative
            got = [PACKAGE_ROOT / p for p in got]
        if want is None:  # an empty value is as good as unset
            assert not got, name
        else:
            assert got == want, name
