"""What git says of one commit the post-commit hook saw: its full hash, its message body and the files it touched."""

from __future__ import annotations

import subprocess

GIT_TIMEOUT_SECONDS = 5


def commit_details(folder: str, short_hash: str) -> tuple[str | None, str, list[str]]:
    """(full hash, body, files) of `short_hash` in the repository of `folder`; (None, "", []) when git cannot say."""
    try:
        done = subprocess.run(
            ["git", "-C", folder, "show", "--no-color", "--format=%H%x00%b%x00", "--name-only", short_hash],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None, "", []
    parts = done.stdout.split("\x00")
    if done.returncode != 0 or len(parts) < 3:
        return None, "", []
    files = [line.strip() for line in parts[2].splitlines() if line.strip()]
    return parts[0].strip() or None, parts[1], files
