"""Which store a process opens: the PostgreSQL database a URL names, else the SQLite file.

The one function every opener goes through (`memesh.app.resources.Resources.open_store`, the hooks' lean store).
Each engine's modules are imported only when chosen, so a process on the SQLite file never imports psycopg.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from memesh import paths
from memesh.errors import ErrorCode, MemeshError
from memesh.store.errors import StoreError

if TYPE_CHECKING:
    from memesh.settings import Settings
    from memesh.store.postgres import PostgresStore
    from memesh.store.postgres_hooks import PostgresHookStore
    from memesh.store.sqlite import SqliteStore
    from memesh.store.sqlite_hooks import HookStore

Store: TypeAlias = "SqliteStore | PostgresStore"
HookDatabase: TypeAlias = "HookStore | PostgresHookStore"
Target: TypeAlias = Path | str | None  # a file, a postgresql:// URL (or a file's path as text), or "the configured"


def chosen(target: Target = None, settings: Settings | None = None) -> Path | str:
    """What `target` names, or when None the configured database of `settings` (this process's when None):
    `--database`, MEMESH_DATABASE_URL, config.json's `database`, else the SQLite file. StoreError when the setting
    is not a PostgreSQL URL."""
    if isinstance(target, Path):
        return target
    if target is not None:
        return target if target.startswith(paths.URL_SCHEMES) else Path(target).expanduser()
    settings = settings or _here()
    try:
        url = settings.database_url()
    except paths.DatabaseSettingError as exc:
        raise StoreError(str(exc), MemeshError(ErrorCode.INTERNAL, str(exc), {"store": "cannot-open"})) from exc
    return url if url is not None else settings.database_file


def _here() -> Settings:
    import os

    from memesh.settings import Settings

    return Settings.load(os.environ)


def open_store(target: Target = None, *, hook: bool = False, settings: Settings | None = None) -> Store:
    """The database `target` names (see `chosen`), opened and migrated; StoreError when it will not open. `hook`:
    for a hook event, which its host waits for with a timeout (PostgreSQL's shorter budgets)."""
    settings = (settings or _here()) if target is None else settings
    where = chosen(target, settings)
    if isinstance(where, str):
        from memesh.store.postgres import open_postgres

        return open_postgres(where, hook=hook)
    from memesh.store.sqlite import open_store as open_file

    return open_file(where, settings=settings if target is None else None)


def open_hook_store(target: Target = None, settings: Settings | None = None) -> HookDatabase:
    """The database as the hooks use it: the lean store of either engine (fewer mixins to import)."""
    settings = (settings or _here()) if target is None else settings
    where = chosen(target, settings)
    if isinstance(where, str):
        from memesh.store.postgres_hooks import open_postgres_hooks

        return open_postgres_hooks(where)
    from memesh.store.sqlite_hooks import open_hook_store as open_file

    return open_file(where, settings=settings if target is None else None)


def described(target: Target = None, settings: Settings | None = None) -> str:
    """The database in use as a person may be shown it: the file's path, or the URL with its password redacted."""
    where = chosen(target, settings)
    if isinstance(where, str):
        from memesh.store.postgres_open import redacted

        return redacted(where)
    from memesh.store.sql import shown_file

    return shown_file(str(where))
