"""Opening the database file as a store: created owner-only, configured, migrated, switched to WAL; read-only when
it cannot be written. Apart from `memesh.store.sqlite` so that a store of fewer mixins (the hooks') opens the same way
without importing the others.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from memesh import paths
from memesh.errors import ErrorCode, MemeshError
from memesh.store import sqlite_adoption as adoption
from memesh.store.errors import StoreError, translate, why
from memesh.store.migrations import MIGRATIONS
from memesh.store.sqlite_base import BUSY_TIMEOUT_MS
from memesh.store.sqlite_writes import SqliteWrites

if TYPE_CHECKING:
    from memesh.settings import Settings

S = TypeVar("S", bound=SqliteWrites)


def opening_error(exc: BaseException) -> MemeshError:
    """The error for a database that would not open: the translated one, or "cannot open" with the reason."""
    error = translate(exc)
    if error is not None and error.data.get("store") not in (None, "database", "io"):
        return error
    return cannot_open_error(f"cannot open the database: {why(exc)}")


def cannot_open_error(message: str) -> MemeshError:
    return MemeshError(ErrorCode.INTERNAL, message, {"store": "cannot-open"})


def open_as(
    kind: type[S], path: Path | None = None, *, backup_before_adopting: bool = True, settings: Settings | None = None
) -> S:
    """Open (creating if needed, owner-only) the database at `path`, default `paths.db_path()`, migrated, as a
    store of class `kind` (the whole store, or the lean one the hooks use). A database the TypeScript MeMesh
    wrote is adopted on the way (memesh.store.sqlite_adoption), after a backup beside it unless
    `backup_before_adopting` is off (a private copy made for `db copy` or `import`). `settings`: the file is the
    one they configure (`path` is theirs), so its folder is checked as a configured file's."""
    target = path or paths.db_path()
    problem = paths.db_path_problem() if path is None else None
    if settings is not None:  # the file they configure: its folder is checked as a configured file's
        problem = settings.file_problem()
    problem = problem or paths.db_owner_problem(target)
    if problem is not None:
        message = f"cannot open the database: {problem}"
        raise StoreError(f"cannot open the database at {target}: {problem}", cannot_open_error(message))
    try:
        paths.ensure_private_dir(target.parent)
        if not target.exists():
            # Created by us with mode 0600 before SQLite opens it; SQLite gives -wal/-shm the same mode.
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the database at {target}: {exc}", opening_error(exc)) from exc
    store = kind(conn)
    try:
        _while_busy(store.configure)
        _while_busy(lambda: _adopted(store, target, backup_before_adopting))
        _while_busy(store.migrate)
        _while_busy(store.use_wal)
    except StoreError:
        conn.close()
        raise
    except OSError as exc:  # the adoption's backup could not be written: nothing was adopted
        conn.close()
        raise StoreError(f"cannot back up the database at {target}: {exc}", opening_error(exc)) from exc
    except sqlite3.Error as exc:
        conn.close()
        unwritable = exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL)
        if unwritable and (read_only := _open_read_only(kind, target)) is not None:
            return read_only
        raise StoreError(f"cannot use the database at {target}: {exc}", opening_error(exc)) from exc
    owner_only(target)
    return store


def _adopted(store: SqliteWrites, target: Path, keep_backup: bool) -> None:
    """Adopt the file when the TypeScript MeMesh wrote it; refuse, changing nothing, a file whose `entities` table
    another program made (migrating it would fail half-way into someone else's schema)."""
    match adoption.shape(store.conn):
        case "original":
            adoption.adopt(store, target, keep_backup=keep_backup)
        case "foreign":
            message = (
                "cannot open the database: it holds tables MeMesh did not write (an `entities` table of another "
                "shape); nothing was changed. Point MEMESH_DB_PATH elsewhere, or move the file aside"
            )
            raise StoreError(f"{message} ({target})", cannot_open_error(message))
        case _:
            pass


SIDE_FILES = ("", "-wal", "-shm", "-journal")


def owner_only(target: Path) -> None:
    """Take group and other access off the database and the files SQLite keeps beside it, as every open does (a
    read-only one included) once the file is known to be MeMesh's: a database made by an older version, copied with
    a permissive umask or restored from a backup stops being readable by other accounts. The owner's own bits are
    kept (a read-only backup stays read-only). Where the mode cannot be changed (another owner's file, a read-only
    mount), it is left as it is: the open itself decides what can be done there.
    """
    for suffix in SIDE_FILES:
        path = Path(f"{target}{suffix}")
        try:
            mode = path.stat().st_mode & 0o7777
            if mode & 0o077:
                path.chmod(mode & 0o700)
        except OSError:
            continue


def _open_read_only(kind: type[S], target: Path) -> S | None:
    """The database opened for reading only, when it cannot be written (a read-only file or folder, a full disk)
    and is already a complete MeMesh database; None otherwise. Recall and export then work; a write is refused
    with the read-only error."""
    expected = {version for version, _, _ in MIGRATIONS}
    # mode=ro reads a WAL database while its -shm can be used; immutable=1 when not even that (a read-only folder).
    for options in ("mode=ro", "mode=ro&immutable=1"):
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(
                f"{target.absolute().as_uri()}?{options}", uri=True, isolation_level=None, check_same_thread=False
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        except sqlite3.Error:
            if conn is not None:
                conn.close()
            continue
        if not expected <= done:
            conn.close()
            return None
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        owner_only(target)
        return kind(conn, read_only=True)
    return None


def _while_busy(step: Callable[[], object]) -> None:
    """Run an idempotent set-up step, retrying while another process holds a lock it needs.

    Switching a database into WAL (and the first read of a file another process is just creating) can answer
    SQLITE_BUSY at once, without waiting on the busy timeout, when several processes open one new file together.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
