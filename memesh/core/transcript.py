"""What the hooks read from a session transcript (JSON lines, memesh.hosts.TRANSCRIPT_HOST's): the agent's replies,
its tool calls and which of them failed, and the [mem:id] citations in its replies. Pure: the caller reads the file."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Any

from memesh.records import dataclass

_CITATION = re.compile(r"\[mem:(\d{1,12})\]")


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    error: str | None = None  # the failure's text when the result said it failed


@dataclass
class Session:
    replies: list[str] = field(default_factory=list)  # every assistant reply, oldest first
    last_reply: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    malformed_lines: int = 0


def _blocks(message: Any) -> list[dict[str, Any]]:
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def parse(lines: Iterable[str]) -> Session:
    """The session as the hooks need it. Side-chain (sub-agent) entries are left out; a line that is not JSON is
    counted, not fatal (a transcript being written can end in half a line)."""
    session = Session()
    calls: dict[str, ToolCall] = {}
    current: list[str] = []  # text of the reply being read: assistant entries since the last user prompt
    for raw in lines:
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            session.malformed_lines += 1
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain") is True:
            continue
        kind = entry.get("type")
        blocks = _blocks(entry.get("message"))
        if kind == "assistant":
            for block in blocks:
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    current.append(block["text"])
                elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                    call = ToolCall(
                        str(block.get("id", "")),
                        block["name"],
                        block["input"] if isinstance(block.get("input"), dict) else {},
                    )
                    calls[call.id] = call
                    session.tool_calls.append(call)
        elif kind == "user":
            results = [b for b in blocks if b.get("type") == "tool_result"]
            for block in results:
                answered = calls.get(str(block.get("tool_use_id", "")))
                if answered is not None and block.get("is_error") is True:
                    answered.error = _result_text(block.get("content")) or "failed"
            if not results and blocks:  # a person's prompt: the reply before it is complete
                if current:
                    session.replies.append("\n\n".join(current))
                current = []
    if current:
        session.replies.append("\n\n".join(current))
    session.last_reply = session.replies[-1] if session.replies else None
    return session


def citations(replies: Sequence[str]) -> list[int]:
    """The memory ids cited as [mem:id] in these replies, each once, in order of first citation."""
    found: dict[int, None] = {}
    for reply in replies:
        for match in _CITATION.finditer(reply):
            found[int(match.group(1))] = None
    return list(found)
