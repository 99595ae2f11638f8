"""What one hook event reaches outside itself, built on first use: the caller's environment and working folder (a
warm memesh-mcp serving a hook passes its client's), the hooks' lean store, the whole store where an event needs it,
the settings in effect (config.json as the process's settings read it, under the caller's environment), the
project-id cache, git, the session transcript and the note folder beside it, the Claude Code channel's hosts file
and the capture-liveness files.

`Resources.hooks` holds one (built by `memesh.app.hook_factory`, which this module does not import); the hook
operations (`memesh.ops.hooks`) see it through their protocols. It is made of small factories: the stores here, the
session's files (`hook_files`) and the settings (`hook_settings`). Every adapter is imported on first use, so an event
pays only for what it reads (docs/adr/0002-hook-startup.md).
"""

from __future__ import annotations

from memesh.app.hook_files import HookFiles
from memesh.app.hook_settings import HookSettings

TYPE_CHECKING = False  # not typing's: the runner imports this module for its cheap look, and typing costs a hook
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar

    from memesh.app.hook_database import HookDatabase
    from memesh.store.open import Store

    T = TypeVar("T")

# What an event may import on first use, for the warm server to import before it serves (`preload`).
ADAPTERS = (
    "memesh.app.hook_database",
    "memesh.adapters.config_file",
    "memesh.adapters.git_commit",
    "memesh.adapters.hosts_file",
    "memesh.adapters.note_dir",
    "memesh.adapters.project_git",
    "memesh.adapters.session_files",
    "memesh.adapters.hook_outcomes",
)


def channel_configured() -> bool:
    """Whether the memesh-channel's hosts/claude.json is there: a cheap look for the runner, which leaves the message
    hooks early when a session can name no recipient (memesh.core.triggers)."""
    from memesh.adapters.hosts_file import claude_config

    return claude_config().exists()


class HookResources(HookFiles, HookSettings):
    """The outside world of one hook event. Stores are opened on first use and closed by `close`; a store that will
    not open reads as None (the operation records it), never as an exception."""

    def __init__(
        self,
        environment: Mapping[str, str],
        cwd: str,
        *,
        open_lean: Callable[[], HookDatabase | Store],
        open_full: Callable[[], Store],
        stored: Callable[[], Mapping[str, Any]],
        owned: bool = True,
    ) -> None:
        self.environment = environment
        self.cwd = cwd
        self._open_lean = open_lean
        self._open_full = open_full
        self._read_stored = stored
        self._owned = owned
        self._lean: HookDatabase | Store | None = None
        self._full: Store | None = None
        self._config: dict[str, Any] | None = None

    def store(self) -> HookDatabase | Store | None:
        """The hooks' lean store (what they read and write, without the mixins no hook calls); None when the
        database will not open."""
        if self._lean is None:
            self._lean = _opened(self._open_lean)
        return self._lean

    def full_store(self) -> Store | None:
        """The whole store, for the reads the lean one leaves out (messages, staged proposals); None when the
        database will not open."""
        if self._full is None:
            self._full = _opened(self._open_full)
        return self._full

    def close(self) -> None:
        """Close what this event opened (a store it was handed stays open)."""
        lean, full, self._lean, self._full = self._lean, self._full, None, None
        if self._owned:
            for store in (lean, full):
                if store is not None:
                    store.close()

    def _stored(self) -> dict[str, Any]:
        if self._config is None:
            self._config = dict(self._read_stored())
        return self._config


def _opened(opener: Callable[[], T]) -> T | None:
    from memesh.store.errors import StoreError

    try:
        return opener()
    except StoreError:
        return None
