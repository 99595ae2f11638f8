"""Every request is answered: one still running when stdin closes, however long it takes, and JSON-RPC's own
errors for a line that is not JSON or a request with an id JSON-RPC does not allow."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator

import pytest

from tests.backends import Backend
from tests.transports.mcp.conftest import McpHarness, RawServer

# A recall for "wait" blocks until the test writes to a FIFO; any finite wait the drain takes is cut to 0.2 s, so a
# drain with a grace period (30 s before) gives up while the call is still running, and the test sees it quickly.
SLOW_LAUNCHER = """
import sys
import anyio
from memesh.app import dispatch
from memesh.transports.mcp import drain as mcp_drain
from memesh.transports.mcp import server as mcp_server

real_call = dispatch.call
real_move_on_after = anyio.move_on_after

def blocking_call(name, store, arguments, ctx, **options):
    if isinstance(arguments, dict) and arguments.get("query") == "wait":
        with open(sys.argv[1], encoding="utf-8") as gate:
            gate.read()
    return real_call(name, store, arguments, ctx, **options)

class _Compressed:
    def __getattr__(self, name):
        return getattr(anyio, name)

    @staticmethod
    def move_on_after(delay, *args, **kwargs):
        return real_move_on_after(0.2 if delay is not None and delay < 1e9 else delay, *args, **kwargs)

dispatch.call = blocking_call
mcp_drain.anyio = _Compressed()
mcp_server.main()
"""


@pytest.mark.one_engine("the call is held before it reaches the store")
def test_a_call_still_running_when_stdin_closes_is_answered_however_long_it_takes(
    mcp_process: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    gate = mcp_process.folder / "gate"
    os.mkfifo(gate)
    mcp_process.launch_with(SLOW_LAUNCHER)
    mcp_process.command.append(str(gate))
    server = start_raw()
    server.initialize("pytest-raw")
    owed = server.start("tools/call", server.tool_params("recall", {"query": "wait"}))
    assert server.process.stdin is not None
    server.process.stdin.close()
    with pytest.raises(subprocess.TimeoutExpired):  # still waiting to answer, well past any grace period
        server.process.wait(timeout=2)
    with gate.open("w", encoding="utf-8") as opener:
        opener.write("go")
    assert server.response(owed)["result"]["isError"] is False
    assert server.process.wait(timeout=30) == 0


@pytest.fixture(scope="module")
def one_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One server process after its handshake, for the requests below: each leaves it serving as before."""
    folder = tmp_path_factory.mktemp("answers-owed")
    (folder / "memesh").mkdir()
    # JSON-RPC framing, answered before any store is reached: one server for the module, on SQLite (the backend
    # fixture is per test; calls on PostgreSQL are test_server_process's and test_early_calls's).
    db = folder / "memesh" / "kg.db"
    harness = McpHarness(folder=folder, db=db, stderr_log=folder / "stderr.log", backend=Backend("sqlite"))
    server = RawServer(harness)
    server.initialize("pytest-raw")
    yield server
    server.close()


@pytest.mark.parametrize("bad_id", [None, 1.5, True, [1], {"a": 1}])
def test_a_request_whose_id_json_rpc_does_not_allow_gets_an_invalid_request_error(
    one_server: RawServer, bad_id: object
) -> None:
    before = len(one_server.lines)
    one_server.send({"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"})
    follow_up = one_server.request("tools/list")  # answered after the refusal, which comes first
    assert "result" in follow_up
    [refusal] = [json.loads(line) for line in one_server.lines[before:] if "error" in json.loads(line)]
    assert refusal["id"] is None
    assert refusal["error"]["code"] == -32600


def test_a_line_that_is_not_json_rpc_is_answered_with_its_id(one_server: RawServer) -> None:
    one_server.send({"jsonrpc": "2.0", "id": 41, "params": {}})  # no method: not a request, but its id can be read
    one_server.send({"jsonrpc": "1.0", "id": "forty-two", "method": "tools/list"})
    first = one_server.response(41)
    second = one_server.response("forty-two")  # type: ignore[arg-type]
    assert first["error"]["code"] == -32600
    assert second["error"]["code"] == -32600


def test_a_line_that_is_not_json_is_answered_with_a_parse_error_and_the_next_request_still_is(
    one_server: RawServer,
) -> None:
    before = len(one_server.lines)
    one_server.send_line("this is not json")
    listed = one_server.request("tools/list")
    answers = [json.loads(line) for line in one_server.lines[before:]]
    assert [answer["id"] for answer in answers] == [None, listed["id"]]
    assert answers[0]["error"]["code"] == -32700
    assert "tools" in listed["result"]
