"""What a transport tells an operation about the call: the clock, who is writing, and who will read the answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

HOST_MAX = 64


def clean_host(name: str | None, default: str) -> str:
    """A client's self-declared name as provenance: cleaned as any stored label (controls out, credentials
    redacted, one line), then at most 64 characters."""
    from memesh.core.clean import clean_label  # the secret patterns: only for the transport that has a client name

    cleaned = clean_label(name or "")[:HOST_MAX].strip()
    return cleaned or default


def _current_project() -> str:
    from memesh.adapters.project_git import current_project  # runs git: only when an operation needs the project

    return current_project()


@dataclass(frozen=True)
class CallContext:
    """Per-call facts an operation may not read globally.

    `source_host` is stamped into `metadata.provenance.source_host` when a memory is first stored (never an input).
    `agent_view` is true where the answer goes into an agent's context (MCP, CLI): recall then applies the size cap.
    `project` gives the current project's id (the working directory's), asked only when an operation needs it.
    """

    source_host: str
    agent_view: bool
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    project: Callable[[], str] = _current_project

    def at(self, now: datetime) -> CallContext:
        return replace(self, now=now)
