"""The router's registrations as the database records them (`agent_sessions`): presence that other processes read
(the message tool's intake and fallback rules, briefing, the hooks' reminders) while what is live right now stays the
router's own memory. docs/adr/0004-message-router.md.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import router_wire
from memesh.core.messages import canonical_scope
from memesh.errors import MemeshError
from memesh.generated.router.end_all_sessions_input import EndAllSessionsInput
from memesh.generated.router.end_all_sessions_output import EndAllSessionsOutput
from memesh.generated.router.end_session_input import EndSessionInput
from memesh.generated.router.end_session_output import EndSessionOutput
from memesh.generated.router.register_session_input import RegisterSessionInput
from memesh.generated.router.register_session_output import RegisterSessionOutput
from memesh.generated.router.renew_session_input import RenewSessionInput
from memesh.generated.router.renew_session_output import RenewSessionOutput
from memesh.model import iso_time

SUMMARY_MAX = 500


class SessionStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def register_session(
        self,
        *,
        session_id: str,
        principal_id: str,
        host_kind: str,
        project: str,
        work_summary: str | None,
        lease_expires_at_ms: int,
        connected_at: str,
    ) -> int: ...
    def renew_session(self, session_id: str, generation: int, lease_expires_at_ms: int) -> None: ...
    def end_session(self, session_id: str, generation: int, when: str) -> None: ...
    def end_all_sessions(self, when: str) -> None: ...


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def register_session(
    store: SessionStore, request: RegisterSessionInput, *, ctx: CallContext
) -> Result[RegisterSessionOutput, MemeshError]:
    """The registration recorded with its new generation; Failure(validation.bad-body) naming each id that is blank
    or an absolute path."""
    given = {
        "session_id": request["session_id"],
        "principal_id": request["principal_id"],
        "project": request["project"],
    }
    ids: dict[str, str] = {}
    issues: list[str] = []
    for field, text in given.items():
        match canonical_scope(field, text):
            case Success(value):
                ids[field] = value
            case Failure(error):
                issues.append(error.message)
    if issues:
        return Failure(MemeshError.bad_body("; ".join(issues)))
    # The summary as declared, cut to 500 characters; blank is none.
    declared = request.get("work_summary")
    summary = declared[:SUMMARY_MAX] if declared and declared.strip() else None
    expires = _ms(ctx.now) + router_wire.lease_ms(request.get("lease_ms"))
    with store.transaction():
        generation = store.register_session(
            session_id=ids["session_id"],
            principal_id=ids["principal_id"],
            host_kind=request["host_kind"],
            project=ids["project"],
            work_summary=summary,
            lease_expires_at_ms=expires,
            connected_at=iso_time(ctx.now),
        )
    return Success(
        {
            "session_id": ids["session_id"],
            "principal_id": ids["principal_id"],
            "project": ids["project"],
            "host_kind": request["host_kind"],
            "work_summary": summary,
            "generation": generation,
            "lease_expires_at_ms": expires,
        }
    )


def renew_session(
    store: SessionStore, request: RenewSessionInput, *, ctx: CallContext
) -> Result[RenewSessionOutput, MemeshError]:
    """The lease of a live registration started again from now (a registration that has ended stays ended)."""
    expires = _ms(ctx.now) + router_wire.lease_ms(request.get("lease_ms"))
    with store.transaction():
        store.renew_session(request["session_id"], request["generation"], expires)
    return Success({"lease_expires_at_ms": expires})


def end_session(
    store: SessionStore, request: EndSessionInput, *, ctx: CallContext
) -> Result[EndSessionOutput, MemeshError]:
    """The registration marked disconnected now; never fails but for the database."""
    when = iso_time(ctx.now)
    with store.transaction():
        store.end_session(request["session_id"], request["generation"], when)
    return Success({"ended_at": when})


def end_all_sessions(
    store: SessionStore, request: EndAllSessionsInput, *, ctx: CallContext
) -> Result[EndAllSessionsOutput, MemeshError]:
    """Every registration still open marked disconnected (a router starting or stopping); never fails but for the
    database."""
    when = iso_time(ctx.now)
    with store.transaction():
        store.end_all_sessions(when)
    return Success({"ended_at": when})
