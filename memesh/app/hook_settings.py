"""The settings a hook event decides by (config.json as the process read it, under the caller's environment) and the
MeMesh folder's files it reads: the channel's hosts file and the capture-liveness records. One of the small
factories `memesh.app.hook_resources.HookResources` is made of; every adapter is imported on first use."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the runner imports hook_resources for its cheap look, and typing costs a hook
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime
    from typing import Any

    from memesh.core.settings import Effective


class HookSettings:
    """What is in effect for the caller: its environment over config.json over the defaults."""

    environment: Mapping[str, str]

    def _stored(self) -> dict[str, Any]:
        raise NotImplementedError  # HookResources: config.json as the process's settings read it

    def auto_capture(self) -> bool:
        """Whether the hooks capture on their own (autoCapture, MEMESH_AUTO_CAPTURE over config.json)."""
        from memesh.adapters import config_file

        return config_file.effective_auto_capture(self._stored(), self.environment)

    def briefing_level(self) -> Effective:
        """The briefing level in effect (MEMESH_BRIEFING over config.json over the default)."""
        from memesh.adapters import config_file

        return config_file.effective_briefing(self._stored(), self.environment)

    def session_limit(self) -> Effective:
        """SessionStart's number of project slots in effect, with why when a value had to be adjusted."""
        from memesh.adapters import config_file

        return config_file.effective_session_limit(self._stored(), self.environment)

    def channel_principal(self) -> str:
        """`principal_id` of the memesh-channel's owner-private hosts/claude.json; "" when there is none."""
        from memesh.adapters.hosts_file import claude_principal

        return claude_principal()

    def liveness_notice(self, now: datetime) -> str | None:
        """SessionStart's banner line when capture has gone quiet (at most once a day, never in the grace period);
        counts this session start toward the grace period."""
        import memesh
        from memesh.adapters import hook_outcomes

        return hook_outcomes.liveness_notice(memesh.__version__, now)
