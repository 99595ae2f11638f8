"""The owner-private host config the memesh-channel setup leaves in the MeMesh folder: hosts/claude.json, whose
`principal_id` names the recipient a Claude Code session answers for (spec, `message`; an older file's `project`
field is not read)."""

from __future__ import annotations

import json
from pathlib import Path

from memesh import paths


def claude_config() -> Path:
    """Where the memesh-channel setup leaves Claude Code's host config (the file may not exist)."""
    return paths.memesh_dir() / "hosts" / "claude.json"


def claude_principal() -> str:
    """`principal_id` of hosts/claude.json, canonical (NFC, trimmed); "" when the file is absent, unreadable, not
    JSON, names no valid id, or can be read or written by anyone but the owner (then it is not the owner's word)."""
    from returns.result import Success

    from memesh.core.messages import canonical_scope

    config = claude_config()
    try:
        if config.stat().st_mode & 0o077:
            return ""
        value = json.loads(config.read_text(encoding="utf-8")).get("principal_id")
    except (OSError, ValueError, AttributeError):
        return ""
    if not isinstance(value, str):
        return ""
    checked = canonical_scope("principal_id", value)
    return str(checked.unwrap()) if isinstance(checked, Success) else ""
