"""The recipient a hook reminds for: the one the session declares with MEMESH_RECIPIENT, or — under Claude Code with
the memesh-channel set up — `principal_id` of the owner-private hosts/claude.json. Without one, the message hooks
stay quiet (spec, `message`)."""

from __future__ import annotations

import os

RECIPIENT_ENV = "MEMESH_RECIPIENT"


def declared_recipient(host: str | None) -> tuple[str | None, str | None]:
    """(the recipient, None), (None, why the declared one is refused), or (None, None) when none is declared."""
    declared = os.environ.get(RECIPIENT_ENV, "").strip()
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
