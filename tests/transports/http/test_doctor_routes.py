"""GET /v1/doctor and POST /v1/doctor/fix: the suite's result, redacted, and the one explicit repair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMESH_DIR", str(home / ".memesh"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)  # a Codex plugin cache elsewhere would add its own check
    return home


def test_doctor_reports_every_check_and_the_capture_evidence(api: Any, home: Path) -> None:
    data = api.ok("GET", "/v1/doctor")
    assert [check["id"] for check in data["checks"]] == [
        "install", "database", "config", "daemon", "hooks", "host-copilot-cli", "host-cursor", "capture-liveness",
    ]  # fmt: skip
    assert data["status"] in ("PASS", "PASS_WITH_CONCERNS")
    assert set(data["capture"]) == {"status", "hooks", "types", "neverRan", "heartbeats"}


def test_a_secret_in_a_retired_key_never_leaves_the_server(api: Any, home: Path) -> None:
    (home / ".memesh").mkdir(parents=True)
    config = home / ".memesh" / "config.json"
    config.write_text(json.dumps({"briefing": "standard", "apiKey": "sk-live-abcdefghijklmnop1234"}))
    data = api.ok("GET", "/v1/doctor")
    [check] = [c for c in data["checks"] if c["id"] == "config"]
    assert check["status"] == "warn" and check["fixable"] is True
    assert "sk-live" not in json.dumps(data) and str(home) not in json.dumps(data)


def test_the_config_repair_backs_up_then_removes_retired_keys(api: Any, home: Path) -> None:
    (home / ".memesh").mkdir(parents=True)
    config = home / ".memesh" / "config.json"
    original = '{"briefing": "standard", "llm": {"provider": "x"}}'
    config.write_text(original)
    data = api.ok("POST", "/v1/doctor/fix", json={"id": "config"})
    assert data["restartRequired"] is False and data["before"]["status"] == "warn"
    assert data["after"]["status"] == "pass"
    assert json.loads(config.read_text()) == {"briefing": "standard"}
    [backup] = list((home / ".memesh").glob("config.json.bak-*"))
    assert backup.read_text() == original


def test_a_repair_that_does_not_apply_is_refused(api: Any, home: Path) -> None:
    api.fails("POST", "/v1/doctor/fix", 400, "operation.failed", json={"id": "config"})
    api.fails("POST", "/v1/doctor/fix", 400, "validation.bad-body", json={"check": "config"})


def test_doctor_has_no_get_side_effect_route_for_fix(api: Any, home: Path) -> None:
    api.fails("GET", "/v1/doctor/fix", 404, "route.not-found")


def test_doctor_reports_a_database_the_listener_cannot_open(tmp_path: Path, home: Path) -> None:
    from memesh.transports.http.app import create_app
    from tests.transports.http.conftest import Api

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    app = create_app(db_path=blocker / "knowledge-graph.db")
    try:
        api = Api(app)
        api.fails("GET", "/v1/health", 503, "server.internal")
        data = api.ok("GET", "/v1/doctor")
        [database] = [check for check in data["checks"] if check["id"] == "database"]
        assert database["status"] == "fail" and database["detail"].startswith("cannot open the database")
        assert data["status"] == "FAIL" and str(tmp_path) not in json.dumps(data)
    finally:
        app.close()


def test_a_repair_that_cannot_back_up_the_file_is_permission_denied_and_changes_nothing(
    api: Any, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".memesh").mkdir(parents=True)
    config = home / ".memesh" / "config.json"
    config.write_text('{"llm": "x"}')

    def no_room(stamp: str) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("memesh.adapters.config_file.backup", no_room)
    body = api.fails("POST", "/v1/doctor/fix", 500, "operation.permission-denied", json={"id": "config"})
    assert str(home) not in body["error"]
    assert config.read_text() == '{"llm": "x"}'
