"""The whole suite runs in a home of its own: HOME and every path MeMesh (or a host it reads) takes from the
environment point into one temporary folder per test session, set before any test runs, so every process a test
starts inherits them.

What proves the suite never writes to the real home's `.memesh` is attribution, not a before/after listing: the user's
own MeMesh (an agent in use beside a 50-minute run) writes there too, and a listing cannot tell whose write it was.
So every Python process of the suite records its own writes there: the pytest process installs an audit hook
(tests/write_audit/sitecustomize.py, `sys.addaudithook`), and the same folder goes first on PYTHONPATH, so every
Python process a test starts (the CLI, the MCP server, hooks, `memesh serve`) loads it at start-up and appends each
write under the real `.memesh` (an open for writing, a rename, a removal, a new folder, an SQLite connection) to one
log in the session's folder. The session fails when that log is not empty. A write by any other process is no
failure: the listing is still compared, and a difference is only reported as a note.

What the hook cannot see: a process that is not Python, or one a test starts with an environment made from scratch
(no PYTHONPATH). Such a process also gets no HOME of the real home from the suite (HOME is the session's), so it
could reach the real home only through the account database (`pwd`), which MeMesh reads only when HOME is unset.

Under pytest-xdist the controller makes the session folder and each worker takes a home of its own inside it (the
workers inherit the controller's environment, where the real home is remembered). A test can run a pytest of its own
against a stand-in for the real home: MEMESH_TEST_REAL_HOME names it, and then it is the only real home watched.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import tempfile
from pathlib import Path

# Set by the first process of the session (the xdist controller, or the only process) for the others.
REAL_HOME = "PYTEST_MEMESH_REAL_HOME"
SESSION_ROOT = "PYTEST_MEMESH_SESSION_ROOT"
# Where the suite's processes record their writes to the real .memesh, and which folders those are (the names
# tests/write_audit/sitecustomize.py reads).
WRITE_LOG = "PYTEST_MEMESH_WRITE_LOG"
WATCHED = "PYTEST_MEMESH_WATCHED"
# A folder a test's own pytest run takes for the real home instead of the account's (tests/test_isolation.py).
REAL_HOME_OVERRIDE = "MEMESH_TEST_REAL_HOME"
WRITE_AUDIT = Path(__file__).resolve().parent / "write_audit"
# What a served hook forwards (transports/hooks/wire.py) and what MeMesh and its hosts read: none of the caller's
# own settings (a session id, a recipient, a token, a folder) may reach a test.
CLEARED_PREFIXES = ("MEMESH_", "CLAUDE", "CODEX_", "HERMES_")
# Except the suite's own switches (tests/backends.py: MEMESH_TEST_BACKENDS, MEMESH_TEST_REQUIRE_POSTGRES), read after
# isolation when tests are collected: cleared, `make test` could not require PostgreSQL. No product code reads them.
KEPT_PREFIX = "MEMESH_TEST_"
CLEARED = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
# A folder's entries: relative path → size and modification time in ns.
Listing = dict[str, tuple[int, int]]
# Git's identity for tests that commit: the real ~/.gitconfig is out of reach now.
GITCONFIG = "[user]\n\tname = MeMesh tests\n\temail = tests@memesh.invalid\n"


def paths_under(home: Path) -> dict[str, str]:
    """The session's own HOME and MeMesh folder under `home`. Every other path MeMesh or a host reads
    (MEMESH_DB_PATH, CLAUDE_CONFIG_DIR, CODEX_HOME, HERMES_HOME, the XDG folders) is left unset, so it follows these
    two as it does by default, and a test that moves HOME or MEMESH_DIR moves it too."""
    return {"HOME": str(home), "MEMESH_DIR": str(home / ".memesh")}


def cleared(name: str) -> bool:
    """Whether isolation removes the variable `name` from the suite's environment."""
    return (name.startswith(CLEARED_PREFIXES) and not name.startswith(KEPT_PREFIX)) or name in CLEARED


TEST_AUTHOR = "tests@memesh.invalid"  # the session's git identity (GITCONFIG), whatever HOME a child gets


def isolate(worker: str) -> Path:
    """Point this process's environment at a home for `worker` inside the session's folder (made on first call)
    and return that home."""
    if SESSION_ROOT not in os.environ:
        os.environ[REAL_HOME] = os.environ.get(REAL_HOME_OVERRIDE) or str(Path.home())
        os.environ[SESSION_ROOT] = tempfile.mkdtemp(prefix="memesh-tests-")
        os.environ[WRITE_LOG] = str(Path(os.environ[SESSION_ROOT]) / "writes-to-the-real-memesh.log")
        os.environ[WATCHED] = os.pathsep.join(str(folder) for folder in real_memesh_folders())
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(WRITE_AUDIT), os.environ.get("PYTHONPATH")]))
    _audit_this_process()
    home = Path(os.environ[SESSION_ROOT]) / worker / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(GITCONFIG, encoding="utf-8")
    for name in [name for name in os.environ if cleared(name)]:
        del os.environ[name]
    os.environ.update(paths_under(home))
    # No test reaches the package index: servers started by tests (and their children) skip the update check.
    os.environ["MEMESH_UPDATE_CHECK"] = "0"
    # No resident server (issue 36): a cold CLI command or hook would otherwise start one per test's database and
    # leave hundreds behind. The resident server's own tests (tests/transports/resident/) turn it on, and stop
    # every server they start.
    os.environ["MEMESH_DAEMON"] = "0"
    # One local author for every process the suite starts (issue 32): otherwise it would be git's user.email of
    # whichever HOME a test gives its child, and two servers compared answer for answer would differ by it.
    os.environ["MEMESH_AUTHOR"] = TEST_AUTHOR
    return home


def _audit_this_process() -> None:
    """Record this process's own writes too: it started before PYTHONPATH named the hook."""
    spec = importlib.util.spec_from_file_location("memesh_write_audit", WRITE_AUDIT / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install(os.environ[WRITE_LOG], os.environ[WATCHED])


def suite_writes() -> list[str]:
    """Each write a process of the suite made under the real .memesh (pid, event, path), in order."""
    log = Path(os.environ[WRITE_LOG])
    return log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []


def real_memesh_folders() -> list[Path]:
    """The real home's .memesh: HOME's as the session found it, and the account's own (where a process started
    without HOME in its environment would look); only the stand-in's when a test names one."""
    if os.environ.get(REAL_HOME_OVERRIDE):
        return [Path(os.environ[REAL_HOME_OVERRIDE]) / ".memesh"]
    homes = [Path(os.environ.get(REAL_HOME) or Path.home()), Path(pwd.getpwuid(os.getuid()).pw_dir)]
    return [home / ".memesh" for home in dict.fromkeys(homes)]


def listings() -> dict[Path, Listing]:
    return {folder: listing(folder) for folder in real_memesh_folders()}


def listing(folder: Path) -> Listing:
    """Every entry under `folder` (relative path → size and modification time in ns); empty when it is absent."""
    found: Listing = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*")):
        try:
            status = path.lstat()
        except FileNotFoundError:
            continue
        found[path.relative_to(folder).as_posix()] = (status.st_size, status.st_mtime_ns)
    # The folder's own time changes when an entry is added or removed, even one removed again since.
    with contextlib.suppress(FileNotFoundError):
        found["."] = (0, folder.lstat().st_mtime_ns)
    return found


def changes(before: Listing, after: Listing) -> list[str]:
    """What differs between two listings, one line per entry."""
    lines = [f"added {name}" for name in sorted(set(after) - set(before))]
    lines += [f"removed {name}" for name in sorted(set(before) - set(after))]
    lines += [f"changed {name}" for name in sorted(set(before) & set(after)) if before[name] != after[name]]
    return lines


def remove_session_root() -> None:
    shutil.rmtree(os.environ[SESSION_ROOT], ignore_errors=True)


RESIDENT_MODULE = b"memesh.transports.resident"


def stray_residents(roots: list[str]) -> list[int]:
    """Resident servers (issue 36) of this interpreter whose MeMesh folder or home lies under one of `roots` (the
    session's own folder and pytest's temporary folder), or that inherited this session's environment: what a test
    started and did not stop. The suite turns the server off (MEMESH_DAEMON=0) and the resident server's tests stop
    each one they start, so any found is a test's leak."""
    import sys

    session = os.environ.get(SESSION_ROOT, "").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if RESIDENT_MODULE not in command or os.fsdecode(command[0]) != sys.executable:
                continue
            environ = dict(
                item.split(b"=", 1) for item in (entry / "environ").read_bytes().split(b"\0") if b"=" in item
            )
        except (OSError, ValueError):
            continue
        places = [os.fsdecode(environ.get(name, b"")) for name in (b"MEMESH_DIR", b"HOME", b"MEMESH_DB_PATH")]
        inherited = bool(session) and environ.get(SESSION_ROOT.encode()) == session
        if inherited or any(place and place.startswith(tuple(roots)) for place in places):
            found.append(int(entry.name))
    return found
