"""The plugin hosts' caches on disk, and their updaters run as subprocesses.

Claude Code records installed plugins in `<config>/plugins/installed_plugins.json` (`plugins["memesh@<marketplace>"]`,
one entry per scope with `version` and `installPath`) and keeps each copy under
`<config>/plugins/cache/<marketplace>/memesh/<version>/`; `<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude`. Codex
keeps its copy under `<home>/plugins/cache/<marketplace>/memesh/<version>/`, `<home>` being `$CODEX_HOME` or
`~/.codex`. A path read here never leaves this module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memesh.core.plugin_cache import PLUGIN, CachedFailure, Installed, parse_version

UPDATER_TIMEOUT = 300  # a marketplace refresh may fetch a git repository


def _root(variable: str, default: str) -> Path:
    configured = os.environ.get(variable, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / default


def _manifest_version(folder: Path, manifest: str) -> str | None:
    try:
        value = json.loads((folder / manifest / "plugin.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def _cached_copies(cache: Path, manifest: str) -> list[tuple[str, str | None]]:
    """(marketplace, version) of every `<cache>/<marketplace>/memesh/<version>/` copy."""
    found: list[tuple[str, str | None]] = []
    try:
        marketplaces = sorted(p for p in cache.iterdir() if p.is_dir())
    except OSError:
        return found
    for marketplace in marketplaces:
        try:
            copies = sorted(p for p in (marketplace / PLUGIN).iterdir() if p.is_dir())
        except OSError:
            continue
        for copy in copies:
            version = copy.name if parse_version(copy.name) else _manifest_version(copy, manifest)
            found.append((marketplace.name, version))
    return found


def _newest(copies: list[tuple[str, str | None]]) -> tuple[str, str | None] | None:
    if not copies:
        return None
    return max(copies, key=lambda copy: parse_version(copy[1]) or (-1, -1, -1))


def _claude_entries(registry: Path) -> list[tuple[str, dict[str, Any]]] | None:
    """(marketplace, entry) of every memesh install the registry records; None when there is no readable registry."""
    try:
        plugins = json.loads(registry.read_text(encoding="utf-8")).get("plugins")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(plugins, dict):
        return None
    entries: list[tuple[str, dict[str, Any]]] = []
    for key, value in plugins.items():
        name, _, marketplace = str(key).partition("@")
        if name != PLUGIN or not marketplace:
            continue
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, dict):
                entries.append((marketplace, entry))
    return entries


def _claude_code() -> Installed | None:
    root = _root("CLAUDE_CONFIG_DIR", ".claude") / "plugins"
    entries = _claude_entries(root / "installed_plugins.json")
    if entries is None:  # no registry: what the cache holds is all there is to go by
        newest = _newest(_cached_copies(root / "cache", ".claude-plugin"))
        return Installed("claude-code", *newest) if newest else None
    installs: list[Installed] = []
    for marketplace, entry in entries:
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        path = entry.get("installPath")
        if parse_version(version) is None and isinstance(path, str):
            version = _manifest_version(Path(path), ".claude-plugin")
        installs.append(Installed("claude-code", marketplace, version))
    # One entry per scope: the oldest copy is the one that needs the refresh.
    return min(installs, key=lambda i: parse_version(i.version) or (-1, -1, -1)) if installs else None


def _codex() -> Installed | None:
    newest = _newest(_cached_copies(_root("CODEX_HOME", ".codex") / "plugins" / "cache", ".codex-plugin"))
    return Installed("codex", *newest) if newest else None


def discover() -> list[Installed]:
    """The MeMesh plugin as each host that has it cached has it (a host without it is not listed)."""
    return [found for found in (_claude_code(), _codex()) if found is not None]


def _failure_cache() -> Path:
    return _root("CLAUDE_CONFIG_DIR", ".claude") / "mcp-needs-auth-cache.json"


def _failure_entries() -> dict[str, Any]:
    try:
        entries = json.loads(_failure_cache().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return entries if isinstance(entries, dict) else {}


def _is_memesh_server(key: str) -> bool:
    return key.startswith(f"plugin:{PLUGIN}:")


def failed_connections() -> list[CachedFailure]:
    """The failed connections to MeMesh's plugin MCP servers that Claude Code remembers (its
    mcp-needs-auth-cache.json: `{"plugin:memesh:<server>": {"timestamp": <ms>, "id": ...}}`)."""
    found = []
    for key, entry in _failure_entries().items():
        stamp = entry.get("timestamp") if isinstance(entry, dict) else None
        if _is_memesh_server(str(key)) and isinstance(stamp, int | float) and not isinstance(stamp, bool):
            try:
                found.append(CachedFailure(str(key), datetime.fromtimestamp(stamp / 1000, UTC)))
            except (OverflowError, OSError, ValueError):
                continue
    return found


def forget_failed_connections() -> None:
    """Remove MeMesh's servers from Claude Code's failure cache, so its next session connects again; other
    servers' entries are kept. Replaced in one rename, as Claude Code writes it."""
    from memesh.adapters.claude_settings_file import write_text

    entries = _failure_entries()
    kept = {key: value for key, value in entries.items() if not _is_memesh_server(str(key))}
    if kept != entries:
        write_text(_failure_cache(), json.dumps(kept))


class UpdaterError(Exception):
    """The host's updater could not be run or did not succeed; str() says which command and why, without a path."""


def run_updater(commands: list[list[str]]) -> None:
    """Run each command in order with the host's own CLI found on PATH; UpdaterError on the first that fails."""
    for argv in commands:
        shown = " ".join(argv)
        executable = shutil.which(argv[0])
        if executable is None:
            raise UpdaterError(f"`{argv[0]}` is not on PATH, so `{shown}` could not run")
        try:
            done = subprocess.run(  # a fixed argv of the host's own CLI, never a shell
                [executable, *argv[1:]],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=UPDATER_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise UpdaterError(f"`{shown}` did not finish within {UPDATER_TIMEOUT} s") from exc
        except OSError as exc:
            raise UpdaterError(f"`{shown}` could not start ({exc.strerror})") from exc
        if done.returncode != 0:
            raise UpdaterError(f"`{shown}` exited with status {done.returncode}")
