"""What the owner's own commands reach beside the operations' store: any database by what a person typed (`db copy`,
`import`), the database file itself, files named on the command line, note folders, git history, transcripts, the
progress of long work and the wake-ups of a waiting poll. One of the factories `Resources` is made of."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Self

from memesh.app.resource_core import ResourceCore, Store

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.adapters.bundle_file import BundleFile
    from memesh.adapters.git_history import History
    from memesh.adapters.local_files import LocalFiles
    from memesh.adapters.note_dir import NoteFolder
    from memesh.adapters.transcripts import TranscriptFiles
    from memesh.app.waiting import Wakeups
    from memesh.errors import MemeshError
    from memesh.store.database_file import DatabaseFile
    from memesh.store.postgres_upkeep import SharedDatabaseAt


class OwnerFactory(ResourceCore):
    """The owner's files and databases, each built on first use."""

    # --- database: any database by what a person typed, beside the configured one (memesh db copy) ---

    def open_at(self, target: str | None) -> Store:
        """The database at a SQLite file's path or a postgresql:// URL (None: the configured one), opened and
        migrated (StoreError if not). A file the TypeScript MeMesh wrote, named by a person (db copy --from, import),
        is not adopted in place: an adopted private copy of it is opened. The configured one opens as every process
        opens it (adopted in place)."""
        from memesh.store.open import chosen, open_store

        where = chosen(target) if target is not None else None
        if isinstance(where, Path) and (copy := self.original_database(where)) is not None:
            return copy
        return open_store(target, settings=self.settings if target is None else None)

    def original_database(self, file: Path) -> Store | None:
        """The TypeScript MeMesh's database at `file` as an adopted private copy (deleted when closed), the file
        itself only read; None when `file` is not one. StoreError when it is one and cannot be copied."""
        from memesh.store.sqlite_original import open_if_original

        return open_if_original(file)

    def described(self, target: str | None) -> str:
        """`target` as a person may be shown it: the file's path, or the URL with its password redacted."""
        from memesh.store.open import described

        return described(target, self.settings if target is None else None)

    def database_shown(self) -> str:
        """The database these resources open, as a person may be shown it (doctor): its file, or its URL with the
        password redacted."""
        from memesh.store.errors import StoreError
        from memesh.store.open import described

        try:
            return described(self.db_path, self.configured())
        except StoreError:
            return "the database setting (not a postgresql:// URL)"

    def git_history(self, file: str, *, limit: int, line: int | None) -> History:
        """Which commits touched `file` (or its one `line`) in the working folder's repository, by git."""
        from memesh.adapters.git_history import history

        return history(Path.cwd(), file, limit=limit, line=line)

    def transcripts(self) -> TranscriptFiles:
        """The host's session transcripts on this machine (a transcript work package is read from them)."""
        from memesh.adapters.transcripts import TranscriptFiles

        return TranscriptFiles()

    # --- the CLI's own commands: progress, files the owner names, the database file, messages (door-cli) ---

    # Who watches long work (the CLI's progress line on a terminal); nobody by default.
    _on_progress: Callable[[int, int], None] | None = None

    def watched(self, on_progress: Callable[[int, int], None]) -> Self:
        """These resources, with `on_progress(done, total)` told of each step of long work."""
        self._on_progress = on_progress
        return self

    def progress(self, done: int, total: int) -> None:
        """`done` of `total` finished in long work (reindex, import)."""
        if self._on_progress is not None:
            self._on_progress(done, total)

    def note_folder(self, directory: str) -> Result[NoteFolder, MemeshError]:
        """The folder of note files `import --notes` reads; Failure(operation.failed) saying why it cannot be read."""
        from returns.result import Failure, Success

        from memesh.adapters.note_dir import NoteFolder, NoteFolderError
        from memesh.errors import MemeshError

        try:
            return Success(NoteFolder.open(Path(directory)))
        except NoteFolderError as exc:
            return Failure(MemeshError.failed(str(exc)))

    def database_file(self) -> DatabaseFile | SharedDatabaseAt:
        """The database file itself (read-only opens, a private copy, a backup beside it), for the work done on
        the file; nothing is opened or created until asked. A PostgreSQL database has its counterpart."""
        from memesh.store.database_file import DatabaseFile
        from memesh.store.open import chosen

        where = chosen(self.db_path, self.configured())
        if isinstance(where, str):
            from memesh.store.postgres_upkeep import SharedDatabaseAt

            return SharedDatabaseAt(where)
        return DatabaseFile(where)

    def bundle_file(self, path: str) -> BundleFile:
        """The file `memesh export -o` writes the bundle to."""
        from memesh.adapters.bundle_file import BundleFile

        return BundleFile(path)

    def local_files(self) -> LocalFiles:
        """Reads of the files the owner names on the command line."""
        from memesh.adapters.local_files import LocalFiles

        return LocalFiles()

    def message_high_water(self) -> int:
        """The newest message event id: what a waiting `memesh message watch` looks at before polling again."""
        return self.store.message_high_water()

    def message_wakeups(self) -> Wakeups:
        """What tells this process's waiting polls to look at the newest event id again (memesh.app.waiting): the
        clock's tick for a database someone else opened, whose URL these resources do not know."""
        from memesh.app.waiting import wakeups_for
        from memesh.store.errors import StoreError
        from memesh.store.open import chosen

        if not self._owned:
            return wakeups_for(None)
        try:
            return wakeups_for(chosen(self.db_path, self.configured()))
        except StoreError:  # a setting that names no database: the poll itself reports why
            return wakeups_for(None)
