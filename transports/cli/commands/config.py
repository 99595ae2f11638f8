"""Declaration of `memesh config list|get|set|unset`: owner settings in config.json (the work: actions/config.py)."""

from __future__ import annotations

from typing import Annotated

from cyclopts import App, Parameter

from memesh.core.settings import KEYS

config = App(name="config", help="Owner-local settings in ~/.memesh/config.json: list, get, set, unset.")

Key = Annotated[str, Parameter(help=f"One of: {', '.join(sorted(KEYS))}.")]


@config.command(name="list")
def list_() -> int:
    """Every stored setting, one `key: value` line each; briefing, sessionLimit and recallMode as in effect."""
    from memesh.transports.cli.actions import config as config_actions

    return config_actions.list_settings()


@config.command
def get(key: Key, /) -> int:
    """One stored setting (briefing: what is stored, not the level in effect)."""
    from memesh.transports.cli.actions import config as config_actions

    return config_actions.get_setting(key)


@config.command(name="set")
def set_(key: Key, value: str, /) -> int:
    """Validate and store a setting; an invalid value is refused with the accepted ones named.

    Parameters
    ----------
    value
        The value to store.
    """
    from memesh.transports.cli.actions import config as config_actions

    return config_actions.set_setting(key, value)


@config.command
def unset(key: Key, /) -> int:
    """Remove a stored setting (its default, or an environment variable, applies again)."""
    from memesh.transports.cli.actions import config as config_actions

    return config_actions.unset_setting(key)
