"""Owner settings as operations: read what is stored, apply a validated partial update, remove one key — the one
write path to config.json for every surface (GET/POST /v1/config, `memesh config`, `memesh setup`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import settings
from memesh.errors import BrokenFile, ErrorCode, MemeshError
from memesh.generated.cli.config_list_input import ConfigListInput
from memesh.generated.cli.config_list_output import ConfigListOutput
from memesh.generated.cli.config_unset_input import ConfigUnsetInput
from memesh.generated.cli.config_unset_output import ConfigUnsetOutput
from memesh.generated.http.config_input import ConfigInput
from memesh.generated.http.config_output import ConfigOutput
from memesh.generated.http.config_update_input import ConfigUpdate
from memesh.generated.http.config_update_output import StoredConfig


class ConfigFile(Protocol):
    """Where the owner settings are kept (memesh.adapters.config_file: config.json); BrokenFile when unusable."""

    def config_path(self) -> Path: ...
    def read_raw(self) -> dict[str, Any]: ...
    def update(self, changes: dict[str, Any], removals: tuple[str, ...] = ...) -> dict[str, Any]: ...
    def effective_briefing(self, stored: dict[str, Any], env: Mapping[str, str] | None = ...) -> settings.Effective: ...
    def effective_session_limit(
        self, stored: dict[str, Any], env: Mapping[str, str] | None = ...
    ) -> settings.Effective: ...
    def effective_auto_capture(self, stored: dict[str, Any], env: Mapping[str, str] | None = ...) -> bool: ...
    def effective_recall_mode(
        self, stored: dict[str, Any], env: Mapping[str, str] | None = ...
    ) -> settings.RecallModeSetting: ...
    def backup(self, stamp: str) -> Path: ...


def _unreadable(exc: BrokenFile) -> MemeshError:
    # The file on this machine is broken, not the request: no path in the answer (it may leave the machine).
    return MemeshError(ErrorCode.INTERNAL, f"{exc.problem}. Fix or remove it, then retry.")


def _written(config: ConfigFile, changes: dict[str, Any], removals: tuple[str, ...] = ()) -> Result[Any, MemeshError]:
    try:
        return Success(config.update(changes, removals))
    except BrokenFile as exc:
        return Failure(
            MemeshError.failed(f"Refusing to modify config.json: {exc.problem}. Fix or remove the file, then retry.")
        )
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return Failure(MemeshError(ErrorCode.INTERNAL, f"cannot write config.json ({reason})"))


def read_config(config: ConfigFile, _request: ConfigInput, /, *, ctx: CallContext) -> Result[ConfigOutput, MemeshError]:
    """`{config: <the supported settings as stored>, effective: <the ones in effect>}`; Failure(server.internal)
    when config.json is unreadable."""
    try:
        stored = config.read_raw()
    except BrokenFile as exc:
        return Failure(_unreadable(exc))
    effective = {
        "autoCapture": config.effective_auto_capture(stored, ctx.environment),
        "sessionLimit": config.effective_session_limit(stored, ctx.environment).value,
        "briefing": config.effective_briefing(stored, ctx.environment).value,
        "recallMode": config.effective_recall_mode(stored, ctx.environment).value,
    }
    return Success({"config": cast(Any, settings.readable(stored)), "effective": cast(Any, effective)})


def update_config(
    config: ConfigFile, request: ConfigUpdate, /, *, ctx: CallContext
) -> Result[StoredConfig, MemeshError]:
    """Store the fields given (others preserved) and return what is stored; Failure(operation.failed) rather than
    touch an unreadable file, Failure(server.internal) when the file cannot be written."""
    return _written(config, dict(request)).map(lambda stored: cast(StoredConfig, settings.readable(stored)))


def list_config(
    config: ConfigFile, _request: ConfigListInput, /, *, ctx: CallContext
) -> Result[ConfigListOutput, MemeshError]:
    """Every known key stored in config.json as written, and the briefing level, session limit and recall mode in
    effect (the environment can override each); Failure(server.internal) when config.json is unreadable."""
    try:
        stored = config.read_raw()
    except BrokenFile as exc:
        return Failure(_unreadable(exc))
    return Success(
        {
            "file": str(config.config_path()),
            "stored": cast(Any, {key: stored[key] for key in settings.KEYS if key in stored}),
            "effective": {
                "briefing": config.effective_briefing(stored, ctx.environment).row,
                "sessionLimit": config.effective_session_limit(stored, ctx.environment).row,
                "recallMode": config.effective_recall_mode(stored, ctx.environment).row,
            },
        }
    )


def unset_config(
    config: ConfigFile, request: ConfigUnsetInput, /, *, ctx: CallContext
) -> Result[ConfigUnsetOutput, MemeshError]:
    """Remove one stored key (`removed: false` when it was not stored: no change); failures as `update_config`."""
    key = request["key"]
    try:
        stored = config.read_raw()
    except BrokenFile as exc:
        return Failure(_unreadable(exc))
    if key not in stored:
        return Success({"key": key, "removed": False})
    return _written(config, {}, (key,)).map(lambda _: {"key": key, "removed": True})
