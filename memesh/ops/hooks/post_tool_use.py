"""The tool hook after a shell command ran: after a `git commit`, remember the commit — its subject, body, files
(tagged file:<name>) and the session it was made in. What the command printed is the host module's reading of its
tool result (memesh.hosts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

from memesh.core import commits
from memesh.core.triggers import NOT_A_COMMIT, ran_a_commit
from memesh.ops import capture
from memesh.ops.hooks.answer import Answer

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.context import CallContext
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.tool_use_input import ToolUseHookInput

HOOK: Final = "post-commit"


class PostToolWorld(Protocol):
    def session_folder(self, given: str | None) -> str: ...
    def project_of(self, folder: str) -> str: ...
    def auto_capture(self) -> bool: ...
    def commit_details(self, folder: str, short_hash: str) -> tuple[str | None, str, list[str]]: ...
    def store(self) -> capture.CaptureStore | None: ...


def post_tool_use(
    world: PostToolWorld, request: ToolUseHookInput, /, *, ctx: CallContext
) -> Result[HookAnswer, MemeshError]:
    """The commit a shell command made, remembered (a commit seen twice adds nothing); a skip when the call was not a
    commit, printed no commit line, or autoCapture is off. Never fails: what went wrong is an outcome record."""
    answer = Answer()
    tool = request["tool"]
    if not ran_a_commit(tool["kind"], tool.get("command")):
        answer.record(HOOK, "skipped", reason=NOT_A_COMMIT)
        return answer.done()
    if not world.auto_capture():
        answer.record(HOOK, "skipped", reason="autoCapture is off")
        return answer.done()
    line = commits.commit_line(tool.get("output", ""))
    if line is None:
        answer.record(HOOK, "skipped", reason="a git commit ran but printed no commit line")
        return answer.done()
    folder = world.session_folder(request.get("cwd"))
    project = world.project_of(folder)
    full_hash, body, files = world.commit_details(folder, line.short_hash)
    memory = commits.memory(line, full_hash, body, files, project)
    store = world.store()
    if store is None:
        answer.record(HOOK, "error", reason="database unreadable")
        return answer.done()
    done = capture.capture_commit(
        store,
        memory,
        session_id=request.get("session_id"),
        commit={"hash": full_hash or line.short_hash, "branch": line.branch},
        ctx=ctx,
    )
    answer.record(HOOK, done.outcome, reason=done.reason, entity=done.entity)
    return answer.done()
