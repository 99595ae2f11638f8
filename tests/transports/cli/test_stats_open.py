"""`memesh stats` (the memory's counts) and `memesh open` (the dashboard, serving it first when nothing answers), run
as the installed script."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import urllib.request
from collections.abc import Iterator

import pytest

from tests.transports.cli.conftest import Process


def test_stats_counts_memories_by_type_status_namespace_and_project_and_the_db_size(memesh_process: Process) -> None:
    for name, kind in (("cache-choice", "decision"), ("flaky-ci", "lesson_learned"), ("old-plan", "decision")):
        tags = ["--tags", "project:shop"] if kind == "decision" else ["--namespace", "team"]
        assert memesh_process("remember", "--name", name, "--type", kind, "--obs", f"about {name}", *tags).code == 0
    assert memesh_process("forget", "--name", "old-plan").code == 0

    done = memesh_process("stats", "--json")

    assert done.code == 0, done.err
    found = done.json()
    assert found["totalEntities"] == 3
    assert {row["type"]: row["count"] for row in found["typeDistribution"]} == {"decision": 2, "lesson_learned": 1}
    assert {row["status"]: row["count"] for row in found["statusDistribution"]} == {"active": 2, "archived": 1}
    assert {row["namespace"]: row["count"] for row in found["namespaceDistribution"]} == {"personal": 2, "team": 1}
    assert found["projectDistribution"] == [{"project": "shop", "count": 2}]
    if memesh_process.backend.postgres:
        assert found["databaseBytes"] is None
    else:
        assert found["databaseBytes"] > 0


def test_stats_for_people_prints_a_summary_and_exits_0(memesh_process: Process) -> None:
    assert memesh_process("remember", "one note").code == 0
    done = memesh_process("stats")
    assert done.code == 0, done.err
    assert done.out.strip()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def started() -> Iterator[list[int]]:
    """The servers a test's `memesh open` started, stopped when it ends."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


@pytest.mark.one_engine("what open starts does not depend on the engine")
def test_open_starts_a_server_when_none_answers_then_reuses_it(memesh_process: Process, started: list[int]) -> None:
    port = _free_port()

    first = memesh_process("open", "--port", str(port), "--json")
    assert first.code == 0, first.err
    opened = first.json()
    if opened["pid"] is not None:
        started.append(opened["pid"])
    assert opened["started"] is True
    assert opened["url"] == f"http://127.0.0.1:{port}/dashboard"
    with urllib.request.urlopen(opened["url"], timeout=5) as page:
        assert page.status == 200

    again = memesh_process("open", "--port", str(port), "--json")
    assert again.code == 0, again.err
    assert again.json() == {"url": opened["url"], "started": False, "pid": None}

    printed = memesh_process("open", "--port", str(port), "--no-browser")
    assert (printed.code, printed.out.strip()) == (0, opened["url"])
