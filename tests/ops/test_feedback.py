"""feedback through the door: the issue's title, body and link, with diagnostics built from what the resources
hold (database counts, stored settings, the cached update status) — never a lookup, never a path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from memesh.app import dispatch
from memesh.app.operations.insight import FEEDBACK
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.store.sqlite import SqliteStore
from tests.calls import run
from tests.conftest import Caller


def _diagnostics(body: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(body.split("```json\n", 1)[1].split("\n```", 1)[0])
    return found


def test_the_body_carries_the_database_counts_and_the_stored_settings(
    memesh_env: Path, fresh_db: SqliteStore, ctx: CallContext, tools: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memesh.adapters.update_check.issue_tracker", lambda: "https://github.com/o/r/issues")
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x", "y"]})
    memesh_env.parent.mkdir(parents=True, exist_ok=True)
    (memesh_env.parent / "config.json").write_text('{"sessionLimit": 20}')
    issue = run(FEEDBACK, fresh_db, {"kind": "bug", "message": "Recall is slow"}, ctx).unwrap()
    assert issue["title"] == "[bug] Recall is slow"
    details = _diagnostics(issue["body"])
    assert details["database"] == {"totalEntities": 1, "totalObservations": 2, "totalRelations": 0, "totalTags": 0}
    assert details["config"] == {"sessionLimit": 20}
    assert details["update"] == {"latestVersion": None, "freshness": "unavailable", "lastError": None}
    assert parse_qs(urlsplit(issue["url"]).query)["labels"] == ["bug"]


def test_a_database_that_will_not_open_is_reported_in_the_diagnostics_not_a_failure(
    tmp_path: Path, memesh_env: Path, ctx: CallContext
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    issue = dispatch.run(FEEDBACK, Resources(db_path=blocker / "k.db"), {"kind": "question"}, ctx).unwrap()
    assert set(_diagnostics(issue["body"])["database"]) == {"error"}


def test_without_diagnostics_the_body_is_the_prompts_alone(
    memesh_env: Path, fresh_db: SqliteStore, ctx: CallContext
) -> None:
    issue = run(FEEDBACK, fresh_db, {"kind": "feature", "diagnostics": False}, ctx).unwrap()
    assert "Diagnostics" not in issue["body"] and issue["title"] == "[feature] "
