"""The real router pushing principal messages: only an activated, live session of that principal in that project,
only the intended session when one is named (never another, never a later generation), and the host's facts —
acceptance and a host-native ACK — recorded in order, each naming its fact_source."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.router_host import HostAdapter
from tests.backends import Backend
from tests.calls import call
from tests.router.test_router import PROJECT, _context, folder, running_router

pytestmark = pytest.mark.anyio
__all__ = ["folder"]


def _host(socket: Path, session_id: str, taken: list[str], *, principal: str = "reviewer", **extra: Any) -> HostAdapter:
    async def accept(envelope: dict[str, Any]) -> bool | str:
        taken.append(f"{session_id}:{envelope['message_id']}")
        return True

    return HostAdapter(
        session_id=session_id,
        principal_id=principal,
        project=extra.pop("project", PROJECT),
        host_kind="claude-code",
        accept=accept,
        path=socket,
        **extra,
    )


def _principal_send(folder: Path, backend: Backend, socket: Path, key: str, **extra: Any) -> dict[str, Any]:
    store = backend.open(folder / "k.db")
    try:
        arguments = {
            "action": "send",
            "project": PROJECT,
            "sender": "author",
            "recipient": "reviewer",
            "idempotency_key": key,
            "payload": f"work item {key}",
            **extra,
        }
        out: dict[str, Any] = call("message", store, arguments, _context(socket)).unwrap()
        return out
    finally:
        store.close()


def _receipts(folder: Path, backend: Backend, socket: Path, message_id: str) -> list[dict[str, Any]]:
    store = backend.open(folder / "k.db")
    try:
        asked = {"action": "receipts", "project": PROJECT, "recipient": "reviewer", "message_id": message_id}
        facts: list[dict[str, Any]] = call("message", store, asked, _context(socket)).unwrap()["receipts"]
        return facts
    finally:
        store.close()


async def _settle() -> None:
    await asyncio.sleep(0.1)  # an adapter's activate/close reaches the router on its next read


async def test_a_principal_message_goes_to_the_newest_activated_session_of_that_principal(
    folder: Path, backend: Backend
) -> None:
    taken: list[str] = []
    async with running_router(folder, backend) as socket:
        older = _host(socket, "sess-old", taken)
        newer_inactive = _host(socket, "sess-idle", taken)
        other_principal = _host(socket, "sess-lead", taken, principal="lead")
        other_project = _host(socket, "sess-far", taken, project="demo~" + "4" * 32)
        hosts = [older, newer_inactive, other_principal, other_project]
        for host in hosts:
            await host.connect()
        for host in (older, other_principal, other_project):
            await host.activate()
        await _settle()
        try:
            sent = await asyncio.to_thread(_principal_send, folder, backend, socket, "k1")
        finally:
            for host in hosts:
                await host.close()
    assert taken == [f"sess-old:{sent['message_id']}"]  # not the newer one that never activated, nor anyone else's
    assert sent["host_accept"]["session_id"] == "sess-old"


async def test_an_intended_session_is_the_only_one_pushed_to(folder: Path, backend: Backend) -> None:
    taken: list[str] = []
    async with running_router(folder, backend) as socket:
        mine = _host(socket, "sess-A", taken)
        sibling = _host(socket, "sess-B", taken)
        for host in (mine, sibling):
            await host.connect()
            await host.activate()
        await _settle()
        try:
            to_a = await asyncio.to_thread(_principal_send, folder, backend, socket, "k1", intended_session="sess-A")
            await mine.close()
            await _settle()
            # sess-A left: its message is stored, and sess-B (same principal, live, activated) is never handed it.
            gone = await asyncio.to_thread(_principal_send, folder, backend, socket, "k2", intended_session="sess-A")
            # sess-A comes back as a new generation: the stored message is not replayed to it.
            back = _host(socket, "sess-A", taken)
            await back.connect()
            await back.activate()
            await _settle()
            await back.close()
        finally:
            await sibling.close()
    assert taken == [f"sess-A:{to_a['message_id']}"]
    assert to_a["host_accept"]["session_id"] == "sess-A"
    assert gone["created"] is True and "host_accept" not in gone
    assert _receipts(folder, backend, Path(), gone["message_id"]) == []


async def test_a_host_native_ack_is_its_own_fact_after_the_acceptance(folder: Path, backend: Backend) -> None:
    async with running_router(folder, backend) as socket:
        acks: list[asyncio.Task[None]] = []
        host: HostAdapter

        async def accept(envelope: dict[str, Any]) -> bool | str:
            # The host confirms straight away, on the same connection, right behind its acceptance.
            acks.append(asyncio.create_task(host.host_ack(envelope["delivery_id"], "shown to the model")))
            return True

        host = HostAdapter(
            session_id="sess-A", principal_id="reviewer", project=PROJECT, host_kind="test", accept=accept, path=socket
        )
        await host.connect()
        await host.activate()
        await _settle()
        try:
            sent = await asyncio.to_thread(_principal_send, folder, backend, socket, "k1")
            await host.host_ack("dlv_not-one-it-was-given")  # vouches for nothing: ignored
            await asyncio.gather(*acks)
            for _ in range(50):
                facts = _receipts(folder, backend, socket, sent["message_id"])
                if len(facts) == 2:
                    break
                await asyncio.sleep(0.05)
            store = backend.open(folder / "k.db")
            try:
                asked = {
                    "action": "ack",
                    "project": PROJECT,
                    "recipient": "reviewer",
                    "message_id": sent["message_id"],
                    "idempotency_key": "a1",
                }
                call("message", store, asked, _context(socket)).unwrap()
            finally:
                store.close()
        finally:
            await host.close()
    facts = _receipts(folder, backend, Path(), sent["message_id"])
    assert [(f["kind"], f["fact_source"]) for f in facts] == [
        ("host_accept", "host"),
        ("host_ack", "host"),
        ("ack", "receipt"),
    ]
    assert facts[1]["session_id"] == "sess-A" and facts[1]["source_host"] == "test"
    assert facts[1]["detail"].endswith("shown to the model") and facts[1]["state"] == "acknowledged"
    assert facts[0]["receipt_id"] < facts[1]["receipt_id"] < facts[2]["receipt_id"]
