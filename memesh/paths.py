"""Where MeMesh keeps its files: `~/.memesh` (MEMESH_DIR) and the database in it (MEMESH_DB_PATH), or the shared
PostgreSQL database that holds the data instead (MEMESH_DATABASE_URL, or `database` in config.json: chosen by the
process's settings, `memesh.settings`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

DB_FILENAME = "knowledge-graph.db"


def memesh_dir() -> Path:
    """The owner-private folder for config, tokens and (by default) the database."""
    configured = os.environ.get("MEMESH_DIR", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".memesh"


def db_path() -> Path:
    """The database file: MEMESH_DB_PATH when set, else knowledge-graph.db inside memesh_dir()."""
    configured = os.environ.get("MEMESH_DB_PATH", "").strip()
    return Path(configured).expanduser() if configured else memesh_dir() / DB_FILENAME


ROUTER_SOCKET = "router.sock"


def router_socket() -> Path:
    """The local message router's owner-private socket: router.sock in memesh_dir() (docs/adr/0004)."""
    return memesh_dir() / ROUTER_SOCKET


def foreign_owner(path: Path) -> int | None:
    """The uid that owns `path` when it is not this user; None when it is this user's, or missing."""
    try:
        uid = path.stat().st_uid
    except OSError:
        return None
    return None if uid == os.getuid() else uid


def foreign_folder(folder: Path, uid: int, unused: str = "its router is not used") -> str:
    """What to say about a MeMesh folder another user owns: whose it is, what is not used, and the fix."""
    return (
        f"the MeMesh folder {folder} belongs to another user (uid {uid}), so {unused}; "
        "set MEMESH_DIR to a folder of your own, or have the folder's owner give it to you (chown)"
    )


FOREIGN_DB_FOLDER = (
    "the MeMesh folder belongs to another user, so its database is not used; set MEMESH_DIR to a folder of your "
    "own, or have the folder's owner give it to you (chown)"
)
FOREIGN_DB_FILE = (
    "the database file belongs to another user, so it is not used; point MEMESH_DB_PATH at a file of your own, "
    "or have the file's owner give it to you (chown)"
)


def db_owner_problem(target: Path) -> str | None:
    """Why the database at `target` must not be opened because another user owns it, or None.

    Another user's MeMesh folder, or a database file another user made, lets that user plant the file and read what
    is written next; the router refuses such a folder the same way. A database of our own kept in a shared folder
    (MEMESH_DB_PATH elsewhere) is not refused for the folder alone: only the MeMesh folder is meant to be private.
    """
    folder = target.parent
    if folder.absolute() == memesh_dir().absolute() and (uid := foreign_owner(folder)) is not None:
        warn_once(foreign_folder(folder, uid, "its database is not used"))
        return FOREIGN_DB_FOLDER
    try:
        owner = target.lstat().st_uid
    except OSError:
        return None
    return None if owner == os.getuid() else FOREIGN_DB_FILE


_WARNED: set[str] = set()


def warn_once(text: str) -> None:
    """`text` on stderr, the first time this process has it to say (a refusal repeated on every send says nothing
    new)."""
    if text not in _WARNED:
        _WARNED.add(text)
        print(f"memesh: {text}", file=sys.stderr, flush=True)


MISSING_DB_FOLDER = "MEMESH_DB_PATH is in a folder that does not exist; create the folder, or correct the variable"


def db_path_problem() -> str | None:
    """Why MEMESH_DB_PATH cannot be used as set, or None when it is unset or usable.

    A mistyped path must not quietly start a new, empty database, so its folder must exist, unless that folder is
    MeMesh's own (MEMESH_DIR, default ~/.memesh): that one is created on first use whichever variable names it.
    """
    configured = os.environ.get("MEMESH_DB_PATH", "").strip()
    if not configured:
        return None
    folder = Path(configured).expanduser().parent
    if folder.is_dir() or folder.absolute() == memesh_dir().absolute():
        return None
    return MISSING_DB_FOLDER


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (mode 0700) if missing; an existing folder keeps the mode its owner gave it."""
    if not path.exists():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.chmod(0o700)
    return path


DATABASE_URL_ENV = "MEMESH_DATABASE_URL"
URL_SCHEMES = ("postgresql://", "postgres://")


class DatabaseSettingError(ValueError):
    """The database setting is not a PostgreSQL URL (its text is not repeated: it may hold a password)."""


def write_new_secret(path: Path, value: str) -> None:
    """Write `value` (and a newline) beside `path` at mode 0600, then link it into place, which fails
    (FileExistsError) when the file exists: the file appears whole or not at all, so a second server starting at the
    same moment reads the first one's secret, never an empty file it has only just created (an O_EXCL create
    followed by a write left that gap). The remote token and the sign-in key are made this way."""
    import contextlib
    import secrets

    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.link(draft, path)
    finally:
        with contextlib.suppress(OSError):
            draft.unlink()


DATABASE_POOLER_ENV = "MEMESH_DATABASE_POOLER"
POOLER_MODES = ("transaction", "session")


def database_pooler_mode() -> str | None:
    """MEMESH_DATABASE_POOLER as set: "transaction" (a pooler that hands each transaction to any server connection:
    nothing may outlive a transaction), "session" (a server connection per client, or no pooler: as without a
    pooler), or None when unset (a pooler is detected at connect). DatabaseSettingError for any other value."""
    configured = os.environ.get(DATABASE_POOLER_ENV, "").strip().lower()
    if not configured:
        return None
    if configured not in POOLER_MODES:
        raise DatabaseSettingError(f"{DATABASE_POOLER_ENV} must be transaction or session (or unset)")
    return configured


def database_pooler() -> str | None:
    """The pooler mode the setting asks for: "transaction" when MEMESH_DATABASE_POOLER says the database is behind a
    transaction-mode pooler (PgBouncer's pool_mode=transaction, a managed service's pooled port), else None. A
    process that must know whether its own connection is pooled (a pooler detected with the variable unset) asks the
    store's `PgConnection.pooled`."""
    return "transaction" if database_pooler_mode() == "transaction" else None
