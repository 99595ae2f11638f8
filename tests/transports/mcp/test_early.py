"""The opening of a session is answered while the SDK loads, with exactly what the SDK itself answers."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from memesh.app.registry import TOOLS
from memesh.transports.mcp import server
from memesh.transports.mcp.backend import Backend
from memesh.transports.mcp.early import (
    ENVELOPE,
    REPLAY_PREFIX,
    Front,
    Opening,
    may_declare_a_channel,
    recorded_answers,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.transports.mcp.conftest import McpHarness, RawServer


def _meta(capabilities: Any, **extra: Any) -> dict[str, Any]:
    return {
        f"{ENVELOPE}protocolVersion": "2026-07-28",
        f"{ENVELOPE}clientInfo": {"name": "some-client", "version": "2.12.0"},
        f"{ENVELOPE}clientCapabilities": capabilities,
        **{f"{ENVELOPE}{key}": value for key, value in extra.items()},
    }


INSPECTOR_CAPABILITIES = {
    "roots": {"listChanged": True},
    "extensions": {"io.modelcontextprotocol/tasks": {}, "io.modelcontextprotocol/skills": {}},
}

# Openings as real clients write them (the mcp SDK's clients, the MCP Inspector), each with the ids answered early.
OPENINGS: dict[str, tuple[list[dict[str, Any]], list[Any]]] = {
    "mcp ClientSession (2025-11-25)": (
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "mcp", "version": "0.1.0"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ],
        [1, 2],
    ),
    "Inspector, legacy era": (
        [
            {
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": INSPECTOR_CAPABILITIES,
                    "clientInfo": {"name": "inspector-cli", "version": "2.12.0"},
                },
                "jsonrpc": "2.0",
                "id": 0,
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"method": "tools/list", "jsonrpc": "2.0", "id": 1},
        ],
        [0, 1],
    ),
    "an older handshake (2024-11-05)": (
        [
            {
                "jsonrpc": "2.0",
                "id": "a",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {},
                    "clientInfo": {"name": "o", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "id": "b", "method": "tools/list", "params": {}},
        ],
        ["a", "b"],
    ),
    "mcp Client (2026-07-28)": (
        [
            {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": _meta({})}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": _meta({})}},
        ],
        [1, 2],
    ),
    "Inspector, modern era": (
        [
            {
                "jsonrpc": "2.0",
                "id": "server-discover-probe-1",
                "method": "server/discover",
                "params": {"_meta": _meta(INSPECTOR_CAPABILITIES)},
            },
            {
                "method": "tools/list",
                "params": {"_meta": _meta(INSPECTOR_CAPABILITIES, logLevel="debug")},
                "jsonrpc": "2.0",
                "id": 1,
            },
        ],
        ["server-discover-probe-1", 1],
    ),
}


def early_answers(opening: list[dict[str, Any]]) -> dict[Any, Any]:
    answers = recorded_answers()
    assert answers is not None, "generated/mcp_answers.py was recorded with another mcp SDK: run tools/codegen.py"
    decide = Opening(answers)
    found = {}
    for message in opening:
        key = decide.key(message)
        assert key is not None, f"not answered early: {message}"
        if "id" in message:
            found[message["id"]] = json.loads(answers[key])
    return found


def sdk_answers(opening: list[dict[str, Any]], folder: Path) -> dict[Any, Any]:
    """What the SDK answers to the same lines, served without the front (request id -> result)."""
    stdin = io.StringIO("".join(json.dumps(message) + "\n" for message in opening))
    stdout = io.StringIO()

    async def run() -> None:
        await server.serve_streams(Backend(folder / "k.db"), anyio.wrap_file(stdin), anyio.wrap_file(stdout))

    anyio.run(run)
    return {
        message["id"]: message.get("result", message) for message in map(json.loads, stdout.getvalue().splitlines())
    }


@pytest.mark.parametrize("client", OPENINGS)
def test_the_early_answers_are_the_sdks_own_for_openings_real_clients_write(client: str, tmp_path: Path) -> None:
    opening, answered = OPENINGS[client]
    early = early_answers(opening)
    assert list(early) == answered
    assert early == sdk_answers(opening, tmp_path)


def test_every_tool_is_in_the_recorded_listing_of_every_protocol_version() -> None:
    answers = recorded_answers()
    assert answers is not None
    for (method, _version), text in answers.items():
        if method == "tools/list":
            assert [tool["name"] for tool in json.loads(text)["tools"]] == [tool.name for tool in TOOLS]


INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


@pytest.mark.parametrize(
    "message",
    [
        "not json at all",
        [request("initialize", INITIALIZE)],
        request("initialize", {**INITIALIZE, "protocolVersion": "1999-01-01"}),
        request("initialize", {**INITIALIZE, "clientInfo": {"name": "c"}}),
        request("initialize", {**INITIALIZE, "clientInfo": {"name": "c", "version": "1", "icons": []}}),
        request("initialize", {**INITIALIZE, "capabilities": {"roots": True}}),
        request("initialize", {**INITIALIZE, "_meta": {"progressToken": 1}}),
        request("initialize", INITIALIZE, request_id=True),
        request("initialize", INITIALIZE, request_id=None),
        {"id": 1, "method": "initialize", "params": INITIALIZE},
        request("tools/list", {"_meta": {}}),
        request("tools/list", {"cursor": "x", "_meta": _meta({})}),
        request("tools/list", {"_meta": _meta({}, logLevel="loud")}),
        request("tools/list", {"_meta": _meta({}, logLevel={"a": 1})}),
        request("tools/list", {"_meta": _meta([])}),
        request("tools/list", {"_meta": _meta({}, progressToken=3)}),
        request("tools/call", {"name": "recall", "arguments": {}}),  # 2025-11-25 with no handshake
        request("ping"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ],
)
def test_anything_but_a_plain_opening_is_left_to_the_sdk(message: Any) -> None:
    answers = recorded_answers()
    assert answers is not None
    assert Opening(answers).key(message) is None


def test_after_a_handshake_only_the_legacy_listing_is_answered_early() -> None:
    answers = recorded_answers()
    assert answers is not None
    decide = Opening(answers)
    assert decide.key(request("initialize", INITIALIZE)) == ("initialize", "2025-11-25")
    assert decide.key(request("initialize", INITIALIZE, request_id=2)) is None
    assert decide.key(request("server/discover", {"_meta": _meta({})})) is None
    assert decide.key(request("tools/list", request_id=3)) == ("tools/list", "2025-11-25")


# The SDK is kept from loading until the test creates the file `go`: whatever is answered before then came early.
HELD_BACK = """
import sys, time, types
from pathlib import Path

def run(front, **options):
    go = Path({go!r})
    while not go.exists():
        time.sleep(0.01)
    sys.stderr.write("loaded before go: " + ",".join(sorted({{"mcp", "pydantic"}} & set(sys.modules))) + "\\n")
    del sys.modules["memesh.transports.mcp.server"]
    from memesh.transports.mcp import server
    server.run(front, **options)

sys.modules["memesh.transports.mcp.server"] = types.SimpleNamespace(run=run)
{patch}
from memesh.transports.mcp import early
early.main()
"""


def test_the_opening_and_a_call_are_answered_before_the_sdk_has_loaded(
    mcp_process: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    go = mcp_process.folder / "go"
    mcp_process.launch_with(HELD_BACK.format(go=str(go), patch=""))
    raw = start_raw()
    init = raw.initialize("held-back")
    listed = raw.request("tools/list")
    called = raw.call_tool("recall", {"query": "anything"})  # a plain call is answered early too
    go.touch()
    pinged = raw.request("ping")  # the SDK's to answer
    raw.close()
    assert init["result"]["serverInfo"]["name"] == "memesh"
    assert [tool["name"] for tool in listed["result"]["tools"]] == [tool.name for tool in TOOLS]
    assert called["result"]["isError"] is False
    assert pinged["result"] == {}
    assert "loaded before go: \n" in mcp_process.stderr()  # neither mcp nor pydantic was needed before
    assert "differs" not in mcp_process.stderr()
    # The SDK's own answers to the two requests passed on under private ids never reach the client.
    assert [json.loads(line)["id"] for line in raw.lines] == [1, 2, 3, 4]


STALE = """
from memesh.transports.mcp import early
real = early.recorded_answers

def stale():
    answers = dict(real())
    answers[("tools/list", "2025-11-25")] = '{"tools":[]}'
    return answers

early.recorded_answers = stale
"""


@pytest.mark.one_engine("the front's log line: no store is read")
def test_an_early_answer_that_differs_from_the_sdks_is_logged(
    mcp_process: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    go = mcp_process.folder / "go"
    go.touch()
    mcp_process.launch_with(HELD_BACK.format(go=str(go), patch=STALE))
    raw = start_raw()
    raw.initialize("stale")
    listed = raw.request("tools/list")
    raw.request("ping")  # the SDK's to answer (a call would be the front's): the SDK then runs the handshake too
    raw.close()
    assert listed["result"] == {"tools": []}
    assert "an early answer differs from the SDK's own" in mcp_process.stderr()


def run_front(messages: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """What the front writes to the client, and what it passes on to the SDK, for these lines of stdin."""
    wire_read, wire_write = os.pipe()
    front = Front(io.BytesIO("".join(line + "\n" for line in messages).encode()), wire_write, recorded_answers())
    front.start()
    passed_on = front.sdk_input.read().decode().split("\n")[:-1]
    os.close(wire_write)
    with os.fdopen(wire_read, "rb") as wire:
        answered = [json.loads(line) for line in wire.read().splitlines()]
    return answered, passed_on


def test_answered_requests_go_on_to_the_sdk_under_private_ids_and_everything_else_unchanged() -> None:
    opening, _ = OPENINGS["mcp ClientSession (2025-11-25)"]
    later = json.dumps(request("ping", request_id=3))
    answered, passed_on = run_front([*map(json.dumps, opening), later])
    assert [answer["id"] for answer in answered] == [1, 2]
    assert [json.loads(line).get("id") for line in passed_on] == [f"{REPLAY_PREFIX}1", None, f"{REPLAY_PREFIX}2", 3]
    assert passed_on[1] == json.dumps(opening[1])
    assert passed_on[3] == later


def test_a_lone_surrogate_or_a_line_that_is_not_json_ends_the_early_answers() -> None:
    lone = json.dumps(request("initialize", {**INITIALIZE, "clientInfo": {"name": "\ud83d", "version": "1"}}))
    for first in (lone, "{not json", "\x0b{}"):
        answered, passed_on = run_front([first, json.dumps(request("initialize", INITIALIZE, request_id=2))])
        assert answered == []
        assert passed_on[0] == first


def test_a_claude_code_session_that_declares_a_principal_is_answered_by_the_sdk_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_DIR", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    monkeypatch.setenv("MEMESH_RECIPIENT", "reviewer")
    assert not may_declare_a_channel()  # not a Claude Code session: no channel, the recording holds
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "session-1")
    assert may_declare_a_channel()  # initialize may declare claude/channel: not answered early
    monkeypatch.delenv("MEMESH_RECIPIENT")
    assert not may_declare_a_channel()
    (tmp_path / "hosts").mkdir()
    (tmp_path / "hosts" / "claude.json").write_text("{}", encoding="utf-8")
    assert may_declare_a_channel()
