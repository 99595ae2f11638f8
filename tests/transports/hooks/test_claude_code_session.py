"""The real Claude Code CLI, in a scripted session against a stand-in Messages API on 127.0.0.1, with MeMesh's hooks
installed as `memesh setup` writes them: what the model saw, and when — before or after the tool ran.

Claude Code (pinned in tools/claude-code/package-lock.json, installed by `make claude-code`, a prerequisite of
`make test`; the test never downloads it) runs with HOME and CLAUDE_CONFIG_DIR in the test's folder and a dummy key;
nothing leaves 127.0.0.1. What 2.1.332 was seen to do with a PreToolUse hook's output (run this way):
- `additionalContext`: sent after the tool ran, as a message of its own after the tool's result.
- `permissionDecision: "deny"` + reason: the tool does not run; the reason is its (error) result, read first.
- `"ask"` + reason under `-p`: no one to ask, so the same as deny, the bare reason as the result, every time (an
  interactive session would show the reason to the person in the permission prompt, not to the model).
- `"defer"`: the session ends (stop reason `tool_deferred`) for an SDK caller to decide; the model sees nothing.
- exit 2 with stderr: like deny, "PreToolUse:Bash hook error: [command]: <stderr>" as the result.
A file-edit's validation (old_string not found) happens before the hook, and Edit does not require a prior Read.
Context given on Read arrives with the file's content, in the request where the model writes the edit that follows:
MeMesh gives a file's memories there (ADR 0009).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.project_git import project_for
from memesh.core import claude_settings
from memesh.ops.hooks import pre_tool_use
from tests.backends import Backend

from .stand_in_api import Reply as Say
from .stand_in_api import StandIn, bash, result_text, serving, text, tool_use

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parents[3]
CLAUDE = REPO / "tools" / "claude-code" / "node_modules" / ".bin" / "claude"
BIN = Path(sys.executable).parent
RUN_SECONDS = 180
LESSON = "Force-pushing main lost a day of work: push a branch and open a pull request"
PUSH = "touch pushed.marker && git push origin main --force"


class Session:
    """A throwaway home, database (the file, or on PostgreSQL the test's database) and git repository, and Claude
    Code run in them."""

    def __init__(self, root: Path, backend: Backend) -> None:
        self.home = root / "home"
        self.db = self.home / ".memesh" / "knowledge-graph.db"
        self.repo = root / "repo"
        self.db.parent.mkdir(parents=True)
        (self.home / ".claude").mkdir()
        self.repo.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=self.repo, check=True)
        self.project = project_for(str(self.repo))
        # The hooks exactly as `memesh setup` installs them, run by this checkout's memesh-hook.
        settings = claude_settings.install("", str(BIN / "memesh-hook")).text
        (self.home / ".claude" / "settings.json").write_text(settings)
        self.env = {
            "MEMESH_DAEMON": "0",
            "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin",
            "HOME": str(self.home),
            "MEMESH_DB_PATH": str(self.db),
            "MEMESH_UPDATE_CHECK": "0",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            **backend.environ(self.db),
        }

    def memesh(self, *argv: str, stdin: str | None = None) -> Any:
        done = subprocess.run(
            [str(BIN / "memesh"), *argv, "--json"],
            input=stdin,
            env=self.env,
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    def claude(self, stand_in: StandIn, prompt: str, *tools: str) -> list[dict[str, Any]]:
        if not CLAUDE.exists():
            pytest.fail(f"Claude Code's CLI is not installed at {CLAUDE}: run `make claude-code`")
        env = {
            "MEMESH_DAEMON": "0",
            **self.env,
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "ANTHROPIC_BASE_URL": stand_in.url,
            "ANTHROPIC_API_KEY": "sk-ant-stand-in",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        done = subprocess.run(
            [str(CLAUDE), "-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", *tools],
            env=env,
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    def outcomes(self, hook: str) -> list[dict[str, Any]]:
        lines = (self.db.parent / "hook-outcomes.jsonl").read_text().splitlines()
        return [record for record in map(json.loads, lines) if record["hook"] == hook]


@pytest.fixture
def session(tmp_path: Path, backend: Backend) -> Session:
    return Session(tmp_path, backend)


def test_a_guard_stops_the_first_push_with_its_lesson_before_it_runs_and_the_retry_runs(session: Session) -> None:
    lesson = session.memesh("remember", "--name", "lesson-force-push", "--type", "lesson_learned", "--obs", LESSON)
    guard = {
        "project": session.project,
        "lesson": "lesson-force-push",
        "pattern": r"git\s+push\b.*\s--force\b",
        "message": LESSON,
        "should_match": ["git push origin main --force", "git push -u origin x --force"],
        "should_not_match": ["git push origin main", "git pull --force"],
    }
    staged = session.memesh("kg", "propose", "guard", stdin=json.dumps(guard))
    session.memesh("dream", "accept", str(staged["proposal_id"]))
    marker = session.repo / "pushed.marker"
    script = [
        Say([text("Pushing main."), bash("toolu_push_1", PUSH)]),
        Say([bash("toolu_push_2", PUSH)]),  # the model, having read the lesson, insists
        Say([text("Pushed.")]),
    ]
    with serving(StandIn(script, observe=marker.exists)) as api:
        events = session.claude(api, "force-push main", "Bash")
    first, retried = api.turns[1], api.turns[2]
    # The reply to the first attempt: the lesson, as the call's result, and the command never ran.
    stopped = first.tool_result("toolu_push_1")
    assert stopped["is_error"] is True
    assert f"{LESSON} (lesson lesson-force-push) [mem:{lesson['entityId']}]" in result_text(stopped)
    assert "MeMesh stopped this command once, before it ran" in result_text(stopped)
    assert first.observed is False
    # The same command tried again in the session ran.
    assert "MeMesh" not in result_text(retried.tool_result("toolu_push_2"))
    assert retried.observed is True
    result = events[-1]
    assert result["type"] == "result" and result["is_error"] is False
    assert [denied["tool_use_id"] for denied in result["permission_denials"]] == ["toolu_push_1"]
    assert [(r["outcome"], r["reason"]) for r in session.outcomes("guard")] == [
        ("notified", "1 guards matched; stopped the first attempt"),
        ("skipped", "1 guards matched; already stopped once in this session"),
    ]


def test_a_guard_of_another_project_lets_the_push_run(session: Session) -> None:
    session.memesh("remember", "--name", "lesson-force-push", "--type", "lesson_learned", "--obs", LESSON)
    guard = {
        "project": "elsewhere~" + "e" * 32,
        "lesson": "lesson-force-push",
        "pattern": r"git\s+push\b.*\s--force\b",
        "message": LESSON,
        "should_match": ["git push origin main --force", "git push -u origin x --force"],
        "should_not_match": ["git push origin main", "git pull --force"],
    }
    staged = session.memesh("kg", "propose", "guard", stdin=json.dumps(guard))
    session.memesh("dream", "accept", str(staged["proposal_id"]))
    marker = session.repo / "pushed.marker"
    with serving(StandIn([Say([bash("toolu_push_1", PUSH)]), Say([text("Pushed.")])], marker.exists)) as api:
        events = session.claude(api, "force-push main", "Bash")
    assert LESSON not in result_text(api.turns[1].tool_result("toolu_push_1"))
    assert api.turns[1].observed is True
    assert events[-1]["permission_denials"] == []


def test_a_files_memories_reach_the_model_only_after_the_edit_claude_code_has_no_earlier_channel(
    session: Session,
) -> None:
    """What the README says about pre-edit recall: Claude Code sends a PreToolUse hook's context after the tool
    ran, so the file's memories arrive with the edit's result. If a Claude Code release changes that, this fails."""
    (session.repo / "app.py").write_text("retries = 3\n")
    note = "The retry count stays odd: the load balancer pairs requests"
    tags = ["--tags", "file:app.py", f"project:{session.project}"]
    session.memesh("remember", "--name", "app-retries-odd", "--type", "decision", "--obs", note, *tags)
    edit = {"file_path": str(session.repo / "app.py"), "old_string": "retries = 3", "new_string": "retries = 4"}
    script = [Say([tool_use("toolu_edit_1", "Edit", edit)]), Say([text("Edited.")])]
    with serving(StandIn(script, observe=(session.repo / "app.py").read_text)) as api:
        session.claude(api, "make it four retries", "Edit")
    after = api.turns[1]
    assert after.observed == "retries = 4\n"  # the edit was applied when the model next heard anything
    # (the session-start briefing may list the memory among the project's own; the pre-edit block is another text)
    block = f"{pre_tool_use.PREFACE} about app.py"
    assert block not in json.dumps(api.turns[0].body)  # nothing of the pre-edit recall before the edit
    sent = [result_text(b) if b["type"] == "tool_result" else b.get("text", "") for b in after.last_turn()]
    assert any(block in part and note in part for part in sent)
    assert session.outcomes("pre-edit")[-1]["outcome"] == "notified"


def test_a_files_memories_given_on_its_read_are_in_front_of_the_model_when_it_writes_the_edit(
    session: Session,
) -> None:
    """The earlier channel (ADR 0009): the file's memories come with the Read's result, so the request in which the
    model writes the edit carries them while the file is still unchanged; the edit's result does not repeat them."""
    (session.repo / "app.py").write_text("retries = 3\n")
    note = "The retry count stays odd: the load balancer pairs requests"
    tags = ["--tags", "file:app.py", f"project:{session.project}"]
    session.memesh("remember", "--name", "app-retries-odd", "--type", "decision", "--obs", note, *tags)
    path = str(session.repo / "app.py")
    edit = {"file_path": path, "old_string": "retries = 3", "new_string": "retries = 4"}
    script = [
        Say([tool_use("toolu_read_1", "Read", {"file_path": path})]),
        Say([tool_use("toolu_edit_1", "Edit", edit)]),
        Say([text("Edited.")]),
    ]
    with serving(StandIn(script, observe=(session.repo / "app.py").read_text)) as api:
        session.claude(api, "make it four retries", "Read", "Edit")
    block = f"{pre_tool_use.PREFACE} about app.py"
    writing_the_edit, after_the_edit = api.turns[1], api.turns[2]
    assert writing_the_edit.observed == "retries = 3\n"  # nothing changed yet
    sent = [result_text(b) if b["type"] == "tool_result" else b.get("text", "") for b in writing_the_edit.last_turn()]
    assert "retries = 3" in sent[0]  # the Read's result, then the memories
    assert any(block in part and note in part for part in sent[1:])
    assert after_the_edit.observed == "retries = 4\n"
    assert json.dumps(after_the_edit.body).count(block) == 1  # the Read's copy only: the edit gave none
    assert [(r["outcome"], r["reason"]) for r in session.outcomes("pre-edit")] == [
        ("notified", "1 memories about the file (on Read)"),
        ("skipped", "the file's memories were already given in this session"),
    ]
