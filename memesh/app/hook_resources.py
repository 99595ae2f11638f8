"""What one hook event reaches outside itself, built on first use: the caller's environment and working folder (a
warm memesh-mcp serving a hook passes its client's), the hooks' lean store, the whole store where an event needs it,
the settings in effect (config.json under the caller's environment), the project-id cache, git, the session
transcript and the note folder beside it, the Claude Code channel's hosts file and the capture-liveness files.

`Resources.hooks` holds one; the hook operations (`memesh.ops.hooks`) see it through their protocols. Every adapter
is imported on first use, so an event pays only for what it reads (docs/adr/0002-hook-startup.md).
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False  # not typing's: the runner imports this module for its cheap look, and typing costs a hook
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import datetime
    from typing import Any, Literal, TypeVar

    from memesh.adapters.note_dir import NoteFolder
    from memesh.adapters.transcripts import TranscriptFiles
    from memesh.app.hook_database import HookDatabase
    from memesh.app.resources import Store
    from memesh.core.settings import Effective
    from memesh.core.transcript import Session

    T = TypeVar("T")

# What an event may import on first use, for the warm server to import before it serves (`preload`).
ADAPTERS = (
    "memesh.app.hook_database",
    "memesh.adapters.config_file",
    "memesh.adapters.git_commit",
    "memesh.adapters.hosts_file",
    "memesh.adapters.note_dir",
    "memesh.adapters.project_git",
    "memesh.adapters.session_files",
    "memesh.adapters.hook_outcomes",
)


def channel_configured() -> bool:
    """Whether the memesh-channel's hosts/claude.json is there: a cheap look for the runner, which leaves the message
    hooks early when a session can name no recipient (memesh.core.triggers)."""
    from memesh.adapters.hosts_file import claude_config

    return claude_config().exists()


class HookResources:
    """The outside world of one hook event. Stores are opened on first use and closed by `close`; a store that will
    not open reads as None (the operation records it), never as an exception."""

    def __init__(
        self,
        environment: Mapping[str, str],
        cwd: str,
        *,
        open_lean: Callable[[], HookDatabase | Store],
        open_full: Callable[[], Store],
        owned: bool = True,
    ) -> None:
        self.environment = environment
        self.cwd = cwd
        self._open_lean = open_lean
        self._open_full = open_full
        self._owned = owned
        self._lean: HookDatabase | Store | None = None
        self._full: Store | None = None
        self._config: dict[str, Any] | None = None

    # --- the databases ---

    def store(self) -> HookDatabase | Store | None:
        """The hooks' lean store (what they read and write, without the mixins no hook calls); None when the
        database will not open."""
        if self._lean is None:
            self._lean = _opened(self._open_lean)
        return self._lean

    def full_store(self) -> Store | None:
        """The whole store, for the reads the lean one leaves out (messages, staged proposals); None when the
        database will not open."""
        if self._full is None:
            self._full = _opened(self._open_full)
        return self._full

    def transcripts(self) -> TranscriptFiles:
        """The host's session transcripts on this machine (the work-package notice looks at their metadata)."""
        from memesh.adapters.transcripts import TranscriptFiles

        return TranscriptFiles()

    def close(self) -> None:
        """Close what this event opened (a store it was handed stays open)."""
        lean, full, self._lean, self._full = self._lean, self._full, None, None
        if self._owned:
            for store in (lean, full):
                if store is not None:
                    store.close()

    # --- where the session runs ---

    def session_folder(self, given: str | None) -> str:
        """The session's folder: `given` (the payload's cwd) when absolute, else the hook's working directory;
        FileNotFoundError when there is neither (the folder was removed under the host)."""
        if given is not None and Path(given).is_absolute():
            return given
        if not self.cwd:
            raise FileNotFoundError("the hook has no working directory")
        return self.cwd

    def project_of(self, folder: str) -> str:
        """The project id of `folder`; kept in the MeMesh folder with the stamps of what it depends on, so most hook
        runs ask git nothing."""
        from memesh import paths
        from memesh.adapters.project_git import CACHE_FILE, project_for

        return project_for(folder, paths.memesh_dir() / CACHE_FILE)

    def commit_details(self, folder: str, short_hash: str) -> tuple[str | None, str, list[str]]:
        """(full hash, body, files) of a commit, from git; (None, "", []) when git cannot say."""
        from memesh.adapters.git_commit import commit_details

        return commit_details(folder, short_hash)

    def _local(self, text: str) -> Path:
        # A path the host named: a relative one is taken from the hook's working directory (never a server's).
        path = Path(text).expanduser()
        return path if path.is_absolute() or not self.cwd else Path(self.cwd, path)

    def transcript(self, path: str) -> Session | None:
        """The session transcript the host named, parsed (its newest 16 MiB); None when it cannot be read."""
        from memesh.adapters.session_files import read_session

        return read_session(self._local(path))

    def note_folder(self, transcript: str) -> tuple[NoteFolder, str] | Literal["unreadable"] | None:
        """The note folder beside the transcript (`memory/`) and its signature (the newest mtime in it); None when
        there is no such folder, "unreadable" when it cannot be read."""
        directory = self._local(transcript).parent / "memory"
        if not directory.is_dir():
            return None
        from memesh.adapters.note_dir import NoteFolder, NoteFolderError
        from memesh.adapters.session_files import folder_signature

        signature = folder_signature(directory)
        if signature is None:
            return "unreadable"
        try:
            return NoteFolder.open(directory), signature
        except NoteFolderError:
            return "unreadable"

    # --- settings and the MeMesh folder's files ---

    def _stored(self) -> dict[str, Any]:
        if self._config is None:
            from memesh.adapters import config_file

            self._config = config_file.read_or_defaults()
        return self._config

    def auto_capture(self) -> bool:
        """Whether the hooks capture on their own (autoCapture, MEMESH_AUTO_CAPTURE over config.json)."""
        from memesh.adapters import config_file

        return config_file.effective_auto_capture(self._stored(), self.environment)

    def briefing_level(self) -> Effective:
        """The briefing level in effect (MEMESH_BRIEFING over config.json over the default)."""
        from memesh.adapters import config_file

        return config_file.effective_briefing(self._stored(), self.environment)

    def session_limit(self) -> Effective:
        """SessionStart's number of project slots in effect, with why when a value had to be adjusted."""
        from memesh.adapters import config_file

        return config_file.effective_session_limit(self._stored(), self.environment)

    def channel_principal(self) -> str:
        """`principal_id` of the memesh-channel's owner-private hosts/claude.json; "" when there is none."""
        from memesh.adapters.hosts_file import claude_principal

        return claude_principal()

    def liveness_notice(self, now: datetime) -> str | None:
        """SessionStart's banner line when capture has gone quiet (at most once a day, never in the grace period);
        counts this session start toward the grace period."""
        import memesh
        from memesh.adapters import hook_outcomes

        return hook_outcomes.liveness_notice(memesh.__version__, now)


def _opened(opener: Callable[[], T]) -> T | None:
    from memesh.store.errors import StoreError

    try:
        return opener()
    except StoreError:
        return None
