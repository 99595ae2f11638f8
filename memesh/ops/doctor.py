"""doctor: install health, database integrity, hook wiring and capture liveness, each a check with a status; and
the one repair it can apply on request (retired config keys, after a byte-for-byte backup)."""

from __future__ import annotations

import platform
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from returns.result import Failure, Result, Success

import memesh
from memesh import hook_outcomes
from memesh.core import capture_liveness, plugin_cache
from memesh.core.briefing_text import redact_user_paths
from memesh.core.clean import redact
from memesh.errors import ErrorCode, MemeshError
from memesh.model import sqlite_time

# Top-level config.json keys older versions wrote and nothing reads any more (the model/provider settings).
RETIRED_CONFIG_KEYS = ("llm", "llmProvider", "llmModel", "provider", "model", "apiKey", "embeddings", "autoConsolidate")
STATUS_ORDER = {"pass": 0, "warn": 1, "fail": 2}


class DoctorStore(Protocol):
    def where(self) -> str: ...
    def integrity(self) -> str: ...
    def missing_migrations(self) -> list[int]: ...
    def index_matches(self) -> tuple[int, int]: ...
    def created_between(self, types: list[str], start: str, end: str) -> dict[str, int]: ...
    def close(self) -> None: ...


def _check(check_id: str, title: str, status: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"id": check_id, "title": title, "status": status, "detail": detail, **extra}


def _install() -> dict[str, Any]:
    from memesh.adapters.claude_settings_file import entry_point

    missing = [name for name in ("memesh-hook", "memesh-mcp") if entry_point(name) is None]
    detail = f"memesh {memesh.__version__} on Python {platform.python_version()}"
    if missing:
        return _check("install", "Install", "fail", f"{detail}; not found: {', '.join(missing)} — reinstall memesh")
    return _check("install", "Install", "pass", f"{detail}; memesh-hook and memesh-mcp installed")


def _plugin_caches() -> list[dict[str, Any]]:
    """One `plugin-cache-<host>` check per host that has the plugin cached (none for a host without it)."""
    from memesh.adapters import plugin_cache as caches

    checks = []
    for installed in caches.discover():
        found = plugin_cache.verdict(installed, memesh.__version__)
        title = f"Plugin cache ({plugin_cache.HOSTS[installed.host]})"
        extra = {"fixable": True} if found.fixable else {}
        checks.append(_check(plugin_cache.check_id(installed.host), title, found.status, found.detail, **extra))
    return checks


def _database(store: DoctorStore | None, reason: str) -> dict[str, Any]:
    if store is None:
        return _check("database", "Database", "fail", f"cannot open the database: {reason}")
    problems = []
    verdict = store.integrity()
    if verdict != "ok":
        problems.append(f"integrity check: {verdict}")
    missing = store.missing_migrations()
    if missing:
        problems.append(f"migrations not applied: {missing}")
    entities, indexed = store.index_matches()
    if entities != indexed:
        problems.append(f"keyword index holds {indexed} of {entities} memories — run `memesh reindex --fts`")
    if problems:
        return _check("database", "Database", "fail", f"{'; '.join(problems)} ({store.where()})")
    detail = f"{entities} memories; integrity ok; keyword index whole ({store.where()})"
    return _check("database", "Database", "pass", detail)


def _config() -> dict[str, Any]:
    from memesh.adapters import config_file

    try:
        stored = config_file.read_raw()
    except config_file.ConfigError as exc:
        return _check("config", "Settings", "fail", f"{exc.problem}; fix or remove it")
    notes = [
        f"briefing: {config_file.effective_briefing(stored).row}",
        f"sessionLimit: {config_file.effective_session_limit(stored).row}",
        f"autoCapture: {'on' if config_file.effective_auto_capture(stored) else 'off'}",
    ]
    retired = [key for key in RETIRED_CONFIG_KEYS if key in stored]
    if retired:
        detail = f"retired keys in config.json: {', '.join(retired)} (repair: remove them, after a backup); "
        return _check("config", "Settings", "warn", detail + "; ".join(notes), fixable=True)
    invalid = [note for note in notes if "invalid" in note or "uses" in note]
    return _check("config", "Settings", "warn" if invalid else "pass", "; ".join(notes))


def _hooks(records: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    from memesh.adapters.claude_settings_file import read_text, settings_path
    from memesh.core import claude_settings

    try:
        events = claude_settings.installed_events(read_text(settings_path()))
    except (OSError, claude_settings.SettingsError):
        events = []
    recent = [r for r in records if str(r.get("at", "")) >= (now - timedelta(days=7)).isoformat()[:19]]
    if len(events) == len(claude_settings.EVENTS):
        return _check("hooks", "Hook wiring", "pass", "all hooks installed in Claude Code's settings.json")
    if recent:
        hosts = sorted({str(r["host"]) for r in recent if r.get("host")}) or ["an unnamed host"]
        return _check("hooks", "Hook wiring", "pass", f"hooks ran in the last 7 days ({', '.join(hosts)})")
    return _check(
        "hooks",
        "Hook wiring",
        "warn",
        "no hook has run in the last 7 days and settings.json has no MeMesh hooks — install the plugin, or run "
        "`memesh setup`",
    )


def _scrub(value: Any) -> Any:
    """Every string with secrets and home folders redacted: the result can leave the machine (GET /v1/doctor)."""
    if isinstance(value, str):
        return redact_user_paths(redact(value))
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, dict):
        return {key: _scrub(item) for key, item in value.items()}
    return value


def run(open_store: Callable[[], DoctorStore], now: datetime) -> dict[str, Any]:
    """The doctor result: overall status, the checks, and the capture-liveness evidence."""
    records = hook_outcomes.read_records()
    store: DoctorStore | None = None
    reason = ""
    try:
        store = open_store()
    except Exception as exc:  # doctor reports a database it cannot open; it does not fail with it
        reason = getattr(exc, "reason", type(exc).__name__)
    try:
        database = _database(store, reason)
        counts: dict[str, tuple[int, int]] = {}
        if store is not None:
            week, fortnight, end = (sqlite_time(now - timedelta(days=d)) for d in (7, 14, -1))
            last7 = store.created_between(list(capture_liveness.CAPTURE_TYPES), week, end)
            prev7 = store.created_between(list(capture_liveness.CAPTURE_TYPES), fortnight, week)
            counts = {kind: (last7[kind], prev7[kind]) for kind in capture_liveness.CAPTURE_TYPES}
    finally:
        if store is not None:
            store.close()
    capture = capture_liveness.summarize(records, counts, now)
    liveness_status = {"PASS": "pass", "PASS_WITH_CONCERNS": "warn", "FAIL": "fail"}[capture["status"]]
    line = capture_liveness.banner_line(capture) or (
        "session-summary never ran" if capture["neverRan"] else "capture is alive (or has nothing to do yet)"
    )
    checks = [
        _install(),
        *_plugin_caches(),
        database,
        _config(),
        _hooks(records, now),
        _check("capture-liveness", "Capture liveness", liveness_status, line),
    ]
    worst = max((STATUS_ORDER[c["status"]] for c in checks), default=0)
    status = ("PASS", "PASS_WITH_CONCERNS", "FAIL")[worst]
    result: dict[str, Any] = _scrub(
        {"status": status, "version": memesh.__version__, "checks": checks, "capture": capture}
    )
    return result


def fix(check_id: str, open_store: Callable[[], DoctorStore], now: datetime) -> Result[dict[str, Any], MemeshError]:
    """Apply the repair of a current check; Failure(operation.failed) when none applies now or a host's updater
    fails, and Failure(operation.permission-denied) when the file it must write cannot be written."""
    from memesh.adapters import config_file

    before = next((c for c in run(open_store, now)["checks"] if c["id"] == check_id), None)
    if before is None or not before.get("fixable"):
        return Failure(MemeshError.failed(f'No repair applies to "{check_id}" right now; run doctor again to see why.'))
    host = plugin_cache.host_of(check_id)
    if host is not None:
        return _refresh_plugin_cache(host, before, open_store, now)
    path = config_file.config_path()
    stamp = re.sub(r"[^0-9]", "", now.isoformat())[:14]
    try:
        original = path.read_bytes()
        backup = Path(f"{path}.bak-{stamp}")
        backup.write_bytes(original)
        backup.chmod(0o600)
        removed = [key for key in RETIRED_CONFIG_KEYS if key in config_file.read_raw()]
        config_file.update({}, tuple(removed))
    except (OSError, config_file.ConfigError):
        return Failure(
            MemeshError(
                ErrorCode.PERMISSION_DENIED,
                "config.json could not be backed up or rewritten. Check that the MeMesh folder is yours and writable, "
                "then retry.",
            )
        )
    after = next(c for c in run(open_store, now)["checks"] if c["id"] == check_id)
    return Success(
        _scrub(
            {
                "action": f"removed retired config keys: {', '.join(removed)} (backup beside config.json)",
                "before": before,
                "after": after,
                "restartRequired": False,
            }
        )
    )


def _refresh_plugin_cache(
    host: str, before: dict[str, Any], open_store: Callable[[], DoctorStore], now: datetime
) -> Result[dict[str, Any], MemeshError]:
    """Refresh one host's stale plugin cache through that host's own updater; the host must restart to read it."""
    from memesh.adapters import plugin_cache as caches

    label = plugin_cache.HOSTS[host]
    installed = next((found for found in caches.discover() if found.host == host), None)
    if installed is None:
        return Failure(MemeshError.failed(f"{label} has no MeMesh plugin cache any more; run doctor again."))
    commands = plugin_cache.refresh_commands(installed)
    try:
        caches.run_updater(commands)
    except caches.UpdaterError as exc:
        return Failure(MemeshError.failed(_scrub(f"{label}'s updater did not refresh the plugin cache: {exc}")))
    check_id = plugin_cache.check_id(host)
    after = next((c for c in run(open_store, now)["checks"] if c["id"] == check_id), None)
    return Success(
        _scrub(
            {
                "action": f"refreshed the {label} plugin cache: {' && '.join(' '.join(argv) for argv in commands)}",
                "before": before,
                "after": after,
                "restartRequired": True,
            }
        )
    )
