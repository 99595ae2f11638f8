"""hook-outcomes.jsonl beside the database: one JSON line per hook run, on every exit path, which doctor reads to
say whether automatic capture is alive.

A record names the hook, when, the host that ran it, the outcome (wrote / notified / skipped / error) and a reason
or the entity written. An error records a label (`uncaught <name>`, `malformed stdin JSON`), never exception text.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from memesh import paths

TYPE_CHECKING = False  # not typing's: every hook process imports this module, and typing costs it ~2 ms
if TYPE_CHECKING:
    from typing import Any

FILENAME = "hook-outcomes.jsonl"
REASON_MAX = 200
READ_TAIL_BYTES = 1 << 20  # doctor reads the newest megabyte: thousands of records
# Every hook MeMesh ships records under one of these names; doctor ignores records naming any other.
HOOKS = (
    "session-start",
    "handoff-capture",
    "session-summary",
    "note-ingest",
    "citation-credit",
    "post-commit",
    "pre-edit",
    "pre-compact",
    "guard",
    "message-reminder",
    "message-gate",
)
# The plugin's launchers record their one-time environment build under this name (tools/plugin/bin/
# memesh-bootstrap, which cannot import MeMesh): not a hook event's outcome, but doctor reads it with them.
BOOTSTRAP = "bootstrap"
RECORDED = (*HOOKS, BOOTSTRAP)
OUTCOMES = ("wrote", "notified", "skipped", "error")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]+")


def outcomes_path() -> Path:
    return paths.db_path().parent / FILENAME


def clean_reason(text: str) -> str:
    return _CONTROL.sub(" ", text).strip()[:REASON_MAX]


def record(
    hook: str,
    outcome: str,
    *,
    host: str | None,
    reason: str | None = None,
    entity: str | None = None,
    now: datetime | None = None,
) -> None:
    """Append one record; a record that cannot be written is dropped (a hook never fails for its own log)."""
    entry: dict[str, Any] = {
        "hook": hook,
        "at": (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "host": host,
        "outcome": outcome,
    }
    if reason is not None:
        entry["reason"] = clean_reason(reason)
    if entity is not None:
        entry["entity"] = clean_reason(entity)
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "replace")
    path = outcomes_path()
    try:
        paths.ensure_private_dir(path.parent)
        # O_APPEND: one short write per record, so records from hooks running at once never interleave.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return


def read_records(path: Path | None = None) -> list[dict[str, Any]]:
    """The newest records, oldest first; lines that are not records of a shipped hook (or of the plugin's
    environment build) are skipped."""
    target = path or outcomes_path()
    try:
        with target.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - READ_TAIL_BYTES))
            data = handle.read()
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for raw in data.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict) and entry.get("hook") in RECORDED and entry.get("outcome") in OUTCOMES:
            out.append(entry)
    return out


HEARTBEATS = "hook-heartbeats"  # memesh.transports.hooks.wire.HEARTBEATS (a test holds them equal)
BEGAN = ".began"
_EVENT_NAME = re.compile(r"[a-z][a-z-]{0,39}")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_heartbeats(folder: Path | None = None) -> tuple[str | None, dict[str, str]]:
    """(when tracking began, {event: its last run}) from the heartbeats memesh-hook touches beside the database;
    (None, {}) when no hook ever ran."""
    target = folder or outcomes_path().parent / HEARTBEATS
    beats: dict[str, str] = {}
    began: str | None = None
    try:
        entries = list(os.scandir(target))
    except OSError:
        return None, {}
    for entry in entries:
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            stamp = _iso(entry.stat(follow_symlinks=False).st_mtime)
        except OSError:
            continue
        if entry.name == BEGAN:
            began = stamp
        elif _EVENT_NAME.fullmatch(entry.name):
            beats[entry.name] = stamp
    return began, dict(sorted(beats.items()))


GRACE_FILE = "capture-liveness-grace.json"
NOTICE_LOCK = "last-capture-liveness-notice.lock"


def liveness_notice(version: str, now: datetime) -> str | None:
    """The SessionStart banner line when capture has gone quiet: at most once a day, never in the grace period
    after an install or upgrade; None otherwise. Counts this session start toward the grace period."""
    from memesh.core import capture_liveness

    folder = outcomes_path().parent
    grace_path, lock = folder / GRACE_FILE, folder / NOTICE_LOCK
    try:
        stored = json.loads(grace_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        stored = None
    state = capture_liveness.grace_state(stored if isinstance(stored, dict) else None, version, now)
    try:
        paths.ensure_private_dir(folder)
        grace_path.write_text(json.dumps(state), encoding="utf-8")
    except OSError:
        return None
    if not capture_liveness.grace_over(state, now):
        return None
    try:
        if now.timestamp() - lock.stat().st_mtime < capture_liveness.NOTICE_EVERY.total_seconds():
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    line = capture_liveness.banner_line(capture_liveness.summarize(read_records(), {}, now))
    if line is not None:
        try:
            lock.touch()
        except OSError:
            return None
    return line
