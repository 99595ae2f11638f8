"""`memesh kg rename-project`: list the projects, preview a rename on a copy, or apply it after a backup.

The preview does not estimate: it runs the real rename on a private copy of the database (migrations, indexes and
triggers included) and reports those counts, so they are the ones --apply produces. The database file's own work —
the read-only open, the copy, the backup — is the database file's (memesh.store.database_file, handed in by the
composition root); what to do, and what to say when it fails, is decided here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.cli.rename_project_input import RenameProjectInput
from memesh.generated.cli.rename_project_output import RenameProjectOutput
from memesh.values import RenameRefused

PROJECT_MAX = 200
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_ABSOLUTE = re.compile(r"^(?:/|\\|[A-Za-z]:[\\/])")
NO_DATABASE = "No MeMesh database yet"
T = TypeVar("T")


class RenameStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def rename_project(self, old: str, new: str) -> dict[str, int]: ...


class ProjectCounts(Protocol):
    def project_counts(self) -> dict[str, dict[str, int]]: ...


class ReadOnly(Protocol):
    """The database opened read-only: nothing written, nothing created."""

    @property
    def store(self) -> ProjectCounts: ...
    def on_a_private_copy(self, work: Callable[[RenameStore], Result[T, MemeshError]]) -> Result[T, MemeshError]: ...
    def close(self) -> None: ...


class Writable(Protocol):
    @property
    def store(self) -> RenameStore: ...
    def can_write(self) -> bool: ...
    def backup(self, name: str) -> Result[Path, MemeshError]: ...
    def restore_command(self, backup: Path) -> str: ...
    def database_failure(self, exc: Exception) -> MemeshError | None: ...
    def close(self) -> None: ...


class DatabaseFile(Protocol):
    def exists(self) -> bool: ...
    def open_readonly(self) -> Result[ReadOnly | None, MemeshError]: ...
    def open_for_writing(self) -> Result[Writable, MemeshError]: ...


def project_name(value: str) -> str:
    """The project as the command takes it: a `project:` prefix is the tag's, not part of the name."""
    return value.strip().removeprefix("project:")


def arguments_problem(old: str | None, new: str | None, apply: bool) -> str | None:
    """Why the flags are refused before the database is opened, or None."""
    if (old is None) != (new is None):
        return "--from and --to go together: give both to rename, or neither to list the projects"
    if old is None or new is None:
        return "--apply needs --from and --to" if apply else None
    target = project_name(new)
    if not target or not project_name(old):
        return "--from and --to must name a project"
    if len(target) > PROJECT_MAX or _CONTROL.search(target) or _ABSOLUTE.match(target):
        return f"--to is not a project name (at most {PROJECT_MAX} characters, no control characters, not a path)"
    if target == project_name(old):
        return "--from and --to name the same project: every carrier would count as a merge and lose its only tag"
    return None


def rename_project(
    database: DatabaseFile, request: RenameProjectInput, /, *, ctx: CallContext
) -> Result[RenameProjectOutput, MemeshError]:
    """The projects (no from/to), the preview's counts, or the applied rename's with its backup;
    Failure(validation.bad-body) for flags that do not go together or an unusable --to (before any database is
    opened), Failure(operation.failed) when there is no database, it cannot be read or written, the backup fails,
    or the rename does not read back as written (then nothing was changed)."""
    old, new, apply = request.get("from"), request.get("to"), request.get("apply", False)
    problem = arguments_problem(old, new, apply)
    if problem is not None:
        return Failure(MemeshError.bad_body(problem))
    if old is None or new is None:
        return _listed(database)
    if apply:
        return _applied(database, project_name(old), project_name(new), ctx)
    return _previewed(database, project_name(old), project_name(new))


def _listed(database: DatabaseFile) -> Result[RenameProjectOutput, MemeshError]:
    match database.open_readonly():
        case Failure() as unreadable:
            return unreadable
        case Success(source):
            pass
    if source is None:
        return Success({"database": False, "projects": []})
    try:
        counts = source.store.project_counts()
    finally:
        source.close()
    projects = [{"project": name, **n} for name, n in counts.items()]
    return Success(cast(RenameProjectOutput, {"database": True, "projects": projects}))


def _rename(store: RenameStore, old: str, new: str) -> Result[dict[str, int], MemeshError]:
    """The counts of the rename, in one transaction; Failure when a write did not read back (rolled back)."""
    try:
        with store.transaction():
            return Success(store.rename_project(old, new))
    except RenameRefused as exc:
        return Failure(MemeshError.failed(str(exc)))


def _previewed(database: DatabaseFile, old: str, new: str) -> Result[RenameProjectOutput, MemeshError]:
    match database.open_readonly():
        case Failure() as unreadable:
            return unreadable
        case Success(source):
            pass
    if source is None:
        return Failure(MemeshError.failed(f"{NO_DATABASE}: nothing to rename"))
    try:
        counted = source.on_a_private_copy(lambda copy: _rename(copy, old, new))
    finally:
        source.close()
    match counted:
        case Failure(error):
            return Failure(MemeshError.failed(f"the rename failed on the preview copy: {error.message}"))
        case Success(counts):
            return Success(cast(RenameProjectOutput, {"from": old, "to": new, "dry_run": True, **counts}))
    raise AssertionError("unreachable")  # pragma: no cover


def _applied(database: DatabaseFile, old: str, new: str, ctx: CallContext) -> Result[RenameProjectOutput, MemeshError]:
    """Back the database up beside it, then rename in one transaction; nothing changes if the backup fails."""
    if not database.exists():
        return Failure(MemeshError.failed(f"{NO_DATABASE}: nothing to rename"))
    match database.open_for_writing():
        case Failure(error):
            message = f"the database cannot be opened for writing, so nothing was changed: {error.message}"
            return Failure(MemeshError.failed(message))
        case Success(target):
            pass
    try:
        return _backed_up_then_renamed(target, old, new, ctx)
    finally:
        target.close()


def _backed_up_then_renamed(
    target: Writable, old: str, new: str, ctx: CallContext
) -> Result[RenameProjectOutput, MemeshError]:
    if not target.can_write():  # find out before writing a backup
        return Failure(MemeshError.failed("the database cannot be written here, so nothing was changed"))
    match target.backup(f"kg-before-rename-project-{ctx.now.strftime('%Y%m%dT%H%M%SZ')}.db"):
        case Failure(error):
            return Failure(
                MemeshError.failed(f"the backup could not be written, so nothing was changed: {error.message}")
            )
        case Success(backup):
            pass
    try:
        renamed = _rename(target.store, old, new)
    except Exception as exc:  # a database failure mid-rename: rolled back, said in one line
        failure = target.database_failure(exc)
        if failure is None:
            raise
        return Failure(MemeshError.failed(f"the rename was rolled back, nothing was changed: {failure.message}"))
    match renamed:
        case Failure(error):
            return Failure(MemeshError.failed(f"the rename was rolled back: {error.message}"))
        case Success(counts):
            pass
    answer: dict[str, Any] = {
        "from": old,
        "to": new,
        "dry_run": False,
        **counts,
        "backup": str(backup),
        "restore": target.restore_command(backup),
    }
    return Success(cast(RenameProjectOutput, answer))
