"""Every command the resident server runs (`wire.WARM`) and every hook event answers through it byte for byte as
in its own process: the same exit status, stdout and stderr, and the same outcome records, on both engines. Two
homes seeded alike take the same calls, one cold and one through the server; what differs between them by nature
(the clock, the homes' own paths, the server's own row in doctor) is set aside before comparing."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memesh.transports.resident import wire
from tests.backends import Backend

from .conftest import TIME, Home

HOOK_COMMAND = "memesh-hook"
# doctor's own row for the server: running in one home, off (MEMESH_DAEMON=0) in the other.
DAEMON_ROW = re.compile(r"off \(MEMESH_DAEMON=0\)|running \(pid \d+\)")

# (argv, what is being shown): every command of wire.WARM, in order, text and --json, and a failing one.
CALLS: list[list[str]] = [
    ["remember", "auth tokens rotate weekly on Mondays", "--tags", "security", "ops"],
    ["remember", "the retry policy backs off exponentially", "--name", "retry-policy", "--json"],
    ["recall", "auth"],
    ["recall", "auth", "--json"],
    ["recall", "retry", "--limit", "1", "--json"],
    ["learn", "--error", "flaky socket test", "--fix", "wait for the server to answer", "--json"],
    ["task", "--goal", "ship the resident server", "--next", "measure it", "--json"],
    ["pin", "--name", "retry-policy"],
    ["unpin", "--name", "retry-policy", "--json"],
    ["forget", "--name", "no-such-memory"],
    ["forget", "--name", "retry-policy", "--json"],
    ["briefing"],
    ["briefing", "--json"],
    ["briefing", "--index"],
    ["why", "README.md"],
    ["why", "README.md", "--json"],
    ["stats"],
    ["stats", "--json"],
    ["demo", "--json"],
    ["doctor"],
    ["doctor", "--json"],
    ["export-schema"],
    ["recall", "--limit", "many"],  # not read by the front: refused warm, answered cold (a usage error)
]


def _plain(text: bytes, home: Home) -> str:
    shown = text.decode("utf-8", "replace").replace(str(home.root), "<root>")
    url = home.env.get("MEMESH_DATABASE_URL")
    if url:  # each twin has a database of its own: its name, as doctor shows it
        from urllib.parse import urlsplit

        shown = shown.replace(urlsplit(url).path + "?", "/<database>?")
    return DAEMON_ROW.sub("<daemon>", TIME.sub("<time>", shown))


@pytest.fixture
def twins(tmp_path: Path, backend: Backend) -> tuple[Home, Home]:
    made = []
    for name in ("cold", "warm"):
        # One project folder for both: a project is named by its folder.
        twin = Home(tmp_path / name, backend, tmp_path / "proj", MEMESH_AUTHOR="tests@memesh.invalid", COLUMNS="80")
        assert twin.cold("remember", "seeded alike", "--tags", "seed").returncode == 0
        made.append(twin)
    return made[0], made[1]


def test_every_warm_command_answers_through_the_server_as_in_its_own_process(twins: tuple[Home, Home]) -> None:
    cold, warm = twins
    assert {call[0] for call in CALLS} >= wire.WARM
    try:
        warm.start()
        for argv in CALLS:
            expected = cold.cold(*argv)
            got, was_warm = warm.traced(*argv)
            assert was_warm is (argv[-1] != "many"), argv
            assert got.returncode == expected.returncode, (argv, got.stderr, expected.stderr)
            assert _plain(got.stdout, warm) == _plain(expected.stdout, cold), argv
            assert _plain(got.stderr, warm) == _plain(expected.stderr, cold), argv
    finally:
        warm.stop()


def _hook(
    home: Home, event: str, payload: dict[str, Any], *, warm: bool
) -> tuple[subprocess.CompletedProcess[bytes], bool]:
    done = subprocess.run(
        [str(Path(home.env["PATH"].split(":")[0]) / HOOK_COMMAND), event],
        input=json.dumps(payload).encode(),
        env={**home.env, "PYTHONPROFILEIMPORTTIME": "1", **({} if warm else {"MEMESH_DAEMON": "0"})},
        cwd=home.cwd,
        capture_output=True,
        timeout=120,
        check=False,
    )
    imports = [line for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
    ran_here = any(line.endswith("memesh.transports.hooks.runner") for line in imports)
    rest = b"\n".join(line for line in done.stderr.splitlines() if not line.startswith(b"import time:"))
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, rest), not ran_here


def _records(home: Home) -> list[tuple[Any, ...]]:
    return [(r.get("hook"), r.get("outcome"), r.get("reason"), r.get("entity")) for r in home.outcomes()]


def test_every_hook_event_answers_through_the_server_as_in_its_own_process(twins: tuple[Home, Home]) -> None:
    import sys

    cold, warm = twins
    for twin in twins:
        twin.env["PATH"] = f"{Path(sys.executable).parent}:{twin.env.get('PATH', '')}"
        twin.env["CLAUDECODE"] = "1"
    reply = "Moved the store to WAL mode; next, the retry policy. [mem:1]"
    transcript = [{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}}]

    def payload(twin: Home, event: str) -> dict[str, Any]:
        base: dict[str, Any] = {"session_id": "s1", "cwd": str(twin.cwd)}
        if event == "session-start":
            return {**base, "source": "startup", "hook_event_name": "SessionStart"}
        if event == "user-prompt-submit":
            return {**base, "prompt": "how do we rotate auth tokens?", "hook_event_name": "UserPromptSubmit"}
        if event == "pre-tool-use":
            edit = {"file_path": str(twin.cwd / "store.py"), "old_string": "a", "new_string": "b"}
            return {**base, "tool_name": "Edit", "tool_input": edit, "hook_event_name": "PreToolUse"}
        if event == "post-tool-use":
            bash = {"command": "git commit -m 'store: WAL'"}
            answer = {"stdout": "[main 1a2b3c4] store: WAL\n 1 file changed", "stderr": ""}
            return {
                **base,
                "tool_name": "Bash",
                "tool_input": bash,
                "tool_response": answer,
                "hook_event_name": "PostToolUse",
            }
        path = twin.root / "transcript.jsonl"
        path.write_text("".join(json.dumps(entry) + "\n" for entry in transcript))
        name = {"stop": "Stop", "stop-gate": "Stop", "pre-compact": "PreCompact"}[event]
        return {**base, "transcript_path": str(path), "hook_event_name": name, "stop_hook_active": False}

    try:
        warm.start()
        for event in wire_events():
            expected, _ = _hook(cold, event, payload(cold, event), warm=False)
            got, was_warm = _hook(warm, event, payload(warm, event), warm=True)
            assert was_warm, event
            assert got.returncode == expected.returncode == 0, event
            assert _plain(got.stdout, warm) == _plain(expected.stdout, cold), event
            assert _plain(got.stderr, warm) == _plain(expected.stderr, cold), event
        assert _records(warm) == _records(cold)
    finally:
        warm.stop()


def wire_events() -> list[str]:
    from memesh.transports.hooks import wire as hook_wire

    return list(hook_wire.ANSWER_TIMEOUT_S)


def test_postgres_connections_are_kept_and_survive_their_end(twins: tuple[Home, Home], backend: Backend) -> None:
    if not backend.postgres:
        pytest.skip("PostgreSQL only")
    import psycopg

    _, warm = twins
    try:
        warm.start()
        first, was_warm = warm.traced("recall", "seeded", "--json")
        assert was_warm and first.returncode == 0
        from urllib.parse import urlsplit

        from tests.backends import cluster

        database = urlsplit(warm.env["MEMESH_DATABASE_URL"]).path.lstrip("/")
        with psycopg.connect(cluster().url(), autocommit=True) as admin:
            ended = admin.execute(  # the server kept its connection open between requests: ended as an admin would
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            ).fetchall()
        assert len(ended) >= 1
        again, was_warm = warm.traced("recall", "seeded", "--json")
        assert was_warm and again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["entities"][0]["name"] == json.loads(first.stdout)["entities"][0]["name"]
    finally:
        warm.stop()
