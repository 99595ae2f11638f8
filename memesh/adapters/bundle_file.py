"""The file `memesh export -o FILE` writes the bundle to: owner-only, and an existing file is replaced only when the
owner said so (a backup run twice must not silently replace the last one).

What the person is told about a refusal is the CLI's to word; this module only says which refusal it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Literal

from memesh import jsontext
from memesh.records import dataclass

# A backup holds the same memories as the database, so a file this writes is as private as the database.
BACKUP_FILE_MODE = 0o600


@dataclass(frozen=True)
class Refusal:
    """Why the bundle was not written: the file exists (and no force), its folder is missing, it is a folder, or the
    system refused the write (`detail` says how)."""

    reason: Literal["exists", "no-folder", "is-folder", "unwritable"]
    folder: str = ""
    detail: str = ""


@dataclass(frozen=True)
class BundleFile:
    """The file named on the command line, as given (relative to the working folder)."""

    path: str

    def refusal(self, *, force: bool) -> Refusal | None:
        """What refuses the write before any work is done: an existing file without `force`."""
        if not force and os.path.lexists(self.path) and not Path(self.path).is_dir():
            return Refusal("exists")
        return None

    def write(self, bundle: Any, *, force: bool) -> Refusal | None:
        """Write `bundle` as indented JSON with a trailing newline; None when written, else why not."""
        folder = Path(self.path).resolve().parent
        if not folder.is_dir():
            return Refusal("no-folder", folder=str(folder))
        if Path(self.path).is_dir():
            return Refusal("is-folder")
        # O_EXCL: a file that appeared while the export ran is not overwritten either.
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
        try:
            descriptor = os.open(self.path, flags, BACKUP_FILE_MODE)
            if force and stat.S_ISREG(os.fstat(descriptor).st_mode):
                os.fchmod(descriptor, BACKUP_FILE_MODE)  # an overwritten file keeps its old mode otherwise
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                # Written as it is encoded, a memory at a time: a large bundle is never one string in memory.
                handle.writelines(jsontext.indented(bundle))
                handle.write("\n")
        except FileExistsError:
            return Refusal("exists")
        except OSError as exc:
            return Refusal("unwritable", detail=exc.strerror or type(exc).__name__)
        return None
