"""What the install and its hosts on this machine are, for doctor, setup, feedback and the update notice: config.json,
the update cache and the package index, the install's id and console scripts, the hook records, Claude Code's
settings and the other hosts' config files, the plugin caches. One of the factories `Resources` is made of."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memesh.app.resource_core import ResourceCore

if TYPE_CHECKING:
    from memesh.adapters.update_check import CacheFile
    from memesh.core.plugin_cache import CachedFailure, Installed
    from memesh.core.update import Channel
    from memesh.ops.settings import ConfigFile
    from memesh.ops.setup import ClaudeSettingsFile, HostConfigFiles


class InstallFactory(ResourceCore):
    """The install and its hosts' files, each built on first use."""

    @property
    def config_file(self) -> ConfigFile:
        """config.json in the MeMesh folder (read, updated owner-only, and what is in effect with the environment)."""
        from memesh.adapters import config_file

        return config_file

    @property
    def update_cache(self) -> CacheFile:
        """The last update check's outcome, kept in the MeMesh folder."""
        from memesh.adapters.update_check import CacheFile

        return CacheFile()

    def install_channel(self) -> Channel:
        """How this copy of memesh was installed (pipx, a virtualenv, a source checkout, …)."""
        from memesh.adapters.update_check import install_channel

        return install_channel()

    def issue_tracker(self) -> str | None:
        """Where this distribution takes issue reports (its declared `Issues` URL), None when it names none."""
        from memesh.adapters.update_check import issue_tracker

        return issue_tracker()

    def install_id(self) -> str:
        """This installation's anonymous id (made on first use)."""
        from memesh.adapters.install_id import install_id

        return install_id()

    def resident_state(self) -> str:
        """What the resident server of this database is doing: running, off or not started (memesh.resident)."""
        from memesh import resident

        return resident.state(self.settings.environment)

    def hook_records(self) -> list[dict[str, Any]]:
        """The newest hook-outcome records beside the database, oldest first."""
        from memesh.adapters.hook_outcomes import FILENAME, read_records

        return read_records(self.settings.database_file.parent / FILENAME)

    def hook_heartbeats(self) -> tuple[str | None, dict[str, str]]:
        """(when hook tracking began, each hook event's last run) from the heartbeats beside the database."""
        from memesh.adapters.hook_outcomes import HEARTBEATS, read_heartbeats

        return read_heartbeats(self.settings.database_file.parent / HEARTBEATS)

    def entry_point(self, name: str) -> str | None:
        """The absolute path of one of this install's console scripts, or None when it is not installed."""
        from memesh.adapters.claude_settings_file import entry_point

        return entry_point(name)

    @property
    def claude_settings(self) -> ClaudeSettingsFile:
        """Claude Code's user settings file: its path, its text, and its atomic replacement."""
        from memesh.adapters import claude_settings_file

        return claude_settings_file

    @property
    def host_files(self) -> HostConfigFiles:
        """Copilot CLI's and Cursor's config files: where they are, their text, and their atomic replacement."""
        from memesh.adapters import host_config_files

        return host_config_files

    def data_folder(self) -> Path:
        """MeMesh's own folder on this machine (MEMESH_DIR, else ~/.memesh)."""
        from memesh import paths

        return paths.memesh_dir()

    def plugin_caches(self) -> list[Installed]:
        """The MeMesh plugin as each host that has it cached has it."""
        from memesh.adapters.plugin_cache import discover

        return discover()

    def mcp_failures(self) -> list[CachedFailure]:
        """The failed connections to MeMesh's MCP server that Claude Code remembers and may still act on."""
        from memesh.adapters.plugin_cache import failed_connections

        return failed_connections()

    def forget_mcp_failures(self) -> str | None:
        """Make Claude Code forget them; None when done, else why it could not."""
        from memesh.adapters.plugin_cache import forget_failed_connections

        try:
            forget_failed_connections()
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    def refresh_plugin_cache(self, commands: list[list[str]]) -> str | None:
        """Run a host's updater commands in order; None when they all succeeded, else which one failed and why."""
        from memesh.adapters.plugin_cache import UpdaterError, run_updater

        try:
            run_updater(commands)
        except UpdaterError as exc:
            return str(exc)
        return None
