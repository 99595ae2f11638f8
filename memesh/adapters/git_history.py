"""The git half of `memesh why`: which commits touched a file (git log --follow) or one line (git blame), with a
typed abstention whenever git cannot say. Runs only from the CLI, in the caller's working tree."""

from __future__ import annotations

import subprocess
from dataclasses import field
from pathlib import Path

from memesh.records import dataclass

GIT_TIMEOUT_SECONDS = 5
READ_LIMIT = 1 << 20
_UNCOMMITTED = "0" * 40


@dataclass
class History:
    commits: list[str] = field(default_factory=list)
    abstentions: list[str] = field(default_factory=list)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, 124, "", "timeout")
    except OSError:
        return None


def history(cwd: Path, file: str, *, limit: int, line: int | None = None) -> History:
    """The commits (newest first) that touched `file`, or the one that last changed `line`."""
    found = History()
    inside = _git(cwd, "rev-parse", "--is-inside-work-tree")
    if inside is None:
        found.abstentions.append("git_unavailable")
        return found
    if inside.returncode != 0:
        found.abstentions.append("not_a_git_repo")
        return found
    tracked = _git(cwd, "ls-files", "--error-unmatch", "--", file)
    if tracked is None or tracked.returncode != 0:
        found.abstentions.append("file_not_tracked")
        return found
    if line is not None:
        blame = _git(cwd, "blame", "--porcelain", "-L", f"{line},{line}", "--", file)
        if blame is None or blame.returncode != 0:
            # git says "file has only N lines" for a line past the end (and "invalid" for 0 or less).
            past_end = blame is not None and ("has only" in blame.stderr or "invalid line" in blame.stderr.lower())
            found.abstentions.append("line_out_of_range" if past_end else "history_unreadable")
            return found
        commit = blame.stdout.split(" ", 1)[0]
        if commit == _UNCOMMITTED:
            found.abstentions.append("line_uncommitted")
        else:
            found.commits.append(commit)
        return found
    log = _git(cwd, "log", "--follow", "--format=%H", f"-n{limit}", "--", file)
    if log is None or log.returncode != 0 or len(log.stdout) > READ_LIMIT:
        found.abstentions.append("history_unreadable")  # the empty list means unknown, never none
        return found
    found.commits = [each for each in log.stdout.split() if each][:limit]
    return found
