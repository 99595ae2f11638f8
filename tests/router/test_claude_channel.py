"""memesh-mcp as the Claude Code host adapter: inside a session with MEMESH_RECIPIENT it registers on the router, and
an exact-session send reaches Claude Code as a channel notification, accepted once written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.project_git import current_project
from memesh.adapters.router_client import RouterClient
from memesh.context import CallContext
from tests.backends import Backend
from tests.calls import call

BIN = Path(sys.executable).parent


@pytest.fixture
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mc", dir="/tmp") as name:
        yield Path(name)


def _line(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    message: dict[str, Any] = json.loads(proc.stdout.readline())
    return message


def test_a_session_send_reaches_claude_code_as_a_channel_notification(folder: Path, backend: Backend) -> None:
    env = {**os.environ, "MEMESH_DIR": str(folder), "MEMESH_DB_PATH": str(folder / "k.db")}
    env.update(backend.environ(folder / "k.db"))
    router = subprocess.Popen([str(BIN / "memesh"), "message", "router"], env=env, stderr=subprocess.PIPE, text=True)
    session_env = {**env, "CLAUDE_CODE_SESSION_ID": "cc-session-1", "MEMESH_RECIPIENT": "reviewer"}
    work = folder / "repo"
    work.mkdir()
    mcp = subprocess.Popen(
        [str(BIN / "memesh-mcp")],
        env=session_env,
        cwd=work,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert router.stderr is not None and "listening" in router.stderr.readline()
        assert mcp.stdin is not None
        mcp.stdin.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "claude-code", "version": "2"},
                    },
                }
            )
            + "\n"
        )
        mcp.stdin.flush()
        init = _line(mcp)
        assert "claude/channel" in init["result"]["capabilities"]["experimental"]
        socket = folder / "router.sock"
        project = _project_of(work)
        [card] = RouterClient(socket).discover(project, 10) or []
        assert (card["session_id"], card["principal_id"], card["host_kind"]) == (
            "cc-session-1",
            "reviewer",
            "claude-code",
        )
        store = backend.open(folder / "k.db")
        try:
            ctx = CallContext(source_host="codex", agent_view=False, router=lambda: RouterClient(socket))
            sent = call(
                "message",
                store,
                {
                    "action": "send",
                    "project": project,
                    "sender": "author",
                    "recipient": "cc-session-1",
                    "target_kind": "session",
                    "idempotency_key": "k",
                    "payload": "please review the auth change",
                },
                ctx,
            ).unwrap()
        finally:
            store.close()
        notification = _line(mcp)
        assert notification["method"] == "notifications/claude/channel"
        assert "please review the auth change" in notification["params"]["content"]
        assert "untrusted data" in notification["params"]["content"]
        assert notification["params"]["meta"]["message_id"] == sent["message_id"]
        assert sent["host_accept"]["session_id"] == "cc-session-1"
    finally:
        for proc in (mcp, router):
            proc.terminate()
            proc.wait(timeout=30)


def _project_of(folder: Path) -> str:
    here = Path.cwd()
    os.chdir(folder)
    try:
        return current_project()
    finally:
        os.chdir(here)


def test_the_principal_comes_from_memesh_recipient_else_an_owner_private_hosts_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memesh.transports.mcp.channel import principal_from_environment

    monkeypatch.setenv("MEMESH_DIR", str(folder))
    monkeypatch.delenv("MEMESH_RECIPIENT", raising=False)
    assert principal_from_environment() == ""
    hosts = folder / "hosts"
    hosts.mkdir()
    config = hosts / "claude.json"
    config.write_text(json.dumps({"principal_id": " reviewer ", "project": "ignored"}))
    config.chmod(0o644)
    assert principal_from_environment() == ""  # others can read or write it: not the owner's word
    config.chmod(0o600)
    assert principal_from_environment() == "reviewer"
    monkeypatch.setenv("MEMESH_RECIPIENT", "lead")
    assert principal_from_environment() == "lead"


def test_the_channel_activates_once_the_client_is_past_its_opening() -> None:
    from mcp import types

    from memesh.transports.mcp.channel import _past_handshake

    def request(method: str) -> types.JSONRPCRequest:
        return types.JSONRPCRequest(jsonrpc="2.0", id=1, method=method)

    assert _past_handshake(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
    assert not _past_handshake(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled"))
    assert not any(_past_handshake(request(m)) for m in ("initialize", "server/discover", "ping"))
    assert _past_handshake(request("tools/list"))  # a per-request-era client sends no initialized notification
