"""Loaded by every Python process the test suite starts (tests/isolation.py puts this folder on PYTHONPATH): records
each write this process makes under the real home's .memesh, so the session's end can tell the suite's writes from
those of the user's own MeMesh running beside it. Standard library only, and cheap: it runs on every open."""

from __future__ import annotations

import os
import sys

# Not `from typing import ...`: a startup test that counts what a process imports must not see typing here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOG = "PYTEST_MEMESH_WRITE_LOG"  # the file every suite process appends its writes to
WATCHED = "PYTEST_MEMESH_WATCHED"  # the real .memesh folders, os.pathsep-separated
INSTALLED = "_memesh_write_audit"  # on sys: a second install (the pytest process itself) adds no second hook

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
# Audit events that change the file system, and which of their arguments are paths.
PATH_EVENTS = {
    "os.remove": (0,),
    "os.rename": (0, 1),
    "os.mkdir": (0,),
    "os.rmdir": (0,),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.move": (0, 1),
    "sqlite3.connect": (0,),
}


def _folders(watched: str) -> tuple[str, ...]:
    folders = [folder for folder in watched.split(os.pathsep) if folder]
    return tuple(dict.fromkeys(folders + [os.path.realpath(folder) for folder in folders]))


def _under(path: Any, folders: tuple[str, ...]) -> str | None:
    """`path` made absolute when it names something under one of `folders`; None otherwise (or for a descriptor)."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    elif not isinstance(path, str):
        if not hasattr(path, "__fspath__"):
            return None
        path = os.fsdecode(os.fspath(path))
    # abspath, not Path.resolve(): no system call per open of every process under test
    absolute: str = os.path.abspath(path)  # noqa: PTH100
    for folder in folders:
        if absolute == folder or absolute.startswith(folder + os.sep):
            return absolute
    return None


def _writes(event: str, args: tuple[Any, ...]) -> list[Any]:
    """The paths `event` writes to."""
    if event == "open":
        path, mode, flags = args
        if isinstance(mode, str) and any(letter in mode for letter in "wax+"):
            return [path]
        return [path] if isinstance(flags, int) and flags & WRITE_FLAGS else []
    return [args[index] for index in PATH_EVENTS.get(event, ()) if index < len(args)]


def install(log: str, watched: str) -> None:
    if getattr(sys, INSTALLED, False):
        return
    setattr(sys, INSTALLED, True)
    folders = _folders(watched)
    busy: list[bool] = []  # set while recording: the log's own open is not a write to watch

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if busy or (event != "open" and event not in PATH_EVENTS):
            return
        try:
            hits = [hit for hit in (_under(path, folders) for path in _writes(event, args)) if hit]
        except Exception:  # an argument of a shape this does not know: never break the process under test
            return
        if not hits:
            return
        busy.append(True)
        try:
            line = "".join(f"{os.getpid()}\t{event}\t{hit}\n" for hit in hits)
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
        except OSError:
            pass
        finally:
            busy.clear()

    sys.addaudithook(hook)


if os.environ.get(LOG) and os.environ.get(WATCHED):
    install(os.environ[LOG], os.environ[WATCHED])
