"""Several processes writing one database at once is the normal case: nothing lost, nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.backends import Backend

BIN = Path(sys.executable).parent
WRITERS = 8
PER_WRITER = 100
CLI_WRITES = 10


def _env(db: Path, backend: Backend) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env["MEMESH_DB_PATH"] = str(db)
    if backend.postgres:
        env["MEMESH_DATABASE_URL"] = str(backend.target(db))
    env["MEMESH_UPDATE_CHECK"] = "0"  # no package-index lookup from the servers this test starts
    return env


async def _mcp_writer(db: Path, backend: Backend, writer: int, errors: list[str]) -> None:
    params = StdioServerParameters(command=str(BIN / "memesh-mcp"), env=_env(db, backend), cwd=str(db.parent))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for index in range(PER_WRITER):
            result = await session.call_tool(
                "remember",
                {"name": f"w{writer}-m{index}", "type": "note", "observations": [f"writer {writer} memory {index}"]},
            )
            if result.is_error:
                errors.append(str(result.content))


def _cli_writes(db: Path, backend: Backend) -> list[subprocess.CompletedProcess[str]]:
    done = []
    for index in range(CLI_WRITES):
        done.append(
            subprocess.run(
                [str(BIN / "memesh"), "remember", "--name", f"cli-{index}", "--type", "note", "--obs", f"cli {index}"],
                env=_env(db, backend),
                cwd=db.parent,
                capture_output=True,
                text=True,
                check=False,
            )
        )
    return done


def test_eight_mcp_servers_and_the_cli_writing_at_once_lose_nothing(tmp_path: Path, backend: Backend) -> None:
    db = tmp_path / "shared.db"
    errors: list[str] = []
    cli_results: list[subprocess.CompletedProcess[str]] = []

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for writer in range(WRITERS):
                group.start_soon(_mcp_writer, db, backend, writer, errors)
            cli_results.extend(await anyio.to_thread.run_sync(_cli_writes, db, backend))

    anyio.run(main)
    assert errors == []
    assert [r.returncode for r in cli_results] == [0] * CLI_WRITES, [r.stderr for r in cli_results]
    exported = subprocess.run(
        [str(BIN / "memesh"), "recall", "--json", "--limit", "100", "--cross-project"],
        env=_env(db, backend),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(exported.stdout)["entities"]
    store = backend.open(db)
    try:
        names = {row[0] for row in store.conn.execute("SELECT name FROM entities")}
        expected = {f"w{w}-m{i}" for w in range(WRITERS) for i in range(PER_WRITER)} | {
            f"cli-{i}" for i in range(CLI_WRITES)
        }
        assert names == expected
        from memesh.context import CallContext
        from tests.calls import call

        ctx = CallContext(source_host="test", agent_view=False)
        # recall finds each one: every memory is in the keyword index, and its name finds it first.
        for name in sorted(expected):
            found = call("recall", store, {"query": name, "limit": 5}, ctx).unwrap()
            assert found["entities"][0]["name"] == name
    finally:
        store.close()


IMPORT_SCRIPT = """
import json, sys
from memesh.context import CallContext
from memesh.ops.import_bundle import import_bundle
from memesh.store.open import open_store
store = open_store()
bundle = json.load(open(sys.argv[1]))
print("started", flush=True)
import_bundle(store, {"data": bundle, "merge_strategy": "skip"}, ctx=CallContext(source_host="cli", agent_view=True))
print("finished", flush=True)
"""


def _bundle(path: Path, count: int) -> None:
    entities: list[dict[str, Any]] = [
        {"name": f"bulk-{i}", "type": "note", "observations": [f"bulk memory {i} " + "x" * 200]} for i in range(count)
    ]
    path.write_text(json.dumps({"version": "3.1.0", "exported_at": "2026-01-01T00:00:00Z", "entities": entities}))


def test_an_import_killed_midway_leaves_a_sound_database_holding_none_of_it(tmp_path: Path, backend: Backend) -> None:
    db = tmp_path / "k.db"
    bundle = tmp_path / "bundle.json"
    _bundle(bundle, 20_000)
    script = tmp_path / "run_import.py"
    script.write_text(IMPORT_SCRIPT)
    process = subprocess.Popen(
        [sys.executable, str(script), str(bundle)],
        env=_env(db, backend),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    if backend.postgres:
        time.sleep(2)  # thousands of memories into the import's one transaction (all 20000 take a minute)
    wal = Path(f"{db}-wal")
    deadline = time.monotonic() + 60
    while not backend.postgres and time.monotonic() < deadline and (not wal.exists() or wal.stat().st_size < 2e6):
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL

    store = backend.open(db)
    try:
        check = store.integrity() if backend.postgres else store.conn.execute("PRAGMA integrity_check").fetchone()[0]
        assert check == "ok"
        count = store.conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        assert count in (0, 20_000), f"a killed import left {count} of 20000 memories"
        assert count == 0
    finally:
        store.close()


@pytest.fixture(autouse=True)
def _no_memesh_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [key for key in os.environ if key.startswith("MEMESH_") and key != "MEMESH_DAEMON"]:
        monkeypatch.delenv(key)
