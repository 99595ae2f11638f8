"""PostToolUse on Bash: after a `git commit`, remember the commit — its subject, body, files (tagged file:<name>)
and the session it was made in."""

from __future__ import annotations

import subprocess
from typing import Any

from memesh.transports.hooks.context import call_context, hook_store, project_of, session_cwd
from memesh.transports.hooks.runner import Answer, HookCall

HOOK = "post-commit"
GIT_TIMEOUT_SECONDS = 5
# Skips where the hook's trigger did not apply; doctor leaves them out of triggeredRuns.
NOT_A_COMMIT = "not a git commit"


def _output(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        return "\n".join(str(response.get(key) or "") for key in ("stdout", "stderr", "output"))
    return ""


def _details(cwd: str, short_hash: str) -> tuple[str | None, str, list[str]]:
    """(full hash, body, files) from git; (None, "", []) when git cannot say."""
    try:
        done = subprocess.run(
            ["git", "-C", cwd, "show", "--no-color", "--format=%H%x00%b%x00", "--name-only", short_hash],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None, "", []
    parts = done.stdout.split("\x00")
    if done.returncode != 0 or len(parts) < 3:
        return None, "", []
    files = [line.strip() for line in parts[2].splitlines() if line.strip()]
    return parts[0].strip() or None, parts[1], files


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.core import commits

    answer = Answer()
    command = payload["tool_input"].get("command")
    if payload["tool_name"] != "Bash" or not isinstance(command, str) or not commits.is_git_commit(command):
        answer.record(HOOK, "skipped", reason=NOT_A_COMMIT)
        return answer
    # Only a commit pays for the rest: most Bash calls end above.
    from memesh.adapters import config_file as config
    from memesh.ops import capture

    if not config.effective_auto_capture(config.read_or_defaults(), call.env):
        answer.record(HOOK, "skipped", reason="autoCapture is off")
        return answer
    line = commits.commit_line(_output(payload.get("tool_response")))
    if line is None:
        answer.record(HOOK, "skipped", reason="a git commit ran but printed no commit line")
        return answer
    cwd = session_cwd(payload, call)
    project = project_of(cwd)
    full_hash, body, files = _details(cwd, line.short_hash)
    memory = commits.memory(line, full_hash, body, files, project)
    session_id = payload.get("session_id")
    with hook_store(answer, HOOK) as store:
        if store is None:
            return answer
        done = capture.capture_commit(
            store,
            memory,
            session_id=session_id if isinstance(session_id, str) else None,
            commit={"hash": full_hash or line.short_hash, "branch": line.branch},
            ctx=call_context(project, call),
        )
    answer.record(HOOK, done.outcome, reason=done.reason, entity=done.entity)
    return answer
