"""memesh config list|get|set|unset: config.json in the MeMesh folder, with the values in effect shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.core.settings import KEYS

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

ALLOWED = f"Allowed keys: {', '.join(sorted(KEYS))}"


@pytest.fixture
def config_file(memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MEMESH_BRIEFING", raising=False)
    monkeypatch.delenv("MEMESH_SESSION_LIMIT", raising=False)
    monkeypatch.delenv("MEMESH_RECALL_MODE", raising=False)
    return memesh_env.parent / "config.json"


def test_list_with_nothing_stored_still_shows_the_briefing_and_session_limit_in_effect(
    cli: Cli, config_file: Path
) -> None:
    assert cli.ok("config", "list").out.splitlines() == [
        "Configuration (~/.memesh/config.json):",
        "  (nothing stored — all defaults)",
        "  briefing: minimal (default)",
        "  recallMode: fts (default)",
        "  sessionLimit: 10 (default)",
    ]


def test_list_shows_stored_keys_sorted_with_briefing_and_session_limit_as_in_effect(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("config", "set", "sessionLimit", "20")
    cli.ok("config", "set", "briefing", "full")
    cli.ok("config", "set", "autoUpdate", "minor")
    cli.ok("config", "set", "autoCapture", "0")
    monkeypatch.setenv("MEMESH_BRIEFING", "standard")
    assert cli.ok("config", "list").out.splitlines() == [
        "Configuration (~/.memesh/config.json):",
        "  autoCapture: false",
        "  autoUpdate: minor",
        "  briefing: standard (env MEMESH_BRIEFING)",
        "  recallMode: fts (default)",
        "  sessionLimit: 20",
    ]


def test_unknown_keys_in_the_file_are_not_listed_but_are_kept(cli: Cli, config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(json.dumps({"futureKey": 1, "setupCompleted": True}), encoding="utf-8")
    lines = cli.ok("config", "list").out.splitlines()
    assert "  setupCompleted: true" in lines
    assert not [line for line in lines if "futureKey" in line]
    cli.ok("config", "set", "autoUpdate", "off")
    assert json.loads(config_file.read_text(encoding="utf-8"))["futureKey"] == 1


def test_get_prints_the_stored_briefing_not_the_level_in_effect(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("config", "set", "briefing", "full")
    monkeypatch.setenv("MEMESH_BRIEFING", "standard")
    assert cli.ok("config", "get", "briefing").out == "full\n"


def test_get_prints_the_session_limit_row_in_effect(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("config", "set", "sessionLimit", "30")
    assert cli.ok("config", "get", "sessionLimit").out == "30\n"
    monkeypatch.setenv("MEMESH_SESSION_LIMIT", "5")
    assert cli.ok("config", "get", "sessionLimit").out == "5 (env MEMESH_SESSION_LIMIT)\n"


def test_get_of_a_key_never_stored_says_so_and_exits_0(cli: Cli, config_file: Path) -> None:
    assert cli.ok("config", "get", "autoCapture").out == "autoCapture is not set in config.json\n"


def test_set_validates_and_stores_the_parsed_value(cli: Cli, config_file: Path) -> None:
    assert cli.ok("config", "set", "autoCapture", "1").out == "✅ Set autoCapture = true\n"
    assert cli.ok("config", "set", "sessionLimit", " 42 ").out == "✅ Set sessionLimit = 42\n"
    assert json.loads(config_file.read_text(encoding="utf-8")) == {"autoCapture": True, "sessionLimit": 42}


@pytest.mark.parametrize(
    ("key", "value"), [("sessionLimit", "500"), ("briefing", "loud"), ("autoCapture", "maybe"), ("autoUpdate", "x")]
)
def test_set_refuses_an_invalid_value_naming_what_is_accepted(
    cli: Cli, config_file: Path, key: str, value: str
) -> None:
    out = cli("config", "set", key, value)
    assert out.code == 1
    assert out.out == ""
    assert out.err.startswith("Error: ")
    assert not config_file.exists()


def test_unset_removes_a_stored_key_and_is_no_change_for_one_that_is_not(cli: Cli, config_file: Path) -> None:
    cli.ok("config", "set", "autoUpdate", "patch")
    assert cli.ok("config", "unset", "autoUpdate").out == "✅ Removed autoUpdate\n"
    assert cli.ok("config", "unset", "autoUpdate").out == "(no change — autoUpdate was not set)\n"
    assert json.loads(config_file.read_text(encoding="utf-8")) == {}


@pytest.mark.parametrize("argv", [["get", "colour"], ["set", "colour", "blue"], ["unset", "colour"]])
def test_an_unknown_key_is_refused_with_the_allowed_keys(cli: Cli, config_file: Path, argv: list[str]) -> None:
    out = cli("config", *argv)
    assert out.code == 1
    assert out.err.splitlines() == ["Unknown key: colour", ALLOWED]
    assert not config_file.exists()


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_an_unreadable_config_file_is_an_error_and_is_never_overwritten(
    cli: Cli, config_file: Path, content: str
) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(content, encoding="utf-8")
    for argv in (["list"], ["get", "briefing"], ["set", "briefing", "full"], ["unset", "briefing"]):
        out = cli("config", *argv)
        assert out.code == 1, argv
        assert out.err.startswith("Error: "), argv
        assert "config.json" in out.err
    assert config_file.read_text(encoding="utf-8") == content


def test_set_help_names_the_keys(cli: Cli) -> None:
    out = cli.ok("config", "set", "--help")
    for key in KEYS:
        assert key in out.out


def test_list_shows_the_recall_mode_in_effect_and_where_it_comes_from(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli.ok("config", "set", "recallMode", "broad").out == "✅ Set recallMode = broad\n"
    assert "  recallMode: broad (config.json)" in cli.ok("config", "list").out.splitlines()
    monkeypatch.setenv("MEMESH_RECALL_MODE", "fts")
    assert "  recallMode: fts (env MEMESH_RECALL_MODE)" in cli.ok("config", "list").out.splitlines()
    assert cli.ok("config", "get", "recallMode").out == "broad\n"  # what is stored, as for briefing


def test_an_invalid_recall_mode_is_refused_by_set_and_reported_as_fts_when_found(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = cli("config", "set", "recallMode", "semantic")
    assert refused.code != 0 and "recallMode" in refused.err
    monkeypatch.setenv("MEMESH_RECALL_MODE", "loud")
    rows = cli.ok("config", "list").out.splitlines()
    assert '  recallMode: fts (default; the value in env MEMESH_RECALL_MODE is invalid: "loud")' in rows


def test_hybrid_without_the_semantic_extra_says_so_and_answers_as_broad(
    cli: Cli, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memesh.adapters import embedding

    monkeypatch.setattr(embedding, "model_folder", lambda: None)
    monkeypatch.setenv("MEMESH_RECALL_MODE", "hybrid")
    [row] = [line for line in cli.ok("config", "list").out.splitlines() if line.startswith("  recallMode:")]
    assert row == (
        "  recallMode: broad (hybrid from env MEMESH_RECALL_MODE, but the semantic extra is not installed"
        " (pip install 'memesh[semantic]'): answering as broad)"
    )


def test_a_stored_session_limit_that_is_no_number_is_shown_with_the_reason(cli: Cli, config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('{"sessionLimit": "twenty"}')
    expected = '"twenty" (not a whole number; the SessionStart hook uses the default 10)'
    assert f"  sessionLimit: {expected}" in cli.ok("config", "list").out.splitlines()
    assert cli.ok("config", "get", "sessionLimit").out == f"{expected}\n"
