"""The PostgreSQL store as the hooks use it: what `sqlite_hooks.HookStore` is to the SQLite file.

Reads for the briefing, file memories, guards and session records, and the writes of capture, made of the very mixins
`PostgresStore` is made of, without the ones no hook calls (search, messages, proposals, insights, health, projects,
memory files, copying) and the rules they import: a hook is a process the host waits for. Same connection set-up and
migrations (`postgres_open.open_as`), same writes, the same write lock.
"""

from __future__ import annotations

from memesh.store.briefing import Briefing
from memesh.store.postgres_open import HOOK, open_as
from memesh.store.postgres_writes import PostgresWrites


class PostgresHookStore(PostgresWrites, Briefing):
    """What the hooks' operations read and write on PostgreSQL (their narrow protocols say which methods)."""

    # As HookStore: the briefing's recipient notice borrows two of the message store's reads, which use only the
    # connection, rather than loading the message store's model for every hook.
    def unread_deliveries(
        self, recipient: str, project: str, *, session: str | None = None, now_ms: int | None = None
    ) -> int:
        from memesh.store.messages import Messages

        return Messages.unread_deliveries(self, recipient, project, session=session, now_ms=now_ms)  # type: ignore[arg-type]

    def recipient_seen(self, recipient: str, project: str) -> bool:
        from memesh.store.messages import Messages

        return Messages.recipient_seen(self, recipient, project)  # type: ignore[arg-type]


def open_postgres_hooks(url: str) -> PostgresHookStore:
    """The database at `url` opened as `open_postgres` opens it, as a PostgresHookStore, within a hook's budget
    (`postgres_open.HOOK`: shorter waits, so a hook answers inside its host's timeout)."""
    return open_as(PostgresHookStore, url, HOOK)
