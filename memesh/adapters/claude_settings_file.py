"""Claude Code's user settings file (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json): read and
replaced atomically, keeping the file's mode."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def settings_path() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(configured).expanduser() if configured else Path.home() / ".claude"
    return base / "settings.json"


def read_text(path: Path) -> str:
    """The file's text; "" when there is none."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def write_text(path: Path, text: str) -> None:
    """Replace the file in one rename, so Claude Code never reads half of it; an existing file keeps its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    temporary = path.with_name(f".{path.name}.memesh-{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    temporary.replace(path)


def entry_point(name: str) -> str | None:
    """The absolute path of one of this install's console scripts (beside the running Python, else on PATH)."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)
