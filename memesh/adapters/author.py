"""Who this install writes as, locally (issue 32): MEMESH_AUTHOR, else config.json's `author`, else git's
`user.email`, else the OS user name. Read once per process and cached: git is asked at most once, and only when a
write asks for the author (never on a hook's trigger pre-filter)."""

from __future__ import annotations

import functools
import os
import subprocess

AUTHOR_ENV = "MEMESH_AUTHOR"
AUTHOR_MAX = 128
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
    from memesh.adapters import config_file

    value = config_file.read_or_defaults().get("author")
    return value.strip() or None if isinstance(value, str) else None


@functools.cache
def local_author() -> str | None:
    """The local author setting, cached for the process; None when nothing names one."""
    from memesh.core.clean import clean_label

    for source in (_from_environment, _configured, _git_email, _os_user):
        value = source()
        if value:
            cleaned = clean_label(value)[:AUTHOR_MAX].strip()
            if cleaned:
                return cleaned
    return None
