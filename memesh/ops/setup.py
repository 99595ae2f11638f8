"""setup: MeMesh's hooks in Claude Code's settings.json (for a pip/pipx install without the plugin), installed or
removed; the edit itself is `memesh.core.claude_settings`, every other byte of the file is kept as written."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import claude_settings, host_setup, plugin_cache
from memesh.errors import MemeshError
from memesh.generated.cli.setup_input import SetupInput
from memesh.generated.cli.setup_output import SetupOutput
from memesh.ops.settings import ConfigFile, update_config


class ClaudeSettingsFile(Protocol):
    """Claude Code's user settings file (memesh.adapters.claude_settings_file)."""

    def settings_path(self) -> Path: ...
    def read_text(self, path: Path) -> str: ...
    def write_text(self, path: Path, text: str) -> None: ...


class HostConfigFiles(Protocol):
    """Copilot CLI's and Cursor's config files (memesh.adapters.host_config_files)."""

    def home(self) -> Path: ...
    def copilot_home(self) -> Path: ...
    def repository(self) -> Path: ...
    def read_text(self, path: Path) -> str: ...
    def write_text(self, path: Path, text: str) -> None: ...


class SetupResources(Protocol):
    @property
    def claude_settings(self) -> ClaudeSettingsFile: ...
    @property
    def host_files(self) -> HostConfigFiles: ...
    @property
    def config_file(self) -> ConfigFile: ...
    def entry_point(self, name: str) -> str | None: ...
    def plugin_caches(self) -> list[plugin_cache.Installed]: ...
    def data_folder(self) -> Path: ...


def active_plugin(installs: list[plugin_cache.Installed], settings_text: str) -> str | None:
    """The MeMesh plugin Claude Code has installed and not turned off in settings.json (memesh@<marketplace>), whose
    hooks therefore run; None when there is none."""
    found = next((each for each in installs if each.host == "claude-code"), None)
    plugin = f"{plugin_cache.PLUGIN}@{found.marketplace}" if found else None
    return None if plugin is None or claude_settings.plugin_disabled(settings_text, plugin) else plugin


def setup(uses: SetupResources, request: SetupInput, /, *, ctx: CallContext) -> Result[SetupOutput, MemeshError]:
    """What the hooks in settings.json become, written only with `write` (a change without it is planned, and
    nothing is written); on install, config.json records setupCompleted. With the MeMesh plugin installed in Claude
    Code, whose hooks are already active, install adds none and removes those an earlier setup added (each hook
    would run twice). Failure(operation.failed) when memesh-hook is not installed, or settings.json is not a JSON
    object or cannot be read (it is then left as it is)."""
    if request.get("host", "claude-code") != "claude-code":
        return _setup_host(uses, request)
    uninstall = request.get("uninstall", False)
    files = uses.claude_settings
    path = files.settings_path()
    try:
        text = files.read_text(path)
        plugin = None if uninstall else active_plugin(uses.plugin_caches(), text)
        hook = uses.entry_point("memesh-hook")
        if not uninstall and plugin is None and hook is None:
            return Failure(
                MemeshError.failed("memesh-hook is not installed beside this memesh; reinstall MeMesh for Python.")
            )
        if uninstall or plugin is not None:
            edit = claude_settings.uninstall(text)
        else:
            edit = claude_settings.install(text, hook or "")
    except (OSError, claude_settings.SettingsError) as exc:
        return Failure(MemeshError.failed(f"Refusing to modify {path}: {exc}"))
    planned = edit.changed and not request.get("write", False)
    if edit.changed and not planned:
        files.write_text(path, edit.text)
    if not uninstall and not planned:
        # The hooks are in place whatever happens here: a config.json that cannot be written is doctor's to report.
        update_config(uses.config_file, {"setupCompleted": True}, ctx=ctx)
    answer: SetupOutput = {
        "settings": str(path),
        "changed": edit.changed,
        "events": claude_settings.installed_events(edit.text),
        "uninstalled": uninstall,
        "written": edit.changed and not planned,
        "mcpServer": uses.entry_point("memesh-mcp") or "memesh-mcp",
        "dataFolder": str(uses.data_folder()),
    }
    if plugin is not None:
        answer["plugin"] = plugin
    return Success(answer)


def host_paths(files: HostConfigFiles, host: str, *, user: bool) -> tuple[Path, Path]:
    """(the hooks file, the MCP config) setup writes for Copilot CLI or Cursor."""
    if host == host_setup.COPILOT:
        return files.repository() / ".github" / "hooks" / "memesh.json", files.copilot_home() / "mcp-config.json"
    base = files.home() if user else files.repository()
    return base / ".cursor" / "hooks.json", base / ".cursor" / "mcp.json"


def copilot_config(files: HostConfigFiles) -> Path:
    """Copilot CLI's own config.json, where the folders it trusts are listed."""
    return files.copilot_home() / "config.json"


def _setup_host(uses: SetupResources, request: SetupInput) -> Result[SetupOutput, MemeshError]:
    """Copilot CLI's or Cursor's hooks file and MCP config, both computed before either is written (a file that is
    not a JSON object refuses the whole call, and nothing is written). For Copilot CLI, `trust` also adds the
    repository to its trusted folders (uninstalling leaves them as they are), and the answer says whether it
    trusts the repository, since it loads no repository hooks elsewhere."""
    host, uninstall, trust = request.get("host", "claude-code"), request.get("uninstall", False), request.get("trust")
    if trust and (host != host_setup.COPILOT or uninstall):
        return Failure(MemeshError.failed("--trust adds the repository to Copilot CLI's trusted folders on install: "
                                          "use it with --host copilot-cli, without --uninstall."))  # fmt: skip
    files = uses.host_files
    hooks_path, mcp_path = host_paths(files, host, user=request.get("user", False))
    hook, mcp = uses.entry_point("memesh-hook"), uses.entry_point("memesh-mcp")
    if not uninstall and (hook is None or mcp is None):
        return Failure(MemeshError.failed("memesh-hook or memesh-mcp is not installed beside this memesh; reinstall."))
    edits: list[tuple[Path, host_setup.Edit]] = []
    trusted: bool | None = None
    try:
        hooks_edit = host_setup.hooks_edit(
            files.read_text(hooks_path), str(hooks_path), host, hook or "", uninstall=uninstall
        )
        mcp_edit = host_setup.mcp_edit(files.read_text(mcp_path), str(mcp_path), host, mcp or "", uninstall=uninstall)
        edits = [(hooks_path, hooks_edit), (mcp_path, mcp_edit)]
        if host == host_setup.COPILOT and not uninstall:
            config, repository = copilot_config(files), str(files.repository())
            text = files.read_text(config)
            if trust:
                edits.append((config, host_setup.trust_edit(text, str(config), repository)))
                trusted = True
            else:
                trusted = host_setup.trusts(text, repository)
    except (OSError, host_setup.ConfigError) as exc:
        return Failure(MemeshError.failed(f"Refusing to modify it: {exc}"))
    changed = any(edit.changed for _, edit in edits)
    planned = changed and not request.get("write", False)
    if not planned:
        for path, edit in edits:
            if edit.changed:
                files.write_text(path, edit.text)
    answer: SetupOutput = {
        "settings": str(hooks_path),
        "changed": changed,
        "events": host_setup.installed_events(hooks_edit.text, host),
        "uninstalled": uninstall,
        "written": changed and not planned,
        "mcpServer": mcp or "memesh-mcp",
        "dataFolder": str(uses.data_folder()),
        "host": host,
        "files": [{"path": str(path), "changed": edit.changed} for path, edit in edits],
    }
    if trusted is not None:
        answer["trusted"] = trusted
    return Success(answer)
