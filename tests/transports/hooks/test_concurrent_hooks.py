"""Hooks and another writer on one database at once: nothing is lost."""

from __future__ import annotations

import json
import subprocess
import threading
from datetime import UTC, datetime

from memesh.context import CallContext
from tests.calls import call

from .conftest import HookEnv, assistant, shipped_command, tool_result, tool_use, user

REPLY = "Finished the migration and measured it; the next step is the README section and the benchmark figures."


def test_parallel_stop_hooks_and_a_writer_lose_nothing(hook_env: HookEnv) -> None:
    hook_env.store().close()  # created and migrated before the race, as a real install is
    work = [user("go"), *[tool_use(f"t{i}", "Bash", {"command": "ls"}) for i in range(3)]]
    work += [*[tool_result(f"t{i}", "ok") for i in range(3)], assistant(REPLY)]
    processes = []
    for n in range(6):
        payload = {"session_id": f"race-{n}", "transcript_path": str(hook_env.transcript(work, f"r{n}.jsonl")),
                   "cwd": str(hook_env.project_dir)}  # fmt: skip
        processes.append(
            subprocess.Popen(
                ["sh", "-c", shipped_command("Stop")],
                stdin=subprocess.PIPE,
                env=hook_env.env,
                cwd=hook_env.project_dir,
            )
        )
        assert processes[-1].stdin is not None
        processes[-1].stdin.write(json.dumps(payload).encode())
        processes[-1].stdin.close()

    def writer() -> None:
        store = hook_env.store()
        ctx = CallContext(source_host="mcp", agent_view=True, now=datetime.now(UTC))
        try:
            for i in range(30):
                call("remember", store, {"name": f"w-{i}", "type": "note", "observations": ["x"]}, ctx).unwrap()
        finally:
            store.close()

    thread = threading.Thread(target=writer)
    thread.start()
    assert all(process.wait(timeout=120) == 0 for process in processes)
    thread.join(timeout=120)
    store = hook_env.store()
    try:
        names = {row[0] for row in store.conn.execute("SELECT name FROM entities")}
    finally:
        store.close()
    assert {f"session-race-{n}-summary" for n in range(6)} <= names
    assert {f"w-{i}" for i in range(30)} <= names
    assert f"session-handoff:{hook_env.project}" in names
    assert not [r for r in hook_env.outcomes() if r["outcome"] == "error"]
