"""What a transport tells an operation about the call: the clock, who is writing, and who will read the answer."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memesh.core.messages_model import RouterPort

HOST_MAX = 64
_HOST_CONTROL = re.compile("[\x00-\x1f\x7f]")


def clean_host(name: str | None, default: str) -> str:
    """A client's self-declared name as provenance: control characters removed, trimmed, at most 64 characters."""
    cleaned = _HOST_CONTROL.sub("", name or "").strip()[:HOST_MAX]
    return cleaned or default


def _current_project() -> str:
    from memesh.adapters.project_git import current_project  # runs git: only when an operation needs the project

    return current_project()


def _default_router() -> RouterPort:
    from memesh.router.client import RouterClient  # only the message tool talks to the router

    return RouterClient.default()


def _quota_from_environment() -> str | None:
    return os.environ.get("MEMESH_AGENT_MESSAGE_STORAGE_QUOTA_BYTES")


def _new_token() -> str:
    return uuid.uuid4().hex


def session_from_environment() -> str | None:
    """The calling agent session, as MCP and the CLI learn it: CLAUDE_CODE_SESSION_ID, else CODEX_THREAD_ID."""
    for name in ("CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


@dataclass(frozen=True)
class CallContext:
    """Per-call facts an operation may not read globally.

    `source_host` is stamped into `metadata.provenance.source_host` when a memory is first stored (never an input).
    `agent_view` is true where the answer goes into an agent's context (MCP, CLI): recall then applies the size cap.
    `project` gives the current project's id (the working directory's), asked only when an operation needs it.
    `workspace_roots` asks the client for its workspace roots (MCP `roots/list`): the root URIs it offered, or None
    when the transport has no client to ask or the client does not offer roots. Asked only when needed.
    """

    source_host: str
    agent_view: bool
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    project: Callable[[], str] = _current_project
    # The message tool: the caller's own session (MCP and CLI read it from the environment; HTTP has none), how
    # to reach the local router, the owner's raw quota setting, and fresh random tokens for ids and cursors.
    caller_session: str | None = None
    router: Callable[[], RouterPort] = _default_router
    message_quota: Callable[[], str | None] = _quota_from_environment
    new_token: Callable[[], str] = _new_token
    workspace_roots: Callable[[], list[str] | None] | None = None

    def at(self, now: datetime) -> CallContext:
        return replace(self, now=now)
