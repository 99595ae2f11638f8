"""Stop: the session handoff from the agent's last reply, the session snapshots, the note files beside the
transcript, and credit for the memories the agent cited. Each part records its own outcome."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal, Protocol

from memesh.core import snapshots
from memesh.core.identity import project_label
from memesh.ops import capture, session_memory
from memesh.ops.hooks.answer import Answer

if TYPE_CHECKING:
    from returns.result import Result

    from memesh.context import CallContext
    from memesh.core.transcript import Session
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.stop_input import StopHookInput
    from memesh.ops.note_import import NoteSource

NOTE_READS_PER_STOP = 100


class StopStore(capture.NoteFolderStore, session_memory.SessionStore, Protocol):
    pass


class CaptureWorld(Protocol):
    """What Stop and PreCompact read: where the session runs, its transcript, autoCapture, the store."""

    def session_folder(self, given: str | None) -> str: ...
    def project_of(self, folder: str) -> str: ...
    def auto_capture(self) -> bool: ...
    def transcript(self, path: str) -> Session | None: ...


class StopWorld(CaptureWorld, Protocol):
    def store(self) -> StopStore | None: ...
    def note_folder(self, transcript: str) -> tuple[NoteSource, str] | Literal["unreadable"] | None: ...


def stop(world: StopWorld, request: StopHookInput, /, *, ctx: CallContext) -> Result[HookAnswer, MemeshError]:
    """The handoff, snapshots and note files captured (as autoCapture allows) and citations credited, one outcome
    each; prints nothing and never fails: what went wrong is an outcome record."""
    answer = Answer()
    folder = world.session_folder(request.get("cwd"))
    project = world.project_of(folder)
    ctx = replace(ctx, project=lambda: project)
    session_id = request["session_id"]
    auto = world.auto_capture()
    transcript = request.get("transcript_path")
    session = world.transcript(transcript) if transcript is not None else None
    # The turn's last reply, when the host hands it over (its module reads it from the host's own field); else the
    # transcript's, when the host writes one the transcript reader parses.
    last = request.get("last_reply")
    reply = last if last is not None and last.strip() else (session.last_reply if session else None)
    store = world.store()
    if store is None:
        answer.record("handoff-capture", "error", reason="database unreadable")
        return answer.done()
    if session is None and reply is None:
        answer.record("handoff-capture", "error", reason="transcript unreadable")
    else:
        done = capture.capture_handoff(store, project, reply, auto_capture=auto, ctx=ctx)
        answer.record("handoff-capture", done.outcome, reason=done.reason, entity=done.entity)
    if session is None:
        answer.record("session-summary", "error", reason="transcript unreadable")
    elif not auto:
        answer.record("session-summary", "skipped", reason="autoCapture is off")
    else:
        derived = snapshots.derive(session_id, session.tool_calls, folder, project_label(project))
        done = capture.capture_snapshots(store, project, session_id, derived, ctx)
        answer.record("session-summary", done.outcome, reason=done.reason, entity=done.entity)
    # No transcript named: no note folder beside it either.
    if transcript is not None and auto:
        _ingest_notes(world, store, answer, transcript=transcript, project=project, ctx=ctx)
    elif transcript is not None and world.note_folder(transcript) is not None:  # a folder to read, capture is off
        answer.record("note-ingest", "skipped", reason="autoCapture is off")
    replies = [*(session.replies if session else []), *([last] if last is not None else [])]
    credited = session_memory.credit(store, session_id, replies).unwrap()
    # What reached the session and is still uncited after this turn is a miss until a later turn cites it: the
    # recall-effectiveness factor and citationCompliance read hits against hits + misses.
    session_memory.count_misses(store, session_id)
    if credited:
        answer.record("citation-credit", "wrote", reason=f"{len(credited)} cited memories credited")
    else:
        answer.record("citation-credit", "skipped", reason="no new citation of an injected or recalled memory")
    return answer.done()


def _ingest_notes(
    world: StopWorld, store: StopStore, answer: Answer, *, transcript: str, project: str, ctx: CallContext
) -> None:
    found = world.note_folder(transcript)
    if found is None:
        return
    if found == "unreadable":
        answer.record("note-ingest", "error", reason="note folder unreadable")
        return
    folder, signature = found
    done = capture.ingest_note_folder(store, folder, signature, project, max_reads=NOTE_READS_PER_STOP, ctx=ctx)
    answer.record("note-ingest", done.outcome, reason=done.reason, entity=done.entity)
