"""A folder of note files on disk: the listing and the reads `import --notes` needs, and nothing else.

The rules for what a note is and how it becomes a memory are in `memesh.core.note_files` and
`memesh.ops.note_import`; this module only touches the file system, so the operation can be tested over any folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISREG

from memesh.adapters.regular_files import read_at_most
from memesh.records import dataclass

SKIPPED_DIRS = frozenset({".git", "node_modules"})
READ_LIMIT = 4 << 20  # a bound on one read: the import refuses notes past 256 KB from the listing already


@dataclass(frozen=True)
class NoteEntry:
    """One regular *.md file found under the folder: its path relative to it and what identifies its version."""

    rel: str
    size: int
    mtime_ms: float
    ino: int


class NoteFolderError(Exception):
    """The folder cannot be read; the message says why (for the person who named it)."""


@dataclass(frozen=True)
class NoteFolder:
    """A folder, resolved once (symlinks followed) so every read is checked against the same real root."""

    root: Path

    @classmethod
    def open(cls, directory: Path) -> NoteFolder:
        """The folder at `directory`; NoteFolderError when it is not a readable directory."""
        try:
            root = Path(os.path.realpath(directory))
            if not root.is_dir():
                raise NoteFolderError(f"not a directory: {directory}")
        except OSError as exc:
            raise NoteFolderError(f"cannot read {directory}: {exc.strerror}") from exc
        return cls(root)

    @property
    def identity(self) -> str:
        """What names this folder across runs (its real path; hashed by the caller, never stored as is)."""
        return str(self.root)

    def listing(self) -> tuple[list[NoteEntry], list[str]]:
        """Every regular *.md file below the folder (sorted), and the symlinks refused: each *.md symlink, and each
        symlinked folder as its path with a trailing `/` (not entered, and reported, issue 35: it was skipped
        without a word); .git and node_modules are not entered."""
        files: list[NoteEntry] = []
        refused: list[str] = []
        # os.walk skips what it cannot read (a folder without permission) rather than failing the whole run.
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            linked = [d for d in dirs if d not in SKIPPED_DIRS and (Path(folder) / d).is_symlink()]
            refused += [(Path(folder) / d).relative_to(self.root).as_posix() + "/" for d in linked]
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and d not in linked)
            for name in sorted(names):
                if not name.lower().endswith(".md"):
                    continue
                path = Path(folder) / name
                rel = path.relative_to(self.root).as_posix()
                if path.is_symlink():
                    refused.append(rel)
                    continue
                try:
                    stat = path.lstat()
                except OSError:
                    continue
                if not S_ISREG(stat.st_mode):  # a pipe or a device named *.md would block the read, or never end
                    continue
                files.append(NoteEntry(rel, stat.st_size, stat.st_mtime_ns / 1e6, stat.st_ino))
        files.sort(key=lambda f: f.rel)
        return files, sorted(refused)

    def inside(self, rel: str) -> bool:
        """Whether the file still resolves inside the folder (a path component may have become a symlink)."""
        return Path(os.path.realpath(self.root / rel)).is_relative_to(self.root)

    def read(self, rel: str, limit: int = READ_LIMIT) -> bytes:
        """The file's bytes; OSError when it cannot be read, is no longer a regular file (a pipe swapped in since
        the listing would block the read) or has grown past `limit`."""
        return read_at_most(self.root / rel, limit)
