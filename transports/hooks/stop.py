"""Stop: the session handoff from the agent's last reply, the session snapshots, note files beside the transcript,
and credit for the memories the agent cited. Each part records its own outcome."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memesh.transports.hooks.context import call_context, hook_store, local_path, project_of, session_cwd
from memesh.transports.hooks.runner import Answer, HookCall
from memesh.transports.hooks.session import read_session

NOTE_READS_PER_STOP = 100


def handle(payload: dict[str, Any], call: HookCall) -> Answer:
    from memesh.adapters import config_file as config
    from memesh.core import snapshots
    from memesh.core.identity import project_label
    from memesh.ops import capture, session_memory

    answer = Answer()
    cwd = session_cwd(payload, call)
    project = project_of(cwd)
    ctx = call_context(project, call)
    session_id = str(payload["session_id"])
    auto = config.effective_auto_capture(config.read_or_defaults(), call.env)
    session = read_session(local_path(call, str(payload["transcript_path"])))
    last = payload.get("last_assistant_message")
    reply = last if isinstance(last, str) and last.strip() else (session.last_reply if session else None)
    with hook_store(answer, "handoff-capture") as store:
        if store is None:
            return answer
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
            derived = snapshots.derive(session_id, session.tool_calls, cwd, project_label(project))
            done = capture.capture_snapshots(store, project, session_id, derived, ctx)
            answer.record("session-summary", done.outcome, reason=done.reason, entity=done.entity)
        if auto:
            _ingest_notes(
                answer, store, local_path(call, str(payload["transcript_path"])).parent / "memory", project, ctx
            )
        replies = [*(session.replies if session else []), *([last] if isinstance(last, str) else [])]
        credited = session_memory.credit(store, session_id, replies).unwrap()
        if credited:
            answer.record("citation-credit", "wrote", reason=f"{len(credited)} cited memories credited")
        else:
            answer.record("citation-credit", "skipped", reason="no new citation of an injected or recalled memory")
    return answer


def _signature(directory: Path) -> str | None:
    """The newest modification time in the note folder (its own and its entries'): unchanged means nothing to read."""
    try:
        times = [directory.stat().st_mtime_ns]
        with os.scandir(directory) as entries:
            times += [entry.stat(follow_symlinks=False).st_mtime_ns for entry in entries]
    except OSError:
        return None
    return str(max(times))


def _ingest_notes(answer: Answer, store: Any, directory: Path, project: str, ctx: Any) -> None:
    from memesh.ops import capture

    if not directory.is_dir():
        return
    signature = _signature(directory)
    if signature is None:
        answer.record("note-ingest", "error", reason="note folder unreadable")
        return
    from memesh.adapters.note_dir import NoteFolder, NoteFolderError

    try:
        folder = NoteFolder.open(directory)
    except NoteFolderError:
        answer.record("note-ingest", "error", reason="note folder unreadable")
        return
    done = capture.ingest_note_folder(store, folder, signature, project, max_reads=NOTE_READS_PER_STOP, ctx=ctx)
    answer.record("note-ingest", done.outcome, reason=done.reason, entity=done.entity)
