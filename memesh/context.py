"""What a transport tells an operation about the call: the clock, who is writing, and who will read the answer.

A plain value: what it holds that reaches outside (the current project, the router, the owner's quota setting) is
given by the composition root (`memesh.app.resources.Resources.context`); nothing here runs git or opens a socket.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memesh.records import dataclass

if TYPE_CHECKING:
    from collections.abc import Mapping

    from memesh.values import RouterPort


class NotGiven(LookupError):
    """An operation asked the call context for something its transport did not give (a bug in that transport)."""


def _no_project() -> str:
    raise NotGiven("this call has no current project: build its context with Resources.context")


def _no_router() -> RouterPort:
    raise NotGiven("this call has no router: build its context with Resources.context")


def _no_quota() -> str | None:
    return None


def _no_settings() -> Mapping[str, Any]:
    return {}


def _new_token() -> str:
    import uuid  # only the message tool mints tokens: uuid imports platform and more, ~4 ms for every hook

    return uuid.uuid4().hex


@dataclass(frozen=True)
class Caller:
    """Who a call on a remote listener is made by: a team member behind its own token, or the owner (the remote
    token of MEMESH_REMOTE_TOKEN / remote-token, an admin over everything). Local calls have no caller.

    `projects` None: every project; otherwise the project ids whose memories the member may read and write.
    """

    name: str
    role: str
    projects: tuple[str, ...] | None = None
    owner: bool = False


def _no_author() -> str | None:
    return None


@dataclass(frozen=True)
class CallContext:
    """Per-call facts an operation may not read globally.

    `source_host` is stamped into `metadata.provenance.source_host` when a memory is first stored (never an input).
    `agent_view` is true where the answer goes into an agent's context (MCP, CLI): recall then applies the size cap.
    `project` gives the current project's id (the working directory's), asked only when an operation needs it.
    `workspace_roots` asks the client for its workspace roots (MCP `roots/list`): the root URIs it offered, or None
    when the transport has no client to ask or the client does not offer roots. Asked only when needed.
    `caller_session` is the agent session the call is made in (the host's session or thread id:
    memesh.hosts.session_from_environment), when the transport knows it: what recall returns in a session is
    recorded so a [mem:id] citation there credits it, and the message tool sends and polls as it.
    `environment` is the caller's environment variables where they are not this process's (a hook run for its
    client by a warm memesh-mcp): settings read from the environment (MEMESH_BRIEFING, …) come from it; None reads
    this process's.
    `settings` gives config.json as stored ({}: every default, when it is missing or unreadable), read only when an
    operation needs a setting; what is in effect with the environment is core.settings' rule.
    `caller` and `author`: who calls (a member on a remote listener) and who a write is recorded as.
    """

    source_host: str
    agent_view: bool
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    project: Callable[[], str] = _no_project
    # The message tool: the caller's own session (MCP and CLI read it from the environment; HTTP has none), how
    # to reach the local router, the owner's raw quota setting, and fresh random tokens for ids and cursors.
    caller_session: str | None = None
    router: Callable[[], RouterPort] = _no_router
    message_quota: Callable[[], str | None] = _no_quota
    new_token: Callable[[], str] = _new_token
    workspace_roots: Callable[[], list[str] | None] | None = None
    environment: Mapping[str, str] | None = None
    settings: Callable[[], Mapping[str, Any]] = _no_settings
    # Issue 32: who is writing. `caller` is the member (or owner) behind a remote listener's token, None locally;
    # `author` names who a write is recorded as (the caller's name, else the local `author` setting), asked only by
    # operations that write.
    caller: Caller | None = None
    author: Callable[[], str | None] = _no_author

    def at(self, now: datetime) -> CallContext:
        return replace(self, now=now)
