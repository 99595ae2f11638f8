"""The store as the hooks use it: reads for the briefing, file memories, guards and session records, and the writes
of capture, without the mixins no hook calls (search, messages, proposals, insights, health, projects, memory files).

A hook is a process the host waits for; importing every mixin (and the rules they import) cost a hook about a third
of its start-up. Same connection set-up, same migrations, same writes: `HookStore` is made of the very mixins
`SqliteStore` is made of.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memesh.store.briefing import Briefing
from memesh.store.sqlite_open import open_as
from memesh.store.sqlite_writes import SqliteWrites

if TYPE_CHECKING:
    from memesh.settings import Settings


class HookStore(SqliteWrites, Briefing):
    """What the hooks' operations read and write (their narrow protocols say which methods)."""

    # The briefing's recipient notice counts the recipient's inbox with two of the message store's reads. They use
    # only the connection, so they are borrowed from SqliteMessages when a briefing names a recipient, rather than
    # loading the message store's model for every hook.
    def unread_deliveries(
        self, recipient: str, project: str, *, session: str | None = None, now_ms: int | None = None
    ) -> int:
        from memesh.store.messages import Messages

        return Messages.unread_deliveries(self, recipient, project, session=session, now_ms=now_ms)  # type: ignore[arg-type]

    def recipient_seen(self, recipient: str, project: str) -> bool:
        from memesh.store.messages import Messages

        return Messages.recipient_seen(self, recipient, project)  # type: ignore[arg-type]


def open_hook_store(path: Path | None = None, *, settings: Settings | None = None) -> HookStore:
    """The database at `path` (default `paths.db_path()`) opened as `open_store` opens it, as a HookStore."""
    return open_as(HookStore, path, settings=settings)
