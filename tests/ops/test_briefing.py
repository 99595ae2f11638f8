"""briefing over a real database: scope, trust, levels from config or environment, the recipient, the index."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memesh.app.operations.session import BRIEFING_INDEX
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.store.sqlite import SqliteStore
from tests.calls import call, run

PROJECT = "myrepo~" + "c" * 32
TAG = f"project:{PROJECT}"


@pytest.fixture
def live(fresh_db: SqliteStore, memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Calls on a real database at the real clock (observation times are the database's own)."""
    monkeypatch.delenv("MEMESH_BRIEFING", raising=False)
    monkeypatch.delenv("MEMESH_SESSION_LIMIT", raising=False)
    from memesh.adapters import config_file

    ctx = CallContext(
        source_host="test",
        agent_view=True,
        now=datetime.now(UTC),
        project=lambda: PROJECT,
        settings=config_file.read_or_defaults,
    )

    def run(tool: str, arguments: dict[str, Any]) -> Any:
        return call(tool, fresh_db, arguments, ctx)

    run.ctx = ctx  # type: ignore[attr-defined]
    run.store = fresh_db  # type: ignore[attr-defined]
    return run


def _remember(live: Any, name: str, kind: str = "decision", tags: list[str] | None = None, **extra: Any) -> None:
    body = {"name": name, "type": kind, "observations": [f"about {name}"], "tags": tags or [TAG], **extra}
    live("remember", body).unwrap()


def test_the_default_level_is_minimal_and_lists_the_project_memories(live: Any) -> None:
    _remember(live, "use-wal")
    out = live("briefing", {}).unwrap()
    assert out["level"] == "minimal" and out["project"] == PROJECT and out["entityCount"] == 1
    assert "use-wal — about use-wal [mem:" in out["text"] and "Index of durable memories" not in out["text"]
    assert out["index"]["shown"] == 1


def test_a_project_with_nothing_is_empty_at_minimal(live: Any) -> None:
    out = live("briefing", {}).unwrap()
    assert out["text"] == "" and out["empty"] is True


def test_environment_overrides_config_for_the_level(live: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from memesh.adapters import config_file as config

    config.update({"briefing": "full"})
    assert live("briefing", {}).unwrap()["level"] == "full"
    monkeypatch.setenv("MEMESH_BRIEFING", "standard")
    out = live("briefing", {}).unwrap()
    assert out["level"] == "standard" and "Index of durable memories" in out["text"]
    monkeypatch.setenv("MEMESH_BRIEFING", "loud")
    assert live("briefing", {}).unwrap()["level"] == "minimal"


def test_other_projects_archived_and_imported_memories_are_not_injected(live: Any) -> None:
    _remember(live, "mine")
    _remember(live, "theirs", tags=["project:other"])
    _remember(live, "gone")
    live("forget", {"name": "gone"}).unwrap()
    bundle = {
        "version": "3.1.0",
        "entities": [{"name": "imported", "type": "decision", "observations": ["x"], "tags": [TAG]}],
    }
    live("import", {"data": bundle, "merge_strategy": "skip"}).unwrap()
    text = live("briefing", {}).unwrap()["text"]
    assert "mine" in text and "theirs" not in text and "gone" not in text and "imported" not in text


def test_a_task_state_written_by_the_tool_shows_at_standard(live: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMESH_BRIEFING", "standard")
    live("task_state", {"goal": "Ship the hooks", "next": "Measure"}).unwrap()
    out = live("briefing", {}).unwrap()
    assert out["hasTaskState"] and "- goal: Ship the hooks" in out["text"]


def test_the_handoff_leads_the_block(live: Any) -> None:
    _remember(live, "use-wal")
    text = "Wired the Stop hook and measured it; the next step is the plugin manifest and the README section for it."
    live(
        "remember",
        {"name": f"session-handoff:{PROJECT}", "type": "session-handoff", "observations": [text], "tags": [TAG]},
    ).unwrap()
    out = live("briefing", {}).unwrap()
    lines = out["text"].splitlines()
    assert out["hasHandoff"] and lines[2].startswith("## Last session handoff") and lines[3] == text


def test_a_path_shaped_recipient_is_refused_with_the_field(live: Any) -> None:
    for bad in ("/root", "C:\\work", "\\\\host\\share", "   "):
        error = live("briefing", {"recipient": bad}).failure()
        assert error.code == ErrorCode.BAD_BODY and error.message.startswith("recipient")


def test_a_recipient_never_seen_in_the_project_is_said_so_rather_than_an_empty_inbox(live: Any) -> None:
    _remember(live, "use-wal")
    out = live("briefing", {"recipient": "reviewer-agent"}).unwrap()
    assert "this recipient id has never been seen" in out["text"] and out["entityCount"] == 1


def test_unknown_fields_are_refused(live: Any) -> None:
    assert live("briefing", {"level": "full"}).failure().code == ErrorCode.BAD_BODY


def test_the_standalone_index_skips_evidence_and_keeps_durable_types(live: Any) -> None:
    _remember(live, "a-decision")
    _remember(live, "a-commit", kind="commit")
    _remember(live, "a-pattern", kind="pattern")
    index = run(BRIEFING_INDEX, live.store, {"project": PROJECT}, live.ctx).unwrap()
    assert len(index["ids"]) == 2 and index["shown"] == 2
    assert not any("a-commit" in line for line in index["lines"])
    assert index["lines"][1].startswith("- [pattern] a-pattern")  # newest first


def test_a_memory_credited_by_citations_ranks_above_an_equal_one(fresh_db: SqliteStore, ctx: CallContext) -> None:
    for name in ("cache-alpha", "cache-beta"):
        call("remember", fresh_db, {"name": name, "type": "note", "observations": ["the cache layer"]}, ctx).unwrap()
    session_ctx = replace(ctx, caller_session="sess-1")
    first = call("recall", fresh_db, {"query": "cache layer"}, session_ctx).unwrap()["entities"]
    loser = first[-1]
    assert fresh_db.credit_citations("sess-1", [loser["id"]]) == [loser["id"]]
    assert fresh_db.credit_citations("sess-1", [loser["id"]]) == []  # once per session
    again = call("recall", fresh_db, {"query": "cache layer"}, ctx).unwrap()["entities"]
    assert again[0]["name"] == loser["name"]


def test_recall_outside_an_agent_session_records_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    call("remember", fresh_db, {"name": "n", "type": "note", "observations": ["the cache layer"]}, ctx).unwrap()
    call("recall", fresh_db, {"query": "cache"}, ctx).unwrap()
    assert fresh_db.credit_citations("any", [1]) == []
