"""Who this install writes as, locally (issue 32): MEMESH_AUTHOR, else config.json's `author`, else git's
`user.email`, else the OS user name. Read once per process and cached: git is asked at most once, and only when a
write asks for the author (never on a hook's trigger pre-filter)."""

from __future__ import annotations

import functools
import os
import subprocess

from memesh.core.authors import AUTHOR_MAX, shown_author

AUTHOR_ENV = "MEMESH_AUTHOR"
__all__ = ["AUTHOR_ENV", "AUTHOR_MAX", "local_author"]
GIT_TIMEOUT_S = 2


def _git_email() -> str | None:
    try:
        done = subprocess.run(
            ["git", "config", "--get", "user.email"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _os_user() -> str | None:
    import getpass

    try:
        return getpass.getuser() or None
    except Exception:  # no user name for this uid (a container): no author rather than a failed write
        return None


def _from_environment() -> str | None:
    return os.environ.get(AUTHOR_ENV, "").strip() or None


def _configured() -> str | None:
    # Through the one reader of config.json (an unreadable file is the settings commands' to report), not the
    # settings rules, which cost more to import than this one key is worth.
    from memesh import paths
    from memesh.settings import ConfigUnreadable, read_config

    try:
        value = read_config(paths.memesh_dir()).get("author")
    except ConfigUnreadable:
        return None
    return value.strip() or None if isinstance(value, str) else None


@functools.cache
def local_author() -> str | None:
    """The local author setting, cached for the process; None when nothing names one."""
    for source in (_from_environment, _configured, _git_email, _os_user):
        value = source()
        if value:
            # One line, no control characters; credential redaction is the store's, which cleans every string it
            # writes (the cleaner's patterns cost ~0.1 s to load, which a write pays anyway).
            shown = shown_author(value)
            if shown:
                return shown
    return None
