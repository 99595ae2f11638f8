"""The recipient a hook reminds for: the one the session declares with MEMESH_RECIPIENT, or — under Claude Code with
the memesh-channel set up — `principal_id` of the owner-private hosts/claude.json. Without one, the message hooks
stay quiet (spec, `message`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

RECIPIENT_ENV = "MEMESH_RECIPIENT"


def hook_caller(call: object) -> tuple[str | None, Mapping[str, str], str]:
    """(host, environment, working directory) of one hook run, from what the runner hands a handler: the host's name,
    or an object carrying `host`, `env` and `cwd` (a runner that serves hooks for other processes passes theirs)."""
    host = getattr(call, "host", call)
    env = getattr(call, "env", None)
    cwd = getattr(call, "cwd", None)
    return (
        host if isinstance(host, str) else None,
        env if env is not None else os.environ,
        cwd if isinstance(cwd, str) and cwd else os.getcwd(),  # noqa: PTH109 (a str, as hosts send it)
    )


def session_folder(payload: dict[str, object], cwd: str) -> str:
    """The session's folder: the payload's `cwd` when absolute, else the hook's working directory."""
    from pathlib import Path

    named = payload.get("cwd")
    return named if isinstance(named, str) and Path(named).is_absolute() else cwd


def declared_recipient(host: str | None, env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(the recipient, None), (None, why the declared one is refused), or (None, None) when none is declared."""
    declared = (os.environ if env is None else env).get(RECIPIENT_ENV, "").strip()
    if declared:
        from returns.result import Success

        from memesh.core.messages import canonical_scope

        checked = canonical_scope("recipient", declared)
        if not isinstance(checked, Success) or len(checked.unwrap()) > 200:
            return None, f"{RECIPIENT_ENV} is not a valid recipient"
        return str(checked.unwrap()), None
    if host == "claude-code":
        from memesh.adapters.hosts_file import claude_principal

        return claude_principal() or None, None
    return None, None
