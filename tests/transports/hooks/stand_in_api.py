"""A scripted stand-in of the Anthropic Messages API on 127.0.0.1, for running the real Claude Code CLI in a test.

POST /v1/messages answers as the real API does (a server-sent event stream of message_start, content_block_start /
delta / stop per block, message_delta and message_stop; one JSON message when the request does not stream), and
count_tokens answers a count. A request that offers the Bash tool is a turn of the session's main loop and gets the
script's next reply; any other (a title, a classifier) gets a short text. Every request is recorded with what the
test asked to observe at that moment (`observe`, e.g. whether a marker file exists), so a test can tell what the
model saw and when: before or after a tool ran.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, TypeVar

MODEL = "claude-stand-in"
Block = dict[str, Any]


def text(words: str) -> Block:
    return {"type": "text", "text": words}


def bash(tool_id: str, command: str) -> Block:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command, "description": "run"}}


def tool_use(tool_id: str, name: str, arguments: dict[str, Any]) -> Block:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": arguments}


@dataclass(frozen=True)
class Reply:
    blocks: Sequence[Block]

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(b["type"] == "tool_use" for b in self.blocks) else "end_turn"


@dataclass
class Recorded:
    path: str
    body: Any
    observed: Any
    main: bool

    def last_turn(self) -> list[Block]:
        """The content blocks the request adds after the model's last reply: tool results and the text sent with
        them (Claude Code sends a hook's additional context as a message of its own after the tool results)."""
        messages = self.body["messages"]
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
        blocks: list[Block] = []
        for message in messages[last + 1 :]:
            content = message["content"]
            blocks += [text(content)] if isinstance(content, str) else content
        return blocks

    def tool_result(self, tool_id: str) -> Block:
        for message in self.body["messages"]:
            if isinstance(message["content"], list):
                for block in message["content"]:
                    if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                        return dict(block)
        raise LookupError(f"no tool_result for {tool_id}")


def result_text(block: Block) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


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
        if "count_tokens" in path:
            return 200, "application/json", json.dumps({"input_tokens": 100}).encode()
        if not path.startswith("/v1/messages") or not isinstance(body, dict):
            return 404, "application/json", b'{"type": "error", "error": {"type": "not_found_error", "message": ""}}'
        main = any(tool.get("name") == "Bash" for tool in body.get("tools") or [])
        with self._lock:
            turn = len(self.turns)
            self.requests.append(Recorded(path, body, self.observe(), main))
        reply = self.script[min(turn, len(self.script) - 1)] if main else Reply([text("ok")])
        if body.get("stream"):
            return 200, "text/event-stream", _events(reply)
        message = {**_start(), "content": list(reply.blocks), "stop_reason": reply.stop_reason}
        return 200, "application/json", json.dumps(message).encode()


def _start() -> dict[str, Any]:
    return {
        "id": "msg_stand_in",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }


def _events(reply: Reply) -> bytes:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": _start()}, {"type": "ping"}]
    for index, block in enumerate(reply.blocks):
        if block["type"] == "text":
            start: Block = {"type": "text", "text": ""}
            delta: Block = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class Answering(Protocol):
    """A scripted API: where it listens (set by `serving`) and its answer to one POST (status, type, body)."""

    url: str

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]: ...


A = TypeVar("A", bound=Answering)


@contextmanager
def serving(stand_in: A) -> Iterator[A]:
    """The stand-in (this one of the Messages API, or tests/transports/gemini_stand_in's) listening on a free port of
    127.0.0.1 until the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # the base class's name
            pass

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(404, "application/json", b"{}")

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            self._send(*stand_in.answer(self.path, body))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()
