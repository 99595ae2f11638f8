"""The one composition root: everything an operation reaches outside itself is built here and handed in by protocol.

A transport builds one `Resources` for its process (the CLI for its one command, a server for its lifetime, a hook
for its event) and passes it to `dispatch.run`; each registry entry's `uses` picks what its operation needs from it.
Operations never open a database, read config.json or run git themselves: they see what they are given.

Everything here is built on first use, so a command that needs no database opens none, and nothing heavy is imported
when this module is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from memesh.context import CallContext

if TYPE_CHECKING:
    from memesh.app.connections import ThreadConnections
    from memesh.core.messages_model import RouterPort
    from memesh.store.errors import StoreError
    from memesh.store.postgres import PostgresStore
    from memesh.store.sqlite import SqliteStore

# The store every operation's store protocol is checked against: both adapters must satisfy each one.
Store: TypeAlias = "SqliteStore | PostgresStore"


class Resources:
    """The outside world of one process, built on first use.

    `store` is the database: one connection for a short process, or this worker thread's own connection in a server
    (`pooled`). When it will not open, `StoreError` is raised from `store` and `dispatch` answers with its error
    (`on_open_failure` lets the CLI name the file for the person at this machine).
    """

    def __init__(
        self,
        *,
        db_path: Path | str | None = None,
        on_open_failure: Callable[[StoreError], StoreError] | None = None,
    ) -> None:
        self.db_path = db_path  # a file or a postgresql:// URL; None: the configured database (memesh.store.open)
        self._on_open_failure = on_open_failure
        self._store: Store | None = None
        self._pool: ThreadConnections[Store] | None = None
        self._owned = True

    @classmethod
    def pooled(
        cls, db_path: Path | str | None = None, *, on_open_failure: Callable[[StoreError], StoreError] | None = None
    ) -> Resources:
        """The resources of a server whose calls run side by side in worker threads: a connection per thread."""
        from memesh.app.connections import ThreadConnections

        resources = cls(db_path=db_path, on_open_failure=on_open_failure)
        resources._pool = ThreadConnections(resources.open_store)
        return resources

    @classmethod
    def over(cls, store: Store) -> Resources:
        """Resources around a database already open (a test, a benchmark, a caller holding one); `close` leaves
        that database open, since its opener closes it."""
        resources = cls()
        resources._store = store
        resources._owned = False
        return resources

    def open_store(self) -> Store:
        """A new connection to the database (created, migrated, owner-only); StoreError when it will not open."""
        from memesh.store.errors import StoreError
        from memesh.store.open import open_store

        try:
            return open_store(self.db_path)
        except StoreError as exc:
            if self._on_open_failure is None:
                raise
            raise self._on_open_failure(exc) from exc

    @property
    def store(self) -> Store:
        """The database for this call (opened on first use)."""
        if self._pool is not None:
            return self._pool.get()
        if self._store is None:
            self._store = self.open_store()
        return self._store

    # --- the call context: what an operation asks of the outside world during a call ---

    def context(self, source_host: str, agent_view: bool, **given: Any) -> CallContext:
        """A call's context, with the current project (this process's folder, by git), the local router and the
        owner's message quota setting from here; `given` sets any field of CallContext itself."""
        fields: dict[str, Any] = {
            "project": current_project,
            "router": local_router,
            "message_quota": lambda: _quota_setting(given.get("environment")),
        }
        fields.update(given)
        return CallContext(source_host=source_host, agent_view=agent_view, **fields)

    # --- database: any database by what a person typed, beside the configured one (memesh db copy) ---

    def open_at(self, target: str) -> Store:
        """The database at a SQLite file's path or a postgresql:// URL, opened and migrated (StoreError if not)."""
        from memesh.store.open import open_store

        return open_store(target)

    def described(self, target: str) -> str:
        """`target` as a person may be shown it: the file's path, or the URL with its password redacted."""
        from memesh.store.open import described

        return described(target)

    def close(self) -> None:
        """Close what was opened here (a later use opens it again)."""
        if self._pool is not None:
            self._pool.close()
        if self._store is not None and self._owned:
            self._store.close()
            self._store = None


def current_project() -> str:
    """The project of this process's working folder (git is asked only when an operation needs it)."""
    from memesh.adapters.project_git import current_project as of_working_folder

    return of_working_folder()


def local_router() -> RouterPort:
    """The client of this machine's message router (only the message tool talks to it)."""
    from memesh.router.client import RouterClient

    return RouterClient.default()


def _quota_setting(environment: Mapping[str, str] | None) -> str | None:
    return (os.environ if environment is None else environment).get("MEMESH_AGENT_MESSAGE_STORAGE_QUOTA_BYTES")


def the_store(resources: Resources) -> Store:
    """What most operations use: the database alone."""
    return resources.store
