"""PostToolUse commit capture in a real git repository; PreToolUse file memories and lesson guards."""

from __future__ import annotations

import subprocess
from typing import Any

from .conftest import HookEnv
from .helpers import remember


def _git(env: HookEnv, *args: str) -> subprocess.CompletedProcess[str]:
    git_env = {
        **env.env,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    return subprocess.run(["git", *args], cwd=env.project_dir, env=git_env, capture_output=True, text=True, check=True)


def _commit(env: HookEnv, message: str = "Store sessions in WAL mode") -> tuple[str, str]:
    _git(env, "init", "-q", "-b", "main")
    (env.project_dir / "src").mkdir()
    (env.project_dir / "src" / "store.py").write_text("x = 1\n")
    (env.project_dir / "README.md").write_text("hi\n")
    _git(env, "add", ".")
    done = _git(env, "commit", "-m", message, "-m", "Readers no longer wait for the writer.")
    return done.stdout, _git(env, "rev-parse", "HEAD").stdout.strip()


def _post(env: HookEnv, command: str, stdout: str) -> dict[str, Any]:
    payload = {
        "session_id": "sess-9",
        "cwd": str(env.project_dir),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }
    run = env.run("PostToolUse", payload, tool="Bash")
    assert run.returncode == 0 and run.stdout == "", run.stderr
    return env.outcomes()[-1]


def test_a_git_commit_is_remembered_with_its_files_and_session(hook_env: HookEnv) -> None:
    printed, full = _commit(hook_env)
    record = _post(hook_env, "git add . && git commit -m 'Store sessions in WAL mode'", printed)
    assert record["outcome"] == "wrote" and record["entity"] == f"commit-{full[:7]}"
    store = hook_env.store()
    try:
        commit = store.find(f"commit-{full[:7]}")
    finally:
        store.close()
    assert commit is not None and commit.type == "commit" and commit.title == "Store sessions in WAL mode"
    assert "Readers no longer wait for the writer." in commit.observations
    assert "Files: README.md, src/store.py" in commit.observations
    assert {f"project:{hook_env.project}", "file:store.py", "file:README.md"} <= set(commit.tags)
    assert commit.metadata["session_id"] == "sess-9" and commit.metadata["commit"]["hash"] == full
    assert commit.metadata["provenance"]["source_host"] == "claude-code"


def test_a_command_that_is_not_a_commit_is_skipped_as_not_triggered(hook_env: HookEnv) -> None:
    assert _post(hook_env, "git status", "On branch main")["reason"] == "not a git commit"


def test_a_commit_that_printed_no_commit_line_says_so(hook_env: HookEnv) -> None:
    record = _post(hook_env, "git commit -m x", "nothing to commit, working tree clean")
    assert (record["outcome"], record["reason"]) == ("skipped", "a git commit ran but printed no commit line")


def _edit(env: HookEnv, path: str, session: str = "s1") -> Any:
    payload = {
        "session_id": session,
        "cwd": str(env.project_dir),
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
    }
    return env.run("PreToolUse", payload, tool="Edit")


def _read(env: HookEnv, path: str, session: str = "s1") -> Any:
    payload = {
        "session_id": session,
        "cwd": str(env.project_dir),
        "tool_name": "Read",
        "tool_input": {"file_path": path},
    }
    return env.run("PreToolUse", payload, tool="Read")


def test_before_an_edit_the_file_memories_are_recalled(hook_env: HookEnv) -> None:
    about = remember(hook_env, "auth-uses-pkce", tags=[f"project:{hook_env.project}", "file:auth.py"])
    remember(hook_env, "other-project-auth", tags=["project:other", "file:auth.py"])
    run = _edit(hook_env, str(hook_env.project_dir / "src" / "auth.py"))
    answer = run.json()["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and "permissionDecision" not in answer
    assert f"[mem:{about}]" in answer["additionalContext"] and "other-project" not in answer["additionalContext"]
    assert hook_env.outcomes()[-1]["outcome"] == "notified"


def test_a_read_gives_the_file_memories_once_per_session_and_the_edit_after_it_does_not_repeat_them(
    hook_env: HookEnv,
) -> None:
    about = remember(hook_env, "auth-uses-pkce", tags=[f"project:{hook_env.project}", "file:auth.py"])
    path = str(hook_env.project_dir / "src" / "auth.py")
    first = _read(hook_env, path).json()["hookSpecificOutput"]
    assert first["hookEventName"] == "PreToolUse" and "permissionDecision" not in first
    assert f"[mem:{about}]" in first["additionalContext"]
    again, edit = _read(hook_env, path), _edit(hook_env, path)
    assert again.returncode == 0 and again.stdout == "" and edit.returncode == 0 and edit.stdout == ""
    given = "the file's memories were already given in this session"
    assert [(o["outcome"], o["reason"]) for o in hook_env.outcomes()[-3:]] == [
        ("notified", "1 memories about the file (on Read)"),
        ("skipped", given),
        ("skipped", given),
    ]
    # Another session has not had them; a memory added since is given on the next Read.
    assert f"[mem:{about}]" in _read(hook_env, path, session="s2").json()["hookSpecificOutput"]["additionalContext"]
    newer = remember(hook_env, "auth-token-ttl", tags=[f"project:{hook_env.project}", "file:auth.py"])
    context = _read(hook_env, path).json()["hookSpecificOutput"]["additionalContext"]
    assert f"[mem:{newer}]" in context and f"[mem:{about}]" not in context


def test_edits_without_a_read_give_the_file_memories_each_time_and_a_read_after_them_does_not(
    hook_env: HookEnv,
) -> None:
    about = remember(hook_env, "auth-uses-pkce", tags=[f"project:{hook_env.project}", "file:auth.py"])
    path = str(hook_env.project_dir / "src" / "auth.py")
    for _ in range(2):  # each arrives after its edit was applied: the edit's result is where the model reads them
        assert f"[mem:{about}]" in _edit(hook_env, path).json()["hookSpecificOutput"]["additionalContext"]
    assert _read(hook_env, path).stdout == ""  # the session had them as a recall already


def test_a_memory_the_session_start_injected_is_still_given_once_on_the_files_read(hook_env: HookEnv) -> None:
    about = remember(hook_env, "auth-uses-pkce", tags=[f"project:{hook_env.project}", "file:auth.py"])
    store = hook_env.store()
    try:
        store.record_session_memories("s1", [about], "injected", "2026-12-06T00:00:00.000Z")
    finally:
        store.close()
    path = str(hook_env.project_dir / "src" / "auth.py")
    assert f"[mem:{about}]" in _read(hook_env, path).json()["hookSpecificOutput"]["additionalContext"]
    assert _read(hook_env, path).stdout == "" and _edit(hook_env, path).stdout == ""


def test_an_edit_outside_the_project_is_an_error_outcome_and_no_context(hook_env: HookEnv) -> None:
    remember(hook_env, "passwd-notes", tags=[f"project:{hook_env.project}", "file:passwd"])
    run = _edit(hook_env, "/etc/passwd")
    assert run.returncode == 0 and run.stdout == ""
    assert hook_env.outcomes()[-1]["reason"] == "path outside the project"


def test_a_lesson_guard_stops_the_first_matching_command_of_a_session_and_lets_the_retry_run(
    hook_env: HookEnv,
) -> None:
    lesson = remember(hook_env, "lesson-force-push", kind="lesson_learned")
    store = hook_env.store()
    try:
        entity = store.find("lesson-force-push")
        assert entity is not None
        guard = {"pattern": r"git\s+push\s+.*--force", "message": "Force-pushing main lost a day of work"}
        with store.transaction():
            store.update_metadata(entity.id, {**entity.metadata, "guard": guard})
    finally:
        store.close()
    payload = {
        "session_id": "s1",
        "cwd": str(hook_env.project_dir),
        "tool_name": "Bash",
        "tool_input": {"command": "git push origin main --force"},
    }
    answer = hook_env.run("PreToolUse", payload, tool="Bash").json()
    decision = answer["hookSpecificOutput"]
    assert (decision["hookEventName"], decision["permissionDecision"]) == ("PreToolUse", "deny")
    line = f"Force-pushing main lost a day of work (lesson lesson-force-push) [mem:{lesson}]"
    assert line in decision["permissionDecisionReason"] and "run it again" in decision["permissionDecisionReason"]
    assert hook_env.outcomes()[-1]["reason"] == "1 guards matched; stopped the first attempt"
    retry = hook_env.run("PreToolUse", payload, tool="Bash")
    assert retry.returncode == 0 and retry.stdout == ""
    assert hook_env.outcomes()[-1]["reason"] == "1 guards matched; already stopped once in this session"
    quiet = hook_env.run("PreToolUse", {**payload, "tool_input": {"command": "git status"}}, tool="Bash")
    assert quiet.stdout == ""
    # Without a session id a retry cannot be told apart: never a stop, only the warning as context.
    anonymous = {key: value for key, value in payload.items() if key != "session_id"}
    warned = hook_env.run("PreToolUse", anonymous, tool="Bash").json()["hookSpecificOutput"]
    assert "permissionDecision" not in warned and line in warned["additionalContext"]


def test_the_same_commit_seen_again_is_a_skip_not_a_write(hook_env: HookEnv) -> None:
    printed, full = _commit(hook_env)
    command = "git commit -m 'Store sessions in WAL mode'"
    assert _post(hook_env, command, printed)["outcome"] == "wrote"
    again = _post(hook_env, command, printed)
    assert (again["outcome"], again["reason"], again["entity"]) == (
        "skipped",
        "the commit is already stored",
        f"commit-{full[:7]}",
    )


def test_a_commit_naming_memories_by_mem_handle_implements_them(hook_env: HookEnv) -> None:
    decision_id = remember(hook_env, "use-wal-mode")
    remember(hook_env, "plan-readers")
    message = f"Store sessions in WAL mode [mem:{decision_id}] [mem:plan-readers] [mem:not-stored]"
    printed, full = _commit(hook_env, message)
    record = _post(hook_env, f"git commit -m '{message}'", printed)
    assert record["outcome"] == "wrote"
    store = hook_env.store()
    try:
        commit = store.find(f"commit-{full[:7]}")
    finally:
        store.close()
    assert commit is not None
    assert {(r.to_name, r.type) for r in commit.relations} == {
        ("use-wal-mode", "implements"),
        ("plan-readers", "implements"),
    }


def test_a_commit_naming_no_memory_relates_to_nothing(hook_env: HookEnv) -> None:
    printed, full = _commit(hook_env, "Store sessions in WAL mode")
    _post(hook_env, "git commit -m x", printed)
    store = hook_env.store()
    try:
        commit = store.find(f"commit-{full[:7]}")
    finally:
        store.close()
    assert commit is not None and commit.relations == []
