"""`memesh config list|get|set|unset` once parsed: the settings entries through the door (`set` through the one
POST /v1/config applies, its text parsed to the key's JSON type first), printed as the spec words them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from returns.result import Failure, Success

from memesh import jsontext
from memesh.app.operations import settings as entries
from memesh.core import settings
from memesh.transports.cli.actions.memory import run_op
from memesh.transports.cli.exits import FAILED, OK, fail


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def _shown_path(file: str) -> str:
    path = Path(file)
    try:
        return f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        return file


def _value(value: Any) -> str:
    return value if isinstance(value, str) else jsontext.dumps(value, ensure_ascii=False)


def _known(key: str) -> bool:
    # The words the spec gives an unknown key, on stderr, before anything is read.
    if key in settings.KEYS:
        return True
    _err(f"Unknown key: {key}")
    _err(f"Allowed keys: {', '.join(sorted(settings.KEYS))}")
    return False


def _listed() -> dict[str, Any] | None:
    match run_op(entries.CONFIG_LIST, {}):
        case Success(listed):
            return dict(listed)
        case Failure(error):
            fail(error, as_json=False)
    return None


def list_settings() -> int:
    """Every stored key `set` accepts, sorted; briefing, sessionLimit and recallMode always, as the value in effect."""
    listed = _listed()
    if listed is None:
        return FAILED
    rows = {key: _value(value) for key, value in listed["stored"].items()}
    print(f"Configuration ({_shown_path(listed['file'])}):")
    if not rows:
        print("  (nothing stored — all defaults)")
    rows.update(listed["effective"])
    for key in sorted(rows):
        print(f"  {key}: {rows[key]}")
    return OK


def get_setting(key: str) -> int:
    """One stored value as `list` shows it, except briefing (what is stored, not what is in effect)."""
    if not _known(key):
        return FAILED
    listed = _listed()
    if listed is None:
        return FAILED
    if key not in listed["stored"]:
        print(f"{key} is not set in config.json")
    elif key == "sessionLimit":
        print(listed["effective"]["sessionLimit"])
    else:
        print(_value(listed["stored"][key]))
    return OK


def set_setting(key: str, raw: str) -> int:
    """Validate and store one value; an invalid one is refused with the accepted values named."""
    if not _known(key):
        return FAILED
    value, problem = settings.parse_cli_value(key, raw)
    if problem is not None:
        _err(f"Error: {problem}")
        return FAILED
    match run_op(entries.CONFIG_UPDATE, {key: value}):
        case Failure(error):
            return fail(error, as_json=False)
        case Success(_):
            pass
    print(f"✅ Set {key} = {_value(value)}")
    return OK


def unset_setting(key: str) -> int:
    """Remove one stored value; a key that was not stored is no change (exit 0)."""
    if not _known(key):
        return FAILED
    match run_op(entries.CONFIG_UNSET, {"key": key}):
        case Failure(error):
            return fail(error, as_json=False)
        case Success(out) if not out["removed"]:
            print(f"(no change — {key} was not set)")
        case Success(_):
            print(f"✅ Removed {key}")
    return OK
