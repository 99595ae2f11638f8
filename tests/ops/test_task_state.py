"""task_state: one owner-stated record per project; only real changes are written."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from memesh.context import CallContext
from memesh.store.sqlite import SqliteStore
from tests.calls import call


def test_no_arguments_reads_an_empty_state(tools: Any) -> None:
    assert tools.ok("task_state", {}) == {"project": "test-project~" + "0" * 32, "state": {}}


def test_present_fields_write_and_changed_lists_them(tools: Any) -> None:
    out = tools.ok("task_state", {"goal": "Ship 1.0", "next": "Merge #3"})
    assert out["changed"] == ["goal", "next"]
    assert out["state"]["goal"] == "Ship 1.0" and out["state"]["next"] == "Merge #3"
    assert "updated_at" in out["state"] and "blocked" not in out["state"]


def test_a_restatement_writes_nothing_and_keeps_updated_at(fresh_db: SqliteStore, ctx: CallContext) -> None:
    first = call("task_state", fresh_db, {"goal": "Ship"}, ctx).unwrap()
    later = ctx.at(ctx.now + timedelta(hours=1))
    again = call("task_state", fresh_db, {"goal": "Ship"}, later).unwrap()
    assert again["changed"] == [] and again["state"]["updated_at"] == first["state"]["updated_at"]


def test_an_empty_string_clears_a_field_and_absent_fields_stay_absent(tools: Any) -> None:
    tools.ok("task_state", {"goal": "Ship", "blocked": "CI red"})
    out = tools.ok("task_state", {"blocked": ""})
    assert out["changed"] == ["blocked"] and "blocked" not in out["state"] and out["state"]["goal"] == "Ship"
    assert tools.ok("task_state", {})["state"].keys() == {"goal", "updated_at"}


def test_each_project_has_its_own_state(tools: Any) -> None:
    tools.ok("task_state", {"project": "a", "goal": "A"})
    tools.ok("task_state", {"project": "b", "goal": "B"})
    assert tools.ok("task_state", {"project": "a"})["state"]["goal"] == "A"
    assert tools.ok("task_state", {"project": "b"})["state"]["goal"] == "B"


def test_whitespace_is_collapsed_so_a_restatement_is_recognised(tools: Any) -> None:
    tools.ok("task_state", {"next": "Open  the PR"})
    assert tools.ok("task_state", {"next": " Open the PR "})["changed"] == []
