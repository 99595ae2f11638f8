"""POST /v1/message: every action through the HTTP app, its codes as statuses, and the long poll's waiting."""

from __future__ import annotations

import threading
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import anyio
import httpx

from memesh.transports.http.app import create_app
from tests.transports.http.conftest import Api

PROJECT = "demo~" + "2" * 32


def _send(key: str = "k", **extra: Any) -> dict[str, Any]:
    return {
        "action": "send",
        "project": PROJECT,
        "sender": "author",
        "recipient": "reviewer",
        "idempotency_key": key,
        "payload": "review ready",
        **extra,
    }


def test_send_poll_fetch_and_receipts_over_http(api: Api) -> None:
    sent = api.ok("POST", "/v1/message", json=_send())
    assert sent["sender_host"] == "http"
    [event] = api.ok("POST", "/v1/message", json={"action": "poll", "project": PROJECT, "recipient": "reviewer"})[
        "events"
    ]
    base = {"project": PROJECT, "recipient": "reviewer", "message_id": event["message_id"]}
    assert api.ok("POST", "/v1/message", json={"action": "fetch", **base})["payload"] == "review ready"
    api.ok("POST", "/v1/message", json={"action": "ack", **base, "idempotency_key": "a"})
    facts = api.ok("POST", "/v1/message", json={"action": "receipts", **base})["receipts"]
    assert [f["kind"] for f in facts] == ["ack"]


def test_http_callers_have_no_session_so_an_intended_session_refuses_them(api: Api) -> None:
    sent = api.ok("POST", "/v1/message", json=_send(intended_session="sess-A"))
    body = {
        "action": "intake",
        "project": PROJECT,
        "recipient": "reviewer",
        "message_id": sent["message_id"],
        "idempotency_key": "i",
        "intake_state": "fetched",
    }
    api.fails("POST", "/v1/message", 403, "intended_for_other_session", json=body)


def test_codes_map_to_statuses(api: Api) -> None:
    api.fails("POST", "/v1/message", 400, "validation.bad-body", json=_send(project="/root"))
    api.ok("POST", "/v1/message", json=_send("same"))
    api.fails("POST", "/v1/message", 409, "idempotency_conflict", json=_send("same", payload="changed"))
    missing = {"action": "fetch", "project": PROJECT, "recipient": "reviewer", "message_id": "msg_nope"}
    api.fails("POST", "/v1/message", 404, "resource.not-found", json=missing)


def test_many_waiting_polls_hold_no_thread_each_and_all_wake_on_one_send(db_file: Path) -> None:
    app = create_app(db_path=db_file)
    waiters = 60  # more than anyio's 40 worker threads: a thread per waiter could not even start them all
    results: list[dict[str, Any]] = []
    threads_while_waiting: list[int] = []

    async def go() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737", timeout=30) as client:

            async def wait(recipient: str) -> None:
                body = {"action": "poll", "project": PROJECT, "recipient": recipient, "wait_ms": 20_000}
                response = await client.post("/v1/message", json=body)
                results.append(response.json()["data"])

            async with anyio.create_task_group() as group:
                for n in range(waiters):
                    group.start_soon(wait, f"r{n}")
                await anyio.sleep(0.5)
                threads_while_waiting.append(threading.active_count())
                for n in range(waiters):
                    await client.post("/v1/message", json=_send(f"k{n}", recipient=f"r{n}"))

    try:
        anyio.run(go)
    finally:
        app.close()
    assert len(results) == waiters
    assert all(len(r["events"]) == 1 and r["timed_out"] is False for r in results)
    assert threads_while_waiting[0] < waiters


def test_a_waiting_poll_ends_when_the_client_disconnects(db_file: Path) -> None:
    app = create_app(db_path=db_file)
    sent: list[MutableMapping[str, Any]] = []
    disconnected = anyio.Event()

    async def go() -> None:
        body = b'{"action":"poll","project":"p","recipient":"r","wait_ms":30000}'
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> Any:
            if messages:
                return messages.pop()
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        scope: dict[str, Any] = {
            "type": "http",
            "method": "POST",
            "path": "/v1/message",
            "headers": [(b"content-type", b"application/json"), (b"host", b"127.0.0.1:3737")],
            "query_string": b"",
        }
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(app, scope, receive, send)
                await anyio.sleep(0.2)
                disconnected.set()

    try:
        anyio.run(go)
    finally:
        app.close()
    # The wait ended at once (well inside fail_after, far before 30 s); nobody is left to read the answer.
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] in ([], [499])
