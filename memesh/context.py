"""What a transport tells an operation about the call: the clock, who is writing, and who will read the answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

HOST_MAX = 64
_HOST_CONTROL = re.compile("[\x00-\x1f\x7f]")


def clean_host(name: str | None, default: str) -> str:
    """A client's self-declared name as provenance: control characters removed, trimmed, at most 64 characters."""
    cleaned = _HOST_CONTROL.sub("", name or "").strip()[:HOST_MAX]
    return cleaned or default


def agent_session_id() -> str | None:
    """The agent session this process runs in, as the host tells its children: Claude Code's session id, else
    Codex's thread id; None outside an agent session."""
    import os

    for name in ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"):
        value = os.environ.get(name, "").strip()
        if value:
            return value[:200]
    return None


def _current_project() -> str:
    from memesh.adapters.project_git import current_project  # runs git: only when an operation needs the project

    return current_project()


@dataclass(frozen=True)
class CallContext:
    """Per-call facts an operation may not read globally.

    `source_host` is stamped into `metadata.provenance.source_host` when a memory is first stored (never an input).
    `agent_view` is true where the answer goes into an agent's context (MCP, CLI): recall then applies the size cap.
    `project` gives the current project's id (the working directory's), asked only when an operation needs it.
    `session_id` is the agent session the call is made in (Claude Code's session id, or Codex's thread id), when the
    transport knows it: what recall returns in a session is recorded so a [mem:id] citation there credits it.
    """

    source_host: str
    agent_view: bool
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    project: Callable[[], str] = _current_project
    session_id: str | None = None

    def at(self, now: datetime) -> CallContext:
        return replace(self, now=now)
