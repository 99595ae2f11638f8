"""The router process: accepts host adapters' registrations and hands exact-session envelopes to them.

Owner-only: the socket is created 0600 inside the 0700 MeMesh folder, and each connection's peer credentials
(SO_PEERCRED) must name this user. Presence is written to the database (agent_sessions) so briefing, intake rules
and fallback can read it; what is live right now is the router's own memory, which discover reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from returns.result import Success

from memesh import paths
from memesh.core import messages as rules
from memesh.core.messages_model import NewReceipt
from memesh.model import iso_time
from memesh.router import wire
from memesh.router.client import RouterClient
from memesh.store.sqlite import SqliteStore, open_store


def _now_ms() -> int:
    return int(time.time() * 1000)


def _iso() -> str:
    return iso_time(datetime.now(UTC))


@dataclass
class Session:
    """One registered session: its connection, and the deliveries waiting for its host's answer."""

    session_id: str
    principal_id: str
    host_kind: str
    project: str
    work_summary: str | None
    generation: int
    lease_expires_at_ms: int
    writer: asyncio.StreamWriter
    order: int = 0  # registration order across sessions: a principal push goes to the newest eligible one
    activated: bool = False  # the adapter said its host takes pushes now: principal messages may use it
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    # delivery id → message id and "its host_accept is recorded", for the deliveries this connection accepted:
    # a host-native ACK is recorded only for one of them, and only after the acceptance.
    accepted: dict[str, tuple[str, asyncio.Event]] = field(default_factory=dict)

    def live(self) -> bool:
        return self.lease_expires_at_ms > _now_ms() and not self.writer.is_closing()

    def card(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "principal_id": self.principal_id,
            "host_kind": self.host_kind,
            "project": self.project,
            "model": None,
            "work_summary": self.work_summary,
            "active": self.live(),
            "generation": self.generation,
            "lease_expires_at_ms": self.lease_expires_at_ms,
        }


class Router:
    """The router's state: live sessions by id, and one store connection used from worker threads one at a time."""

    def __init__(self, db_path: Path | None = None) -> None:
        self.db_path = db_path
        self.sessions: dict[str, Session] = {}
        self._store: SqliteStore | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()

    def _later(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _db(self, work: Any, *args: Any) -> Any:
        def run() -> Any:
            with self._lock:
                if self._store is None:
                    self._store = open_store(self.db_path)
                with self._store.transaction():
                    return work(self._store, *args)

        return await asyncio.to_thread(run)

    async def start(self) -> None:
        await self._db(lambda store: store.end_all_sessions(_iso()))

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                with contextlib.suppress(Exception), self._store.transaction():
                    self._store.end_all_sessions(_iso())
                self._store.close()
                self._store = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: a host adapter (register, renew, accept/reject) or a caller (discover, deliver, ping)."""
        if not _peer_is_owner(writer):
            writer.close()
            return
        registered: Session | None = None
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                request = wire.decode(line)
                if request is None:
                    await _send(writer, {"ok": False, "error": "not a JSON object"})
                    continue
                op = request.get("op")
                if op == "register":
                    registered = await self._register(request, writer, registered)
                elif op == "renew" and registered is not None:
                    registered.lease_expires_at_ms = _now_ms() + _lease(request)
                    await self._db(_renew, registered)
                    await _send(writer, {"ok": True, "lease_expires_at_ms": registered.lease_expires_at_ms})
                elif op in ("accept", "reject") and registered is not None:
                    waiting = registered.pending.pop(str(request.get("delivery_ref")), None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(request)
                elif op == "activate" and registered is not None:
                    registered.activated = True
                    await _send(writer, {"ok": True, "activated": True})
                elif op == "host_ack" and registered is not None:
                    self._later(self._host_ack(registered, request))
                elif op == "discover":
                    await _send(writer, self._discover(request))
                elif op == "deliver":
                    await _send(writer, await self._deliver(request))
                elif op == "push":
                    await _send(writer, await self._push(request))
                elif op == "ping":
                    await _send(writer, {"ok": True})
                else:
                    await _send(writer, {"ok": False, "error": f"unknown op {op!r}"})
        finally:
            if registered is not None:
                await self._end(registered)
            writer.close()

    async def _register(
        self, request: dict[str, Any], writer: asyncio.StreamWriter, previous: Session | None
    ) -> Session | None:
        fields: dict[str, str] = {}
        for name in ("session_id", "principal_id", "project"):
            value = request.get(name)
            checked = rules.canonical_scope(name, value) if isinstance(value, str) else None
            if not isinstance(checked, Success):
                await _send(writer, {"ok": False, "error": f"{name}: a non-empty id that is not a path is required"})
                return previous
            fields[name] = checked.unwrap()
        host_kind = request.get("host_kind")
        if host_kind not in wire.HOST_KINDS:
            await _send(writer, {"ok": False, "error": f"host_kind: one of {sorted(wire.HOST_KINDS)}"})
            return previous
        summary = request.get("work_summary")
        summary = summary[:500] if isinstance(summary, str) and summary.strip() else None
        lease = _now_ms() + _lease(request)
        if previous is not None:
            await self._end(previous)
        generation = await self._db(
            lambda s: s.register_session(
                session_id=fields["session_id"],
                principal_id=fields["principal_id"],
                host_kind=host_kind,
                project=fields["project"],
                work_summary=summary,
                lease_expires_at_ms=lease,
                connected_at=_iso(),
            )
        )
        replaced = self.sessions.get(fields["session_id"])
        if replaced is not None:  # a new generation replaces the old connection; nothing reroutes to it
            _fail_pending(replaced, "replaced by a newer generation")
        session = Session(
            fields["session_id"],
            fields["principal_id"],
            host_kind,
            fields["project"],
            summary,
            generation,
            lease,
            writer,
            order=next(self._ids),
        )
        self.sessions[session.session_id] = session
        await _send(writer, {"ok": True, "generation": generation, "lease_expires_at_ms": lease})
        return session

    async def _end(self, session: Session) -> None:
        _fail_pending(session, "the session disconnected")
        if self.sessions.get(session.session_id) is session:
            del self.sessions[session.session_id]
        with contextlib.suppress(Exception):
            await self._db(lambda s: s.end_session(session.session_id, session.generation, _iso()))

    def _discover(self, request: dict[str, Any]) -> dict[str, Any]:
        project = request.get("project")
        asked = request.get("limit")
        limit = asked if isinstance(asked, int) else rules.DISCOVER_DEFAULT_LIMIT
        cards = [s.card() for s in self.sessions.values() if s.project == project and s.live()]
        cards.sort(key=lambda card: (card["principal_id"], card["session_id"]))
        return {"ok": True, "registrations": cards[: max(1, min(100, limit))]}

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
        """A principal message to one eligible session of that principal, best effort: with an intended session
        only that session (its current connection, never a later generation); else the newest eligible one.

        Eligible: registered in this project under this principal, live, and activated. With none, nothing is
        handed and nothing is recorded ("none"): the durable message waits for the recipient as always.
        """
        project, principal = request.get("project"), request.get("principal_id")
        intended = request.get("intended_session")
        candidates = [
            s
            for s in self.sessions.values()
            if s.project == project
            and s.principal_id == principal
            and s.activated
            and s.live()
            and (intended is None or s.session_id == intended)
        ]
        if not candidates:
            return {"status": "none", "reason": "no eligible live session of that principal"}
        return await self._hand(max(candidates, key=lambda s: s.order), request)

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
        if not isinstance(envelope, str) or len(envelope.encode("utf-8")) > rules.ENVELOPE_LIMIT:
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
            await _send(session.writer, {"op": "deliver", "delivery_ref": ref, "envelope": envelope})
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
        fact = _fact(
            delivery_id,
            message_id,
            "host_accept" if accepted else "host_reject",
            "accepted" if accepted else "unavailable",
            session_id=session.session_id if session else str(request.get("session_id") or "") or None,
            host_kind=session.host_kind if session else None,
            detail=f"generation {session.generation}" if accepted and session else answer.get("reason"),
        )
        try:
            receipt = await self._db(lambda s: s.add_receipt(fact))
        except Exception:  # the sender records it instead: the answer stays true without the row
            return answer
        return {**answer, "receipt": receipt.public()}

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
        fact = _fact(
            str(delivery_id),
            message_id,
            "host_ack",
            "acknowledged",
            session_id=session.session_id,
            host_kind=session.host_kind,
            detail=note,
        )
        with contextlib.suppress(Exception):
            await self._db(lambda s: s.add_receipt(fact))


MAX_REMEMBERED_ACCEPTS = 1000


def _fact(
    delivery_id: str,
    message_id: str,
    kind: str,
    state: str,
    *,
    session_id: str | None,
    host_kind: str | None,
    detail: str | None,
) -> NewReceipt:
    return NewReceipt(
        delivery_id=delivery_id,
        message_id=message_id,
        kind=kind,
        state=state,
        detail=detail,
        fact_source="host",
        actor=None,
        session_id=session_id,
        source_host=host_kind,
        idempotency_key=None,
        request_digest=None,
        created_at=_iso(),
    )


def _renew(store: SqliteStore, session: Session) -> None:
    store.renew_session(session.session_id, session.generation, session.lease_expires_at_ms)


def _fail_pending(session: Session, reason: str) -> None:
    for waiting in session.pending.values():
        if not waiting.done():
            waiting.set_result({"op": "reject", "reason": reason})
    session.pending.clear()


def _lease(request: dict[str, Any]) -> int:
    value = request.get("lease_ms")
    return value if isinstance(value, int) and 1_000 <= value <= 600_000 else wire.DEFAULT_LEASE_MS


async def _send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(wire.encode(message))
    await writer.drain()


def _peer_is_owner(writer: asyncio.StreamWriter) -> bool:
    """Only this user's processes may talk to the router (the socket's mode says so too; this checks the peer)."""
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return sock is not None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


async def serve(path: Path | None = None, db_path: Path | None = None, ready: asyncio.Event | None = None) -> None:
    """Run the router on `path` (default: router.sock in the MeMesh folder) until SIGINT/SIGTERM or cancellation."""
    target = path or wire.socket_path()
    paths.ensure_private_dir(target.parent)
    if target.exists():
        if RouterClient(target).ping():
            raise RuntimeError(f"a router is already running at {target}")
        target.unlink()  # a socket left by a router that was killed
    router = Router(db_path)
    await router.start()
    old_umask = os.umask(0o177)  # the socket is born 0600: no window where another user could connect
    try:
        server = await asyncio.start_unix_server(router.handle, path=str(target), limit=wire.LINE_LIMIT)
    finally:
        os.umask(old_umask)
    target.chmod(0o600)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        async with server:
            if ready is not None:
                ready.set()
            print(f"memesh router: listening on {target}", file=sys.stderr, flush=True)
            await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        for session in list(router.sessions.values()):
            _fail_pending(session, "the router stopped")
            session.writer.close()
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
        await asyncio.to_thread(router.close)


def main() -> int:
    """`memesh message router`: serve in the foreground; exit 0 on SIGINT/SIGTERM, 1 when one already runs."""
    try:
        asyncio.run(serve())
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0
