"""The recipient a hook reminds for: the one the session declares with MEMESH_RECIPIENT, or — under Claude Code with
the memesh-channel set up — `principal_id` of the owner-private hosts/claude.json. Without one, the message hooks
stay quiet (spec, `message`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memesh.context import CallContext
    from memesh.transports.hooks.runner import Answer, HookCall

RECIPIENT_ENV = "MEMESH_RECIPIENT"


class InboxRead(Protocol):
    """A reminder operation of `memesh.ops.message_reminders`: its text, or None when nothing waits."""

    def __call__(
        self, store: Any, *, project: str, recipient: str, session_id: str, ctx: CallContext
    ) -> str | None: ...


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


def waiting_text(payload: dict[str, Any], call: HookCall, answer: Answer, hook: str, read: InboxRead) -> str | None:
    """What `read` says of the messages waiting for this session's declared recipient in its project; None — and
    nothing recorded — when no recipient is declared (most sessions: these hooks run on every prompt and stop).
    A refused recipient or an unreadable database is recorded as an error outcome and reads as nothing waiting."""
    recipient, problem = declared_recipient(call.host, call.env)
    if problem is not None:
        answer.record(hook, "error", reason=problem)
        return None
    if recipient is None:
        return None
    from memesh.app.database import StoreError, open_database
    from memesh.transports.hooks.context import call_context, project_of, session_cwd

    project = project_of(session_cwd(payload, call))
    try:
        store = open_database()
    except StoreError:
        answer.record(hook, "error", reason="database unreadable")
        return None
    try:
        session_id = str(payload["session_id"])
        return read(store, project=project, recipient=recipient, session_id=session_id, ctx=call_context(project, call))
    finally:
        store.close()
