"""Where a hook event's session runs and the files beside it: the session folder, the project id (kept in the MeMesh
folder), git's commit details, the session transcript and the note folder beside it. One of the small factories
`memesh.app.hook_resources.HookResources` is made of; every adapter is imported on first use."""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False  # not typing's: the runner imports hook_resources for its cheap look, and typing costs a hook
if TYPE_CHECKING:
    from typing import Literal

    from memesh.adapters.note_dir import NoteFolder
    from memesh.adapters.transcripts import TranscriptFiles
    from memesh.core.transcript import Session


class HookFiles:
    """The session's folder and files, as the caller (`cwd`: its working directory) names them."""

    cwd: str

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

    def transcripts(self) -> TranscriptFiles:
        """The host's session transcripts on this machine (the work-package notice looks at their metadata)."""
        from memesh.adapters.transcripts import TranscriptFiles

        return TranscriptFiles()

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
