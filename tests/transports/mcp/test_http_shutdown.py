"""MCP over HTTP stopped while its SDK is still loading: the app's lifespan ends quietly, with nothing logged."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import pytest

from memesh.app.resources import Resources
from memesh.transports.mcp import streamable


def test_a_stop_while_the_sdk_loads_logs_nothing_and_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = []

    def slow_load() -> None:
        time.sleep(0.3)  # the SDK's import, still running when the app stops
        loaded.append(True)

    monkeypatch.setattr(streamable, "_load_sdk", slow_load)
    resources = Resources(db_path=tmp_path / "memesh" / "knowledge-graph.db")
    front = streamable.McpOverHttp(resources, body_limit=1 << 20)

    async def serve_briefly() -> None:
        async with front.running():
            await anyio.sleep(0.05)  # the warm-up is inside the import when the lifespan ends

    caplog.set_level(logging.DEBUG)
    try:
        anyio.run(serve_briefly)
    finally:
        resources.close()
    assert loaded == [True]
    assert [r.getMessage() for r in caplog.records if "MCP over HTTP" in r.getMessage()] == []
    assert front._manager is None
