"""config.json in the MeMesh folder: read, write (owner-only), and what is in effect with the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

from memesh import jsontext, paths
from memesh.core import settings
from memesh.errors import BrokenFile
from memesh.settings import FILENAME, ConfigUnreadable, read_config

ENV = settings.ENV


class ConfigError(BrokenFile):
    """config.json exists but is not a settings object: writing would silently drop what is in it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path} {problem}", f"{FILENAME} {problem}")


def config_path() -> Path:
    return paths.memesh_dir() / FILENAME


def read_raw() -> dict[str, Any]:
    """Everything stored in config.json now (unknown keys included); {} when there is no file. Read through the one
    reader of the file (memesh.settings.read_config), as it is when a process's settings are loaded."""
    try:
        return read_config(paths.memesh_dir())
    except ConfigUnreadable as exc:
        raise ConfigError(config_path(), exc.problem) from exc


def write_raw(values: dict[str, Any]) -> None:
    """Replace config.json atomically, mode 0600 in a 0700 folder; keys this version does not know are kept."""
    path = config_path()
    paths.ensure_private_dir(path.parent)
    temporary = path.with_name(f".{FILENAME}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsontext.dumps(values, indent=2, ensure_ascii=False))
    temporary.replace(path)


def update(changes: dict[str, Any], removals: tuple[str, ...] = ()) -> dict[str, Any]:
    """Apply `changes` and remove `removals` in one read-modify-write; returns the whole stored object."""
    values = read_raw()
    values.update(changes)
    for key in removals:
        values.pop(key, None)
    write_raw(values)
    return values


def backup(stamp: str) -> Path:
    """A byte-for-byte copy of config.json beside it (`config.json.bak-<stamp>`, owner-only); OSError when there is
    no file to copy or the copy cannot be written."""
    path = config_path()
    copy = path.with_name(f"{FILENAME}.bak-{stamp}")
    copy.write_bytes(path.read_bytes())
    copy.chmod(0o600)
    return copy


# `env`: the caller's environment variables (a hook served by a warm memesh-mcp passes its client's); None reads
# this process's.
def effective_briefing(stored: dict[str, Any], env: Mapping[str, str] | None = None) -> settings.Effective:
    return settings.briefing(stored, (os.environ if env is None else env).get(ENV["briefing"]))


def effective_session_limit(stored: dict[str, Any], env: Mapping[str, str] | None = None) -> settings.Effective:
    return settings.session_limit(stored, (os.environ if env is None else env).get(ENV["sessionLimit"]))


def effective_recall_mode(stored: dict[str, Any], env: Mapping[str, str] | None = None) -> settings.RecallModeSetting:
    return settings.recall_mode(stored, (os.environ if env is None else env).get(ENV["recallMode"]), _semantic_missing)


def _semantic_missing() -> str | None:
    from memesh.adapters.embedding import missing_reason  # asked only when hybrid is asked for

    return missing_reason()


def effective_auto_capture(stored: dict[str, Any], env: Mapping[str, str] | None = None) -> bool:
    return settings.auto_capture(stored, (os.environ if env is None else env).get(ENV["autoCapture"]))


def read_or_defaults() -> dict[str, Any]:
    """What config.json holds, or {} (every default) when it is missing or unreadable: for readers that must not
    fail on a broken file, such as the hooks and the briefing."""
    try:
        return read_raw()
    except ConfigError:
        return {}
