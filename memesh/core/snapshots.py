"""Session snapshots: what the Stop (and PreCompact) hook keeps of a session's work, as up to three memories —
session-<id>-files (files edited), session-<id>-fixes (tool calls that failed, and how) and session-<id>-summary
(one line of counts, rewritten each time). Pure."""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath

from memesh.core.briefing_text import redact_user_paths
from memesh.core.clean import clean_text
from memesh.core.notes import shorten
from memesh.core.transcript import ToolCall
from memesh.records import dataclass

SNAPSHOT_TYPE = "session-insight"
MIN_TOOL_CALLS = 3
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"})
MAX_FILES = 100
MAX_FIXES = 30
ERROR_CHARS = 200


@dataclass(frozen=True)
class Snapshot:
    name: str
    observations: list[str]
    replace: bool  # the summary's counts are rewritten; files and fixes only grow


def edited_path(call: ToolCall, cwd: str | None) -> str | None:
    """The file an editing tool call wrote, relative to the working directory when it lies inside it."""
    raw = call.input.get("file_path") or call.input.get("notebook_path") or call.input.get("path")
    if call.name not in EDIT_TOOLS or not isinstance(raw, str) or not raw.strip():
        return None
    path = raw.strip()
    if cwd and PurePosixPath(path).is_absolute():
        relative = posixpath.relpath(path, cwd) if path.startswith(cwd.rstrip("/") + "/") else None
        path = relative or path
    return redact_user_paths(clean_text(path))


def _first_line(text: str) -> str:
    line = next((each.strip() for each in text.splitlines() if each.strip()), "failed")
    return shorten(redact_user_paths(clean_text(line)), ERROR_CHARS)


def derive(session_id: str, calls: Sequence[ToolCall], cwd: str | None, label: str) -> list[Snapshot]:
    """The snapshots for a session's tool calls; none with fewer than three calls (nothing worth keeping)."""
    if len(calls) < MIN_TOOL_CALLS:
        return []
    files = list(dict.fromkeys(p for p in (edited_path(c, cwd) for c in calls) if p))[:MAX_FILES]
    failed = [c for c in calls if c.error is not None]
    fixes = list(dict.fromkeys(f"{c.name} failed: {_first_line(c.error or '')}" for c in failed))[:MAX_FIXES]
    counts = Counter(c.name for c in calls)
    used = ", ".join(f"{name} {count}" for name, count in counts.most_common(8))
    summary = f"Session in {label}: {len(calls)} tool calls ({used}); {len(failed)} failed; {len(files)} files edited"
    prefix = f"session-{session_id}"
    out = [Snapshot(f"{prefix}-summary", [summary], replace=True)]
    if files:
        out.append(Snapshot(f"{prefix}-files", [f"Edited {path}" for path in files], replace=False))
    if fixes:
        out.append(Snapshot(f"{prefix}-fixes", fixes, replace=False))
    return out
