"""A scripted stand-in of the Gemini API on 127.0.0.1, for running the real Gemini CLI in a test.

Gemini CLI 0.61 sends its model requests to `GOOGLE_GEMINI_BASE_URL` (with a Gemini API key selected as the auth
method): POST /v1beta/models/<model>:streamGenerateContent?alt=sse, answered here as the real API does (server-sent
events, one `data:` line per chunk), :generateContent with one JSON answer, :countTokens with a count. A request that
offers function declarations is a turn of the session's main loop and gets the script's next reply; any other gets a
short text. Every request is recorded with what the test asked to observe at that moment (`observe`, e.g. whether a
marker file exists), so a test can tell what the model saw and when.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .hooks.stand_in_api import serving

__all__ = ["Reply", "StandIn", "call", "serving", "text"]

Part = dict[str, Any]


def text(words: str) -> Part:
    return {"text": words}


def call(name: str, arguments: dict[str, Any]) -> Part:
    return {"functionCall": {"name": name, "args": arguments}}


@dataclass(frozen=True)
class Reply:
    parts: Sequence[Part]


@dataclass
class Recorded:
    path: str
    body: Any
    observed: Any
    main: bool

    def declared(self) -> list[str]:
        """The names of the functions this request offers the model."""
        tools = self.body.get("tools") or []
        return [declaration["name"] for tool in tools for declaration in tool.get("functionDeclarations") or []]

    def function_response(self, name: str) -> dict[str, Any]:
        """The last functionResponse for `name` the request carries (what the model reads as the tool's result)."""
        found = [
            part["functionResponse"]
            for content in self.body["contents"]
            for part in content["parts"]
            if part.get("functionResponse", {}).get("name") == name
        ]
        if not found:
            raise LookupError(f"no functionResponse for {name}")
        response: dict[str, Any] = found[-1]["response"]
        return response

    def texts(self) -> str:
        """Every text part of the conversation the request carries, one after another."""
        return "\n".join(part.get("text", "") for content in self.body["contents"] for part in content["parts"])


@dataclass
class StandIn:
    script: Sequence[Reply]
    observe: Callable[[], Any] = lambda: None
    requests: list[Recorded] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def turns(self) -> list[Recorded]:
        return [r for r in self.requests if r.main]

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if not path.startswith("/v1beta/models/") or not isinstance(body, dict):
            return 404, "application/json", b'{"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}'
        if ":countTokens" in path:
            return 200, "application/json", json.dumps({"totalTokens": 100}).encode()
        main = any(tool.get("functionDeclarations") for tool in body.get("tools") or [])
        with self._lock:
            turn = len(self.turns)
            self.requests.append(Recorded(path, body, self.observe(), main))
        reply = self.script[min(turn, len(self.script) - 1)] if main else Reply([text("ok")])
        message = {
            "candidates": [
                {"content": {"role": "model", "parts": list(reply.parts)}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        }
        if "alt=sse" in path:
            return 200, "text/event-stream", f"data: {json.dumps(message)}\r\n\r\n".encode()
        return 200, "application/json", json.dumps(message).encode()
