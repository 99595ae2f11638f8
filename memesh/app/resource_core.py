"""The core of the composition root: the process's settings, the database (one connection for a short process, one
per worker thread in a server) and the call context. `memesh.app.resources.Resources` is this with the small
factories beside it (install, owner, recall, hooks), each in its own module.

Everything here is built on first use, so a command that needs no database opens none, and nothing heavy is imported
when this module is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeAlias

from memesh.context import CallContext

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.adapters.embedding import WordLlama
    from memesh.app.connections import ThreadConnections
    from memesh.errors import MemeshError
    from memesh.settings import Settings
    from memesh.store.errors import StoreError
    from memesh.store.postgres import PostgresStore
    from memesh.store.sqlite import SqliteStore
    from memesh.values import RouterPort

# The store every operation's store protocol is checked against: both adapters must satisfy each one.
Store: TypeAlias = "SqliteStore | PostgresStore"


class ResourceCore:
    """The settings and the database of one process, built on first use.

    `store` is the database: one connection for a short process, or this worker thread's own connection in a server
    (`pooled`). When it will not open, `StoreError` is raised from `store` and `dispatch` answers with its error
    (`on_open_failure` lets the CLI name the file for the person at this machine).
    """

    def __init__(
        self,
        *,
        db_path: Path | str | None = None,
        on_open_failure: Callable[[StoreError], StoreError] | None = None,
        update_fetch: Callable[[], str | None] | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.db_path = db_path  # a file or a postgresql:// URL; None: the one `settings` configure
        self._on_open_failure = on_open_failure
        # The package-index lookup (None: never asked); an HTTP listener is handed the real one by `create_app`.
        self.update_fetch = update_fetch
        self._settings = settings
        self._store: Store | None = None
        self._pool: ThreadConnections[Store] | None = None
        self._owned = True

    @property
    def settings(self) -> Settings:
        """The process's settings (`memesh.settings`): the ones handed in, else this process's, read on first use."""
        if self._settings is None:
            from memesh.settings import Settings

            self._settings = Settings.load(os.environ)
        return self._settings

    def configured(self) -> Settings | None:
        """The settings that choose the database: None when `db_path` names one itself."""
        return self.settings if self.db_path is None else None

    @classmethod
    def pooled(
        cls,
        db_path: Path | str | None = None,
        *,
        on_open_failure: Callable[[StoreError], StoreError] | None = None,
        update_fetch: Callable[[], str | None] | None = None,
        settings: Settings | None = None,
    ) -> Self:
        """The resources of a server whose calls run side by side in worker threads: a connection per thread."""
        from memesh.app.connections import ThreadConnections

        resources = cls(db_path=db_path, on_open_failure=on_open_failure, update_fetch=update_fetch, settings=settings)
        resources._pool = ThreadConnections(resources.open_store)
        return resources

    @classmethod
    def over(cls, store: Store) -> Self:
        """Resources around a database already open (a test, a benchmark, a caller holding one); `close` leaves
        that database open, since its opener closes it."""
        resources = cls()
        resources._store = store
        resources._owned = False
        store.use_embedder(resources.write_embedder)
        return resources

    def write_embedder(self) -> WordLlama | None:
        """What the store embeds new memories with: nothing here; the recall factory gives hybrid's signal."""
        return None

    def open_store(self, *, hook: bool = False) -> Store:
        """A new connection to the database (created, migrated, owner-only; within a hook's budget when `hook`);
        StoreError when it will not open."""
        from memesh.store.errors import StoreError
        from memesh.store.open import open_store

        try:
            store = open_store(self.db_path, hook=hook, settings=self.configured())
        except StoreError as exc:
            if self._on_open_failure is None:
                raise
            raise self._on_open_failure(exc) from exc
        store.use_embedder(self.write_embedder)
        return store

    @property
    def store(self) -> Store:
        """The database for this call (opened on first use)."""
        if self._pool is not None:
            return self._pool.get()
        if self._store is None:
            self._store = self.open_store()
        return self._store

    def try_store(self) -> Result[Store, MemeshError]:
        """The database, or Failure saying why it will not open: for an operation that reports that rather than
        failing with it (the feedback diagnostics)."""
        from returns.result import Failure, Success

        from memesh.store.errors import StoreError

        try:
            return Success(self.store)
        except StoreError as exc:
            return Failure(exc.error)

    # --- the call context: what an operation asks of the outside world during a call ---

    def context(self, source_host: str, agent_view: bool, **given: Any) -> CallContext:
        """A call's context, with the current project (this process's folder, by git), the local router and the
        owner's message quota setting from here; `given` sets any field of CallContext itself."""
        fields: dict[str, Any] = {
            "project": current_project,
            "router": local_router,
            "message_quota": lambda: _quota_setting(given.get("environment")),
            "settings": self._stored_settings,
            "author": _local_author,
        }
        caller = given.get("caller")
        if caller is not None:  # a member (or the owner) on a remote listener writes as itself
            fields["author"] = lambda: caller.name
        fields.update(given)
        return CallContext(source_host=source_host, agent_view=agent_view, **fields)

    def _stored_settings(self) -> Mapping[str, Any]:
        # A server's calls see config.json as it is now (a setting changed on the dashboard applies to the next
        # call); a short process's, as its settings read it.
        if self._pool is not None:
            from memesh.adapters import config_file

            return config_file.read_or_defaults()
        return self.settings.stored

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
    from memesh.adapters.router_client import RouterClient

    return RouterClient.default()


def _local_author() -> str | None:
    from memesh.adapters.author import local_author

    return local_author()


def _quota_setting(environment: Mapping[str, str] | None) -> str | None:
    return (os.environ if environment is None else environment).get("MEMESH_AGENT_MESSAGE_STORAGE_QUOTA_BYTES")
