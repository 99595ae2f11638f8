"""The router's connections: a host adapter's (register, renew, activate, accept/reject, host_ack) or a sender's
(discover, deliver, push, ping), one JSON line each way (`memesh.core.router_wire`).

What is live is held here, in memory; what others must read (presence, the host's answer to a delivery) is written
through the door (`dispatch.run` with the entries of `memesh.app.operations.router`), one call at a time on the
router's one database connection, each on a worker thread so the event loop keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from typing import Any, TypeVar

from returns.result import Failure, Result, Success

from memesh.app import dispatch
from memesh.app.operations.router import (
    END_ALL_SESSIONS,
    END_SESSION,
    RECORD_HOST_FACT,
    REGISTER_SESSION,
    RENEW_SESSION,
)
from memesh.app.registry import Op
from memesh.app.resources import Resources
from memesh.core import router_wire as wire
from memesh.core import routing
from memesh.core.messages import ENVELOPE_LIMIT
from memesh.errors import ErrorCode, MemeshError
from memesh.transports.router.session import Session

O = TypeVar("O")  # noqa: E741 - an operation's output
SOURCE_HOST = "memesh-router"
MAX_REMEMBERED_ACCEPTS = 1000


class Router:
    """The router's state: live sessions by id, and the resources (one database connection) its records go to."""

    def __init__(self, resources: Resources) -> None:
        self.resources = resources
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()  # one call at a time on the one connection
        self._closed = False
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()

    def _later(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _run(self, op: Op[Any, Any, O], arguments: dict[str, Any]) -> Result[O, MemeshError]:
        with self._lock:
            if self._closed:  # a connection still ending after the stop: its database is closed, not reopened
                return Failure(MemeshError(ErrorCode.OPERATION_FAILED, "the router has stopped"))
            return dispatch.run(op, self.resources, arguments, self.resources.context(SOURCE_HOST, False))

    async def _call(self, op: Op[Any, Any, O], arguments: dict[str, Any]) -> Result[O, MemeshError]:
        return await asyncio.to_thread(self._run, op, arguments)

    async def start(self) -> None:
        """No registration from before this router is live; RuntimeError when the database will not take that."""
        result = await self._call(END_ALL_SESSIONS, {})
        if not isinstance(result, Success):
            raise RuntimeError(f"the database could not be used: {result.failure().message}")

    def close(self) -> None:
        """Every registration ended in the database, then the database closed (a call still running finishes
        first; none runs after)."""
        with contextlib.suppress(Exception):
            self._run(END_ALL_SESSIONS, {})
        with self._lock:
            self._closed = True
            self.resources.close()

    def stop(self, reason: str) -> None:
        """Answer every waiting delivery with `reason` and close every host's connection."""
        for session in list(self.sessions.values()):
            session.fail_pending(reason)
            session.writer.close()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, line by line, until it closes; a registration it holds ends with it."""
        registered: Session | None = None
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                request = wire.decode(line)
                if request is None:
                    await send(writer, {"ok": False, "error": "not a JSON object"})
                    continue
                registered = await self._answer(request, writer, registered)
        finally:
            if registered is not None:
                await self._end(registered)
            writer.close()

    async def _answer(
        self, request: dict[str, Any], writer: asyncio.StreamWriter, registered: Session | None
    ) -> Session | None:
        """Answer one line; returns the registration this connection holds after it."""
        op = request.get("op")
        if op == "register":
            return await self._register(request, writer, registered)
        if op == "renew" and registered is not None:
            await send(writer, await self._renew(registered, request))
        elif op in ("accept", "reject") and registered is not None:
            waiting = registered.pending.pop(str(request.get("delivery_ref")), None)
            if waiting is not None and not waiting.done():
                waiting.set_result(request)
        elif op == "activate" and registered is not None:
            registered.activated = True
            await send(writer, {"ok": True, "activated": True})
        elif op == "host_ack" and registered is not None:
            self._later(self._host_ack(registered, request))
        elif op == "discover":
            found = routing.discovered(self.sessions.values(), request.get("project"), request.get("limit"))
            await send(writer, {"ok": True, "registrations": [session.card() for session in found]})
        elif op == "deliver":
            await send(writer, await self._deliver(request))
        elif op == "push":
            await send(writer, await self._push(request))
        elif op == "ping":
            await send(writer, {"ok": True})
        else:
            await send(writer, {"ok": False, "error": f"unknown op {op!r}"})
        return registered

    async def _register(
        self, request: dict[str, Any], writer: asyncio.StreamWriter, previous: Session | None
    ) -> Session | None:
        result = await self._call(REGISTER_SESSION, _fields(request))
        if not isinstance(result, Success):
            await send(writer, {"ok": False, "error": result.failure().message})
            return previous
        recorded = result.unwrap()
        if previous is not None:
            await self._end(previous)
        replaced = self.sessions.get(recorded["session_id"])
        if replaced is not None:  # a new generation replaces the old connection; nothing reroutes to it
            replaced.fail_pending("replaced by a newer generation")
        session = Session(
            recorded["session_id"],
            recorded["principal_id"],
            recorded["host_kind"],
            recorded["project"],
            recorded["work_summary"],
            recorded["generation"],
            recorded["lease_expires_at_ms"],
            writer,
            order=next(self._ids),
        )
        self.sessions[session.session_id] = session
        await send(
            writer, {"ok": True, "generation": session.generation, "lease_expires_at_ms": session.lease_expires_at_ms}
        )
        return session

    async def _renew(self, session: Session, request: dict[str, Any]) -> dict[str, Any]:
        ids = {"session_id": session.session_id, "generation": session.generation}
        result = await self._call(RENEW_SESSION, {**_fields(request), **ids})
        if not isinstance(result, Success):
            return {"ok": False, "error": result.failure().message}
        session.lease_expires_at_ms = result.unwrap()["lease_expires_at_ms"]
        return {"ok": True, "lease_expires_at_ms": session.lease_expires_at_ms}

    async def _end(self, session: Session) -> None:
        session.fail_pending("the session disconnected")
        if self.sessions.get(session.session_id) is session:
            del self.sessions[session.session_id]
        with contextlib.suppress(Exception):
            await self._call(END_SESSION, {"session_id": session.session_id, "generation": session.generation})

    async def _deliver(self, request: dict[str, Any]) -> dict[str, Any]:
        """Hand the envelope to exactly this session's host and wait for its answer; never another session."""
        session = self.sessions.get(str(request.get("session_id")))
        if session is None:
            return await self._recorded(
                request, None, {"status": "unavailable", "reason": "no such session is connected"}
            )
        if session.project != request.get("project"):
            answer = {"status": "unavailable", "reason": "that session is registered in another project"}
            return await self._recorded(request, None, answer)
        return await self._hand(session, request)

    async def _push(self, request: dict[str, Any]) -> dict[str, Any]:
        """A principal message to one eligible session of that principal, best effort (`routing.push_target`).
        With none, nothing is handed and nothing is recorded ("none"): the durable message waits as always."""
        target = routing.push_target(
            self.sessions.values(), request.get("project"), request.get("principal_id"), request.get("intended_session")
        )
        if target is None:
            return {"status": "none", "reason": "no eligible live session of that principal"}
        return await self._hand(target, request)

    async def _hand(self, session: Session, request: dict[str, Any]) -> dict[str, Any]:
        """The envelope to this session's connection; its host's answer, recorded as a fact of the delivery."""
        if not session.live():
            answer = {
                "status": "unavailable",
                "reason": "the session's lease expired",
                "generation": session.generation,
            }
            return await self._recorded(request, session, answer)
        envelope = request.get("envelope")
        if not isinstance(envelope, str) or len(envelope.encode("utf-8")) > ENVELOPE_LIMIT:
            return {"status": "unavailable", "reason": "the envelope does not fit the native limit"}
        ref = str(next(self._ids))
        reply_to: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        session.pending[ref] = reply_to
        delivery_id = request.get("delivery_id")
        recorded = asyncio.Event()
        if isinstance(delivery_id, str):  # before the envelope goes out: the host may ACK straight after accepting
            session.accepted[delivery_id] = (str(request.get("message_id")), recorded)
            while len(session.accepted) > MAX_REMEMBERED_ACCEPTS:
                del session.accepted[next(iter(session.accepted))]
        try:
            await send(session.writer, {"op": "deliver", "delivery_ref": ref, "envelope": envelope})
            reply = await asyncio.wait_for(reply_to, wire.HOST_ACCEPT_TIMEOUT_S)
        except (TimeoutError, ConnectionError):
            reply = {"op": "reject", "reason": "the host did not accept in time"}
        finally:
            session.pending.pop(ref, None)
        if reply.get("op") == "accept":
            accepted = {"status": "accepted", "generation": session.generation, "session_id": session.session_id}
            answer = await self._recorded(request, session, accepted)
            recorded.set()
            return answer
        if isinstance(delivery_id, str):
            session.accepted.pop(delivery_id, None)
        reason = str(reply.get("reason") or "the host rejected it")[:200]
        refused = {
            "status": "unavailable",
            "reason": reason,
            "generation": session.generation,
            "session_id": session.session_id,
        }
        return await self._recorded(request, session, refused)

    async def _recorded(
        self, request: dict[str, Any], session: Session | None, answer: dict[str, Any]
    ) -> dict[str, Any]:
        """`answer` with the host fact it stands for written to the delivery (host_accept or host_reject), when the
        request named the delivery; the sender records it itself when the answer carries no receipt."""
        delivery_id, message_id = request.get("delivery_id"), request.get("message_id")
        if not isinstance(delivery_id, str) or not isinstance(message_id, str):
            return answer
        accepted = answer["status"] == "accepted"
        fact = {
            "delivery_id": delivery_id,
            "message_id": message_id,
            "kind": "host_accept" if accepted else "host_reject",
            "session_id": session.session_id if session else str(request.get("session_id") or "") or None,
            "host_kind": session.host_kind if session else None,
            "detail": f"generation {session.generation}" if accepted and session else answer.get("reason"),
        }
        try:
            result = await self._call(RECORD_HOST_FACT, fact)
        except Exception:  # the sender records it instead: the answer stays true without the row
            return answer
        return {**answer, "receipt": result.unwrap()} if isinstance(result, Success) else answer

    async def _host_ack(self, session: Session, request: dict[str, Any]) -> None:
        """A host-native ACK of a delivery this connection accepted: its own fact, after the host_accept."""
        delivery_id = request.get("delivery_id")
        known = session.accepted.get(delivery_id) if isinstance(delivery_id, str) else None
        if known is None:
            return  # not a delivery this connection accepted: nothing to vouch for
        message_id, recorded = known
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(recorded.wait(), wire.HOST_ACCEPT_TIMEOUT_S + 5.0)
        if not recorded.is_set():
            return
        detail = request.get("detail")
        note = f"generation {session.generation}"
        if isinstance(detail, str) and detail.strip():
            note = f"{note}: {detail.strip()[:200]}"
        fact = {
            "delivery_id": delivery_id,
            "message_id": message_id,
            "kind": "host_ack",
            "session_id": session.session_id,
            "host_kind": session.host_kind,
            "detail": note,
        }
        with contextlib.suppress(Exception):
            await self._call(RECORD_HOST_FACT, fact)


def _fields(request: dict[str, Any]) -> dict[str, Any]:
    """A line's fields without its `op`: the operation's input, which the gate admits (an unknown field is refused)."""
    return {name: value for name, value in request.items() if name != "op"}


async def send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(wire.encode(message))
    await writer.drain()
