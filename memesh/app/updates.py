"""The MCP server's update machinery, put together: the background notifier over the update_status operation, the
package-index lookup and the cache file, under the autoUpdate setting in effect."""

from __future__ import annotations

import os
from typing import Any, Protocol

from memesh.adapters.update_check import (
    CacheFile,
    UpdateNotifier,
    checks_enabled,
    default_fetcher,
    install_channel,
)


class Notifier(Protocol):
    """The once-per-process update notice, computed on its own thread (memesh.adapters.update_check)."""

    def start(self) -> None: ...
    def take(self) -> str | None: ...


class StaleCheck(Protocol):
    """Whether this process still runs the version installed on disk: a notice when it does not."""

    def notice(self) -> str | None: ...


def server_updates() -> tuple[Notifier | None, StaleCheck | None]:
    """What an MCP server starts with: the update notifier and the stale-process check, both None when update
    checks are off."""
    import memesh
    from memesh.adapters.update_check import StaleProcessCheck

    notifier = server_notifier()
    return notifier, (StaleProcessCheck(memesh.__version__) if notifier is not None else None)


def server_notifier(limit: str | None = None) -> UpdateNotifier | None:
    """The notifier an MCP server starts with, or None when autoUpdate is off or MEMESH_UPDATE_CHECK=0 (then no
    lookup, no cache file, no notice)."""
    from memesh.adapters import config_file as config
    from memesh.context import CallContext
    from memesh.ops.update_status import session_notice

    setting = limit or _auto_update_limit(config)
    if setting == "off" or not checks_enabled():
        return None
    import memesh

    def compute() -> str | None:
        ctx = CallContext(source_host="mcp", agent_view=True)
        return session_notice(
            CacheFile(),
            default_fetcher(),
            current=memesh.__version__,
            channel=install_channel(),
            limit=setting,
            ctx=ctx,
        )

    return UpdateNotifier(compute)


def _auto_update_limit(config_module: Any) -> str:
    """autoUpdate in effect: MEMESH_AUTO_UPDATE, else config.json, else minor; an unknown value counts as minor."""
    value = os.environ.get("MEMESH_AUTO_UPDATE", "").strip().lower()
    if not value:
        try:
            stored = config_module.read_raw().get("autoUpdate")
        except Exception:  # an unreadable config.json is reported by the commands that read it, not here
            stored = None
        value = stored if isinstance(stored, str) else ""
    return value if value in {"off", "patch", "minor", "major"} else "minor"
