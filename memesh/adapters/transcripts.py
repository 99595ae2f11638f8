"""Claude Code transcripts on disk: the client's workspace root, and the session files Claude Code keeps for it.

Claude Code writes one JSONL file per session under `~/.claude/projects/<slug>/` (`$CLAUDE_CONFIG_DIR/projects`
when that is set), where the slug is the session's working folder with every character other than an ASCII letter
or digit turned into `-`; its hooks name the same file as `transcript_path`. Reads are bounded before anything is
parsed, and a path never leaves this module: sessions are named by their id alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

from memesh.core.proposals import sha256_of
from memesh.core.transcripts import recorded_cwd
from memesh.core.work_package import WORKSPACE_AMBIGUOUS, WORKSPACE_UNAVAILABLE
from memesh.model import iso_time
from memesh.records import dataclass

WINDOW_DAYS = 3
MAX_CANDIDATES = 256
SOURCE_MAX_BYTES = 8 * 1024 * 1024
SCAN_MAX_BYTES = 16 * 1024 * 1024
_SLUG = re.compile(r"[^A-Za-z0-9]")

UNAVAILABLE = WORKSPACE_UNAVAILABLE
AMBIGUOUS = WORKSPACE_AMBIGUOUS


def projects_dir() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(configured).expanduser() if configured else Path.home() / ".claude"
    return base / "projects"


def slug(folder: str) -> str:
    return _SLUG.sub("-", folder)


@dataclass(frozen=True)
class Workspace:
    """The one canonical root the client offered for the project; `hash` binds a package to it without its path."""

    root: str

    @property
    def hash(self) -> str:
        return sha256_of({"version": "workspace-v1", "workspace": self.root})

    def scan(self, now: datetime) -> Scan:
        """The sessions of this workspace a package may be built from (see `scan`)."""
        return scan(self, now)


def _root_path(uri: str) -> str | None:
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or not parts.path:
        return None
    try:
        path = os.path.realpath(unquote(parts.path, errors="strict"))
    except (UnicodeDecodeError, OSError, ValueError):
        return None
    return path if Path(path).is_dir() else None


def resolve_workspace(
    project: str, root_uris: Sequence[str] | None, project_for: Callable[[str], str]
) -> Workspace | str:
    """The single offered root whose project identity is `project`, else workspace_unavailable (no roots, none
    usable, none matching) or workspace_ambiguous (several distinct roots match)."""
    if not root_uris:
        return UNAVAILABLE
    matches: set[str] = set()
    for uri in root_uris:
        path = _root_path(uri)
        if path is not None and project_for(path) == project:
            matches.add(path)
    if not matches:
        return UNAVAILABLE
    if len(matches) > 1:
        return AMBIGUOUS
    return Workspace(matches.pop())


@dataclass(frozen=True)
class Session:
    """One transcript read whole: its id (the file name), bytes, content hash and modification time."""

    session_id: str
    data: bytes
    source_hash: str
    modified_at: str


@dataclass
class Scan:
    sessions: list[Session] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count


def _read(path: Path, expected_size: int) -> bytes | None:
    """The file's bytes, or None when it is not a regular file any more, grew past the cap, or changed size."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > SOURCE_MAX_BYTES or info.st_size != expected_size:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(SOURCE_MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == expected_size else None


def scan(workspace: Workspace, now: datetime, folder: Path | None = None) -> Scan:
    """The workspace's sessions modified in the last 3 days, newest first, each recording the workspace as its cwd.

    More than 256 candidates refuses the directory; a file over 8 MiB is skipped; more than 16 MiB of eligible
    input refuses the scan. What was left out is counted by reason in `skipped`.
    """
    result = Scan()
    directory = (folder or projects_dir()) / slug(workspace.root)
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return result
        names = sorted(entry.name for entry in directory.iterdir() if entry.name.endswith(".jsonl"))
    except OSError:
        return result
    if len(names) > MAX_CANDIDATES:
        result.skip("too_many_candidates", len(names))
        return result
    cutoff = (now - timedelta(days=WINDOW_DAYS)).timestamp()
    eligible: list[tuple[str, os.stat_result]] = []
    planned = 0
    for name in names:
        try:
            info = os.lstat(directory / name)
        except OSError:
            result.skip("unreadable")
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_mtime < cutoff:
            continue
        if info.st_size > SOURCE_MAX_BYTES:
            result.skip("too_large")
            continue
        planned += info.st_size
        eligible.append((name, info))
    if planned > SCAN_MAX_BYTES:
        result.skip("scan_too_large", len(eligible))
        return result
    for name, info in eligible:
        data = _read(directory / name, info.st_size)
        if data is None:
            result.skip("unreadable")
            continue
        cwd = recorded_cwd(data)
        if cwd is None:
            result.skip("no_recorded_cwd")
            continue
        if not _same_folder(cwd, workspace.root):
            result.skip("other_project")
            continue
        modified = datetime.fromtimestamp(info.st_mtime, UTC)
        result.sessions.append(
            Session(name.removesuffix(".jsonl"), data, hashlib.sha256(data).hexdigest(), iso_time(modified))
        )
    result.sessions.sort(key=lambda session: session.session_id)
    result.sessions.sort(key=lambda session: session.modified_at, reverse=True)
    return result


def recent_session_ids(folder: str, now: datetime, projects: Path | None = None) -> list[str]:
    """The ids of the sessions Claude Code keeps for `folder` that a scan would read (modified in the window, at most
    8 MiB each, within the candidate and scan limits), newest first, from file metadata alone."""
    try:
        root = os.path.realpath(folder)
    except (OSError, ValueError):
        return []
    directory = (projects or projects_dir()) / slug(root)
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return []
        entries = [entry for entry in os.scandir(directory) if entry.name.endswith(".jsonl")]
    except OSError:
        return []
    if len(entries) > MAX_CANDIDATES:
        return []
    cutoff = (now - timedelta(days=WINDOW_DAYS)).timestamp()
    found: list[tuple[float, str]] = []
    total = 0
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mtime >= cutoff and info.st_size <= SOURCE_MAX_BYTES:
            total += info.st_size
            found.append((info.st_mtime, entry.name.removesuffix(".jsonl")))
    if total > SCAN_MAX_BYTES:
        return []
    return [session_id for _, session_id in sorted(found, reverse=True)]


def _same_folder(recorded: str, root: str) -> bool:
    if os.path.normpath(recorded) == root:
        return True
    try:
        return os.path.realpath(recorded) == root
    except (OSError, ValueError):
        return False


def home_prefix() -> str | None:
    """The user's home folder, which turn text shows as `~` (a user name is part of it)."""
    home = str(Path.home())
    return home if home not in ("", "/") else None


class TranscriptFiles:
    """The Claude Code transcripts of this machine, as the work_package operation reads them (handed in by the
    composition root): the workspace of a project among the client's roots, its sessions, and the home folder."""

    def workspace(self, project: str, root_uris: Sequence[str] | None) -> Workspace | str:
        from memesh.adapters.project_git import project_for

        return resolve_workspace(project, root_uris, project_for)

    def recent_session_ids(self, folder: str, now: datetime) -> list[str]:
        return recent_session_ids(folder, now)

    def home_prefix(self) -> str | None:
        return home_prefix()
