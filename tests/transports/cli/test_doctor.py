"""memesh doctor as a person runs it: a line per check; --json the same result as GET /v1/doctor; exit 1 on FAIL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.backends import Backend

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process


def test_doctor_prints_each_check(memesh_process: Process) -> None:
    out = memesh_process("doctor")
    assert out.code == 0, out.err
    assert out.out.startswith("MeMesh doctor: ") and "Database: 0 memories; integrity ok" in out.out


def test_doctor_json_carries_checks_and_capture(memesh_process: Process) -> None:
    data = json.loads(memesh_process("doctor", "--json").out)
    assert {"status", "version", "checks", "capture"} <= set(data)


@pytest.mark.sqlite_only  # a folder where the database file should be
def test_a_database_that_cannot_open_is_a_fail_with_exit_1(memesh_process: Process) -> None:
    Path(memesh_process.env["MEMESH_DB_PATH"]).mkdir(parents=True)
    out = memesh_process("doctor", "--json")
    assert out.code == 1
    [database] = [c for c in json.loads(out.out)["checks"] if c["id"] == "database"]
    assert database["status"] == "fail" and database["detail"].startswith("cannot open the database")


def test_hook_runs_recorded_beside_the_database_show_in_capture(memesh_process: Process) -> None:
    folder = Path(memesh_process.env["MEMESH_DB_PATH"]).parent
    folder.mkdir(parents=True)
    record = {"hook": "post-commit", "at": "2026-11-30T10:00:00.000Z", "host": "codex", "outcome": "wrote",
              "entity": "commit-abc1234"}  # fmt: skip
    (folder / "hook-outcomes.jsonl").write_text(json.dumps(record) + "\nnot json\n")
    data = json.loads(memesh_process("doctor", "--json").out)
    [hook] = data["capture"]["hooks"]
    assert (hook["hook"], hook["writes"], hook["hosts"], hook["lastEntity"]) == (
        "post-commit", 1, ["codex"], "commit-abc1234",
    )  # fmt: skip


def test_a_stale_plugin_cache_shows_as_its_own_row_in_text_and_json(memesh_process: Process) -> None:
    home = Path(memesh_process.env["HOME"])
    memesh_process.env.pop("CLAUDE_CONFIG_DIR", None)
    memesh_process.env.pop("CODEX_HOME", None)
    copy = home / ".codex" / "plugins" / "cache" / "memesh" / "memesh" / "0.0.1"
    (copy / ".codex-plugin").mkdir(parents=True)
    (copy / ".codex-plugin" / "plugin.json").write_text('{"name": "memesh", "version": "0.0.1"}')
    text = memesh_process("doctor").out
    assert "[warn] Plugin cache (Codex): Codex runs the plugin from a cached copy at 0.0.1" in text
    assert "codex plugin marketplace upgrade memesh && codex plugin add memesh@memesh" in text
    [row] = [c for c in json.loads(memesh_process("doctor", "--json").out)["checks"] if c["id"] == "plugin-cache-codex"]
    assert row["status"] == "warn" and row["fixable"] is True


def test_fix_applies_the_config_repair_once_and_then_says_none_applies(memesh_process: Process) -> None:
    config = Path(memesh_process.env["MEMESH_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"briefing": "full", "llmModel": "x"}')
    done = memesh_process("doctor", "--fix", "config")
    assert done.code == 0, done.err
    assert done.out.startswith("Repaired: removed retired config keys: llmModel (backup beside config.json).")
    assert json.loads(config.read_text()) == {"briefing": "full"}
    again = memesh_process("doctor", "--fix", "config", "--json")
    assert again.code == 1 and json.loads(again.out)["errorCode"] == "operation.failed"


@pytest.mark.one_engine("names its own PostgreSQL URL")
def test_doctor_names_the_postgresql_database_in_use_with_its_password_redacted(
    memesh_process: Process, pg_url: str
) -> None:
    memesh_process.env["MEMESH_DATABASE_URL"] = pg_url.replace("memesh@", "memesh:s3cret-pw@")  # trust: any works
    out = memesh_process("doctor", "--json")
    [database] = [c for c in json.loads(out.out)["checks"] if c["id"] == "database"]
    assert database["status"] == "pass", database
    assert "PostgreSQL 15" in database["detail"] and "postgresql://" in database["detail"]
    assert "s3cret-pw" not in out.out + out.err  # the user and password redacted (doctor's answer can be shared)


@pytest.mark.one_engine("names its own PostgreSQL URL")
def test_a_postgresql_database_that_cannot_be_reached_is_a_fail_naming_it_without_its_password(
    memesh_process: Process, tmp_path: Path
) -> None:
    memesh_process.env["MEMESH_DATABASE_URL"] = f"postgresql://memesh:s3cret-pw@/nowhere?host={tmp_path}/no-socket"
    out = memesh_process("doctor", "--json")
    assert out.code == 1
    [database] = [c for c in json.loads(out.out)["checks"] if c["id"] == "database"]
    assert database["status"] == "fail" and database["detail"].startswith("cannot open the database (postgresql://")
    assert "s3cret-pw" not in out.out + out.err


def test_the_settings_row_names_the_recall_mode_and_warns_of_an_invalid_one(memesh_process: Process) -> None:
    memesh_process.env["MEMESH_RECALL_MODE"] = "broad"
    [row] = [c for c in json.loads(memesh_process("doctor", "--json").out)["checks"] if c["id"] == "config"]
    assert row["status"] == "pass" and "recallMode: broad (env MEMESH_RECALL_MODE)" in row["detail"]
    memesh_process.env["MEMESH_RECALL_MODE"] = "x"
    [row] = [c for c in json.loads(memesh_process("doctor", "--json").out)["checks"] if c["id"] == "config"]
    assert row["status"] == "warn" and "recallMode: fts (default; the value in env" in row["detail"]


MEMESH_HOOK = Path(sys.executable).with_name("memesh-hook")


def _doctor(process: Process) -> dict[str, Any]:
    return json.loads(process("doctor", "--json").out)  # type: ignore[no-any-return]


def _row(data: dict[str, Any], check_id: str) -> dict[str, Any]:
    [row] = [c for c in data["checks"] if c["id"] == check_id]
    return row  # type: ignore[no-any-return]


def _folder(process: Process) -> Path:
    folder = Path(process.env["MEMESH_DB_PATH"]).parent
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _records(process: Process, *records: dict[str, Any]) -> None:
    text = "".join(json.dumps(record) + "\n" for record in records)
    (_folder(process) / "hook-outcomes.jsonl").write_text(text)


def _ago(**delta: float) -> str:
    return (datetime.now(UTC) - timedelta(**delta)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _heartbeats(process: Process, days_ago: float, *events: str) -> None:
    """Heartbeats as memesh-hook leaves them, dated `days_ago` (tracking began then too)."""
    beats = _folder(process) / "hook-heartbeats"
    beats.mkdir(exist_ok=True)
    stamp = (datetime.now(UTC) - timedelta(days=days_ago)).timestamp()
    for name in (".began", *events):
        (beats / name).touch()
        os.utime(beats / name, (stamp, stamp))


def test_after_setup_doctor_finds_every_hook_installed(memesh_process: Process) -> None:
    assert memesh_process("setup", "--yes").code == 0
    row = _row(_doctor(memesh_process), "hooks")
    assert (row["status"], row["detail"]) == ("pass", "all hooks installed in Claude Code's settings.json")


def test_a_hook_run_leaves_a_heartbeat_doctor_reports(memesh_process: Process) -> None:
    done = subprocess.run(
        [str(MEMESH_HOOK), "pre-compact"], input=b"not json", env=memesh_process.env, cwd=memesh_process.cwd,
        capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0
    capture = _doctor(memesh_process)["capture"]
    assert set(capture["heartbeats"]) == {"pre-compact"}


def test_heartbeats_with_no_outcome_record_past_the_grace_are_a_concern(memesh_process: Process) -> None:
    _heartbeats(memesh_process, 2, "session-start", "stop")
    data = _doctor(memesh_process)
    assert data["capture"]["status"] == "PASS_WITH_CONCERNS" and data["capture"]["neverRan"] == []
    row = _row(data, "capture-liveness")
    assert row["status"] == "warn" and row["detail"].startswith("capture-liveness.no-records: ")


def test_heartbeats_inside_the_grace_are_no_concern_yet(memesh_process: Process) -> None:
    _heartbeats(memesh_process, 0.1, "session-start", "stop")
    assert _doctor(memesh_process)["capture"]["status"] == "PASS"


def test_no_stop_heartbeat_and_no_session_summary_72_hours_after_tracking_began_fails(
    memesh_process: Process,
) -> None:
    _heartbeats(memesh_process, 4, "session-start")
    data = _doctor(memesh_process)
    assert (data["capture"]["status"], data["capture"]["neverRan"]) == ("FAIL", ["session-summary"])
    row = _row(data, "capture-liveness")
    assert row["status"] == "fail" and row["detail"].startswith("session-summary never ran")


def test_a_fail_from_never_ran_says_so_even_beside_a_silent_hook(memesh_process: Process) -> None:
    skip = {"hook": "post-commit", "host": "claude-code", "outcome": "skipped",
            "reason": "a git commit ran but printed no commit line"}  # fmt: skip
    _records(memesh_process, *({**skip, "at": _ago(days=4, minutes=-n)} for n in range(6)))
    data = _doctor(memesh_process)
    assert data["capture"]["status"] == "FAIL" and data["capture"]["hooks"][0]["silent"] is True
    row = _row(data, "capture-liveness")
    assert row["status"] == "fail" and row["detail"].startswith("session-summary never ran")
    assert "post-commit ran 6 times" in row["detail"]


def test_a_stopped_type_is_named_instead_of_capture_is_alive(memesh_process: Process, backend: Backend) -> None:
    _records(memesh_process, {"hook": "session-summary", "at": _ago(hours=1), "host": "codex", "outcome": "wrote"})
    assert memesh_process("remember", "--name", "commit-abc", "--type", "commit", "--obs", "fix").code == 0
    store = backend.open(Path(memesh_process.env["MEMESH_DB_PATH"]))
    ten_days_ago = (datetime.now(UTC) - timedelta(days=10)).strftime("%Y-%m-%d %H:%M:%S")  # datetime('now') form
    try:
        with store.transaction():
            store.conn.execute("UPDATE entities SET created_at = ?", (ten_days_ago,))
    finally:
        store.close()
    data = _doctor(memesh_process)
    assert data["capture"]["types"][0] == {"type": "commit", "last7": 0, "prev7": 1, "stopped": True}
    row = _row(data, "capture-liveness")
    assert row["status"] == "warn" and "capture is alive" not in row["detail"]
    assert row["detail"].startswith("commit memories stopped: 1 the week before, none this week")


def _archived_skips(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "hook": "handoff-capture",
            "at": _ago(hours=10 - n),
            "host": "claude-code",
            "outcome": "skipped",
            "reason": "the handoff memory is archived",
            "entity": names[n % len(names)],
        }
        for n in range(6)
    ]


def test_a_repeatedly_skipped_archived_handoff_gets_the_restore_command(memesh_process: Process) -> None:
    _records(memesh_process, *_archived_skips("session-handoff:app~0123"))
    detail = _row(_doctor(memesh_process), "capture-liveness")["detail"]
    assert "reinstalling hooks will not revive it" in detail
    assert "memesh remember --name session-handoff:app~0123 --type session-handoff --obs restart" in detail


def test_two_archived_handoff_names_point_at_recall_instead(memesh_process: Process) -> None:
    _records(memesh_process, *_archived_skips("session-handoff:app~0123", "session-handoff:web~4567"))
    detail = _row(_doctor(memesh_process), "capture-liveness")["detail"]
    assert "reinstalling hooks will not revive it" in detail and "--name session-handoff:" not in detail
    assert "memesh recall session-handoff --include-archived" in detail
