"""Stop: the handoff from the last reply, session snapshots with forget exclusions, note files, citation credit."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from memesh.app.operations.insight import ANALYTICS
from memesh.context import CallContext
from tests.calls import call, run
from tests.secret_shapes import assert_nothing_leaked, format_batches

from .conftest import HookEnv, assistant, tool_result, tool_use, user
from .helpers import remember

REPLY = (
    "I moved the session store to WAL and the flaky concurrency test passes now. Next: measure the hook start-up "
    "path and write the README section."
)


def _stop(env: HookEnv, transcript: Any, session: str = "s1", **extra: Any) -> Any:
    payload = {"session_id": session, "transcript_path": str(transcript), "cwd": str(env.project_dir), **extra}
    run = env.run("Stop", payload)
    assert run.returncode == 0 and run.stdout == "", run.stderr
    return {record["hook"]: record for record in env.outcomes()}


def _entity(env: HookEnv, name: str) -> Any:
    store = env.store()
    try:
        return store.find(name)
    finally:
        store.close()


def test_the_last_reply_becomes_the_project_handoff_with_host_provenance(hook_env: HookEnv) -> None:
    transcript = hook_env.transcript(
        [user("go"), assistant("An earlier reply, long enough? " * 4), user("more"), assistant(REPLY)]
    )
    records = _stop(hook_env, transcript)
    assert records["handoff-capture"]["outcome"] == "wrote"
    handoff = _entity(hook_env, f"session-handoff:{hook_env.project}")
    assert handoff.observations == [REPLY] and handoff.type == "session-handoff"
    assert handoff.metadata["provenance"]["source_host"] == "claude-code"
    start = hook_env.run("SessionStart", {"session_id": "s2", "cwd": str(hook_env.project_dir)}).json()
    assert REPLY in start["hookSpecificOutput"]["additionalContext"]


def test_a_short_reply_is_skipped_and_leaves_the_previous_handoff(hook_env: HookEnv) -> None:
    _stop(hook_env, hook_env.transcript([user("go"), assistant(REPLY)]))
    records = _stop(
        hook_env, hook_env.transcript([user("go"), assistant("Done.\n```\n" + "code\n" * 40 + "```")], "s2.jsonl")
    )
    assert records["handoff-capture"]["outcome"] == "skipped"
    assert _entity(hook_env, f"session-handoff:{hook_env.project}").observations == [REPLY]


def test_code_and_secrets_never_reach_the_handoff(hook_env: HookEnv) -> None:
    reply = REPLY + "\n```sh\nexport TOKEN=abc\n```\nThe key was api_key=abcd1234efgh5678 for the record."
    _stop(hook_env, hook_env.transcript([user("go"), assistant(reply)]))
    stored = _entity(hook_env, f"session-handoff:{hook_env.project}").observations[0]
    assert "export TOKEN" not in stored and "abcd1234efgh5678" not in stored and "***REDACTED***" in stored


def test_no_catalogued_format_reaches_the_database_through_the_handoff(hook_env: HookEnv) -> None:
    for index, texts in enumerate(format_batches(25)):
        reply = REPLY + "\n\n" + "\n".join(texts)
        records = _stop(hook_env, hook_env.transcript([user("go"), assistant(reply)], f"s{index}.jsonl"), f"s{index}")
        assert records["handoff-capture"]["outcome"] == "wrote"
    assert_nothing_leaked(hook_env.backend.target(hook_env.db))


def test_autocapture_off_writes_nothing(hook_env: HookEnv) -> None:
    (hook_env.home / ".memesh").mkdir(parents=True)
    (hook_env.home / ".memesh" / "config.json").write_text(json.dumps({"autoCapture": False}))
    records = _stop(hook_env, hook_env.transcript([user("go"), assistant(REPLY)]))
    assert records["handoff-capture"]["reason"] == "autoCapture is off"
    assert records["session-summary"]["reason"] == "autoCapture is off"
    assert _entity(hook_env, f"session-handoff:{hook_env.project}") is None


def _work(env: HookEnv) -> list[dict[str, Any]]:
    edited = str(env.project_dir / "src" / "auth.py")
    return [
        user("fix auth"),
        tool_use("t1", "Read", {"file_path": edited}),
        tool_result("t1", "contents"),
        tool_use("t2", "Edit", {"file_path": edited, "old_string": "a", "new_string": "b"}),
        tool_result("t2", "ok"),
        tool_use("t3", "Bash", {"command": "pytest"}),
        tool_result("t3", "E   AssertionError: expected 2\nmore", error=True),
        assistant(REPLY),
    ]


def test_snapshots_record_files_failures_and_a_summary(hook_env: HookEnv) -> None:
    records = _stop(hook_env, hook_env.transcript(_work(hook_env)), session="abc")
    assert records["session-summary"]["outcome"] == "wrote"
    assert _entity(hook_env, "session-abc-files").observations == ["Edited src/auth.py"]
    assert _entity(hook_env, "session-abc-fixes").observations == ["Bash failed: E   AssertionError: expected 2"]
    summary = _entity(hook_env, "session-abc-summary")
    assert summary.type == "session-insight" and "3 tool calls" in summary.observations[0]
    assert f"project:{hook_env.project}" in summary.tags and "session:abc" in summary.tags


def test_an_observation_removed_with_forget_does_not_come_back(hook_env: HookEnv) -> None:
    transcript = hook_env.transcript(_work(hook_env))
    _stop(hook_env, transcript, session="abc")
    store = hook_env.store()
    ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC))
    try:
        call("forget", store, {"name": "session-abc-files", "observation": "Edited src/auth.py"}, ctx).unwrap()
    finally:
        store.close()
    _stop(hook_env, transcript, session="abc")
    assert _entity(hook_env, "session-abc-files").observations == []


def test_fewer_than_three_tool_calls_store_no_snapshot(hook_env: HookEnv) -> None:
    records = _stop(hook_env, hook_env.transcript([user("hi"), assistant(REPLY)]), session="tiny")
    assert records["session-summary"] | {"at": None} == {
        "hook": "session-summary",
        "at": None,
        "host": "claude-code",
        "outcome": "skipped",
        "reason": "fewer than 3 tool calls",
    }


def test_a_missing_transcript_is_an_error_outcome(hook_env: HookEnv) -> None:
    records = _stop(hook_env, hook_env.home / "nowhere.jsonl")
    assert records["handoff-capture"]["outcome"] == "error"
    assert records["handoff-capture"]["reason"] == "transcript unreadable"


def test_a_citation_of_an_injected_memory_credits_it_once(hook_env: HookEnv) -> None:
    cited = remember(hook_env, "use-wal")
    other = remember(hook_env, "not-injected", tags=["project:elsewhere"])
    hook_env.run("SessionStart", {"session_id": "s1", "cwd": str(hook_env.project_dir)})
    transcript = hook_env.transcript(
        [user("q"), assistant(f"Per [mem:{cited}] and [mem:{other}] we use WAL. " + REPLY)]
    )
    records = _stop(hook_env, transcript)
    assert records["citation-credit"]["outcome"] == "wrote"
    _stop(hook_env, transcript)
    assert (_entity(hook_env, "use-wal").recall_hits, _entity(hook_env, "not-injected").recall_hits) == (1, 0)


def test_note_files_beside_the_transcript_are_ingested(hook_env: HookEnv) -> None:
    transcript = hook_env.transcript([user("go"), assistant(REPLY)])
    notes = transcript.parent / "memory"
    notes.mkdir()
    (notes / "db.md").write_text("---\nname: db-choice\ndescription: We use SQLite\n---\nOne file, WAL.\n")
    records = _stop(hook_env, transcript)
    assert records["note-ingest"]["outcome"] == "wrote"
    assert _entity(hook_env, "db-choice").observations == ["One file, WAL."]
    assert _stop(hook_env, transcript)["note-ingest"]["reason"] == "note files unchanged since the last run"


def test_an_injected_memory_the_session_never_cites_counts_one_miss_until_it_is_cited(hook_env: HookEnv) -> None:
    cited = remember(hook_env, "use-wal")
    uncited = remember(hook_env, "use-fts5")
    hook_env.run("SessionStart", {"session_id": "s1", "cwd": str(hook_env.project_dir)})
    first = [user("q"), assistant(f"Per [mem:{cited}] we use WAL. " + REPLY)]
    _stop(hook_env, hook_env.transcript(first))
    _stop(hook_env, hook_env.transcript(first))  # a Stop per turn: the same session counts a miss once
    counts = {
        name: (_entity(hook_env, name).recall_hits, _entity(hook_env, name).recall_misses)
        for name in ("use-wal", "use-fts5")
    }
    assert counts == {"use-wal": (1, 0), "use-fts5": (0, 1)}
    store = hook_env.store()
    try:
        ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC))
        assert run(ANALYTICS, store, {}, ctx).unwrap()["citationCompliance"] == {"cited": 1, "checked": 2, "rate": 0.5}
    finally:
        store.close()
    later = [*first, user("and search?"), assistant(f"Search is FTS5 [mem:{uncited}]. " + REPLY)]
    _stop(hook_env, hook_env.transcript(later))
    assert (_entity(hook_env, "use-fts5").recall_hits, _entity(hook_env, "use-fts5").recall_misses) == (1, 0)


def test_a_skip_for_an_archived_handoff_names_the_handoff(hook_env: HookEnv) -> None:
    _stop(hook_env, hook_env.transcript([user("go"), assistant(REPLY)]))
    name = f"session-handoff:{hook_env.project}"
    store = hook_env.store()
    try:
        ctx = CallContext(source_host="test", agent_view=False, now=datetime.now(UTC))
        call("forget", store, {"name": name}, ctx).unwrap()
    finally:
        store.close()
    records = _stop(hook_env, hook_env.transcript([user("go"), assistant(REPLY + " And one more thing.")], "s2.jsonl"))
    assert records["handoff-capture"]["outcome"] == "skipped"
    assert (records["handoff-capture"]["reason"], records["handoff-capture"]["entity"]) == (
        "the handoff memory is archived",
        name,
    )


def test_memesh_auto_capture_off_in_the_environment_turns_capture_off(hook_env: HookEnv) -> None:
    hook_env.env["MEMESH_AUTO_CAPTURE"] = "off"
    records = _stop(hook_env, hook_env.transcript([user("go"), assistant(REPLY)]))
    assert records["handoff-capture"]["reason"] == "autoCapture is off"
    assert _entity(hook_env, f"session-handoff:{hook_env.project}") is None


def test_note_files_with_autocapture_off_record_a_skip(hook_env: HookEnv) -> None:
    (hook_env.home / ".memesh").mkdir(parents=True)
    (hook_env.home / ".memesh" / "config.json").write_text(json.dumps({"autoCapture": False}))
    transcript = hook_env.transcript([user("go"), assistant(REPLY)])
    (transcript.parent / "memory").mkdir()
    (transcript.parent / "memory" / "db.md").write_text("---\nname: db-choice\ndescription: We use SQLite\n---\nWAL.\n")
    records = _stop(hook_env, transcript)
    assert (records["note-ingest"]["outcome"], records["note-ingest"]["reason"]) == ("skipped", "autoCapture is off")
    assert _entity(hook_env, "db-choice") is None
