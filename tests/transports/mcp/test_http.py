"""MCP over streamable HTTP at /mcp: the real `memesh serve` over a socket, reached by the mcp SDK's streamable HTTP
client of both eras — the same tools and answers as stdio, the HTTP API's boundary and bearer in front of it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from memesh.adapters.project_git import project_for
from memesh.app.registry import TOOLS
from memesh.transports.mcp.instructions import INSTRUCTIONS
from memesh.transports.mcp.results import tool_listing
from tests.backends import Backend, engines
from tests.transports.mcp.conftest import (
    ERAS,
    LEGACY,
    MODERN,
    WAIT_SECONDS,
    Launcher,
    McpClient,
    McpInMemory,
    Serving,
    client_info,
    roots_callback,
)
from tests.transports.mcp.test_work_package_transcripts import conversation, write_transcript

pytestmark = pytest.mark.anyio

PROJECT = "demo~" + "1" * 32
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module", params=engines())
def loopback(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """One loopback server per engine the module's tests share (each test uses names of its own)."""
    engine = Backend(request.param)
    launcher = Launcher(tmp_path_factory.mktemp("loopback"), engine)
    yield launcher()
    launcher.close()
    engine.close()


@asynccontextmanager
async def connect(
    url: str,
    era: str,
    client_name: str = "pytest-client",
    headers: dict[str, str] | None = None,
    roots: list[Path] | None = None,
) -> AsyncIterator[McpClient]:
    """The SDK's streamable HTTP client on `url`, in `era`, sending `headers` on every request and offering `roots`
    (None: no roots capability)."""
    info = client_info(client_name)
    timeout = httpx2.Timeout(WAIT_SECONDS, read=WAIT_SECONDS * 2)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        transport = streamable_http_client(url, http_client=http)
        if era == LEGACY:
            async with (
                transport as (read, write),
                ClientSession(
                    read,
                    write,
                    read_timeout_seconds=WAIT_SECONDS,
                    client_info=info,
                    list_roots_callback=roots_callback(roots),
                ) as session,
            ):
                init = await session.initialize()
                assert init.protocol_version == LEGACY
                assert init.instructions == INSTRUCTIONS
                yield McpClient(session, init.server_info)
        else:
            async with Client(
                transport,
                client_info=info,
                read_timeout_seconds=WAIT_SECONDS,
                list_roots_callback=roots_callback(roots),
            ) as client:
                assert client.protocol_version == MODERN
                yield McpClient(client, client.server_info)


def wire(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]


async def test_a_client_of_either_era_lists_the_twelve_tools_exactly_as_stdio_serves_them(loopback: Serving) -> None:
    server = loopback
    for era in ERAS:
        async with connect(server.url, era) as client:
            tools = await client.tools()
            assert client.server_info is not None
            assert client.server_info.name == "memesh"
        assert [tool.name for tool in tools] == [tool.name for tool in TOOLS]
        # tool_listing() is what memesh-mcp answers tools/list with: schema files, outputSchema, annotations.
        assert wire(tools) == wire(tool_listing().tools)


TIMES = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?Z?")
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"name": "over-http", "type": "decision", "observations": ["via /mcp"], "tags": ["t"]}),
    ("recall", {"query": "via"}),
    ("learn", {"error": "the http door", "fix": "it is the same door", "root_cause": "one server"}),
    ("task_state", {"goal": "ship /mcp", "next": "measure"}),
    ("task_state", {}),
    ("forget", {"name": "never-stored"}),
    ("recall", {"query": "x", "bogus": 1}),
    ("recall", {"query": 7}),
    ("no_such_tool", {}),
    ("briefing", {}),
]


def answer(result: Any) -> dict[str, Any]:
    """A call's answer with its clock readings blanked (the two servers store at different moments)."""
    dumped = result.model_dump(by_alias=True, exclude_none=True)
    return json.loads(TIMES.sub("<time>", json.dumps(dumped)))  # type: ignore[no-any-return]


async def test_every_call_answers_as_the_stdio_server_answers_it(serve: Launcher, mcp_server: McpInMemory) -> None:
    server = serve()
    for era in ERAS:
        async with connect(server.url, era, f"agent-{era}") as client:
            over_http = [answer(await client.call(name, arguments)) for name, arguments in CALLS]
        async with mcp_server.connect(era, f"agent-{era}") as client:
            over_stdio = [answer(await client.call(name, arguments)) for name, arguments in CALLS]
        assert over_http == over_stdio
        errors = [item.get("isError", False) for item in over_http]
        assert errors == [False, False, False, False, False, True, True, True, True, False]


async def test_what_a_client_stores_is_stamped_with_its_declared_name(loopback: Serving) -> None:
    server = loopback
    async with connect(server.url, LEGACY, "remote-agent") as client:
        await client.ok("remember", {"name": "stamped", "type": "note", "observations": ["stampable"]})
    async with connect(server.url, MODERN, "modern-agent") as client:
        recalled = await client.ok("recall", {"query": "stampable"})
    [entity] = recalled["entities"]
    assert entity["metadata"]["provenance"]["source_host"] == "remote-agent"


async def test_a_transcript_work_package_fails_closed_for_a_client_that_offers_no_roots(loopback: Serving) -> None:
    server = loopback
    prepare = {"action": "prepare", "project": PROJECT, "kind": "transcript"}
    for era in ERAS:
        async with connect(server.url, era) as client:
            assert (await client.fails("work_package", prepare)).startswith("workspace_unavailable")


async def test_a_client_on_this_machine_offering_its_root_gets_a_transcript_package_as_over_stdio(
    serve: Launcher, tmp_path: Path
) -> None:
    """Sessions carry the server's requests to the client (roots/list on the call's SSE stream): a 2025-11-25
    client that offers its workspace root is answered as memesh-mcp answers it; a 2026-07-28 one cannot be asked."""
    server = serve()
    workspace = tmp_path / "work" / "app"
    workspace.mkdir(parents=True)
    workspace = workspace.resolve()
    write_transcript(serve.home, workspace, "sess-1", conversation(str(workspace)))
    prepare = {"action": "prepare", "project": project_for(str(workspace)), "kind": "transcript"}
    async with connect(server.url, LEGACY, roots=[workspace]) as client:
        prepared = await client.ok("work_package", prepare)
    assert prepared["status"] == "available"
    assert prepared["package"]["source"] == {"host": "claude-code", "scope": "mcp-workspace-root"}
    assert prepared["package"]["coverage"]["included_turns"] == 3
    async with connect(server.url, MODERN, roots=[workspace]) as client:
        assert (await client.fails("work_package", prepare)).startswith("workspace_unavailable")


async def test_waiting_message_polls_hold_no_worker_thread(loopback: Serving) -> None:
    """More polls wait at once than the server has worker threads (anyio's 40), and a recall still answers."""
    server = loopback
    poll = {"action": "poll", "project": PROJECT, "recipient": "r", "wait_ms": 25_000}
    woken: list[dict[str, Any]] = []
    async with connect(server.url, LEGACY) as waiter, connect(server.url, LEGACY) as other:
        first = await waiter.ok("message", {"action": "poll", "project": PROJECT, "recipient": "r"})
        cursor = {**poll, "cursor": first["next_cursor"]}

        async def wait() -> None:
            woken.append(await waiter.ok("message", cursor))

        async with anyio.create_task_group() as group:
            for _ in range(45):
                group.start_soon(wait)
            await anyio.sleep(1.0)  # the polls are all waiting by now
            started = time.monotonic()
            await other.ok("recall", {"query": "anything"})
            assert time.monotonic() - started < 10.0
            assert woken == []  # nothing has woken them yet
            send = {"action": "send", "project": PROJECT, "sender": "s", "recipient": "r", "idempotency_key": "k"}
            await other.ok("message", {**send, "payload": "x"})
    assert len(woken) == 45
    assert all(not answer["timed_out"] and len(answer["events"]) == 1 for answer in woken)


def _initialize(client: httpx.Client) -> str:
    answer = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert answer.status_code == 200, answer.text
    session: str = answer.headers["mcp-session-id"]
    assert answer.headers["x-frame-options"] == "DENY"  # the HTTP API's security headers ride on /mcp too
    return session


def test_an_unknown_session_id_gets_404_and_a_deleted_session_is_gone(loopback: Serving) -> None:
    server = loopback
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    versioned = {**MCP_HEADERS, "MCP-Protocol-Version": LEGACY}
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
        unknown = client.post("/mcp", json=listing, headers={**versioned, "Mcp-Session-Id": "0" * 32})
        assert unknown.status_code == 404
        assert unknown.json()["error"]["message"] == "Session not found"
        session = _initialize(client)
        assert client.delete("/mcp", headers={**versioned, "Mcp-Session-Id": session}).status_code == 200
        gone = client.post("/mcp", json=listing, headers={**versioned, "Mcp-Session-Id": session})
        assert gone.status_code == 404


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Host": "evil.example"},  # DNS rebinding: a browser calling evil.example that resolves to 127.0.0.1
        {"Host": "rebind.evil.example:3737", "Origin": "http://rebind.evil.example:3737"},
    ],
)
def test_a_cross_site_or_rebinding_request_to_mcp_gets_403(loopback: Serving, headers: dict[str, str]) -> None:
    server = loopback
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
        refused = client.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers})
        assert refused.status_code == 403
        assert refused.json()["errorCode"] == "auth.cross-origin"
        assert client.get("/mcp", headers={**MCP_HEADERS, **headers}).status_code == 403
        # Without those headers (a program, an MCP client) the same request is served.
        _initialize(client)
        assert client.post("/mcp", content=b" " * (1024 * 1024 + 1), headers=MCP_HEADERS).status_code == 413


@pytest.mark.one_engine("the bearer check, before any store is read")
async def test_a_remote_listener_wants_the_bearer_on_mcp_even_from_loopback(serve: Launcher) -> None:
    server = serve("--host", "0.0.0.0", "--allow-remote")
    token = server.token()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
        missing = await client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        assert (missing.status_code, missing.json()["errorCode"]) == (401, "auth.missing-bearer")
        wrong = await client.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer x" * 3})
        assert (wrong.status_code, wrong.json()["errorCode"]) == (401, "auth.invalid-token")
        assert token not in missing.text + wrong.text
    for era in ERAS:
        async with connect(server.url, era, headers={"Authorization": f"Bearer {token}"}) as mcp_client:
            assert [tool.name for tool in await mcp_client.tools()] == [tool.name for tool in TOOLS]
            stored = await mcp_client.ok("remember", {"name": f"remote-{era}", "type": "note", "observations": ["r"]})
            assert stored["stored"] is True
    code, err = server.stop()
    assert code == 0, err
    assert token not in err


def _sse_events(text: str) -> list[tuple[str, str]]:
    """(id, data) of each event of an SSE body."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "id" in fields:
            events.append((fields["id"], fields.get("data", "")))
    return events


def test_a_broken_stream_resumes_with_last_event_id_and_replays_the_answer(loopback: Serving) -> None:
    server = loopback
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
        session = _initialize(client)
        headers = {**MCP_HEADERS, "MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": session}
        client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "recall", "arguments": {}}}
        answered = client.post("/mcp", json=call, headers=headers)
        [(priming, _), (answer_id, answer)] = _sse_events(answered.text)  # the priming event, then the answer
        assert json.loads(answer)["id"] == 7
        # The client lost the stream after the priming event: it reconnects with the last id it saw.
        with client.stream("GET", "/mcp", headers={**headers, "Last-Event-ID": priming}) as resumed:
            assert resumed.status_code == 200
            seen: list[str] = []
            for line in resumed.iter_lines():
                seen.append(line)
                if line.startswith("data: {"):
                    break
        assert f"id: {answer_id}" in seen
        assert json.loads(seen[-1].removeprefix("data: ")) == json.loads(answer)


@pytest.mark.one_engine("sessions are kept in the server, before any store is read")
def test_one_client_at_its_session_cap_reclaims_its_idle_longest_session_instead_of_locking_others_out(
    serve: Launcher,
) -> None:
    from memesh.transports.mcp.streamable import SESSIONS_PER_CLIENT

    server = serve()
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    versioned = {**MCP_HEADERS, "MCP-Protocol-Version": LEGACY}
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=WAIT_SECONDS) as client:
        sessions = [_initialize(client) for _ in range(SESSIONS_PER_CLIENT)]
        assert (
            client.post("/mcp", json=listing, headers={**versioned, "Mcp-Session-Id": sessions[0]}).status_code == 200
        )
        newest = _initialize(client)  # at the cap: the session idle longest (the second; the first was just used) goes
        assert (
            client.post("/mcp", json=listing, headers={**versioned, "Mcp-Session-Id": sessions[1]}).status_code == 404
        )
        for kept in (sessions[0], sessions[2], newest):
            assert client.post("/mcp", json=listing, headers={**versioned, "Mcp-Session-Id": kept}).status_code == 200
