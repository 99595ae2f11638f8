"""memesh-mcp loads the mcp SDK only when a request needs it (issue 36): a session the early front answers whole keeps
its store and its hook server warm without it, and a request only the SDK answers still gets the SDK's answer."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memesh.transports.hooks import server as hook_server
from memesh.transports.hooks import wire
from tests.transports.mcp.conftest import McpHarness, RawServer

# The SDK's server module answers by exiting: a session that never wants the SDK ends normally; the modules loaded
# are reported at exit.
NO_SDK = """
import atexit, sys, types

def run(front, **options):
    raise SystemExit("the SDK was wanted")

atexit.register(lambda: sys.stderr.write("sdk modules: " + ",".join(sorted({"mcp", "pydantic"} & set(sys.modules)))
                + "\\n"))
sys.modules["memesh.transports.mcp.server"] = types.SimpleNamespace(run=run)
from memesh.transports.mcp import early
early.main()
"""


def _hook_socket(harness: McpHarness) -> str:
    env = {**os.environ, **(harness.params().env or {})}
    return wire.socket_path(*wire.served(env))


def _wait_for(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def serving_hooks(monkeypatch: pytest.MonkeyPatch, mcp_process: McpHarness) -> McpHarness:
    monkeypatch.delenv("MEMESH_HOOK_SERVER", raising=False)
    return mcp_process


def test_a_quiet_session_serves_hooks_and_calls_without_ever_loading_the_sdk(
    serving_hooks: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    serving_hooks.launch_with(NO_SDK)
    raw = start_raw()
    init = raw.initialize("quiet")
    listed = raw.request("tools/list")
    socket = _hook_socket(serving_hooks)
    _wait_for(lambda: hook_server._answers(socket))  # started once the client is quiet
    called = raw.call_tool("remember", {"name": "lazy-sdk", "type": "note", "observations": ["kept warm"]})
    recalled = raw.call_tool("recall", {"query": "warm"})
    raw.close()
    assert init["result"]["serverInfo"]["name"] == "memesh"
    assert listed["result"]["tools"]
    assert called["result"]["isError"] is False
    assert [entity["name"] for entity in recalled["result"]["structuredContent"]["entities"]] == ["lazy-sdk"]
    assert raw.process.returncode == 0
    assert "the SDK was wanted" not in serving_hooks.stderr()
    assert "sdk modules: \n" in serving_hooks.stderr()
    assert not Path(socket).exists()  # the hook server closed with the session


def test_a_request_only_the_sdk_answers_loads_it_and_the_hook_server_stays_one(
    serving_hooks: McpHarness, start_raw: Callable[[], RawServer]
) -> None:
    raw = start_raw()
    raw.initialize("later-sdk")
    raw.request("tools/list")
    socket = _hook_socket(serving_hooks)
    _wait_for(lambda: hook_server._answers(socket))
    pinged = raw.request("ping")  # the SDK's to answer: loaded now, beside the hook server already running
    called = raw.call_tool("recall", {"query": "anything"})
    assert hook_server._answers(socket)
    raw.close()
    assert pinged["result"] == {}
    assert called["result"]["isError"] is False
    assert raw.process.returncode == 0
    assert "Traceback" not in serving_hooks.stderr()
    assert not Path(socket).exists()
