"""Entries of the local router (transports/router): what it records in the database about the sessions it holds and
the deliveries it hands them. Reached only by the router's socket; each uses the store alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store

if TYPE_CHECKING:
    from memesh.generated.router.end_all_sessions_input import EndAllSessionsInput
    from memesh.generated.router.end_all_sessions_output import EndAllSessionsOutput
    from memesh.generated.router.end_session_input import EndSessionInput
    from memesh.generated.router.end_session_output import EndSessionOutput
    from memesh.generated.router.host_fact_input import HostFactInput
    from memesh.generated.router.host_fact_output import HostFactOutput
    from memesh.generated.router.register_session_input import RegisterSessionInput
    from memesh.generated.router.register_session_output import RegisterSessionOutput
    from memesh.generated.router.renew_session_input import RenewSessionInput
    from memesh.generated.router.renew_session_output import RenewSessionOutput


def _register() -> Operation[Store, RegisterSessionInput, RegisterSessionOutput]:
    from memesh.ops.sessions import register_session

    return register_session


def _renew() -> Operation[Store, RenewSessionInput, RenewSessionOutput]:
    from memesh.ops.sessions import renew_session

    return renew_session


def _end() -> Operation[Store, EndSessionInput, EndSessionOutput]:
    from memesh.ops.sessions import end_session

    return end_session


def _end_all() -> Operation[Store, EndAllSessionsInput, EndAllSessionsOutput]:
    from memesh.ops.sessions import end_all_sessions

    return end_all_sessions


def _host_fact() -> Operation[Store, HostFactInput, HostFactOutput]:
    from memesh.ops.host_fact import record_host_fact

    return record_host_fact


REGISTER_SESSION = Op(
    name="register_session",
    input_schema="router/register_session.input",
    output_schema="router/register_session.output",
    load=_register,
    uses=the_store,
    summary="Record a host adapter's registration of one live session, with its new generation",
)
RENEW_SESSION = Op(
    name="renew_session",
    input_schema="router/renew_session.input",
    output_schema="router/renew_session.output",
    load=_renew,
    uses=the_store,
    summary="Start a registration's lease again from now",
)
END_SESSION = Op(
    name="end_session",
    input_schema="router/end_session.input",
    output_schema="router/end_session.output",
    load=_end,
    uses=the_store,
    summary="Mark one registration disconnected",
)
END_ALL_SESSIONS = Op(
    name="end_all_sessions",
    input_schema="router/end_all_sessions.input",
    output_schema="router/end_all_sessions.output",
    load=_end_all,
    uses=the_store,
    summary="Mark every registration disconnected (a router starting or stopping)",
)
RECORD_HOST_FACT = Op(
    name="record_host_fact",
    input_schema="router/host_fact.input",
    output_schema="router/host_fact.output",
    load=_host_fact,
    uses=the_store,
    summary="Record what a session's host answered a delivery (host_accept, host_reject or host_ack)",
)

OPS: tuple[Op[Any, Any, Any], ...] = (REGISTER_SESSION, RENEW_SESSION, END_SESSION, END_ALL_SESSIONS, RECORD_HOST_FACT)
