"""The one composition root: everything an operation reaches outside itself is built here and handed in by protocol.

A transport builds one `Resources` for its process (the CLI for its one command, a server for its lifetime, a hook
for its event) and passes it to `dispatch.run`; each registry entry's `uses` picks what its operation needs from it.
Operations never open a database, read config.json or run git themselves: they see what they are given.

Everything here is built on first use, so a command that needs no database opens none, and nothing heavy is imported
when this module is.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from memesh.context import CallContext
from memesh.records import dataclass

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.adapters.bundle_file import BundleFile
    from memesh.adapters.embedding import WordLlama
    from memesh.adapters.git_history import History
    from memesh.adapters.local_files import LocalFiles
    from memesh.adapters.note_dir import NoteFolder
    from memesh.adapters.transcripts import TranscriptFiles
    from memesh.adapters.update_check import CacheFile
    from memesh.app.connections import ThreadConnections
    from memesh.app.hook_database import HookDatabase
    from memesh.app.hook_resources import HookResources
    from memesh.app.waiting import Wakeups
    from memesh.core.plugin_cache import CachedFailure, Installed
    from memesh.core.settings import RecallModeSetting
    from memesh.core.update import Channel
    from memesh.errors import MemeshError
    from memesh.ops.settings import ConfigFile
    from memesh.ops.setup import ClaudeSettingsFile, HostConfigFiles
    from memesh.store.database_file import DatabaseFile
    from memesh.store.errors import StoreError
    from memesh.store.postgres import PostgresStore
    from memesh.store.postgres_upkeep import SharedDatabaseAt
    from memesh.store.sqlite import SqliteStore
    from memesh.values import RouterPort

# The store every operation's store protocol is checked against: both adapters must satisfy each one.
Store: TypeAlias = "SqliteStore | PostgresStore"


class Resources:
    """The outside world of one process, built on first use.

    `store` is the database: one connection for a short process, or this worker thread's own connection in a server
    (`pooled`). When it will not open, `StoreError` is raised from `store` and `dispatch` answers with its error
    (`on_open_failure` lets the CLI name the file for the person at this machine).
    """

    def __init__(
        self,
        *,
        db_path: Path | str | None = None,
        on_open_failure: Callable[[StoreError], StoreError] | None = None,
        update_fetch: Callable[[], str | None] | None = None,
    ) -> None:
        self.db_path = db_path  # a file or a postgresql:// URL; None: the configured database (memesh.store.open)
        self._on_open_failure = on_open_failure
        # The package-index lookup (None: never asked); an HTTP listener is handed the real one by `create_app`.
        self.update_fetch = update_fetch
        self._store: Store | None = None
        self._pool: ThreadConnections[Store] | None = None
        self._owned = True
        self._recall_mode: RecallModeSetting | None = None

    @classmethod
    def pooled(
        cls,
        db_path: Path | str | None = None,
        *,
        on_open_failure: Callable[[StoreError], StoreError] | None = None,
        update_fetch: Callable[[], str | None] | None = None,
    ) -> Resources:
        """The resources of a server whose calls run side by side in worker threads: a connection per thread."""
        from memesh.app.connections import ThreadConnections

        resources = cls(db_path=db_path, on_open_failure=on_open_failure, update_fetch=update_fetch)
        resources._pool = ThreadConnections(resources.open_store)
        return resources

    @classmethod
    def over(cls, store: Store) -> Resources:
        """Resources around a database already open (a test, a benchmark, a caller holding one); `close` leaves
        that database open, since its opener closes it."""
        resources = cls()
        resources._store = store
        resources._owned = False
        store.use_embedder(resources.write_embedder)
        return resources

    def open_store(self, *, hook: bool = False) -> Store:
        """A new connection to the database (created, migrated, owner-only; within a hook's budget when `hook`);
        StoreError when it will not open."""
        from memesh.store.errors import StoreError
        from memesh.store.open import open_store

        try:
            store = open_store(self.db_path, hook=hook)
        except StoreError as exc:
            if self._on_open_failure is None:
                raise
            raise self._on_open_failure(exc) from exc
        store.use_embedder(self.write_embedder)
        return store

    @property
    def store(self) -> Store:
        """The database for this call (opened on first use)."""
        if self._pool is not None:
            return self._pool.get()
        if self._store is None:
            self._store = self.open_store()
        return self._store

    # --- the call context: what an operation asks of the outside world during a call ---

    def context(self, source_host: str, agent_view: bool, **given: Any) -> CallContext:
        """A call's context, with the current project (this process's folder, by git), the local router and the
        owner's message quota setting from here; `given` sets any field of CallContext itself."""
        fields: dict[str, Any] = {
            "project": current_project,
            "router": local_router,
            "message_quota": lambda: _quota_setting(given.get("environment")),
            "settings": _stored_settings,
            "author": _local_author,
        }
        caller = given.get("caller")
        if caller is not None:  # a member (or the owner) on a remote listener writes as itself
            fields["author"] = lambda: caller.name
        fields.update(given)
        return CallContext(source_host=source_host, agent_view=agent_view, **fields)

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
        return open_store(target)

    def original_database(self, file: Path) -> Store | None:
        """The TypeScript MeMesh's database at `file` as an adopted private copy (deleted when closed), the file
        itself only read; None when `file` is not one. StoreError when it is one and cannot be copied."""
        from memesh.store.sqlite_original import open_if_original

        return open_if_original(file)

    def described(self, target: str | None) -> str:
        """`target` as a person may be shown it: the file's path, or the URL with its password redacted."""
        from memesh.store.open import described

        return described(target)

    def database_shown(self) -> str:
        """The database these resources open, as a person may be shown it (doctor): its file, or its URL with the
        password redacted."""
        from memesh.store.errors import StoreError
        from memesh.store.open import described

        try:
            return described(self.db_path)
        except StoreError:
            return "the database setting (not a postgresql:// URL)"

    # --- settings, insight, review and session: what the HTTP API's operations (and their CLI commands) reach ---

    def try_store(self) -> Result[Store, MemeshError]:
        """The database, or Failure saying why it will not open: for an operation that reports that rather than
        failing with it (the feedback diagnostics)."""
        from returns.result import Failure, Success

        from memesh.store.errors import StoreError

        try:
            return Success(self.store)
        except StoreError as exc:
            return Failure(exc.error)

    @property
    def config_file(self) -> ConfigFile:
        """config.json in the MeMesh folder (read, updated owner-only, and what is in effect with the environment)."""
        from memesh.adapters import config_file

        return config_file

    @property
    def update_cache(self) -> CacheFile:
        """The last update check's outcome, kept in the MeMesh folder."""
        from memesh.adapters.update_check import CacheFile

        return CacheFile()

    def install_channel(self) -> Channel:
        """How this copy of memesh was installed (pipx, a virtualenv, a source checkout, …)."""
        from memesh.adapters.update_check import install_channel

        return install_channel()

    def issue_tracker(self) -> str | None:
        """Where this distribution takes issue reports (its declared `Issues` URL), None when it names none."""
        from memesh.adapters.update_check import issue_tracker

        return issue_tracker()

    def install_id(self) -> str:
        """This installation's anonymous id (made on first use)."""
        from memesh.adapters.install_id import install_id

        return install_id()

    def hook_records(self) -> list[dict[str, Any]]:
        """The newest hook-outcome records beside the database, oldest first."""
        from memesh.hook_outcomes import read_records

        return read_records()

    def hook_heartbeats(self) -> tuple[str | None, dict[str, str]]:
        """(when hook tracking began, each hook event's last run) from the heartbeats beside the database."""
        from memesh.hook_outcomes import read_heartbeats

        return read_heartbeats()

    def entry_point(self, name: str) -> str | None:
        """The absolute path of one of this install's console scripts, or None when it is not installed."""
        from memesh.adapters.claude_settings_file import entry_point

        return entry_point(name)

    @property
    def claude_settings(self) -> ClaudeSettingsFile:
        """Claude Code's user settings file: its path, its text, and its atomic replacement."""
        from memesh.adapters import claude_settings_file

        return claude_settings_file

    @property
    def host_files(self) -> HostConfigFiles:
        """Copilot CLI's and Cursor's config files: where they are, their text, and their atomic replacement."""
        from memesh.adapters import host_config_files

        return host_config_files

    def data_folder(self) -> Path:
        """MeMesh's own folder on this machine (MEMESH_DIR, else ~/.memesh)."""
        from memesh import paths

        return paths.memesh_dir()

    def plugin_caches(self) -> list[Installed]:
        """The MeMesh plugin as each host that has it cached has it."""
        from memesh.adapters.plugin_cache import discover

        return discover()

    def mcp_failures(self) -> list[CachedFailure]:
        """The failed connections to MeMesh's MCP server that Claude Code remembers and may still act on."""
        from memesh.adapters.plugin_cache import failed_connections

        return failed_connections()

    def forget_mcp_failures(self) -> str | None:
        """Make Claude Code forget them; None when done, else why it could not."""
        from memesh.adapters.plugin_cache import forget_failed_connections

        try:
            forget_failed_connections()
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    def refresh_plugin_cache(self, commands: list[list[str]]) -> str | None:
        """Run a host's updater commands in order; None when they all succeeded, else which one failed and why."""
        from memesh.adapters.plugin_cache import UpdaterError, run_updater

        try:
            run_updater(commands)
        except UpdaterError as exc:
            return str(exc)
        return None

    def git_history(self, file: str, *, limit: int, line: int | None) -> History:
        """Which commits touched `file` (or its one `line`) in the working folder's repository, by git."""
        from memesh.adapters.git_history import history

        return history(Path.cwd(), file, limit=limit, line=line)

    def transcripts(self) -> TranscriptFiles:
        """The host's session transcripts on this machine (a transcript work package is read from them)."""
        from memesh.adapters.transcripts import TranscriptFiles

        return TranscriptFiles()

    # --- recall modes (issue 21): the mode in effect, and the semantic signal of hybrid ---

    def recall_mode(self) -> RecallModeSetting:
        """MEMESH_RECALL_MODE, else config.json's `recallMode`, else fts (read once; see core.settings)."""
        if self._recall_mode is None:
            from memesh import paths

            env = os.environ.get("MEMESH_RECALL_MODE")
            if env is None and not _may_name_recall_mode(paths.memesh_dir() / "config.json"):
                from memesh.core.settings import recall_mode

                # No setting anywhere: the default, without loading the config reader on every recall.
                self._recall_mode = recall_mode({}, None, lambda: None)
            else:
                from memesh.adapters import config_file

                # The environment wins: config.json is not read when it names a mode.
                stored = {} if env is not None else config_file.read_or_defaults()
                self._recall_mode = config_file.effective_recall_mode(stored)
        return self._recall_mode

    def semantic(self) -> WordLlama | None:
        """The semantic signal when hybrid is in effect (the model is loaded once per process), else None."""
        if self.recall_mode().value != "hybrid":
            return None
        from memesh.adapters.embedding import load

        return load()

    def write_embedder(self) -> WordLlama | None:
        """What the store embeds new memories with: the semantic signal, in hybrid only."""
        return self.semantic()

    def vector_model(self) -> str | None:
        """The model whose vectors hybrid recall reads, when hybrid is in effect (the model is not loaded), else
        None: what doctor counts the memories without vectors against."""
        if self.recall_mode().value != "hybrid":
            return None
        from memesh.adapters.embedding import MODEL

        return MODEL

    def resident_state(self) -> str:
        """What the resident server of this database is doing: running, off or not started (memesh.resident)."""
        from memesh import resident

        return resident.state(os.environ)

    def close(self) -> None:
        """Close what was opened here (a later use opens it again)."""
        if self._pool is not None:
            self._pool.close()
        if self._hooks is not None:
            self._hooks.close()
        if self._store is not None and self._owned:
            self._store.close()
            self._store = None

    # --- the CLI's own commands: progress, files the owner names, the database file, messages (door-cli) ---

    # Who watches long work (the CLI's progress line on a terminal); nobody by default.
    _on_progress: Callable[[int, int], None] | None = None

    @classmethod
    def for_the_owner(cls, db_path: Path | None = None) -> Resources:
        """The resources of a command the owner typed: a database that will not open is operation.failed naming
        the file (the person at this machine is told which one), so --json prints a failure body for it too."""

        def naming_the_file(exc: StoreError) -> StoreError:
            from memesh.errors import ErrorCode, MemeshError
            from memesh.store.errors import StoreError

            if exc.error.code is ErrorCode.STORE_UNAVAILABLE:  # its code and reason kept: a script branches on them
                message = f"memesh cannot open its database: {exc.error.message}"
                return StoreError(str(exc), MemeshError(exc.error.code, message, exc.error.data))
            return StoreError(str(exc), MemeshError.failed(f"memesh cannot open its database: {exc}"))

        return cls(db_path=db_path, on_open_failure=naming_the_file)

    def watched(self, on_progress: Callable[[int, int], None]) -> Resources:
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

        where = chosen(self.db_path)
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
            return wakeups_for(chosen(self.db_path))
        except StoreError:  # a setting that names no database: the poll itself reports why
            return wakeups_for(None)

    # --- hooks: the outside world of one hook event (memesh.app.hook_resources) ---

    _hooks: HookResources | None = None

    @classmethod
    def for_hook(cls, environment: Mapping[str, str], cwd: str) -> Resources:
        """The resources of one hook event run for a caller whose environment and working folder are given (its own
        process's, or a warm memesh-mcp's client's)."""
        resources = cls()
        resources._hooks = resources._hook_side(environment, cwd)
        return resources

    @property
    def hooks(self) -> HookResources:
        """What the hook operations reach: the lean hook store, the whole store where an event needs it, settings,
        the project-id cache, git, transcripts and note folders (this process's environment and folder unless
        built by `for_hook`)."""
        if self._hooks is None:
            self._hooks = self._hook_side(os.environ, _working_folder())
        return self._hooks

    def _hook_side(self, environment: Mapping[str, str], cwd: str) -> HookResources:
        from memesh.app.hook_resources import HookResources

        if not self._owned:  # a database someone else opened (a test): the hooks use it, and leave it open
            return HookResources(
                environment, cwd, open_lean=lambda: self.store, open_full=lambda: self.store, owned=False
            )

        def open_lean() -> HookDatabase:
            from memesh.app.hook_database import open_hook_database

            store = open_hook_database(self.db_path)
            store.use_embedder(self.write_embedder)  # in hybrid, what a hook captures is embedded with its row
            return store

        return HookResources(environment, cwd, open_lean=open_lean, open_full=lambda: self.open_store(hook=True))

    def hook_context(self, host: str | None, **given: Any) -> CallContext:
        """A hook event's call context: what it captures is stamped with the host that ran it (no host when that
        cannot be told), settings come from the caller's environment, and the project is its folder's."""
        hooks = self.hooks
        fields: dict[str, Any] = {
            "environment": hooks.environment,
            "project": lambda: hooks.project_of(hooks.session_folder(None)),
        }
        fields.update(given)
        return self.context(host or "", True, **fields)


def _working_folder() -> str:
    try:
        return os.getcwd()  # noqa: PTH109 (a str, as a warm server's client sends it)
    except OSError:  # removed under the process: an event that needs it fails, recorded
        return ""


def current_project() -> str:
    """The project of this process's working folder (git is asked only when an operation needs it)."""
    from memesh.adapters.project_git import current_project as of_working_folder

    return of_working_folder()


def local_router() -> RouterPort:
    """The client of this machine's message router (only the message tool talks to it)."""
    from memesh.adapters.router_client import RouterClient

    return RouterClient.default()


def _local_author() -> str | None:
    from memesh.adapters.author import local_author

    return local_author()


def _stored_settings() -> dict[str, Any]:
    from memesh.adapters import config_file

    return config_file.read_or_defaults()


def _quota_setting(environment: Mapping[str, str] | None) -> str | None:
    return (os.environ if environment is None else environment).get("MEMESH_AGENT_MESSAGE_STORAGE_QUOTA_BYTES")


def the_store(resources: Resources) -> Store:
    """What most operations use: the database alone."""
    return resources.store


# --- the local router: what its socket surface (transports/router) and the MCP channel reach outside ---


class HostRegistration(Protocol):
    """One session's registration on the router, as the host integration holding it sees it
    (memesh.adapters.router_host.HostAdapter)."""

    generation: int | None

    async def connect(self) -> int: ...
    async def activate(self) -> None: ...
    async def host_ack(self, delivery_id: str, detail: str | None = None) -> None: ...
    async def close(self) -> None: ...


def host_registration(
    *,
    session_id: str,
    principal_id: str,
    project: str,
    host_kind: str,
    accept: Callable[[dict[str, Any]], Awaitable[bool | str]],
    path: Path | None = None,
) -> HostRegistration:
    """A registration of this session on the router at `path` (default: router.sock in the MeMesh folder), made
    when connected; `accept(envelope)` answers each delivery: True when the host took it in, else why not."""
    from memesh.adapters.router_host import HostAdapter

    return HostAdapter(
        session_id=session_id, principal_id=principal_id, project=project, host_kind=host_kind, accept=accept, path=path
    )


def router_answers(path: Path) -> bool:
    """Whether a router answers on the socket at `path` (a second router must not start beside it)."""
    from memesh.adapters.router_client import RouterClient

    return RouterClient(path).ping()


def claude_principal() -> str:
    """The principal the owner-private hosts/claude.json names for Claude Code sessions; "" when none is named."""
    from memesh.adapters.hosts_file import claude_principal as from_hosts_file

    return from_hosts_file()


def themselves(resources: Resources) -> Resources:
    """What an operation uses that reaches more than the database: the resources, seen through its protocol."""
    return resources


def the_config(resources: Resources) -> ConfigFile:
    """What the settings operations use: config.json alone."""
    return resources.config_file


def package_index_lookup() -> Callable[[], str | None] | None:
    """The real package-index lookup for a server to hand its resources, or None when MEMESH_UPDATE_CHECK=0 turns
    update checks off."""
    from memesh.adapters.update_check import default_fetcher

    return default_fetcher()


# --- recall modes (issue 21) ---


@dataclass(frozen=True)
class RecallSetup:
    """What the recall operation uses (memesh.ops.recall.RecallUses)."""

    store: Store
    mode: str
    semantic: WordLlama | None


def _may_name_recall_mode(config: Path) -> bool:
    """Whether config.json could hold `recallMode`: its text names the key (or escapes something, so it might).
    Most files set other keys only, and the default mode then costs one read, not the config reader's imports."""
    try:
        text = config.read_bytes()
    except OSError:  # missing (the usual case), or unreadable: the config reader says why where it is asked
        return config.exists()
    return b"recallMode" in text or b"\\" in text


def recall_setup(resources: Resources) -> RecallSetup:
    """The store, the recall mode in effect and its semantic signal."""
    return RecallSetup(resources.store, resources.recall_mode().value, resources.semantic())
