"""What every hook handler needs: the project of the session's directory, the store, a call context."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memesh.context import CallContext


def session_cwd(payload: dict[str, object]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and Path(cwd).is_absolute() else str(Path.cwd())


def call_context(project: str, host: str | None) -> CallContext:
    """Captured memories carry the host that ran the hook, or no host when it cannot be told."""
    return CallContext(source_host=host or "", agent_view=True, now=datetime.now(UTC), project=lambda: project)


def project_of(cwd: str) -> str:
    from memesh.adapters.project_git import project_for

    return project_for(cwd)
