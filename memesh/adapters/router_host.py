"""A host adapter's side of the local router: register one live session, keep its lease, answer each delivery.

A host integration (the Claude Code channel, a test host) supplies `accept(envelope) -> bool | str`: True when the
host took the envelope in, or a reason it could not. The adapter never executes the payload.

Two more facts an integration may report, only when its host really says so: `activate()` once the host is ready
to take pushes (principal messages use only an activated session), and `host_ack(delivery_id)` when the host
itself confirms, after accepting, that the envelope reached the session (a host-native ACK, recorded as its own
fact; it is never the recipient's `ack`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from memesh import paths
from memesh.adapters.router_client import peer_problem, socket_problem
from memesh.core import router_wire as wire

Accept = Callable[[dict[str, Any]], Awaitable[bool | str]]


class HostAdapter:
    """One registered session on the router at `path` (default: the MeMesh folder's router.sock)."""

    def __init__(
        self,
        *,
        session_id: str,
        principal_id: str,
        project: str,
        host_kind: str,
        accept: Accept,
        work_summary: str | None = None,
        lease_ms: int = wire.DEFAULT_LEASE_MS,
        path: Path | None = None,
    ) -> None:
        self.registration = {
            "op": "register",
            "session_id": session_id,
            "principal_id": principal_id,
            "project": project,
            "host_kind": host_kind,
            "work_summary": work_summary,
            "lease_ms": lease_ms,
        }
        self.lease_ms = lease_ms
        self.accept = accept
        self.path = path or paths.router_socket()
        self.generation: int | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def connect(self) -> int:
        """Register; returns the generation the router gave this connection. RuntimeError when the socket is not
        this user's router's (see router_client.socket_problem), OSError when it cannot be reached."""
        if (problem := socket_problem(self.path)) is not None:
            raise RuntimeError(problem)
        reader, writer = await asyncio.open_unix_connection(str(self.path), limit=wire.LINE_LIMIT)
        if (problem := peer_problem(writer.get_extra_info("socket"))) is not None:
            writer.close()  # the registration names this session's principal and project: never sent to them
            raise RuntimeError(problem)
        self._writer = writer
        writer.write(wire.encode(self.registration))
        await writer.drain()
        answer = wire.decode(await reader.readuntil(b"\n")) or {}
        if not answer.get("ok"):
            writer.close()
            raise RuntimeError(f"the router refused the registration: {answer.get('error')}")
        self.generation = int(answer["generation"])
        self._tasks = [asyncio.create_task(self._serve(reader)), asyncio.create_task(self._renew())]
        return self.generation

    async def _serve(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            message = wire.decode(line) or {}
            if message.get("op") != "deliver":
                continue
            try:
                envelope = json.loads(message["envelope"])
                verdict = await self.accept(envelope)
            except Exception as exc:  # a broken host integration rejects; the router must not wait forever
                verdict = f"the host adapter failed: {type(exc).__name__}"
            answer: dict[str, Any] = {
                "op": "accept" if verdict is True else "reject",
                "delivery_ref": message["delivery_ref"],
            }
            if verdict is not True:
                answer["reason"] = str(verdict) if isinstance(verdict, str) else "the host declined"
            await self._write(answer)

    async def activate(self) -> None:
        """The host is ready for pushes: principal messages for this session's principal may now come here."""
        await self._write({"op": "activate"})

    async def host_ack(self, delivery_id: str, detail: str | None = None) -> None:
        """The host confirmed that an envelope it accepted reached the session (its own native acknowledgement)."""
        message: dict[str, Any] = {"op": "host_ack", "delivery_id": delivery_id}
        if detail:
            message["detail"] = detail
        await self._write(message)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            await self._write({"op": "renew", "lease_ms": self.lease_ms})

    async def _write(self, message: dict[str, Any]) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(wire.encode(message))
            with contextlib.suppress(ConnectionError):
                await self._writer.drain()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
