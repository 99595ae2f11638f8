"""`memesh config list|get|set|unset` once parsed: config.json through memesh.adapters.config_file, values through
the settings rules (memesh.core.settings decides what a valid value is and what is in effect)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from returns.result import Failure, Success

from memesh import jsontext
from memesh.adapters import config_file as config
from memesh.core import settings
from memesh.transports.cli.exits import FAILED, OK

# Shown as the value in effect (and where it comes from), because an environment variable can override either.
_EFFECTIVE = {"briefing": config.effective_briefing, "sessionLimit": config.effective_session_limit}


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def _shown_path() -> str:
    path = config.config_path()
    try:
        return f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        return str(path)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else jsontext.dumps(value, ensure_ascii=False)


def _known(key: str) -> bool:
    if key in settings.KEYS:
        return True
    _err(f"Unknown key: {key}")
    _err(f"Allowed keys: {', '.join(sorted(settings.KEYS))}")
    return False


def _stored() -> dict[str, Any] | None:
    try:
        return config.read_raw()
    except config.ConfigError as exc:
        _err(f"Error: {exc}. Fix or remove the file, then retry.")
        return None


def _write(changes: dict[str, Any], removals: tuple[str, ...] = ()) -> bool:
    try:
        config.update(changes, removals)
    except config.ConfigError as exc:
        _err(f"Error: refusing to modify config.json: {exc}. Fix or remove the file, then retry.")
        return False
    except OSError as exc:
        _err(f"Error: cannot write {_shown_path()} ({exc.strerror or type(exc).__name__}).")
        return False
    return True


def list_settings() -> int:
    """Every stored key `set` accepts, sorted; briefing and sessionLimit always, as the value in effect."""
    stored = _stored()
    if stored is None:
        return FAILED
    rows = {key: _value(stored[key]) for key in settings.KEYS if key in stored}
    print(f"Configuration ({_shown_path()}):")
    if not rows:
        print("  (nothing stored — all defaults)")
    rows.update({key: effective(stored).row for key, effective in _EFFECTIVE.items()})
    for key in sorted(rows):
        print(f"  {key}: {rows[key]}")
    return OK


def get_setting(key: str) -> int:
    """One stored value as `list` shows it, except briefing (what is stored, not what is in effect)."""
    if not _known(key):
        return FAILED
    stored = _stored()
    if stored is None:
        return FAILED
    if key not in stored:
        print(f"{key} is not set in config.json")
    elif key == "sessionLimit":
        print(config.effective_session_limit(stored).row)
    else:
        print(_value(stored[key]))
    return OK


def set_setting(key: str, raw: str) -> int:
    """Validate and store one value; an invalid one is refused with the accepted values named."""
    if not _known(key):
        return FAILED
    value, problem = settings.parse_cli_value(key, raw)
    if problem is not None:
        _err(f"Error: {problem}")
        return FAILED
    from memesh.app import gate

    match gate.admit("http/config.input", {key: value}):  # the rules POST /v1/config applies
        case Failure(error):
            _err(f"Error: {error.message}")
            return FAILED
        case Success(admitted):
            value = admitted[key]
    if not _write({key: value}):
        return FAILED
    print(f"✅ Set {key} = {_value(value)}")
    return OK


def unset_setting(key: str) -> int:
    """Remove one stored value; a key that was not stored is no change (exit 0)."""
    if not _known(key):
        return FAILED
    stored = _stored()
    if stored is None:
        return FAILED
    if key not in stored:
        print(f"(no change — {key} was not set)")
        return OK
    if not _write({}, removals=(key,)):
        return FAILED
    print(f"✅ Removed {key}")
    return OK
