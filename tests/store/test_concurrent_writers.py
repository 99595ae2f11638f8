"""Several processes writing one database at once: every write lands, none fails with "database is locked" (the
file, or a PostgreSQL database)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from returns.result import Success

from memesh.context import CallContext
from tests.backends import Backend
from tests.calls import call

PROCESSES = 8
PER_PROCESS = 50

# Each writer opens the (possibly not yet created) database only after every process is ready, so the opens,
# migrations and writes of all eight really overlap. It reports every failure instead of stopping at the first.
WRITER = """
import json, sys
from pathlib import Path
from returns.result import Success
from memesh.app.dispatch import call
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.store.open import open_store

proc, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]  # a file, or a postgresql:// URL
print("ready", flush=True)
sys.stdin.readline()
errors = []
try:
    store = open_store(path)
except Exception as exc:
    print(json.dumps({"errors": [f"open: {exc!r}"]}), flush=True)
    sys.exit(1)
ctx = CallContext(source_host=f"writer-{proc}", agent_view=False)
for n in range(count):
    request = {"name": f"p{proc}-m{n}", "type": "fact", "observations": [f"written by tok{proc}x{n}"]}
    try:
        result = call("remember", Resources.over(store), request, ctx)
        if not isinstance(result, Success):
            errors.append(repr(result))
    except Exception as exc:
        errors.append(repr(exc))
store.close()
print(json.dumps({"errors": errors}), flush=True)
sys.exit(1 if errors else 0)
"""


def test_eight_processes_writing_at_once_store_every_memory(tmp_path: Path, backend: Backend) -> None:
    db = tmp_path / "shared" / "knowledge-graph.db"
    target = str(backend.target(db))
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(proc), str(PER_PROCESS), target],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for proc in range(PROCESSES)
    ]
    try:
        for writer in writers:
            assert writer.stdout is not None
            assert writer.stdout.readline().strip() == "ready"
        for writer in writers:
            assert writer.stdin is not None
            writer.stdin.write("go\n")
            writer.stdin.flush()
        outcomes = [writer.communicate(timeout=120) for writer in writers]
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
    for writer, (out, err) in zip(writers, outcomes, strict=True):
        assert writer.returncode == 0, out + err
        assert json.loads(out.strip().splitlines()[-1]) == {"errors": []}

    store = backend.open(db)
    try:
        assert store.count() == PROCESSES * PER_PROCESS
        ctx = CallContext(source_host="check", agent_view=False)
        for proc in range(PROCESSES):
            for n in range(PER_PROCESS):
                result = call("recall", store, {"query": f"tok{proc}x{n}"}, ctx)
                assert isinstance(result, Success)
                assert [e["name"] for e in result.unwrap()["entities"]] == [f"p{proc}-m{n}"]
    finally:
        store.close()
