"""The owner settings through the door: one write path to config.json for POST /v1/config, `memesh config set`,
`unset` and setup's setupCompleted — partial updates that keep what they do not name, and refusals that never
touch a file they cannot read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memesh.app.operations.settings import CONFIG, CONFIG_LIST, CONFIG_UNSET, CONFIG_UPDATE
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import run


@pytest.fixture
def config(memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for variable in ("MEMESH_BRIEFING", "MEMESH_SESSION_LIMIT"):
        monkeypatch.delenv(variable, raising=False)
    return memesh_env.parent / "config.json"


def test_an_update_keeps_the_keys_it_does_not_name_even_ones_this_version_does_not_know(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"futureKey": [1], "briefing": "full"}))
    assert run(CONFIG_UPDATE, fresh_db, {"sessionLimit": 30}, ctx).unwrap() == {"briefing": "full", "sessionLimit": 30}
    assert json.loads(config.read_text()) == {"futureKey": [1], "briefing": "full", "sessionLimit": 30}
    assert run(CONFIG, fresh_db, {}, ctx).unwrap()["config"] == {"briefing": "full", "sessionLimit": 30}


def test_a_value_outside_the_schema_is_refused_by_the_gate_and_nothing_is_written(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    for update in ({"sessionLimit": 0}, {"briefing": "loud"}, {"colour": "blue"}):
        assert run(CONFIG_UPDATE, fresh_db, update, ctx).failure().code is ErrorCode.BAD_BODY
    assert not config.exists()


def test_listing_gives_the_stored_values_as_written_and_the_values_in_effect(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"autoCapture": "yes", "sessionLimit": 500, "other": 1}))
    listed = run(CONFIG_LIST, fresh_db, {}, ctx).unwrap()
    assert listed["file"] == str(config)
    assert listed["stored"] == {"autoCapture": "yes", "sessionLimit": 500}  # as written, wrong type and all
    assert listed["effective"] == {
        "briefing": "minimal (default)",
        "sessionLimit": "500 (above 100; the SessionStart hook uses 100)",
        "recallMode": "fts (default)",
    }


def test_the_values_in_effect_are_read_from_the_callers_environment(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    served = CallContext(**{**ctx.__dict__, "environment": {"MEMESH_BRIEFING": "full"}})
    assert run(CONFIG_LIST, fresh_db, {}, served).unwrap()["effective"]["briefing"] == "full (env MEMESH_BRIEFING)"


def test_unset_removes_a_stored_key_and_is_no_change_for_one_that_is_not(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    run(CONFIG_UPDATE, fresh_db, {"autoUpdate": "patch", "autoCapture": False}, ctx).unwrap()
    assert run(CONFIG_UNSET, fresh_db, {"key": "autoUpdate"}, ctx).unwrap() == {"key": "autoUpdate", "removed": True}
    assert run(CONFIG_UNSET, fresh_db, {"key": "autoUpdate"}, ctx).unwrap() == {"key": "autoUpdate", "removed": False}
    assert json.loads(config.read_text()) == {"autoCapture": False}
    assert run(CONFIG_UNSET, fresh_db, {"key": "colour"}, ctx).failure().code is ErrorCode.BAD_BODY


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_an_unreadable_file_is_refused_by_every_entry_and_left_as_it_is(
    config: Path, fresh_db: SqliteStore, ctx: CallContext, content: str
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text(content)
    assert run(CONFIG, fresh_db, {}, ctx).failure().code is ErrorCode.INTERNAL
    assert run(CONFIG_LIST, fresh_db, {}, ctx).failure().code is ErrorCode.INTERNAL
    assert run(CONFIG_UNSET, fresh_db, {"key": "briefing"}, ctx).failure().code is ErrorCode.INTERNAL
    refused = run(CONFIG_UPDATE, fresh_db, {"briefing": "full"}, ctx).failure()
    assert refused.code is ErrorCode.OPERATION_FAILED
    assert refused.message.startswith("Refusing to modify config.json: ") and str(config.parent) not in refused.message
    assert config.read_text() == content


def test_a_file_that_cannot_be_written_is_a_server_failure_naming_no_path(
    config: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    config.parent.mkdir(parents=True)
    (config.parent / f".config.json.{os.getpid()}.tmp").mkdir()  # where the atomic write would put its copy
    refused = run(CONFIG_UPDATE, fresh_db, {"briefing": "full"}, ctx).failure()
    assert refused.code is ErrorCode.INTERNAL
    assert refused.message.startswith("cannot write config.json (") and str(config.parent) not in refused.message
    assert not config.exists()
