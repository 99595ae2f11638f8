"""PreCompact: keep the session snapshots before the host compacts the conversation away."""

from __future__ import annotations

from typing import Any

from memesh.transports.hooks.context import call_context, hook_store, local_path, project_of, session_cwd
from memesh.transports.hooks.runner import Answer, HookCall
from memesh.transports.hooks.session import read_session

HOOK = "pre-compact"


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.adapters import config_file as config
    from memesh.core import snapshots
    from memesh.core.identity import project_label
    from memesh.ops import capture

    answer = Answer()
    if not config.effective_auto_capture(config.read_or_defaults(), call.env):
        answer.record(HOOK, "skipped", reason="autoCapture is off")
        return answer
    session = read_session(local_path(call, str(payload["transcript_path"])))
    if session is None:
        answer.record(HOOK, "error", reason="transcript unreadable")
        return answer
    cwd = session_cwd(payload, call)
    project = project_of(cwd)
    session_id = str(payload["session_id"])
    derived = snapshots.derive(session_id, session.tool_calls, cwd, project_label(project))
    with hook_store(answer, HOOK) as store:
        if store is None:
            return answer
        done = capture.capture_snapshots(store, project, session_id, derived, call_context(project, call))
    answer.record(HOOK, done.outcome, reason=done.reason, entity=done.entity)
    return answer
