"""The current project's id, asking git about the working directory (the only place MeMesh runs git).

Asking git takes two or three short processes (and importing subprocess), which a hook pays on every run. The answer
depends only on a few files (the repository's `.git`, its config, the user's git config) and a few variables, so it
is kept with their stamps: in memory for the life of the process, and, for the hooks, in `project-ids.json` in the
MeMesh folder. A stamp that changed (a remote added, a repository created or moved) means git is asked again. Where
the stamps cannot tell (no `.git` above the folder) git is asked once per process, as before.
"""

from __future__ import annotations

import _thread  # not threading: a hook would import it for one lock
import json
import os
from pathlib import Path

GIT_TIMEOUT_SECONDS = 2
CACHE_FILE = "project-ids.json"
CACHE_ENTRIES = 64
# The variables that change where git finds a repository or its config.
_GIT_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "HOME",
    "XDG_CONFIG_HOME",
)
_known: dict[str, tuple[str | None, str]] = {}  # folder -> (stamps, project id) for this process
_lock = _thread.allocate_lock()


def _git(cwd: str, *args: str) -> str | None:
    import subprocess  # only when git must be asked: ~10 ms of imports a hook with a known project skips

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


def _ask_git(cwd: str) -> str:
    from memesh.core.identity import identity_from_path, identity_from_remote  # only when git must be asked

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


def _stamp(path: str) -> list[int] | None:
    try:
        found = os.stat(path)  # noqa: PTH116 (a str path, many times per call)
    except OSError:
        return None
    return [found.st_mtime_ns, found.st_size, found.st_ino, found.st_uid]


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:  # noqa: PTH123
            return handle.read(4096).strip()
    except OSError:
        return ""


def stamps(cwd: str) -> str | None:
    """What git's answer for `cwd` depends on, as one string of file stamps and variables; None when no `.git` is
    found above the folder (git may still find a repository there by other means: ask it)."""
    folder = os.path.realpath(cwd)
    while True:
        dot_git = os.path.join(folder, ".git")  # noqa: PTH118
        if os.path.lexists(dot_git):
            break
        parent = os.path.dirname(folder)  # noqa: PTH120
        if parent == folder:
            return None
        folder = parent
    parts: list[object] = [folder, _stamp(folder), _stamp(dot_git)]
    git_dir = dot_git
    if not os.path.isdir(dot_git):  # noqa: PTH112 (a worktree or submodule: `gitdir: <path>`)
        pointer = _read(dot_git)
        parts.append(pointer)
        git_dir = os.path.join(folder, pointer.removeprefix("gitdir:").strip())  # noqa: PTH118
    common = _read(os.path.join(git_dir, "commondir"))  # noqa: PTH118
    common_dir = os.path.join(git_dir, common) if common else git_dir  # noqa: PTH118
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")  # noqa: PTH118
    for config in (
        os.path.join(git_dir, "config"),  # noqa: PTH118
        os.path.join(common_dir, "config"),  # noqa: PTH118
        os.path.join(home, ".gitconfig"),  # noqa: PTH118
        os.path.join(xdg, "git", "config"),  # noqa: PTH118
        "/etc/gitconfig",
    ):
        parts += [config, _stamp(config)]
    parts += [os.environ.get(name) for name in _GIT_VARIABLES]
    return json.dumps(parts, separators=(",", ":"))


def project_for(cwd: str, cache: Path | None = None) -> str:
    """The project id for `cwd`: from the origin remote, else the repository's real path, else the folder's.
    `cache`: a file that keeps answers across processes (the hooks'), checked against the stamps like the memory."""
    current = stamps(cwd)
    with _lock:
        known = _known.get(cwd)
    if known is not None and known[0] == current:
        return known[1]
    project = _from_file(cache, cwd, current) if cache is not None and current is not None else None
    if project is None:
        project = _ask_git(cwd)
        if cache is not None and current is not None:
            _to_file(cache, cwd, current, project)
    with _lock:
        _known[cwd] = (current, project)
    return project


def _from_file(cache: Path, cwd: str, current: str) -> str | None:
    try:
        entry = json.loads(cache.read_text(encoding="utf-8")).get(cwd)
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(entry, list) and len(entry) == 2 and entry[0] == current and isinstance(entry[1], str):
        return entry[1]
    return None


def _to_file(cache: Path, cwd: str, current: str, project: str) -> None:
    """Add the answer to the cache file (the newest CACHE_ENTRIES folders), replaced whole, owner-only; a cache that
    cannot be written is skipped (git is asked again next time)."""
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = {}
    entries = stored if isinstance(stored, dict) else {}
    entries.pop(cwd, None)
    entries[cwd] = [current, project]
    kept = dict(list(entries.items())[-CACHE_ENTRIES:])
    temporary = cache.with_name(f".{cache.name}.{os.getpid()}.{_thread.get_ident()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(kept, handle)
        temporary.replace(cache)
    except OSError:
        temporary.unlink(missing_ok=True)


def current_project() -> str:
    """The project id of the process's working directory."""
    return project_for(str(Path.cwd()))


def clear() -> None:
    """Forget what this process knows (tests)."""
    with _lock:
        _known.clear()
