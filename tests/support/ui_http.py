"""The chat UI driven over its own HTTP protocol, as the browser's Gradio client does it:
answers through the queue (`/gradio_api/queue/join`, then the `/gradio_api/queue/data`
event stream), votes through `/gradio_api/run/predict` (the like event is unqueued).

For tests that need the real UI path over HTTP (fault and load tests) without a browser;
tests/test_browser.py covers what the page itself does. Each `UISession` is one browser tab:
its conversation state lives on the server under its session hash.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import httpx

from ui import conversations

API = "/gradio_api"


class UIError(AssertionError):
    """The UI protocol itself failed (not an answer that reports a problem)."""


class UISession:
    def __init__(self, client: httpx.Client, config: dict[str, Any] | None = None) -> None:
        self.client = client
        config = config or client.get("/config").json()
        self.events = {d["api_name"]: d for d in config["dependencies"]}
        self.session_hash = secrets.token_hex(6)
        self.chat: list[dict[str, Any]] = []

    def _call(self, name: str) -> tuple[int, int | None]:
        event = self.events[name]
        target = event["targets"][0][0] if event.get("targets") else None
        return int(event["id"]), None if target is None else int(target)

    def ask(self, question: str, mode: str = "hybrid", top_k: int = 5) -> str:
        """Submits a question; returns the text of the assistant message it produced."""
        fn_index, trigger = self._call("ask")  # what Enter in the question box runs
        joined = self.client.post(
            f"{API}/queue/join",
            json={
                "fn_index": fn_index,
                "trigger_id": trigger,
                "session_hash": self.session_hash,
                "event_data": None,
                # question, chatbot, state (kept on the server), mode, top_k, filters
                "data": [question, self.chat, None, mode, top_k, [], "", ""],
            },
        )
        if joined.status_code != 200:
            raise UIError(f"queue/join: HTTP {joined.status_code}: {joined.text[:300]}")
        event_id = joined.json()["event_id"]
        params = {"session_hash": self.session_hash}
        with self.client.stream("GET", f"{API}/queue/data", params=params) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[len("data:") :])
                if message.get("event_id") != event_id:
                    continue
                if message.get("msg") == "process_completed":
                    if not message.get("success"):
                        raise UIError(f"the answer event failed: {str(message)[:500]}")
                    self.chat = message["output"]["data"][0]
                    return message_text(self.chat[-1])
        raise UIError("the queue stream ended before the answer completed")

    def vote(self, index: int, liked: bool | None, comment: str = "") -> str:
        """Thumbs up/down (None: withdrawn) on chatbot message `index`; the status text."""
        fn_index, trigger = self._call("like")
        response = self.client.post(
            f"{API}/run/predict",
            json={
                "fn_index": fn_index,
                "trigger_id": trigger,
                "session_hash": self.session_hash,
                "data": [None, comment],  # state (kept on the server), comment box
                "event_data": {"index": index, "value": "", "liked": liked},
            },
        )
        if response.status_code != 200:
            raise UIError(f"run/predict: HTTP {response.status_code}: {response.text[:300]}")
        return str(response.json()["data"][0])


def message_text(message: dict[str, Any]) -> str:
    return conversations.message_text(message.get("content"))
