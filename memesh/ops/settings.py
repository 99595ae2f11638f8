"""Owner settings as operations: read what is stored, apply a validated partial update (HTTP /v1/config)."""

from __future__ import annotations

from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.core import settings
from memesh.errors import BrokenFile, ErrorCode, MemeshError
from memesh.generated.http.config_input import ConfigUpdate
from memesh.generated.http.config_output import StoredConfig


class ConfigFile(Protocol):
    """Where the owner settings are kept (memesh.adapters.config_file: config.json); BrokenFile when unusable."""

    def read_raw(self) -> dict[str, Any]: ...
    def update(self, changes: dict[str, Any], removals: tuple[str, ...] = ()) -> dict[str, Any]: ...


def read_config(config: ConfigFile) -> Result[StoredConfig, MemeshError]:
    """The supported settings as stored; Failure(server.internal) when config.json is unreadable."""
    try:
        stored = config.read_raw()
    except BrokenFile as exc:  # the file on this machine is broken, not the request: no path in the answer
        return Failure(MemeshError(ErrorCode.INTERNAL, f"{exc.problem}. Fix or remove it, then retry."))
    return Success(cast(StoredConfig, settings.readable(stored)))


def update_config(config: ConfigFile, request: ConfigUpdate) -> Result[StoredConfig, MemeshError]:
    """Store the fields given (others preserved) and return what is stored; refuses to touch an unreadable file."""
    try:
        stored = config.update(dict(request))
    except BrokenFile as exc:
        return Failure(
            MemeshError.failed(f"Refusing to modify config.json: {exc.problem}. Fix or remove the file, then retry.")
        )
    return Success(cast(StoredConfig, settings.readable(stored)))
