"""The MCP server's store runs tool calls side by side (a connection per worker thread), and closes the connection
of a worker thread that has ended."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.router_client import RouterClient
from memesh.adapters.router_host import HostAdapter
from memesh.context import CallContext
from memesh.transports.mcp.backend import Backend
from memesh.transports.router.server import serve
from tests.backends import Backend as Engine
from tests.descriptors import needs_proc, open_to

PROJECT = "demo~" + "4" * 32


@pytest.fixture
def folder() -> Iterator[Path]:
    # A short path: a Unix socket's path is limited to about 100 bytes, and pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="mb", dir="/tmp") as name:
        yield Path(name)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_send_waiting_for_a_slow_host_does_not_hold_up_a_recall(folder: Path, backend: Engine) -> None:
    socket = folder / "router.sock"
    ready = asyncio.Event()
    database = backend.target(folder / "k.db")
    router = asyncio.create_task(serve(socket, database, ready))
    await asyncio.wait_for(ready.wait(), 10)
    taken: list[dict[str, Any]] = []
    release = asyncio.Event()

    async def accept(envelope: dict[str, Any]) -> bool:
        taken.append(envelope)
        await release.wait()  # the host takes its time: the sender waits for its acceptance
        return True

    adapter = HostAdapter(
        accept=accept,
        path=socket,
        session_id="sess-1",
        principal_id="reviewer",
        project=PROJECT,
        host_kind="claude-code",
        work_summary=None,
    )
    await adapter.connect()
    mcp = Backend(database)
    ctx = CallContext(source_host="test-host", agent_view=True, router=lambda: RouterClient(socket))
    try:
        await asyncio.to_thread(mcp.open)
        await asyncio.to_thread(
            mcp.call, "remember", {"name": "auth-note", "type": "note", "observations": ["tokens rotate"]}, ctx
        )
        send = asyncio.create_task(
            asyncio.to_thread(
                mcp.call,
                "message",
                {
                    "action": "send",
                    "project": PROJECT,
                    "sender": "author",
                    "recipient": "sess-1",
                    "target_kind": "session",
                    "idempotency_key": "k",
                    "payload": "please review",
                },
                ctx,
            )
        )
        for _ in range(500):
            if taken:
                break
            await asyncio.sleep(0.01)
        assert taken, "the host never got the envelope"
        recalled = await asyncio.wait_for(asyncio.to_thread(mcp.call, "recall", {"query": "tokens"}, ctx), 5)
        assert not send.done()  # the recall answered while the send still waited for the host
        assert not recalled.is_error and "auth-note" in str(recalled.structured_content)
        release.set()
        sent = await asyncio.wait_for(send, 10)
        assert not sent.is_error and sent.structured_content is not None
        assert sent.structured_content["host_accept"]["session_id"] == "sess-1"
    finally:
        release.set()
        await adapter.close()
        mcp.close()
        router.cancel()
        with pytest.raises(asyncio.CancelledError):
            await router


@needs_proc  # counts the descriptors open to the SQLite file
def test_the_connection_of_a_worker_thread_that_ended_is_closed(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    backend = Backend(db)
    ctx = CallContext(source_host="test-host", agent_view=True)
    try:
        for _ in range(6):  # six worker threads one after another, each ending, as idle anyio workers do
            worker = threading.Thread(target=backend.call, args=("recall", {"query": "x"}, ctx))
            worker.start()
            worker.join()
        assert open_to(db) <= 2  # the newest connection (and none of the ended threads' five before it)
    finally:
        backend.close()
    assert open_to(db) == 0
