"""What a host's tool names mean to MeMesh's hooks: one table for every host, so a hook tells a shell command, a file
read and a file edit apart by kind, never by one host's names.

- Claude Code: `Bash`, `Read`, `Edit` / `Write` / `MultiEdit` / `NotebookEdit` (Codex reports its shell tool as
  `Bash` too).
- Gemini CLI (0.61.0, read from its own package): `run_shell_command`, `read_file`, `replace`, `write_file`; their
  inputs carry the same fields as Claude Code's (`command`; `file_path`).

Nothing is imported here: the hook runner reads this table before it imports anything else (ADR 0002).
"""

from __future__ import annotations

SHELL = "shell"
READ = "read"
EDIT = "edit"

TOOL_KINDS: dict[str, str] = {
    # Claude Code (and Codex)
    "Bash": SHELL,
    "Read": READ,
    "Edit": EDIT,
    "Write": EDIT,
    "MultiEdit": EDIT,
    "NotebookEdit": EDIT,
    # Gemini CLI
    "run_shell_command": SHELL,
    "read_file": READ,
    "replace": EDIT,
    "write_file": EDIT,
}


def kind(tool_name: object) -> str | None:
    """The kind of a host's tool (SHELL, READ or EDIT), or None for a tool MeMesh's hooks do nothing about."""
    return TOOL_KINDS.get(tool_name) if isinstance(tool_name, str) else None
