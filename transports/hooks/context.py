"""What every hook handler needs: the project of the session's directory, the store, a call context."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memesh.context import CallContext

if TYPE_CHECKING:
    from collections.abc import Iterator

    from memesh.app.hook_database import HookDatabase
    from memesh.transports.hooks.runner import Answer, HookCall


def session_cwd(payload: dict[str, object], call: HookCall) -> str:
    """The session's folder: the payload's `cwd` when absolute, else the hook's working directory."""
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and Path(cwd).is_absolute():
        return cwd
    if not call.cwd:
        raise FileNotFoundError("the hook has no working directory")
    return call.cwd


def call_context(project: str, call: HookCall, *, host: bool = True) -> CallContext:
    """Captured memories carry the host that ran the hook, or no host when it cannot be told (or `host` is off);
    settings come from the hook's environment."""
    return CallContext(
        source_host=(call.host or "") if host else "",
        agent_view=True,
        now=datetime.now(UTC),
        project=lambda: project,
        environment=call.env,
    )


def project_of(cwd: str) -> str:
    """The project id of the session's folder; the answer is kept in the MeMesh folder (with the stamps of what it
    depends on), so most hook runs ask git nothing."""
    from memesh import paths
    from memesh.adapters.project_git import CACHE_FILE, project_for

    return project_for(cwd, paths.memesh_dir() / CACHE_FILE)


def local_path(call: HookCall, text: str) -> Path:
    """A path the host named, relative ones taken from the hook's working directory (never the server's)."""
    path = Path(text).expanduser()
    return path if path.is_absolute() or not call.cwd else Path(call.cwd, path)


@contextmanager
def hook_store(answer: Answer, hook: str) -> Iterator[HookDatabase | None]:
    """The hooks' store for the block, closed after it; None — recorded as hook `hook`'s error outcome — when the
    database will not open. Imported on use: a hook that leaves early never loads the store."""
    from memesh.app.hook_database import StoreError, open_hook_database

    try:
        store = open_hook_database()
    except StoreError:
        answer.record(hook, "error", reason="database unreadable")
        yield None
        return
    try:
        yield store
    finally:
        store.close()
