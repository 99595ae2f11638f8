"""Where Copilot CLI's and Cursor's config files are on this machine (the repository's and the user's), read and
replaced atomically (memesh.adapters.claude_settings_file's one-rename write)."""

from __future__ import annotations

from pathlib import Path

from memesh.adapters.claude_settings_file import read_text, write_text

__all__ = ["home", "read_text", "repository", "write_text"]


def home() -> Path:
    return Path.home()


def repository() -> Path:
    """The git repository this command runs in (its top folder), else the current folder."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here
