"""memesh doctor as a person runs it: a line per check; --json the same result as GET /v1/doctor; exit 1 on FAIL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process


def test_doctor_prints_each_check(memesh_process: Process) -> None:
    out = memesh_process("doctor")
    assert out.code == 0, out.err
    assert out.out.startswith("MeMesh doctor: ") and "Database: 0 memories; integrity ok" in out.out


def test_doctor_json_carries_checks_and_capture(memesh_process: Process) -> None:
    data = json.loads(memesh_process("doctor", "--json").out)
    assert {"status", "version", "checks", "capture"} <= set(data)


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


def test_doctor_names_the_postgresql_database_in_use_with_its_password_redacted(
    memesh_process: Process, pg_url: str
) -> None:
    memesh_process.env["MEMESH_DATABASE_URL"] = pg_url.replace("memesh@", "memesh:s3cret-pw@")  # trust: any works
    out = memesh_process("doctor", "--json")
    [database] = [c for c in json.loads(out.out)["checks"] if c["id"] == "database"]
    assert database["status"] == "pass", database
    assert "PostgreSQL 15" in database["detail"] and "postgresql://" in database["detail"]
    assert "s3cret-pw" not in out.out + out.err  # the user and password redacted (doctor's answer can be shared)


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
