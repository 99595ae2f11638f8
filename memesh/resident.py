"""The resident MeMesh server's names (issue 36, docs/adr/0008): where its socket and lock are, whether it is
turned off, and which install it belongs to. Shared by its client (`memesh`, `memesh-hook`), the server itself
(memesh.transports.resident) and `memesh doctor`.

`os` only: the client reads this before it knows whether it will answer warm or cold.
"""

from __future__ import annotations

# ruff: noqa: PTH111, PTH116, PTH118, PTH123  (os.path, not pathlib: pathlib costs the client several ms of imports)
import os

TYPE_CHECKING = False  # not typing's: the client's whole start-up is this module, _socket and the wire
if TYPE_CHECKING:
    from collections.abc import Mapping

# MEMESH_DAEMON=0 (off / false / no): no command looks for the resident server or starts one; config.json's
# `daemon: false` too (read only where a server would be started, and by the server at each request).
SWITCH = "MEMESH_DAEMON"
SETTING = "daemon"
# Seconds without a request after which the server exits (10 minutes unless set).
IDLE_ENV = "MEMESH_DAEMON_IDLE_S"
DEFAULT_IDLE_S = 600.0
# A server no request has reached since it started (the command that started it ran alone) waits this long at most.
FIRST_IDLE_S = 120.0
DB_FILENAME = "knowledge-graph.db"  # memesh.paths.DB_FILENAME (a test holds them equal)
DATABASE_URL_ENV = "MEMESH_DATABASE_URL"  # memesh.paths.DATABASE_URL_ENV (a test holds them equal)
_OFF = ("0", "off", "false", "no")


def switched_off(env: Mapping[str, str]) -> bool:
    """Whether MEMESH_DAEMON turns the resident server off."""
    return env.get(SWITCH, "").strip().lower() in _OFF


def served(env: Mapping[str, str]) -> tuple[str, str]:
    """(MeMesh folder, database) as the client and the server tell whether they share one: the folder and the
    database file resolved as memesh.paths reads MEMESH_DIR and MEMESH_DB_PATH, the database being the PostgreSQL
    URL when MEMESH_DATABASE_URL names one (memesh.transports.hooks.wire.served, which a test holds equal)."""
    folder = env.get("MEMESH_DIR", "").strip()
    folder = os.path.expanduser(folder) if folder else os.path.join(os.path.expanduser("~"), ".memesh")
    db = env.get("MEMESH_DB_PATH", "").strip()
    db = os.path.expanduser(db) if db else os.path.join(folder, DB_FILENAME)
    return os.path.realpath(folder), env.get(DATABASE_URL_ENV, "").strip() or os.path.realpath(db)


def _name(db: str) -> str:
    """16 hex digits naming the database (FNV-1a, 64 bits: no import). Only a name: the server compares the full
    database before it runs anything."""
    value = 0xCBF29CE484222325
    for byte in os.fsencode(db):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def socket_path(folder: str, db: str) -> str:
    """resident-<16 hex>.sock in the MeMesh folder: one server per user and database."""
    return os.path.join(folder, f"resident-{_name(db)}.sock")


def lock_path(folder: str, db: str) -> str:
    """resident-<16 hex>.lock: held (flock) by the one server of the database for its whole life; it holds the
    server's process id."""
    return os.path.join(folder, f"resident-{_name(db)}.lock")


def stamp() -> bytes:
    """The install a process runs: MeMesh's version and its package's modification time (an upgrade rewrites the
    package). A server answers only clients of its own install."""
    import memesh

    try:
        changed = os.stat(memesh.__file__).st_mtime_ns
    except (OSError, TypeError):
        changed = 0
    return f"{memesh.__version__} {changed}".encode()


def setting_allows(folder: str) -> bool:
    """Whether config.json in `folder` leaves the resident server on (`daemon` is anything but false). An
    unreadable file leaves it as it is by default, on."""
    import json

    try:
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as file:
            stored = json.load(file)
    except (OSError, ValueError):
        return True
    return not (isinstance(stored, dict) and stored.get(SETTING) is False)


def idle_seconds(env: Mapping[str, str]) -> float:
    """How long the server waits for a request before it exits (MEMESH_DAEMON_IDLE_S, else 10 minutes)."""
    try:
        value = float(env.get(IDLE_ENV, "") or DEFAULT_IDLE_S)
    except ValueError:
        return DEFAULT_IDLE_S
    return value if value > 0 else DEFAULT_IDLE_S


def idle_limit(idle_s: float, answered: bool) -> float:
    """How long a server waits for its next request: `idle_s` once it has answered one, at most FIRST_IDLE_S before
    (a command run alone, as a test suite or a script runs one in each new folder, leaves no process for long)."""
    return idle_s if answered else min(idle_s, FIRST_IDLE_S)


def running_pid(folder: str, db: str) -> int | None:
    """The process id of the server holding the database's lock, or None when none holds it."""
    import fcntl

    try:
        fd = os.open(lock_path(folder, db), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def state(env: Mapping[str, str]) -> str:
    """What `memesh doctor` says of the resident server: running (pid), off (and why) or not started."""
    if switched_off(env):
        return f"off ({SWITCH}={env.get(SWITCH, '').strip()})"
    folder, db = served(env)
    if not setting_allows(folder):
        return "off (config.json: daemon false)"
    pid = running_pid(folder, db)
    if pid is not None:
        return f"running (pid {pid})"
    return "not started (the next memesh command or hook starts it)"
