"""The server process: stdout carries only protocol messages, and nothing a tool does can crash it or leak paths.

What only the process shows (stdout, fd 1, stdin piped and closed) runs the real memesh-mcp; what the server does
with a failing tool or database runs in this process (`mcp_server`)."""

from __future__ import annotations

import json
import logging
import os
from typing import TYPE_CHECKING, Any

import pytest

from memesh.app import dispatch
from memesh.app.registry import TOOLS

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.transports.mcp.conftest import McpHarness, McpInMemory, RawServer

pytestmark = pytest.mark.anyio

SECRET_PATH = "/home/someone/private/notes.db"

# Runs the real server with dispatch.call wrapped: it writes to stdout both ways a careless tool could (a buffered
# print and a raw write to fd 1), and raises for one query, the way an unexpected bug would.
NOISY_LAUNCHER = f"""
import os
from memesh.app import dispatch
from memesh.transports.mcp import server as mcp_server

real_call = dispatch.call

def noisy_call(name, store, arguments, ctx, **options):
    print("stray print from inside a tool call")
    os.write(1, b"stray bytes written to fd 1\\n")
    if isinstance(arguments, dict) and arguments.get("query") == "explode":
        raise FileNotFoundError(2, "No such file or directory", {SECRET_PATH!r})
    return real_call(name, store, arguments, ctx, **options)

dispatch.call = noisy_call
mcp_server.main()
"""


@pytest.mark.one_engine("the process's stdout guard, around any store")
def test_stray_output_from_a_tool_never_reaches_the_protocol_stream(
    mcp_process: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    mcp_process.launch_with(NOISY_LAUNCHER)
    server = start_raw()
    server.initialize("pytest-raw")
    answer = server.call_tool("remember", {"name": "n", "type": "note"})
    exploded = server.call_tool("recall", {"query": "explode"})
    server.close()
    assert answer["result"]["isError"] is False
    assert exploded["result"]["isError"] is True
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in server.lines)
    assert "stray print from inside a tool call" in mcp_process.stderr()
    assert "stray bytes written to fd 1" in mcp_process.stderr()
    assert "Traceback" in mcp_process.stderr()  # the log, on this machine, has the whole story


@pytest.mark.one_engine("an exception raised before the store is reached")
async def test_an_exception_inside_a_tool_is_a_tool_error_without_paths(
    mcp_server: McpInMemory, era: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_call = dispatch.call

    def exploding_call(name: str, *args: Any, **options: Any) -> Any:
        if args and isinstance(args[1], dict) and args[1].get("query") == "explode":
            raise FileNotFoundError(2, "No such file or directory", SECRET_PATH)
        return real_call(name, *args, **options)

    monkeypatch.setattr(dispatch, "call", exploding_call)
    async with mcp_server.connect(era) as client:
        message = await client.fails("recall", {"query": "explode"})
        still_serving = await client.ok("recall", {"query": "anything"})
    assert message.startswith('Tool "recall" failed: FileNotFoundError')
    assert "/home/someone" not in message
    assert "Traceback" not in message
    assert still_serving["entities"] == []
    [logged] = [record for record in caplog.records if record.exc_info]
    assert logged.levelno == logging.ERROR and logged.name == "memesh.mcp"


@pytest.mark.sqlite_only  # a file where the database file's folder should be
async def test_a_database_that_cannot_be_opened_makes_calls_fail_not_the_server(
    mcp_server: McpInMemory, era: str, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = mcp_server.folder / "not-a-folder"
    blocker.write_text("a file where the database folder should be", encoding="utf-8")
    mcp_server.db = blocker / "knowledge-graph.db"
    async with mcp_server.connect(era) as client:
        listed = await client.tools()
        first = await client.fails("remember", {"name": "n", "type": "note"})
        second = await client.fails("recall", {})
    assert len(listed) == len(TOOLS)
    assert first == second
    assert "cannot open the database" in first
    assert "\n" not in first
    assert str(mcp_server.folder) not in first  # the path is for the log on this machine, not for the client
    assert str(blocker) in caplog.text


@pytest.mark.sqlite_only  # a file where the database file's folder should be
async def test_a_database_that_could_not_be_opened_is_tried_again_on_the_next_call(mcp_server: McpInMemory) -> None:
    blocker = mcp_server.folder / "not-yet-a-folder"
    blocker.write_text("in the way for now", encoding="utf-8")
    mcp_server.db = blocker / "knowledge-graph.db"
    async with mcp_server.connect("2025-11-25") as client:
        await client.fails("remember", {"name": "n", "type": "note"})
        blocker.unlink()
        blocker.mkdir()  # MEMESH_DB_PATH's folder must exist: MeMesh creates only its own
        stored = await client.ok("remember", {"name": "n", "type": "note"})
    assert stored["stored"] is True
    assert mcp_server.db.exists()


def test_a_modern_request_without_client_info_is_stamped_mcp(start_raw: Callable[[], RawServer]) -> None:
    server = start_raw()
    server.call_tool("remember", {"name": "anonymous", "type": "note"})
    server.call_tool("remember", {"name": "named", "type": "note"}, client_info={"name": "opencode", "version": "1"})
    found = server.call_tool("recall", {})["result"]["structuredContent"]
    hosts = {entity["name"]: entity["metadata"]["provenance"]["source_host"] for entity in found["entities"]}
    assert hosts == {"anonymous": "mcp", "named": "opencode"}


# A recall for "wait" blocks in its worker thread until the test writes to a FIFO, so the test can ask something
# else while a tool call is still running.
BLOCKING_LAUNCHER = """
import sys
from memesh.app import dispatch
from memesh.transports.mcp import server as mcp_server

real_call = dispatch.call

def blocking_call(name, store, arguments, ctx, **options):
    if isinstance(arguments, dict) and arguments.get("query") == "wait":
        with open(sys.argv[1], encoding="utf-8") as gate:
            gate.read()
    return real_call(name, store, arguments, ctx, **options)

dispatch.call = blocking_call
mcp_server.main()
"""


def test_a_running_tool_call_does_not_stop_the_server_answering(
    mcp_process: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    gate = mcp_process.folder / "gate"
    os.mkfifo(gate)
    mcp_process.launch_with(BLOCKING_LAUNCHER)
    mcp_process.command.append(str(gate))
    server = start_raw()
    server.initialize("pytest-raw")
    blocked = server.start("tools/call", server.tool_params("recall", {"query": "wait"}))
    listed = server.request("tools/list")
    assert [tool["name"] for tool in listed["result"]["tools"]] == [tool.name for tool in TOOLS]
    with gate.open("w", encoding="utf-8") as opener:
        opener.write("go")
    assert server.response(blocked)["result"]["isError"] is False


def test_every_request_piped_in_before_stdin_closes_is_answered(mcp_process: McpHarness) -> None:
    """A client may write its whole session and close stdin at once: the calls still running must be answered."""
    import subprocess

    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "sh", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        *(
            {
                "jsonrpc": "2.0",
                "id": 3 + n,
                "method": "tools/call",
                "params": {
                    "name": "remember",
                    "arguments": {"name": f"piped-{n}", "type": "fact", "observations": ["a"]},
                },
            }
            for n in range(5)
        ),
        {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "a"}}},
    ]
    params = mcp_process.params()
    done = subprocess.run(
        [params.command, *params.args],
        input="".join(json.dumps(request) + "\n" for request in requests),
        env={**os.environ, **(params.env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = {message["id"]: message for message in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == list(range(1, 9))
    assert all(answers[3 + n]["result"]["structuredContent"]["stored"] is True for n in range(5))
