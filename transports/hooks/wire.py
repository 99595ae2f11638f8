"""The warm hook path's wire, shared by the thin client (`client.py`) and the server in memesh-mcp (`server.py`).

Only `os` is imported here: the client's whole start-up is this module and `_socket`. A frame is length-prefixed
fields (4-byte big-endian length, then the bytes), so neither side needs json or struct to read it.

Request (client → server): MAGIC, the frame's length, then the fields version, event, working directory, MeMesh
folder, database (both resolved; a PostgreSQL database by its URL: `served`), the forwarded environment
(NAME=value\\0 …) and the hook's stdin bytes.
Answer (server → client): one byte, REFUSE (then a frame holding the reason: nothing ran, the client runs the hook
itself) or ACCEPT (the server runs it; then a frame holding the exit status and the stdout bytes).
"""

from __future__ import annotations  # free: memesh/__init__.py imported it already

# ruff: noqa: PTH102, PTH103, PTH111, PTH112, PTH118, PTH119, PTH120  (os.path, not pathlib: pathlib costs the client several ms of imports)
import os

TYPE_CHECKING = False  # not `from typing import TYPE_CHECKING`: typing costs the client measurable start-up
if TYPE_CHECKING:
    from collections.abc import Mapping

MAGIC = b"MMH1"
ACCEPT = b"A"
REFUSE = b"R"
MAX_STDIN = 8 << 20  # what a hook reads of its stdin; more is malformed input
MAX_FRAME = MAX_STDIN + (1 << 20)  # stdin plus the other fields
DB_FILENAME = "knowledge-graph.db"  # memesh.paths.DB_FILENAME (a test holds them equal)
DATABASE_URL_ENV = "MEMESH_DATABASE_URL"  # memesh.paths.DATABASE_URL_ENV (a test holds them equal)
# The environment a served hook sees is its client's: the variables MeMesh's handlers read, by prefix (CLAUDE
# without the underscore takes CLAUDECODE too; GEMINI_ for Gemini CLI's hook marks, PLUGIN_ROOT for Codex's), never
# a credential-shaped name (no handler reads one; GEMINI_API_KEY stays behind).
FORWARDED_PREFIXES = ("MEMESH_", "CLAUDE", "CODEX_", "GEMINI_", "PLUGIN_ROOT")
NOT_FORWARDED = ("TOKEN", "SECRET", "PASSWORD", "KEY", "AUTH", "CREDENTIAL")
# Set to 0 / off / false / no: memesh-mcp serves no hooks, and memesh-hook never looks for a server.
SWITCH = "MEMESH_HOOK_SERVER"
# How long the client waits, in seconds: for the server's accept or refusal, then for the answer, by event. Each
# is well below the timeout hooks/hooks.json gives the event (10 s; 15 s after a tool; 30 s for Stop and PreCompact).
ACCEPT_TIMEOUT_S = 2.0
ANSWER_TIMEOUT_S = {
    "session-start": 6.0,
    "user-prompt-submit": 6.0,
    "pre-tool-use": 6.0,
    "post-tool-use": 9.0,
    "stop": 20.0,
    "stop-gate": 6.0,
    "pre-compact": 20.0,
}
DEFAULT_ANSWER_TIMEOUT_S = 6.0


# hook-heartbeats/ beside the database: one empty file per event whose modification time is the event's last run,
# touched by memesh-hook before anything else (so doctor can tell hooks that run from hooks that record nothing), and
# `.began`, created once, when tracking began.
HEARTBEATS = "hook-heartbeats"
BEGAN = ".began"


def beat(env: Mapping[str, str], event: str) -> None:
    """Touch the event's heartbeat (a known event only: the name becomes a file name); never fails."""
    if event not in ANSWER_TIMEOUT_S:
        return
    folder = os.path.join(os.path.dirname(locations(env)[1]), HEARTBEATS)
    path = os.path.join(folder, event)
    try:
        os.utime(path, follow_symlinks=False)
        return
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        if not os.path.isdir(folder):
            # The database's folder too, as the outcome records create it (0700): the first hook of an install beats.
            os.makedirs(os.path.dirname(folder), 0o700, exist_ok=True)
            os.mkdir(folder, 0o700)
        for name in (BEGAN, event):  # O_EXCL: `.began` keeps the first beat's time
            try:  # noqa: SIM105 (contextlib is one more import on the client's start-up)
                os.close(
                    os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                )
            except FileExistsError:
                pass
    except OSError:
        pass


def enabled(env: Mapping[str, str]) -> bool:
    return env.get(SWITCH, "").strip().lower() not in ("0", "off", "false", "no")


def locations(env: Mapping[str, str]) -> tuple[str, str]:
    """(MeMesh folder, database file), resolved, as memesh.paths reads MEMESH_DIR and MEMESH_DB_PATH."""
    folder = env.get("MEMESH_DIR", "").strip()
    folder = os.path.expanduser(folder) if folder else os.path.join(os.path.expanduser("~"), ".memesh")
    db = env.get("MEMESH_DB_PATH", "").strip()
    db = os.path.expanduser(db) if db else os.path.join(folder, DB_FILENAME)
    return os.path.realpath(folder), os.path.realpath(db)


def served(env: Mapping[str, str]) -> tuple[str, str]:
    """(MeMesh folder, database) as a hook and a server tell whether they share one: the database is the
    PostgreSQL URL MEMESH_DATABASE_URL names (memesh.paths.DATABASE_URL_ENV), else the resolved file. A hook of
    another database must never run in this server, even under the same MEMESH_DB_PATH (whose folder keeps the
    local files on either engine): the socket is named by it and the server compares it. config.json's `database`
    is read from that folder by both sides alike, so it needs no place here."""
    folder, db = locations(env)
    return folder, env.get(DATABASE_URL_ENV, "").strip() or db


def socket_path(folder: str, db: str) -> str:
    """hook-<16 hex>.sock in the MeMesh folder, named by a hash of the resolved database path (FNV-1a, 64 bits: no
    import). A hash is only a name: the server compares the full paths before it runs anything."""
    value = 0xCBF29CE484222325
    for byte in os.fsencode(db):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return os.path.join(folder, f"hook-{value:016x}.sock")


SUN_PATH_MAX = 100  # a socket address holds 108 bytes on Linux (104 on macOS), its terminating NUL included


def address(path: str) -> tuple[str, int | None]:
    """The address to bind or connect to for the socket file `path`, and a descriptor to close afterwards.

    A MeMesh folder deep enough to push the path past what a socket address holds is reached through its open
    descriptor (/proc/self/fd/N/<name>, Linux), so the warm path works in any folder; elsewhere such a path fails
    to bind, and hooks run in their own processes."""
    if len(os.fsencode(path)) < SUN_PATH_MAX or not os.path.isdir("/proc/self/fd"):
        return path, None
    try:
        fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return path, None
    return f"/proc/self/fd/{fd}/{os.path.basename(path)}", fd


def forwarded(environ: Mapping[bytes, bytes]) -> bytes:
    """The forwarded variables of a bytes environment (os.environb), as NAME=value\\0 …"""
    prefixes = tuple(prefix.encode() for prefix in FORWARDED_PREFIXES)
    refused = tuple(word.encode() for word in NOT_FORWARDED)
    return b"".join(
        name + b"=" + value + b"\0"
        for name, value in environ.items()
        if name.startswith(prefixes) and not any(word in name for word in refused)
    )


def environment(block: bytes) -> dict[str, str]:
    """The forwarded variables, read back (os.fsdecode: any byte survives)."""
    found: dict[str, str] = {}
    for item in block.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep and name:
            found[os.fsdecode(name)] = os.fsdecode(value)
    return found


def pack(*fields: bytes) -> bytes:
    """Fields as one frame body: each as its 4-byte big-endian length, then its bytes."""
    return b"".join(len(field).to_bytes(4, "big") + field for field in fields)


def unpack(body: bytes) -> list[bytes]:
    """The fields of a frame body; ValueError when it is not one."""
    fields, at = [], 0
    while at < len(body):
        if at + 4 > len(body):
            raise ValueError("truncated field length")
        size = int.from_bytes(body[at : at + 4], "big")
        at += 4
        if at + size > len(body):
            raise ValueError("truncated field")
        fields.append(body[at : at + size])
        at += size
    return fields


def framed(*fields: bytes) -> bytes:
    """A frame: its body's length, then the body."""
    body = pack(*fields)
    return len(body).to_bytes(4, "big") + body
