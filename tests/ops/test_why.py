"""why_here: the git history it is handed names the commits (the operation runs no git), its abstentions come first,
and the graph half is POST /v1/why's, scoped to the call's project."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memesh.context import CallContext
from memesh.ops.why import why_here
from memesh.store.sqlite import SqliteStore
from tests.conftest import TEST_PROJECT, Caller


@dataclass
class History:
    commits: list[str] = field(default_factory=list)
    abstentions: list[str] = field(default_factory=list)


@dataclass
class Uses:
    store: SqliteStore
    history: History
    asked: list[tuple[str, int, int | None]] = field(default_factory=list)

    def git_history(self, file: str, *, limit: int, line: int | None) -> History:
        self.asked.append((file, limit, line))
        return self.history


def test_git_is_asked_for_the_file_the_limit_and_the_line(fresh_db: SqliteStore, ctx: CallContext) -> None:
    uses = Uses(fresh_db, History(["abcdef1"]))
    out: Any = why_here(uses, {"file": "src/a.py", "line": 3}, ctx=ctx).unwrap()
    assert uses.asked == [("src/a.py", 10, 3)]
    assert out["commits"] == [
        {"commit": {"hash": "abcdef1"}, "entity": None, "session": None, "abstentions": ["no_commit_entity"]}
    ]
    assert (out["project"], out["abstentions"]) == (TEST_PROJECT, [])


def test_gits_abstention_leads_and_commits_looked_for_are_not_no_commits_supplied(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    out: Any = why_here(Uses(fresh_db, History([], ["not_a_git_repo"])), {"file": "x.py"}, ctx=ctx).unwrap()
    assert (out["commits"], out["abstentions"]) == ([], ["not_a_git_repo"])


def test_the_file_tag_half_is_scoped_to_the_calls_project(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    tools.ok(
        "remember",
        {"name": "here", "type": "note", "observations": ["x"], "tags": [f"project:{TEST_PROJECT}", "file:a.py"]},
    )
    tools.ok(
        "remember", {"name": "elsewhere", "type": "note", "observations": ["x"], "tags": ["project:other", "file:a.py"]}
    )
    out: Any = why_here(Uses(fresh_db, History()), {"file": "src/a.py", "limit": 5}, ctx=ctx).unwrap()
    assert [entity["name"] for entity in out["file_memories"]["entities"]] == ["here"]
