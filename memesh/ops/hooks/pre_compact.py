"""PreCompact: keep the session snapshots before the host compacts the conversation away."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

from memesh.core import snapshots
from memesh.core.identity import project_label
from memesh.ops import capture
from memesh.ops.hooks.answer import Answer
from memesh.ops.hooks.stop import CaptureWorld

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.context import CallContext
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.stop_input import StopHookInput

HOOK: Final = "pre-compact"


class PreCompactWorld(CaptureWorld, Protocol):
    def store(self) -> capture.CaptureStore | None: ...


def pre_compact(
    world: PreCompactWorld, request: StopHookInput, /, *, ctx: CallContext
) -> Result[HookAnswer, MemeshError]:
    """The session snapshots written (new observations only), or a skip when autoCapture is off; prints nothing
    and never fails: what went wrong is an outcome record."""
    answer = Answer()
    if not world.auto_capture():
        answer.record(HOOK, "skipped", reason="autoCapture is off")
        return answer.done()
    transcript = request.get("transcript_path")
    session = world.transcript(transcript) if transcript is not None else None
    if session is None:
        answer.record(HOOK, "error", reason="transcript unreadable")
        return answer.done()
    folder = world.session_folder(request.get("cwd"))
    project = world.project_of(folder)
    session_id = request["session_id"]
    derived = snapshots.derive(session_id, session.tool_calls, folder, project_label(project))
    store = world.store()
    if store is None:
        answer.record(HOOK, "error", reason="database unreadable")
        return answer.done()
    done = capture.capture_snapshots(store, project, session_id, derived, replace(ctx, project=lambda: project))
    answer.record(HOOK, done.outcome, reason=done.reason, entity=done.entity)
    return answer.done()
