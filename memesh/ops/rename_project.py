"""`memesh kg rename-project`: list the projects, preview a rename on a copy, or apply it after a backup.

The preview does not estimate: it copies the database to a private temporary folder, runs the real rename on the
copy (migrations, indexes and triggers included) and reports those counts, so they are the ones --apply produces.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from memesh import paths
from memesh.errors import MemeshError, RenameRefused
from memesh.store.errors import StoreError, translate
from memesh.store.sqlite import open_readonly, open_store

PROJECT_MAX = 200
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_ABSOLUTE = re.compile(r"^(?:/|\\|[A-Za-z]:[\\/])")
NO_DATABASE = "No MeMesh database yet"


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


def list_projects(path: Path | None = None) -> Result[dict[str, Any], MemeshError]:
    """Every project with its entity and message counts, read without writing; `database: false` when none."""
    try:
        store = open_readonly(path)
    except StoreError as exc:
        return Failure(MemeshError.failed(str(exc)))
    if store is None:
        return Success({"database": False, "projects": []})
    try:
        counts = store.project_counts()
    finally:
        store.close()
    return Success({"database": True, "projects": [{"project": name, **n} for name, n in counts.items()]})


def preview(old: str, new: str, path: Path | None = None) -> Result[dict[str, Any], MemeshError]:
    """The counts --apply would produce, from the real rename run on a temporary copy (deleted afterwards)."""
    try:
        source = open_readonly(path)
    except StoreError as exc:
        return Failure(MemeshError.failed(str(exc)))
    if source is None:
        return Failure(MemeshError.failed(f"{NO_DATABASE}: nothing to rename"))
    folder = Path(tempfile.mkdtemp(prefix="memesh-rename-preview-"))  # mkdtemp: owner-only
    try:
        copy_path = folder / "preview.db"
        source.backup_to(copy_path)
        source.close()
        copy = open_store(copy_path)
        try:
            with copy.transaction():
                counts = copy.rename_project(project_name(old), project_name(new))
        finally:
            copy.close()
    except (StoreError, RenameRefused) as exc:
        return Failure(MemeshError.failed(f"the rename failed on the preview copy: {exc}"))
    finally:
        source.close()
        shutil.rmtree(folder, ignore_errors=True)
    return Success({"from": project_name(old), "to": project_name(new), "dry_run": True, **counts})


def apply(old: str, new: str, now: datetime, path: Path | None = None) -> Result[dict[str, Any], MemeshError]:
    """Back the database up beside it, then rename in one transaction; nothing changes if the backup fails."""
    target = path or paths.db_path()
    if not target.is_file():
        return Failure(MemeshError.failed(f"{NO_DATABASE}: nothing to rename"))
    try:
        store = open_store(target)
    except StoreError as exc:
        return Failure(MemeshError.failed(f"the database cannot be opened for writing, so nothing was changed: {exc}"))
    try:
        # SQLite opens a file it may not write read-only without a word; find out before writing a backup.
        if store.read_only or not os.access(target, os.W_OK):
            return Failure(MemeshError.failed("the database cannot be written here, so nothing was changed"))
        backup = target.parent / "backups" / f"kg-before-rename-project-{now.strftime('%Y%m%dT%H%M%SZ')}.db"
        try:
            store.backup_to(backup)
        except (OSError, StoreError) as exc:
            return Failure(MemeshError.failed(f"the backup could not be written, so nothing was changed: {exc}"))
        try:
            with store.transaction():
                counts = store.rename_project(project_name(old), project_name(new))
        except RenameRefused as exc:
            return Failure(MemeshError.failed(f"the rename was rolled back: {exc}"))
        except Exception as exc:  # a database failure mid-rename: rolled back, said in one line
            error = translate(exc)
            if error is None:
                raise
            return Failure(MemeshError.failed(f"the rename was rolled back, nothing was changed: {error.message}"))
    finally:
        store.close()
    return Success(
        {
            "from": project_name(old),
            "to": project_name(new),
            "dry_run": False,
            **counts,
            "backup": str(backup),
            "restore": f"sqlite3 {target} \".restore '{backup}'\"",
        }
    )
