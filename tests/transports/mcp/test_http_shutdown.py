"""MCP over HTTP stopped while its SDK is still loading: the app's lifespan ends quietly, with nothing logged."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import pytest

from memesh.app.resources import Resources
from memesh.transports.mcp import streamable


def test_serving_loads_no_sdk_until_an_mcp_request_comes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = []
    monkeypatch.setattr(streamable, "_load_sdk", lambda: loaded.append(True))
    resources = Resources(db_path=tmp_path / "memesh" / "knowledge-graph.db")
    front = streamable.McpOverHttp(resources, body_limit=1 << 20)

    async def serve_briefly() -> None:
        async with front.running():
            await anyio.sleep(0.2)

    try:
        anyio.run(serve_briefly)
    finally:
        resources.close()
    assert loaded == []
    assert front._manager is None


def test_a_stop_while_the_first_request_loads_the_sdk_logs_nothing_and_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = []
    outcomes: list[str] = []

    def slow_load() -> None:
        time.sleep(0.3)  # the SDK's import, still running when the app stops
        loaded.append(True)

    monkeypatch.setattr(streamable, "_load_sdk", slow_load)
    resources = Resources(db_path=tmp_path / "memesh" / "knowledge-graph.db")
    front = streamable.McpOverHttp(resources, body_limit=1 << 20)

    async def first_request() -> None:
        try:
            await front._start()  # what the first /mcp request awaits
        except streamable.NotRunning:
            outcomes.append("not running")

    async def serve_briefly() -> None:
        async with front.running():
            assert front._group is not None
            front._group.start_soon(first_request)
            await anyio.sleep(0.05)  # the request is inside the import when the lifespan ends

    caplog.set_level(logging.DEBUG)
    try:
        anyio.run(serve_briefly)
    finally:
        resources.close()
    assert loaded == [True]
    assert outcomes in ([], ["not running"])  # cancelled with the app, or told it stopped: never a manager
    assert [r.getMessage() for r in caplog.records if "MCP over HTTP" in r.getMessage()] == []
    assert front._manager is None
