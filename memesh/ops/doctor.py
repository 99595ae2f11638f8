"""doctor: install health, database integrity, hook wiring and capture liveness, each a check with a status; and
the one repair it can apply on request (retired config keys, after a byte-for-byte backup)."""

from __future__ import annotations

import json
import platform
import re
from datetime import datetime, timedelta
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

import memesh
from memesh.context import CallContext
from memesh.core import capture_liveness, claude_settings, host_setup, plugin_cache
from memesh.core.briefing_text import redact_user_paths
from memesh.core.clean import redact
from memesh.errors import BrokenFile, ErrorCode, MemeshError
from memesh.generated.http.doctor_fix_input import DoctorFixInput
from memesh.generated.http.doctor_fix_output import DoctorFixOutput
from memesh.generated.http.doctor_input import DoctorInput
from memesh.generated.http.doctor_output import DoctorOutput
from memesh.model import sqlite_time
from memesh.ops.settings import ConfigFile
from memesh.ops.setup import ClaudeSettingsFile, HostConfigFiles, active_plugin, copilot_config, host_paths

# Top-level config.json keys older versions wrote and nothing reads any more (the model/provider settings).
RETIRED_CONFIG_KEYS = ("llm", "llmProvider", "llmModel", "provider", "model", "apiKey", "embeddings", "autoConsolidate")
STATUS_ORDER = {"pass": 0, "warn": 1, "fail": 2}


class DoctorStore(Protocol):
    def where(self) -> str: ...
    def integrity(self) -> str: ...
    def missing_migrations(self) -> list[int]: ...
    def newer_migrations(self) -> list[int]: ...
    def unwritable(self) -> list[str]: ...
    def index_matches(self) -> tuple[int, int]: ...
    def created_between(self, types: list[str], start: str, end: str) -> dict[str, int]: ...
    def missing_vectors(self, model: str) -> list[int]: ...
    def get_meta(self, key: str) -> str | None: ...
    def close(self) -> None: ...


class DoctorResources(Protocol):
    """What doctor looks at: each check opens its own connection (so it reports a database it cannot open), and
    reads the hook records, config.json, Claude Code's settings and the plugin hosts' caches it is given."""

    def open_store(self) -> DoctorStore: ...
    def database_shown(self) -> str: ...
    def hook_records(self) -> list[dict[str, Any]]: ...
    def hook_heartbeats(self) -> tuple[str | None, dict[str, str]]: ...
    def entry_point(self, name: str) -> str | None: ...
    @property
    def config_file(self) -> ConfigFile: ...
    @property
    def claude_settings(self) -> ClaudeSettingsFile: ...
    @property
    def host_files(self) -> HostConfigFiles: ...
    def plugin_caches(self) -> list[plugin_cache.Installed]: ...
    def refresh_plugin_cache(self, commands: list[list[str]]) -> str | None: ...
    def mcp_failures(self) -> list[plugin_cache.CachedFailure]: ...
    def forget_mcp_failures(self) -> str | None: ...
    def vector_model(self) -> str | None: ...
    def resident_state(self) -> str: ...


def _check(check_id: str, title: str, status: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"id": check_id, "title": title, "status": status, "detail": detail, **extra}


def _install(uses: DoctorResources) -> dict[str, Any]:
    missing = [name for name in ("memesh-hook", "memesh-mcp") if uses.entry_point(name) is None]
    detail = f"memesh {memesh.__version__} on Python {platform.python_version()}"
    if missing:
        return _check("install", "Install", "fail", f"{detail}; not found: {', '.join(missing)} — reinstall memesh")
    return _check("install", "Install", "pass", f"{detail}; memesh-hook and memesh-mcp installed")


_HOST_NAMES = {host_setup.COPILOT: "GitHub Copilot CLI", host_setup.CURSOR: "Cursor"}


def _host(uses: DoctorResources, host: str) -> dict[str, Any]:
    """`host-<id>`: Copilot CLI's or Cursor's files as `memesh setup --host` writes them (Copilot CLI's in its config
    folder, COPILOT_HOME or ~/.copilot). Not configured is no failure (pass); a file that is not JSON, hooks or a
    server running another path, half of the wiring, or Copilot CLI's hooks in a repository it does not trust (it
    loads none of them), warn with the command that fixes it."""
    files, title = uses.host_files, _HOST_NAMES[host]
    hook, mcp = uses.entry_point("memesh-hook") or "", uses.entry_point("memesh-mcp") or ""
    scopes = [host_paths(files, host, user=False)]
    if host == host_setup.CURSOR:
        scopes.append(host_paths(files, host, user=True))
    fix = f"memesh setup --host {host} --yes"
    found: list[tuple[str, str, str, str]] = []  # (scope flag, hooks state, mcp state, the hooks file)
    for hooks_path, mcp_path in scopes:
        try:
            hooks = host_setup.hooks_state(files.read_text(hooks_path), host, hook)
        except (OSError, host_setup.ConfigError):
            return _check(f"host-{host}", title, "warn", f"{hooks_path} is not valid JSON — repair it, then run {fix}")
        try:
            server = host_setup.mcp_state(files.read_text(mcp_path), mcp)
        except (OSError, host_setup.ConfigError):
            return _check(f"host-{host}", title, "warn", f"{mcp_path} is not valid JSON — repair it, then run {fix}")
        flag = " --user" if found else ""
        found.append((flag, hooks, server, str(hooks_path)))
        if hooks == "stale" or server == "stale":
            stale = hooks_path if hooks == "stale" else mcp_path
            return _check(f"host-{host}", title, "warn", f"{stale} runs another MeMesh (stale path) — fix: {fix}{flag}")
    configured = [each for each in found if each[1:3] != ("absent", "absent")]
    if not configured:
        return _check(f"host-{host}", title, "pass", f"not configured (to use MeMesh with {title}: {fix})")
    for flag, hooks, server, _ in configured:
        if "absent" in (hooks, server):
            half = "MCP server" if server == "absent" else "hooks"
            return _check(
                f"host-{host}", title, "warn", f"hooks or MCP server set up without the {half} — fix: {fix}{flag}"
            )
    if host == host_setup.COPILOT and found[0][1] == "ok":
        config, repository = copilot_config(files), str(files.repository())
        try:
            trusted = host_setup.trusts(files.read_text(config), repository)
        except (OSError, host_setup.ConfigError):
            return _check(f"host-{host}", title, "warn", f"{config} is not valid JSON — repair it, then run {fix}")
        if not trusted:
            return _check(
                f"host-{host}",
                title,
                "warn",
                f"{repository} is not among {title}'s trusted folders ({config}), so it loads none of the hooks — "
                f"fix: {fix} --trust, or answer its folder prompt with 'remember'",
            )
    where = ", ".join(each[3] for each in configured)
    return _check(f"host-{host}", title, "pass", f"configured, running this memesh ({where})")


def _plugin_caches(uses: DoctorResources) -> list[dict[str, Any]]:
    """One `plugin-cache-<host>` check per host that has the plugin cached (none for a host without it)."""
    checks = []
    for installed in uses.plugin_caches():
        found = plugin_cache.verdict(installed, memesh.__version__)
        title = f"Plugin cache ({plugin_cache.HOSTS[installed.host]})"
        extra = {"fixable": True} if found.fixable else {}
        checks.append(_check(plugin_cache.check_id(installed.host), title, found.status, found.detail, **extra))
    return checks


def _mcp_connection(uses: DoctorResources, now: datetime) -> list[dict[str, Any]]:
    """A `mcp-connection-claude-code` check only while Claude Code skips MeMesh's server after a failed connection."""
    found = plugin_cache.connection_verdict(uses.mcp_failures(), now)
    if found is None:
        return []
    title = "MCP connection (Claude Code)"
    return [_check(plugin_cache.CONNECTION_CHECK, title, found.status, found.detail, fixable=True)]


def _database(store: DoctorStore | None, failure: tuple[str, str | None], shown: str) -> dict[str, Any]:
    """The Database row: a database that will not open, with its reason (unreachable, auth-failed, tls-refused,
    schema-behind, …); a damaged one; else what it holds, with a role that may read but not write, or a schema a
    newer MeMesh migrated, told as warnings."""
    if store is None:
        message, reason = failure
        extra = {"reason": reason} if reason else {}
        return _check("database", "Database", "fail", f"cannot open the database ({shown}): {message}", **extra)
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
    unwritable = store.unwritable()
    if unwritable:
        named = ", ".join(unwritable[:5]) + (f" and {len(unwritable) - 5} more" if len(unwritable) > 5 else "")
        detail += (
            f"; read-only for this role (it may not write {named}): recall and reads work, remember is refused — "
            "the database's owner grants INSERT, UPDATE, DELETE (README: roles and privileges)"
        )
        return _check("database", "Database", "warn", detail, reason="read-only")
    newer = store.newer_migrations()
    if newer:
        detail += f"; migrated by a newer MeMesh (migrations {newer} unknown here): upgrade MeMesh"
        return _check("database", "Database", "warn", detail, reason="schema-ahead")
    return _check("database", "Database", "pass", detail)


# Written by the SQLite store when it adopts the TypeScript MeMesh's database (memesh.store.sqlite_adoption).
ADOPTED_KEY = "adopted_from_typescript"


def _adoption(store: DoctorStore) -> list[dict[str, Any]]:
    """The `adoption` check, only for a database that came from the TypeScript MeMesh: when, and where its
    original is kept (the backup's path is relative to the database's folder, so nothing of the machine shows)."""
    raw = store.get_meta(ADOPTED_KEY)
    if raw is None:
        return []
    try:
        record = json.loads(raw)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        return [_check("adoption", "Adoption", "warn", "adopted from the TypeScript MeMesh; its record is unreadable")]
    at = record.get("at") if isinstance(record.get("at"), str) else "an unknown time"
    backup = record.get("backup")
    if isinstance(backup, str):
        detail = (
            f"adopted from the TypeScript MeMesh at {at} UTC; the original is kept as {backup} beside the database "
            "(to go back, see the README's 'Coming from…')"
        )
    else:
        detail = f"copied from a TypeScript MeMesh database at {at} UTC; that file was left as it was"
    return [_check("adoption", "Adoption", "pass", detail)]


def _vectors(store: DoctorStore, model: str, entities: int) -> dict[str, Any]:
    """Hybrid only: how many memories recall can find by meaning, and the command that stores the rest."""
    try:
        missing = len(store.missing_vectors(model))
    except Exception as exc:  # a damaged database: the database check says why; doctor does not fail with it
        return _check("vectors", "Hybrid vectors", "warn", f"could not count the memories without vectors: {exc}")
    if missing:
        detail = (
            f"{missing} of {entities} memories have no vectors from {model} (recall finds them by keywords only) — "
            "run `memesh reindex --vectors`"
        )
        return _check("vectors", "Hybrid vectors", "warn", detail)
    return _check("vectors", "Hybrid vectors", "pass", f"all {entities} memories have vectors from {model}")


def _config(config_file: ConfigFile) -> dict[str, Any]:
    try:
        stored = config_file.read_raw()
    except BrokenFile as exc:
        return _check("config", "Settings", "fail", f"{exc.problem}; fix or remove it")
    notes = [
        f"briefing: {config_file.effective_briefing(stored).row}",
        f"sessionLimit: {config_file.effective_session_limit(stored).row}",
        f"autoCapture: {'on' if config_file.effective_auto_capture(stored) else 'off'}",
        f"recallMode: {config_file.effective_recall_mode(stored).row}",
    ]
    retired = [key for key in RETIRED_CONFIG_KEYS if key in stored]
    if retired:
        detail = f"retired keys in config.json: {', '.join(retired)} (repair: remove them, after a backup); "
        return _check("config", "Settings", "warn", detail + "; ".join(notes), fixable=True)
    # An invalid value, a session limit the hook adjusts, hybrid asked for without its extra (answering as broad).
    invalid = [note for note in notes if "invalid" in note or "uses" in note or "answering as" in note]
    return _check("config", "Settings", "warn" if invalid else "pass", "; ".join(notes))


def _hooks(
    files: ClaudeSettingsFile, records: list[dict[str, Any]], now: datetime, installs: list[plugin_cache.Installed]
) -> dict[str, Any]:
    try:
        text = files.read_text(files.settings_path())
        installed = claude_settings.installed_hooks(text)
        twice = claude_settings.duplicated_hooks(text)
        plugin = active_plugin(installs, text)
    except (OSError, claude_settings.SettingsError):
        installed, twice, plugin = set(), [], None
    if plugin is not None and installed:
        return _check(
            "hooks",
            "Hook wiring",
            "warn",
            f"duplicate hooks: the MeMesh plugin ({plugin}) runs MeMesh's hooks and settings.json holds them too "
            f"({', '.join(sorted(installed))}), so each runs twice — `memesh setup --yes` removes settings.json's",
        )
    if twice:
        return _check(
            "hooks",
            "Hook wiring",
            "warn",
            f"duplicate hooks in Claude Code's settings.json: {', '.join(twice)} run more than once — "
            "`memesh setup --uninstall --yes` then `memesh setup --yes` leaves one of each",
        )
    if plugin is not None:
        return _check("hooks", "Hook wiring", "pass", f"the MeMesh plugin ({plugin}) runs the hooks in Claude Code")
    recent = [r for r in records if str(r.get("at", "")) >= (now - timedelta(days=7)).isoformat()[:19]]
    if installed >= {name for _, name, _, _ in claude_settings.EVENTS}:
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


# A database URL's user (`postgresql://alice@…`, `postgresql://alice:***@…`, `?user=alice`): the README promises
# doctor hides it with the password, since its answer can leave the machine (GET /v1/doctor).
_URL_USER = re.compile(r"(postgres(?:ql)?://)[^@/\s?#]+@")
_URL_USER_PARAMETER = re.compile(r"(postgres(?:ql)?://[^\s]*?[?&]user=)[^&\s)]+")


def _scrub(value: Any) -> Any:
    """Every string with secrets, database users and home folders redacted: the result can leave the machine
    (GET /v1/doctor)."""
    if isinstance(value, str):
        return redact_user_paths(redact(_URL_USER_PARAMETER.sub(r"\1***", _URL_USER.sub(r"\1***@", value))))
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, dict):
        return {key: _scrub(item) for key, item in value.items()}
    return value


def _suite(uses: DoctorResources, now: datetime) -> dict[str, Any]:
    records = uses.hook_records()
    store: DoctorStore | None = None
    failure: tuple[str, str | None] = ("", None)
    try:
        store = uses.open_store()
    except Exception as exc:  # doctor reports a database it cannot open; it does not fail with it
        kind = getattr(getattr(exc, "error", None), "data", {}).get("store")
        failure = (getattr(exc, "reason", type(exc).__name__), kind if isinstance(kind, str) else None)
    try:
        database = _database(store, failure, uses.database_shown())
        counts: dict[str, tuple[int, int]] = {}
        vectors: list[dict[str, Any]] = []
        adoption: list[dict[str, Any]] = []
        if store is not None:
            adoption = _adoption(store)
            model = uses.vector_model()
            if model is not None:
                vectors.append(_vectors(store, model, store.index_matches()[0]))
            week, fortnight, end = (sqlite_time(now - timedelta(days=d)) for d in (7, 14, -1))
            last7 = store.created_between(list(capture_liveness.CAPTURE_TYPES), week, end)
            prev7 = store.created_between(list(capture_liveness.CAPTURE_TYPES), fortnight, week)
            counts = {kind: (last7[kind], prev7[kind]) for kind in capture_liveness.CAPTURE_TYPES}
    finally:
        if store is not None:
            store.close()
    began, heartbeats = uses.hook_heartbeats()
    capture = capture_liveness.summarize(records, counts, now, heartbeats, began)
    liveness_status = {"PASS": "pass", "PASS_WITH_CONCERNS": "warn", "FAIL": "fail"}[capture["status"]]
    line = capture_liveness.liveness_detail(capture, records, began, now)
    checks = [
        _install(uses),
        *_plugin_caches(uses),
        *_mcp_connection(uses, now),
        database,
        *adoption,
        *vectors,
        _config(uses.config_file),
        _check("daemon", "Resident server", "pass", uses.resident_state()),
        _hooks(uses.claude_settings, records, now, uses.plugin_caches()),
        _host(uses, host_setup.COPILOT),
        _host(uses, host_setup.CURSOR),
        _check("capture-liveness", "Capture liveness", liveness_status, line),
    ]
    worst = max((STATUS_ORDER[c["status"]] for c in checks), default=0)
    status = ("PASS", "PASS_WITH_CONCERNS", "FAIL")[worst]
    result: dict[str, Any] = _scrub(
        {"status": status, "version": memesh.__version__, "checks": checks, "capture": capture}
    )
    return result


def doctor(uses: DoctorResources, _request: DoctorInput, /, *, ctx: CallContext) -> Result[DoctorOutput, MemeshError]:
    """The doctor result: overall status, the checks, and the capture-liveness evidence; never fails (a database
    that will not open is a failing check)."""
    return Success(cast(DoctorOutput, _suite(uses, ctx.now)))


def _current(uses: DoctorResources, check_id: str, now: datetime) -> dict[str, Any] | None:
    return next((c for c in _suite(uses, now)["checks"] if c["id"] == check_id), None)


def doctor_fix(
    uses: DoctorResources, request: DoctorFixInput, /, *, ctx: CallContext
) -> Result[DoctorFixOutput, MemeshError]:
    """Apply the repair of a current check, after running doctor again; Failure(operation.failed) when none applies
    now or a host's updater fails, and Failure(operation.permission-denied) when the file it must write cannot be
    written."""
    check_id, now = request["id"], ctx.now
    before = _current(uses, check_id, now)
    if before is None or not before.get("fixable"):
        return Failure(MemeshError.failed(f'No repair applies to "{check_id}" right now; run doctor again to see why.'))
    host = plugin_cache.host_of(check_id)
    if host is not None:
        return _refresh_plugin_cache(uses, host, before, now)
    if check_id == plugin_cache.CONNECTION_CHECK:
        return _forget_mcp_failures(uses, before, now)
    config_file = uses.config_file
    stamp = re.sub(r"[^0-9]", "", now.isoformat())[:14]
    try:
        config_file.backup(stamp)
        removed = [key for key in RETIRED_CONFIG_KEYS if key in config_file.read_raw()]
        config_file.update({}, tuple(removed))
    except (OSError, BrokenFile):
        return Failure(
            MemeshError(
                ErrorCode.PERMISSION_DENIED,
                "config.json could not be backed up or rewritten. Check that the MeMesh folder is yours and writable, "
                "then retry.",
            )
        )
    return Success(
        _scrub(
            {
                "action": f"removed retired config keys: {', '.join(removed)} (backup beside config.json)",
                "before": before,
                "after": _current(uses, check_id, now),
                "restartRequired": False,
            }
        )
    )


def _forget_mcp_failures(
    uses: DoctorResources, before: dict[str, Any], now: datetime
) -> Result[DoctorFixOutput, MemeshError]:
    """Make Claude Code forget its failed connections to MeMesh: its next session connects again."""
    problem = uses.forget_mcp_failures()
    if problem is not None:
        return Failure(
            MemeshError(
                ErrorCode.PERMISSION_DENIED,
                f"Claude Code's mcp-needs-auth-cache.json could not be rewritten ({problem}); check that its config "
                "folder is yours and writable, then retry.",
            )
        )
    return Success(
        _scrub(
            {
                "action": "removed MeMesh's failed connection from Claude Code's mcp-needs-auth-cache.json",
                "before": before,
                "after": _current(uses, plugin_cache.CONNECTION_CHECK, now),
                "restartRequired": True,
            }
        )
    )


def _refresh_plugin_cache(
    uses: DoctorResources, host: str, before: dict[str, Any], now: datetime
) -> Result[DoctorFixOutput, MemeshError]:
    """Refresh one host's stale plugin cache through that host's own updater; the host must restart to read it."""
    label = plugin_cache.HOSTS[host]
    installed = next((found for found in uses.plugin_caches() if found.host == host), None)
    if installed is None:
        return Failure(MemeshError.failed(f"{label} has no MeMesh plugin cache any more; run doctor again."))
    commands = plugin_cache.refresh_commands(installed)
    problem = uses.refresh_plugin_cache(commands)
    if problem is not None:
        return Failure(MemeshError.failed(_scrub(f"{label}'s updater did not refresh the plugin cache: {problem}")))
    return Success(
        _scrub(
            {
                "action": f"refreshed the {label} plugin cache: {' && '.join(' '.join(argv) for argv in commands)}",
                "before": before,
                "after": _current(uses, plugin_cache.check_id(host), now),
                "restartRequired": True,
            }
        )
    )
