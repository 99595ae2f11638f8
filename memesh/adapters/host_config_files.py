"""Where Copilot CLI's and Cursor's config files are on this machine (the repository's and the user's), read and
replaced atomically (memesh.adapters.claude_settings_file's one-rename write)."""

from __future__ import annotations

import os
from pathlib import Path

from memesh.adapters.claude_settings_file import read_text, write_text

__all__ = ["copilot_home", "home", "read_text", "repository", "write_text"]


def home() -> Path:
    return Path.home()


def copilot_home() -> Path:
    """Copilot CLI's config folder (config.json, mcp-config.json): COPILOT_HOME when set, as the CLI reads it (that
    folder itself, not a `.copilot` inside it), else ~/.copilot."""
    given = os.environ.get("COPILOT_HOME", "")
    return Path(given).expanduser() if given.strip() else home() / ".copilot"


def repository() -> Path:
    """The git repository this command runs in (its top folder), else the current folder."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here
