"""Whether a plugin host's cached copy of the MeMesh plugin is behind this package, and how that host refreshes it.

Claude Code and Codex run a plugin from their own cache (a copy of the plugin keyed by its version). Upgrading the
package does not touch that copy: its hooks file and manifests stay as they were until the host's own updater
refreshes it, and the host only reads the refreshed copy after a restart. Pure: discovery reads the files.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Final

from memesh.records import dataclass

HOSTS: Final = {"claude-code": "Claude Code", "codex": "Codex"}
PLUGIN: Final = "memesh"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:[-+.].*)?$")


def check_id(host: str) -> str:
    return f"plugin-cache-{host}"


def host_of(check: str) -> str | None:
    """The host a `plugin-cache-*` check id names, or None when it names none."""
    host = check.removeprefix("plugin-cache-")
    return host if check.startswith("plugin-cache-") and host in HOSTS else None


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    found = _VERSION.match(text.strip()) if text else None
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


@dataclass(frozen=True)
class Installed:
    """The plugin as one host has it cached: the marketplace it came from and the version of the cached copy (None
    when the copy names none that can be read)."""

    host: str
    marketplace: str
    version: str | None


def refresh_commands(installed: Installed) -> list[list[str]]:
    """The host's own updater, as argv lists run in order: refresh the marketplace, then the plugin from it."""
    plugin, marketplace = f"{PLUGIN}@{installed.marketplace}", installed.marketplace
    if installed.host == "codex":
        return [["codex", "plugin", "marketplace", "upgrade", marketplace], ["codex", "plugin", "add", plugin]]
    return [["claude", "plugin", "marketplace", "update", marketplace], ["claude", "plugin", "update", plugin]]


@dataclass(frozen=True)
class Verdict:
    status: str  # pass | warn
    detail: str
    fixable: bool


def verdict(installed: Installed, package_version: str) -> Verdict:
    """pass when the cached copy is this package's version or newer; a fixable warn when it is older or unreadable."""
    label = HOSTS[installed.host]
    command = " && ".join(" ".join(argv) for argv in refresh_commands(installed))
    fix = f'POST /v1/doctor/fix {{"id": "{check_id(installed.host)}"}}'
    repair = f"repair: {fix}, or run `{command}`; then restart {label}"
    cached, current = parse_version(installed.version), parse_version(package_version)
    if cached is None:
        return Verdict("warn", f"{label}'s plugin cache names no readable version ({repair})", True)
    if current is not None and cached < current:
        return Verdict(
            "warn",
            f"{label} runs the plugin from a cached copy at {installed.version}, older than memesh {package_version}: "
            f"its hooks and manifests are the old ones ({repair})",
            True,
        )
    return Verdict("pass", f"{label}'s plugin cache is at {installed.version} (memesh {package_version})", False)


# Claude Code (2.1.332, read from its code and seen running it) remembers a plugin MCP server that failed to connect
# in `<config>/mcp-needs-auth-cache.json` under "plugin:<plugin>:<server>" with a millisecond timestamp, and skips the
# server for 15 minutes ("Skipping connection (recent failure cached ...)"): every session started meanwhile lacks
# its tools while the hooks keep running.
FAILURE_CACHE_SECONDS: Final = 15 * 60
CONNECTION_CHECK: Final = "mcp-connection-claude-code"


@dataclass(frozen=True)
class CachedFailure:
    """One failed connection Claude Code remembers: the server's key in its cache, and when it failed."""

    server: str
    at: datetime


def live_failures(failures: list[CachedFailure], now: datetime) -> list[CachedFailure]:
    """The remembered failures Claude Code still acts on (younger than its 15 minutes)."""
    return [found for found in failures if timedelta(0) <= now - found.at < timedelta(seconds=FAILURE_CACHE_SECONDS)]


def connection_verdict(failures: list[CachedFailure], now: datetime) -> Verdict | None:
    """A fixable warn while Claude Code skips MeMesh's server after a failed connection; None when it does not."""
    live = live_failures(failures, now)
    if not live:
        return None
    newest = max(found.at for found in live)
    until = newest + timedelta(seconds=FAILURE_CACHE_SECONDS)
    servers = ", ".join(sorted(f'"{found.server}"' for found in live))
    return Verdict(
        "warn",
        f"Claude Code failed to connect to MeMesh's MCP server at {newest:%H:%M:%S} UTC and skips it until "
        f"{until:%H:%M:%S} UTC, so sessions started before then have no MeMesh tools (the hooks still run) — "
        f"repair: `memesh doctor --fix {CONNECTION_CHECK}` (or POST /v1/doctor/fix "
        f'{{"id": "{CONNECTION_CHECK}"}}), which removes {servers} from mcp-needs-auth-cache.json in Claude '
        "Code's config folder; then start a new session",
        True,
    )
