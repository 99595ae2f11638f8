"""Capture liveness: has the automatic memory layer saved anything lately, and if not, why not. Pure: the hook
outcome records and the per-type counts come in as plain values.

One summary per hook over its last 20 triggered records plus its last 5 not-triggered ones (so a flood of
irrelevant runs cannot push the evidence out); `silent` for a capture hook that ran at least 5 times where its
trigger applied and wrote nothing; per auto-capture type, this week against the week before.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from memesh.core.scoring import parse_time

TRIGGERED_WINDOW = 20
NOT_TRIGGERED_WINDOW = 5
SILENT_AFTER = 5
SILENT_HOOKS = frozenset({"post-commit", "session-summary", "pre-compact", "handoff-capture"})
NEVER_RAN_GRACE = timedelta(hours=72)
# Skips that mean the hook's trigger did not apply (a Bash call that was no commit, a tool that edits nothing).
NOT_TRIGGERED = frozenset({"not a git commit", "not a file edit", "no command"})
# Every skip reason the shipped hooks record; any other is shown as "unrecognised reason".
KNOWN_SKIPS = NOT_TRIGGERED | frozenset(
    {
        "autoCapture is off",
        "no assistant reply to capture",
        "reply under 80 characters after cleaning",
        "the handoff memory is archived",
        "the reply is already the handoff",
        "fewer than 3 tool calls",
        "nothing new in the session snapshots",
        "a git commit ran but printed no commit line",
        "the commit is already stored",
        "nothing to brief",
        "no memories for this file",
        "the file's memories were already given in this session",
        "no guard matched",
        "note files unchanged since the last run",
        "no note file changed",
        "no new citation of an injected or recalled memory",
    }
)
CAPTURE_TYPES = ("commit", "session-insight")


def _triggered(record: Mapping[str, Any]) -> bool:
    return not (record.get("outcome") == "skipped" and record.get("reason") in NOT_TRIGGERED)


def _reason(record: Mapping[str, Any]) -> str | None:
    reason = record.get("reason")
    if not isinstance(reason, str):
        return None
    return reason if reason in KNOWN_SKIPS else "unrecognised reason"


def summarize_hook(hook: str, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One hook's summary over its evidence window (records oldest first)."""
    triggered = [r for r in records if _triggered(r)][-TRIGGERED_WINDOW:]
    idle = [r for r in records if not _triggered(r)][-NOT_TRIGGERED_WINDOW:]
    window = sorted([*triggered, *idle], key=lambda r: str(r.get("at", "")))
    outcomes = Counter(str(r.get("outcome")) for r in window)
    writes = [r for r in window if r.get("outcome") == "wrote"]
    notified = [r for r in window if r.get("outcome") == "notified"]
    skip_reasons = Counter(_reason(r) for r in triggered if r.get("outcome") == "skipped")
    skip_reasons.pop(None, None)
    dominant = skip_reasons.most_common(1)
    skips = [r for r in window if r.get("outcome") == "skipped"]
    return {
        "hook": hook,
        "runs": len(window),
        "triggeredRuns": len(triggered),
        "writes": outcomes["wrote"],
        "skips": outcomes["skipped"],
        "errors": outcomes["error"],
        "notifies": outcomes["notified"],
        "lastRunAt": window[-1].get("at") if window else None,
        "firstTriggeredAt": triggered[0].get("at") if triggered else None,
        "lastWriteAt": writes[-1].get("at") if writes else None,
        "lastNotifiedAt": notified[-1].get("at") if notified else None,
        "lastEntity": writes[-1].get("entity") if writes else None,
        "lastSkipReason": _reason(skips[-1]) if skips else None,
        "dominantSkipReason": dominant[0][0] if dominant else None,
        "dominantSkipCount": dominant[0][1] if dominant else 0,
        "hosts": sorted({str(r["host"]) for r in window if r.get("host")}),
        "silent": hook in SILENT_HOOKS and len(triggered) >= SILENT_AFTER and outcomes["wrote"] == 0,
    }


def summarize(
    records: Sequence[Mapping[str, Any]],
    type_counts: Mapping[str, tuple[int, int]],
    now: datetime,
    heartbeats: Mapping[str, str] | None = None,
    began: str | None = None,
) -> dict[str, Any]:
    """The capture object doctor reports: status, hooks, types (last7/prev7/stopped), neverRan, heartbeats (each
    hook event's last run, as memesh-hook touched it before anything else)."""
    beats = dict(heartbeats or {})
    by_hook: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_hook.setdefault(str(record.get("hook")), []).append(record)
    hooks = [summarize_hook(hook, rows) for hook, rows in sorted(by_hook.items())]
    types = [
        {"type": kind, "last7": last7, "prev7": prev7, "stopped": prev7 > 0 and last7 == 0}
        for kind, (last7, prev7) in type_counts.items()
    ]
    tracking = tracking_began(records, began)
    never_ran = []
    if (
        tracking is not None
        and now - tracking > NEVER_RAN_GRACE
        and "session-summary" not in by_hook
        and SUMMARY_EVENT not in beats
    ):
        never_ran.append("session-summary")
    if never_ran:
        status = "FAIL"
    elif any(h["silent"] for h in hooks) or any(t["stopped"] for t in types) or no_records(records, beats, began, now):
        status = "PASS_WITH_CONCERNS"
    else:
        status = "PASS"
    return {"status": status, "hooks": hooks, "types": types, "neverRan": never_ran, "heartbeats": beats}


# The Stop event runs session-summary: a Stop heartbeat means it ran, even where its record went missing.
SUMMARY_EVENT = "stop"
NO_RECORDS = "capture-liveness.no-records"


def tracking_began(records: Sequence[Mapping[str, Any]], began: str | None) -> datetime | None:
    """The earliest evidence of a hook: the first outcome record or the first heartbeat, whichever came first."""
    times = [t for t in (parse_time(str(r.get("at"))) for r in records) if t]
    first_beat = parse_time(began) if began else None
    return min([*times, *([first_beat] if first_beat else [])], default=None)


def no_records(
    records: Sequence[Mapping[str, Any]], heartbeats: Mapping[str, str], began: str | None, now: datetime
) -> bool:
    """Hooks have run (heartbeats) for longer than the grace, yet not one outcome record exists."""
    since = parse_time(began) if began else None
    return bool(heartbeats) and not records and since is not None and now - since >= GRACE_TIME


ARCHIVED_HANDOFF = "the handoff memory is archived"
# memesh.adapters.hook_outcomes.REASON_MAX: what a record keeps of an entity name (a test holds them equal)
NAME_CAP = 200
# A name doctor may print inside a command for a person to paste: nothing the shell would read as syntax.
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_.:@%+=,/][A-Za-z0-9_.:@%+=,/~-]*")


def _archived_handoff_advice(records: Sequence[Mapping[str, Any]]) -> str:
    window = [r for r in records if r.get("hook") == "handoff-capture" and _triggered(r)][-TRIGGERED_WINDOW:]
    names = {r.get("entity") for r in window if r.get("outcome") == "skipped" and r.get("reason") == ARCHIVED_HANDOFF}
    advice = "handoff-capture keeps skipping an archived handoff, and reinstalling hooks will not revive it: "
    name = next(iter(names)) if len(names) == 1 else None
    # A name at the record's length cap may have been cut: only a complete one goes into a command.
    if isinstance(name, str) and len(name) < NAME_CAP and _SHELL_SAFE.fullmatch(name):
        return advice + f"restore it with `memesh remember --name {name} --type session-handoff --obs restart`"
    return (
        advice + "find the exact archived name with `memesh recall session-handoff --include-archived`, then "
        "restore it with `memesh remember --name <name> --type session-handoff --obs restart`"
    )


def liveness_detail(
    capture: Mapping[str, Any], records: Sequence[Mapping[str, Any]], began: str | None, now: datetime
) -> str:
    """The capture-liveness row of doctor: every finding, the failing one first, or that capture is alive."""
    parts: list[str] = []
    if capture.get("neverRan"):
        parts.append(
            "session-summary never ran: no outcome record and no Stop heartbeat 72 hours after tracking began — "
            "check that the Stop hook is installed (`memesh setup`) and that the host runs it"
        )
    beats: Mapping[str, str] = capture.get("heartbeats") or {}
    if no_records(records, beats, began, now):
        last = max(beats.values())
        parts.append(
            f"{NO_RECORDS}: hooks ran (last at {last}) but there is no outcome record in hook-outcomes.jsonl beside "
            "the database — check that the file can be written"
        )
    silent = next((h for h in capture.get("hooks", []) if h.get("silent")), None)
    if silent is not None:
        since = str(silent.get("firstTriggeredAt") or "")[:10]
        line = f"{silent['hook']} ran {silent['triggeredRuns']} times since {since} and wrote nothing"
        if silent.get("dominantSkipReason"):
            line += f" (most often: {silent['dominantSkipReason']})"
        parts.append(line)
        if silent["hook"] == "handoff-capture" and silent.get("dominantSkipReason") == ARCHIVED_HANDOFF:
            parts.append(_archived_handoff_advice(records))
    parts.extend(
        f"{t['type']} memories stopped: {t['prev7']} the week before, none this week"
        for t in capture.get("types", [])
        if t.get("stopped")
    )
    return "; ".join(parts) if parts else "capture is alive (or has nothing to do yet)"


def banner_line(capture: Mapping[str, Any]) -> str | None:
    """The one SessionStart banner line when capture has gone quiet, naming the first silent hook."""
    for hook in capture.get("hooks", []):
        if hook.get("silent"):
            since = str(hook.get("firstTriggeredAt") or "")[:10]
            return (
                f"memesh: {hook['hook']} ran {hook['triggeredRuns']} times since {since} and wrote nothing — "
                "`memesh doctor` for the reason"
            )
    return None


GRACE_SESSIONS = 3
GRACE_TIME = timedelta(hours=24)
NOTICE_EVERY = timedelta(hours=24)


def grace_state(stored: Mapping[str, Any] | None, version: str, now: datetime) -> dict[str, Any]:
    """The grace record after one more session start: it restarts on an install or upgrade (a new version)."""
    if not stored or stored.get("version") != version or parse_time(str(stored.get("since"))) is None:
        return {"version": version, "since": now.isoformat(), "sessions": 1}
    sessions = stored.get("sessions")
    return {**stored, "sessions": (sessions if isinstance(sessions, int) else 0) + 1}


def grace_over(state: Mapping[str, Any], now: datetime) -> bool:
    """Past the first 3 sessions and 24 hours after an install or upgrade, whichever ends later."""
    since = parse_time(str(state.get("since")))
    sessions = state.get("sessions")
    return since is not None and now - since >= GRACE_TIME and isinstance(sessions, int) and sessions > GRACE_SESSIONS
