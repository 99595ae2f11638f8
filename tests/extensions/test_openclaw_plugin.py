"""The OpenClaw plugin's recall formatting against what MeMesh's HTTP API really answers.

The plugin is TypeScript, source only: its client module is compiled with the pinned tsc (`make typecheck-ts`
installs it) and run by Node with `fetch` answering the recall envelope the ASGI app gave for the same request.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memesh.transports.http.app import create_app
from tests.transports.http.conftest import Api

PLUGIN_DIR = Path(__file__).resolve().parents[2] / "extensions" / "openclaw-memesh"
TSC = PLUGIN_DIR / "node_modules" / ".bin" / "tsc"

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        shutil.which("node") is None or not TSC.exists(), reason="needs node and the plugin's tsc (make typecheck-ts)"
    ),
]

RUN = """
import { MemeshClient, formatMemories, readConfig } from "./memesh-client.js";
import { readFileSync } from "node:fs";
const envelope = readFileSync(process.argv[2], "utf8");
globalThis.fetch = async () => new Response(envelope, { headers: { "Content-Type": "application/json" } });
const found = await new MemeshClient(readConfig({})).recall("pkce", 5);
process.stdout.write(formatMemories(found));
"""


def _formatted(tmp_path: Path, envelope: dict[str, Any]) -> str:
    out = tmp_path / "js"
    subprocess.run(
        [str(TSC), "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--types", "node",
         "--lib", "ES2022,DOM", "--outDir", str(out), str(PLUGIN_DIR / "src" / "memesh-client.ts")],
        check=True, cwd=PLUGIN_DIR, capture_output=True,
    )  # fmt: skip
    (out / "package.json").write_text('{"type": "module"}')
    (out / "run.mjs").write_text(RUN)
    (tmp_path / "envelope.json").write_text(json.dumps(envelope))
    done = subprocess.run(
        ["node", str(out / "run.mjs"), str(tmp_path / "envelope.json")], check=True, capture_output=True, text=True
    )
    return done.stdout


@pytest.fixture
def api(tmp_path: Path, memesh_env: Path) -> Any:
    app = create_app(db_path=memesh_env)
    yield Api(app)
    app.close()


def test_recall_shows_each_memory_s_title_after_its_name(api: Api, tmp_path: Path) -> None:
    api.ok("POST", "/v1/remember", json={"name": "auth-choice", "type": "decision", "title": "Use PKCE",
                                         "observations": ["PKCE for the public client"]})  # fmt: skip
    api.ok("POST", "/v1/remember", json={"name": "pkce-untitled", "type": "note", "observations": ["pkce note"]})
    envelope = api.post("/v1/recall", json={"query": "pkce", "limit": 5}).json()
    lines = sorted(_formatted(tmp_path, envelope).splitlines())
    assert lines == [
        "- (decision) auth-choice — Use PKCE: PKCE for the public client",
        "- (note) pkce-untitled: pkce note",
    ]
