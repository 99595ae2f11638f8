"""The real router on its owner-only socket, a host adapter registered on it, and the message tool sending to an
exact session through it."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.router_client import RouterClient
from memesh.adapters.router_host import HostAdapter
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.open import Store
from memesh.transports.router.server import serve
from tests.backends import Backend
from tests.calls import call

pytestmark = pytest.mark.anyio
PROJECT = "demo~" + "3" * 32
MEMESH_BIN = Path(sys.executable).parent / "memesh"


@pytest.fixture
def folder() -> Iterator[Path]:
    # A short path: a Unix socket's path is limited to about 100 bytes, and pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="mr", dir="/tmp") as name:
        yield Path(name)


@asynccontextmanager
async def running_router(folder: Path, backend: Backend) -> AsyncIterator[Path]:
    """The router on `folder`'s socket, its database the test's (the file k.db, or on PostgreSQL its database)."""
    socket = folder / "router.sock"
    ready = asyncio.Event()
    task = asyncio.create_task(serve(socket, backend.target(folder / "k.db"), ready))
    await asyncio.wait_for(ready.wait(), 10)
    try:
        yield socket
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def _context(socket: Path, **extra: Any) -> CallContext:
    base = CallContext(source_host="test-host", agent_view=False, router=lambda: RouterClient(socket))
    return replace(base, **extra)


def _send(store: Store, socket: Path, **extra: Any) -> Any:
    arguments = {
        "action": "send",
        "project": PROJECT,
        "sender": "author",
        "recipient": "sess-1",
        "target_kind": "session",
        "idempotency_key": "k",
        "payload": "please review",
        **extra,
    }
    return call("message", store, arguments, _context(socket))


def _adapter(socket: Path, taken: list[dict[str, Any]], verdict: bool | str = True, **extra: Any) -> HostAdapter:
    async def accept(envelope: dict[str, Any]) -> bool | str:
        taken.append(envelope)
        return verdict

    fields: dict[str, Any] = {
        "session_id": "sess-1",
        "principal_id": "reviewer",
        "project": PROJECT,
        "host_kind": "claude-code",
        "work_summary": "reviewing the auth change",
        **extra,
    }
    return HostAdapter(accept=accept, path=socket, **fields)


async def test_an_exact_session_send_returns_after_the_host_accepts(folder: Path, backend: Backend) -> None:
    taken: list[dict[str, Any]] = []
    async with running_router(folder, backend) as socket:
        adapter = _adapter(socket, taken)
        generation = await adapter.connect()
        store = backend.open(folder / "k.db")
        try:
            found = await asyncio.to_thread(
                call, "message", store, {"action": "discover", "project": PROJECT}, _context(socket)
            )
            [card] = found.unwrap()["registrations"]
            assert (card["session_id"], card["principal_id"], card["model"], card["active"]) == (
                "sess-1",
                "reviewer",
                None,
                True,
            )
            sent = (await asyncio.to_thread(_send, store, socket)).unwrap()
        finally:
            store.close()
            await adapter.close()
    assert sent["host_accept"] == {
        "session_id": "sess-1",
        "generation": generation,
        "accepted_at": sent["host_accept"]["accepted_at"],
    }
    [envelope] = taken
    assert envelope["payload"] == "please review" and envelope["untrusted"] is True
    assert envelope["message_id"] == sent["message_id"]


async def test_a_host_that_rejects_makes_the_send_recipient_unavailable(folder: Path, backend: Backend) -> None:
    async with running_router(folder, backend) as socket:
        adapter = _adapter(socket, [], verdict="busy")
        await adapter.connect()
        store = backend.open(folder / "k.db")
        try:
            error = (await asyncio.to_thread(_send, store, socket)).failure()
        finally:
            store.close()
            await adapter.close()
    assert error.code == ErrorCode.RECIPIENT_UNAVAILABLE and "busy" in error.message


async def test_a_session_that_left_is_unavailable_and_nothing_reroutes_to_its_principal(
    folder: Path, backend: Backend
) -> None:
    taken: list[dict[str, Any]] = []
    async with running_router(folder, backend) as socket:
        other = _adapter(socket, taken, session_id="sess-2")  # the same principal's other live session
        await other.connect()
        gone = _adapter(socket, [])
        await gone.connect()
        await gone.close()
        store = backend.open(folder / "k.db")
        try:
            for _ in range(50):  # the router notices the closed connection on its next read
                if not store.live_sessions(PROJECT, 0, 10) or len(store.live_sessions(PROJECT, 0, 10)) == 1:
                    break
                await asyncio.sleep(0.02)
            error = (await asyncio.to_thread(_send, store, socket)).failure()
        finally:
            store.close()
            await other.close()
    assert error.code == ErrorCode.RECIPIENT_UNAVAILABLE
    assert taken == []  # sess-2 of the same principal was never handed it


async def test_a_reregistered_session_gets_a_new_generation(folder: Path, backend: Backend) -> None:
    async with running_router(folder, backend) as socket:
        first = _adapter(socket, [])
        one = await first.connect()
        second = _adapter(socket, [])
        two = await second.connect()
        await first.close()
        await second.close()
    assert two == one + 1


def test_sends_to_a_session_fail_plainly_without_a_router(folder: Path, backend: Backend) -> None:
    store = backend.open(folder / "k.db")
    try:
        error = _send(store, folder / "router.sock").failure()
    finally:
        store.close()
    assert error.code == ErrorCode.ROUTER_UNREACHABLE and error.data["message_id"].startswith("msg_")


def test_the_router_command_listens_owner_only_and_stops_cleanly(folder: Path, backend: Backend) -> None:
    env = {**os.environ, "MEMESH_DIR": str(folder), "MEMESH_DB_PATH": str(folder / "k.db")}
    env.update(backend.environ(folder / "k.db"))
    process = subprocess.Popen([str(MEMESH_BIN), "message", "router"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        assert "listening on" in process.stderr.readline()
        socket = folder / "router.sock"
        assert stat.S_IMODE(socket.stat().st_mode) == 0o600
        assert RouterClient(socket).ping()
        second = subprocess.run(
            [str(MEMESH_BIN), "message", "router"], env=env, capture_output=True, text=True, timeout=30, check=False
        )
        assert second.returncode == 1 and "already running" in second.stderr
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert not socket.exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _raw(socket: Path, message: dict[str, Any]) -> Any:
    return RouterClient(socket).request(message, timeout_s=5.0)


async def test_a_registration_the_router_cannot_admit_is_answered_with_the_reason_and_registers_nothing(
    folder: Path,
    backend: Backend,
) -> None:
    line = {"op": "register", "session_id": "/home/me", "principal_id": "reviewer", "project": PROJECT}
    async with running_router(folder, backend) as socket:
        as_path = await asyncio.to_thread(_raw, socket, {**line, "host_kind": "claude-code"})
        unknown_kind = await asyncio.to_thread(_raw, socket, {**line, "session_id": "sess-1", "host_kind": "vim"})
        unknown_field = await asyncio.to_thread(
            _raw, socket, {**line, "session_id": "sess-1", "host_kind": "test", "colour": "blue"}
        )
        found = await asyncio.to_thread(_raw, socket, {"op": "discover", "project": PROJECT})
    assert as_path["ok"] is False and as_path["error"].startswith("session_id: an absolute filesystem path")
    assert unknown_kind["ok"] is False and unknown_kind["error"].startswith("host_kind: ")
    assert unknown_field["ok"] is False and "colour" in unknown_field["error"]
    assert found == {"ok": True, "registrations": []}
    store = backend.open(folder / "k.db")
    try:
        assert store.latest_session("sess-1") is None and store.latest_session("/home/me") is None
    finally:
        store.close()


async def test_presence_is_recorded_while_the_connection_lives_and_ended_when_it_closes(
    folder: Path, backend: Backend
) -> None:
    async with running_router(folder, backend) as socket:
        adapter = _adapter(socket, [])
        generation = await adapter.connect()
        store = backend.open(folder / "k.db")
        try:
            [card] = store.live_sessions(PROJECT, 0, 10)
            assert (card.session_id, card.principal_id, card.generation, card.work_summary) == (
                "sess-1",
                "reviewer",
                generation,
                "reviewing the auth change",
            )
            await adapter.close()
            for _ in range(100):  # the router notices the closed connection on its next read
                if not store.live_sessions(PROJECT, 0, 10):
                    break
                await asyncio.sleep(0.02)
            assert store.live_sessions(PROJECT, 0, 10) == []
        finally:
            store.close()


async def test_a_router_that_stops_leaves_no_registration_live(folder: Path, backend: Backend) -> None:
    async with running_router(folder, backend) as socket:
        adapter = _adapter(socket, [])
        await adapter.connect()
    await adapter.close()
    store = backend.open(folder / "k.db")
    try:
        latest = store.latest_session("sess-1")
        assert latest is not None and latest.disconnected
    finally:
        store.close()


@pytest.mark.sqlite_only  # a file that is not a database
async def test_a_router_refuses_to_start_on_a_file_that_is_not_a_database(folder: Path) -> None:
    (folder / "k.db").write_bytes(b"not a database, just some bytes " * 64)
    with pytest.raises(RuntimeError, match="could not be used"):
        await serve(folder / "router.sock", folder / "k.db", asyncio.Event())
    assert not (folder / "router.sock").exists()
