"""The current project's id, asking git about the working directory (the only place MeMesh runs git)."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

from memesh.core.identity import identity_from_path, identity_from_remote

GIT_TIMEOUT_SECONDS = 2


def _git(cwd: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", cwd, *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    output = done.stdout.strip()
    return output if done.returncode == 0 and output else None


@cache
def project_for(cwd: str) -> str:
    """The project id for `cwd`: from the origin remote, else the repository's real path, else the folder's."""
    remote = _git(cwd, "config", "--get", "remote.origin.url")
    if remote:
        from_remote = identity_from_remote(remote)
        if from_remote:
            return from_remote
    root = cwd
    top = _git(cwd, "rev-parse", "--show-toplevel")
    if top:
        root = top
        common = _git(cwd, "rev-parse", "--git-common-dir")
        if common:
            common_path = Path(cwd, common)
            # Worktrees of one repository share its .git folder, so they share one project.
            if common_path.name == ".git":
                root = str(common_path.parent)
    return identity_from_path(os.path.realpath(root))


def current_project() -> str:
    """The project id of the process's working directory."""
    return project_for(str(Path.cwd()))
