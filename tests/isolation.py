"""The whole suite runs in a home of its own: HOME and every path MeMesh (or a host it reads) takes from the
environment point into one temporary folder per test session, set before any test runs, so every process a test
starts inherits them. The real home's `.memesh` is listed before that and again when the session ends: a difference
fails the run.

Under pytest-xdist the controller makes the session folder and each worker takes a home of its own inside it (the
workers inherit the controller's environment, where the real home is remembered).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import tempfile
from pathlib import Path

# Set by the first process of the session (the xdist controller, or the only process) for the others.
REAL_HOME = "PYTEST_MEMESH_REAL_HOME"
SESSION_ROOT = "PYTEST_MEMESH_SESSION_ROOT"
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
        os.environ[REAL_HOME] = str(Path.home())
        os.environ[SESSION_ROOT] = tempfile.mkdtemp(prefix="memesh-tests-")
    home = Path(os.environ[SESSION_ROOT]) / worker / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(GITCONFIG, encoding="utf-8")
    for name in [name for name in os.environ if cleared(name)]:
        del os.environ[name]
    os.environ.update(paths_under(home))
    # No test reaches the package index: servers started by tests (and their children) skip the update check.
    os.environ["MEMESH_UPDATE_CHECK"] = "0"
    # One local author for every process the suite starts (issue 32): otherwise it would be git's user.email of
    # whichever HOME a test gives its child, and two servers compared answer for answer would differ by it.
    os.environ["MEMESH_AUTHOR"] = TEST_AUTHOR
    return home


def real_memesh_folders() -> list[Path]:
    """The real home's .memesh: HOME's as the session found it, and the account's own (where a process started
    without HOME in its environment would look)."""
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
