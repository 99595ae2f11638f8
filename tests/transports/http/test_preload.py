"""What `memesh serve` loads before it answers: after `preload`, a request to any route imports nothing more (issue
35: a module imported at first use fails with EMFILE once a storm of connections holds every descriptor). In a
process of its own, so that what other tests imported cannot hide a module still imported at first use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Each route of the API table, twice (a second call may take another path than the first), then the pages.
DRIVE = r"""
import json, sys
from starlette.testclient import TestClient
from memesh.transports.http.app import create_app, preload
from memesh.transports.http.routes import API

BODIES = {
    "remember": {"name": "n1", "type": "note", "observations": ["const token = getToken();"], "tags": ["project:p"],
                 "relations": [{"to": "n2", "type": "uses"}]},
    "recall": {"query": "token"},
    "forget": {"name": "n1"},
    "learn": {"error": "e", "fix": "f", "root_cause": "r"},
    "message": {"action": "poll", "project": "p~" + "d" * 32, "recipient": "r"},
    "import": {"data": {"version": "1", "entities": [{"name": "x1", "type": "note", "observations": ["o"]}],
                        "relations": []}, "merge_strategy": "skip"},
    "why": {"file": "README.md"},
    "doctor_fix": {"id": "x"},
}
QUERIES = {"/v1/task-state": "?project=p", "/v1/briefing-index": "?project=p", "/v1/entity": "?name=n1"}
app = create_app()
if sys.argv[1] == "preload":
    preload(app)
statuses = []
with TestClient(app, base_url="http://127.0.0.1:3737") as client:
    client.get("/v1/health")  # the lifespan has started, the MCP SDK's load with it: wait for it
    import time
    deadline = time.monotonic() + 30
    while "mcp.server.streamable_http_manager" not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    before = set(sys.modules)
    for route in [*API, *API]:
        path = route.path.replace("{name:path}", "n1").replace("{id}", "1") + QUERIES.get(route.path, "")
        for method in route.methods:
            body = BODIES.get(route.op.name, {}) if method == "POST" else None
            statuses.append(client.request(method, path, json=body).status_code)
    for page in ("/dashboard", "/openapi.json", "/"):
        statuses.append(client.get(page, follow_redirects=False).status_code)
print(json.dumps({"imported": sorted(set(sys.modules) - before), "statuses": statuses}))
"""


def _drive(tmp_path: Path, mode: str) -> dict[str, list[object]]:
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env.update(
        HOME=str(home),
        MEMESH_DIR=str(home / ".memesh"),
        MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"),
        MEMESH_UPDATE_CHECK="0",
    )
    done = subprocess.run(
        [sys.executable, "-c", DRIVE, mode],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, list[object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.one_engine("what a process imports does not depend on the engine it serves")
def test_after_preload_no_route_imports_a_module_on_first_use(tmp_path: Path) -> None:
    driven = _drive(tmp_path, "preload")
    assert 500 not in driven["statuses"]
    assert 200 in driven["statuses"]
    assert driven["imported"] == []


@pytest.mark.one_engine("what a process imports does not depend on the engine it serves")
def test_without_preload_the_routes_do_import_on_first_use(tmp_path: Path) -> None:
    # The measure is a real one: the same drive without preload finds modules a first request imports.
    assert _drive(tmp_path, "none")["imported"] != []
