"""Update status as pure rules: comparing versions, how fresh a cached answer is, what to tell the user, and the
command that updates each install channel. The I/O (asking the package index, the cache file, finding the channel)
is in `memesh.adapters.update_check`.
"""

from __future__ import annotations

import re
from dataclasses import field
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from memesh.model import iso_time
from memesh.records import dataclass

DISTRIBUTION: Final = "memesh"
FRESH_FOR: Final = timedelta(hours=24)

Channel = Literal["pipx", "pip-venv", "pip-user", "pip-system", "source-checkout", "unknown"]
Freshness = Literal["fresh", "cached", "stale", "unavailable"]
Bump = Literal["major", "minor", "patch"]

# What updates each channel. None where MeMesh cannot name one (it never guesses a command).
COMMANDS: Final[dict[Channel, str | None]] = {
    "pipx": f"pipx upgrade {DISTRIBUTION}",
    "pip-venv": f"python -m pip install --upgrade {DISTRIBUTION}",
    "pip-user": f"python -m pip install --user --upgrade {DISTRIBUTION}",
    "pip-system": f"python -m pip install --upgrade {DISTRIBUTION}",
    "source-checkout": "git pull && make install",
    "unknown": None,
}


class CheckFailed(Exception):
    """The package index could not be asked or did not answer usefully; str() says why, with no path or URL."""


BUMP_ORDER: Final = {"off": 0, "patch": 1, "minor": 2, "major": 3}

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(.*)$")


def version_key(version: str) -> tuple[tuple[int, ...], int, str] | None:
    """A sort key for a PEP 440-style version: the release numbers (trailing zeros dropped), then final releases
    above pre-releases (`1.0rc1` < `1.0`); None for text that is not a version."""
    found = _RELEASE.match(version)
    if found is None:
        return None
    release = tuple(int(part) for part in found.group(1).split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    rest = found.group(2).strip().lower()
    if rest.startswith("+"):  # a local version label does not make a different release
        rest = ""
    return release, 1 if not rest or rest.startswith((".post", "post", "-post")) else 0, rest


def is_newer(candidate: str | None, current: str) -> bool:
    """Whether `candidate` is a later release than `current` (False when either is not a version)."""
    if candidate is None:
        return False
    new, old = version_key(candidate), version_key(current)
    return new is not None and old is not None and new > old


def bump(current: str, candidate: str) -> Bump | None:
    """How large a step `candidate` is from `current`: major, minor or patch; None when it is not newer."""
    if not is_newer(candidate, current):
        return None
    old, new = version_key(current), version_key(candidate)
    assert old is not None and new is not None
    a, b = (old[0] + (0, 0, 0))[:3], (new[0] + (0, 0, 0))[:3]
    if b[0] != a[0]:
        return "major"
    return "minor" if b[1] != a[1] else "patch"


def within_limit(step: Bump | None, limit: str) -> bool:
    """Whether a bump of `step` is allowed by the autoUpdate setting `limit` (off allows nothing)."""
    return step is not None and BUMP_ORDER[step] <= BUMP_ORDER.get(limit, BUMP_ORDER["minor"])


@dataclass(frozen=True)
class CheckRecord:
    """What the cache file remembers between processes."""

    latest_version: str | None = None
    last_successful_check_at: datetime | None = None
    last_attempt_at: datetime | None = None
    last_error: str | None = None
    last_seen_version: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def after_success(record: CheckRecord, latest: str | None, now: datetime) -> CheckRecord:
    """A lookup that answered: the newest release, or None when the index does not know the distribution (not
    published there: nothing to update to, and nothing failed)."""
    return CheckRecord(latest, now, now, None, record.last_seen_version)


def after_failure(record: CheckRecord, error: str, now: datetime) -> CheckRecord:
    return CheckRecord(record.latest_version, record.last_successful_check_at, now, error, record.last_seen_version)


def freshness(record: CheckRecord, now: datetime, *, live: bool) -> Freshness:
    """fresh when this answer came from the index just now; unavailable when no check ever succeeded; stale when
    the last success is older than 24 hours; cached otherwise (also when that success found the distribution not
    published: the index's answer was that there is no release)."""
    if live:
        return "fresh"
    if record.last_successful_check_at is None:
        return "unavailable"
    return "stale" if now - record.last_successful_check_at > FRESH_FOR else "cached"


def _iso(moment: datetime | None) -> str | None:
    return iso_time(moment) if moment is not None else None


def status(record: CheckRecord, *, current: str, channel: Channel, now: datetime, live: bool) -> dict[str, Any]:
    """The GET /v1/update-status answer for this record."""
    available = is_newer(record.latest_version, current)
    return {
        "currentVersion": current,
        "latestVersion": record.latest_version,
        "checkedAt": _iso(record.last_successful_check_at),
        "lastAttemptAt": _iso(record.last_attempt_at),
        "lastSuccessfulCheckAt": _iso(record.last_successful_check_at),
        "lastError": record.last_error,
        "updateAvailable": available,
        "checkSucceeded": record.last_attempt_at is not None and record.last_error is None,
        "source": "live" if live else ("cache" if record.last_successful_check_at is not None else "none"),
        "freshness": freshness(record, now, live=live),
        "installChannel": channel,
        # No Python install channel is updated by MeMesh itself: the user runs the command (autoUpdate is the
        # largest bump the notice recommends, never consent to install unattended).
        "canSelfUpdate": False,
        "recommendedCommand": COMMANDS[channel] if available else None,
    }


def notice(answer: dict[str, Any], *, previous_version: str | None, limit: str) -> str | None:
    """The one `[memesh update] …` line for an MCP session, or None when there is nothing to say.

    Just upgraded (the version differs from the last one this machine ran) comes first; then an available update
    (with whether autoUpdate's bump limit covers it); then a check that has never succeeded.
    """
    current = answer["currentVersion"]
    if previous_version is not None and is_newer(current, previous_version):
        return f"[memesh update] Now running memesh {current} (was {previous_version})."
    if answer["updateAvailable"]:
        latest = answer["latestVersion"]
        step = bump(current, latest)
        command = answer["recommendedCommand"]
        how = f" Update with: {command}" if command else ""
        allowed = "" if within_limit(step, limit) else f" (a {step} update, beyond autoUpdate={limit})"
        return f"[memesh update] memesh {latest} is available; this is {current}{allowed}.{how}"
    if not answer["checkSucceeded"] and answer["freshness"] == "unavailable" and answer["lastError"]:
        return f"[memesh update] Could not check for updates: {answer['lastError']}."
    return None
