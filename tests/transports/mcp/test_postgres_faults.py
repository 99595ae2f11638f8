"""A real stdio `memesh-mcp` (through the `mcp` client) when its PostgreSQL fails under it: every backend
terminated, the cluster restarted (fast and immediate). A cluster of the module's own on 127.0.0.1, since these tests
end and restart its connections."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from tests.pg_faults import fresh_database, running_cluster, terminate_memesh
from tests.transports.mcp.conftest import LEGACY, McpClient, McpHarness

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from running_cluster(("synchronous_commit=on",))  # acknowledged is durable, even through -m immediate


@pytest.fixture
def url(cluster: Any) -> Iterator[str]:
    yield from fresh_database(cluster)


class _Database:
    """What McpHarness asks of a backend: the environment that names the database."""

    def __init__(self, url: str) -> None:
        self.url = url

    def environ(self, _path: Path) -> dict[str, str]:
        return {"MEMESH_DATABASE_URL": self.url}


@pytest.fixture
def harness(tmp_path: Path, url: str) -> McpHarness:
    db = tmp_path / "memesh" / "knowledge-graph.db"
    db.parent.mkdir()
    return McpHarness(folder=tmp_path, db=db, stderr_log=tmp_path / "stderr.log", backend=_Database(url))  # type: ignore[arg-type]


async def _remember(client: McpClient, name: str) -> bool:
    result = await client.call("remember", {"name": name, "type": "fact", "observations": [f"{name} noted"]})
    return not result.is_error


async def _recall(client: McpClient) -> bool:
    return not (await client.call("recall", {"query": "noted"})).is_error


def _names(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {str(row[0]) for row in conn.execute("SELECT name FROM entities")}


async def test_memesh_mcp_answers_the_next_calls_within_5_s_after_every_backend_was_terminated(
    cluster: Any, url: str, harness: McpHarness
) -> None:
    async with harness.connect(LEGACY) as client:
        assert await _remember(client, "a")
        assert await _recall(client)
        assert terminate_memesh(cluster.url()) >= 1
        started = time.monotonic()
        assert [await _recall(client), await _remember(client, "b"), await _recall(client)] == [True, True, True]
        assert time.monotonic() - started < 5
    assert {"a", "b"} <= _names(url)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_memesh_mcp_answers_within_10_s_of_a_restart_and_keeps_what_it_acknowledged(
    cluster: Any, url: str, harness: McpHarness, mode: str
) -> None:
    async with harness.connect(LEGACY) as client:
        acknowledged = {name for name in ("a", "b", "c") if await _remember(client, name)}
        assert acknowledged == {"a", "b", "c"}
        cluster.restart(mode)
        back = time.monotonic()
        while not await _recall(client):
            assert time.monotonic() - back < 10
            await anyio.sleep(0.1)  # a client backing off while the database is down
        assert await _remember(client, "d")
        assert time.monotonic() - back < 10
    assert acknowledged | {"d"} <= _names(url)
