"""Owner settings (config.json): which keys exist, what a valid value is, and what is in effect. Pure."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from memesh.records import dataclass
from memesh.schema import facts

# What a key is and what a valid value is: the schema of POST /v1/config, the one source for every surface.
_SCHEMA = "http/config_update.input"
KEYS = tuple(sorted(facts.properties(_SCHEMA)))
AUTO_UPDATE = facts.enum(_SCHEMA, "autoUpdate")
BRIEFING_LEVELS = facts.enum(_SCHEMA, "briefing")
DEFAULT_BRIEFING = "minimal"
RECALL_MODES = facts.enum(_SCHEMA, "recallMode")
DEFAULT_RECALL_MODE = "fts"
SESSION_LIMIT_DEFAULT = 10
SESSION_LIMIT_MIN, SESSION_LIMIT_MAX = facts.bounds(_SCHEMA, "sessionLimit")
BOOLEAN_WORDS = {"true": True, "1": True, "false": False, "0": False}
# The environment variable that overrides each key (environment wins over config.json).
ENV = {
    "briefing": "MEMESH_BRIEFING",
    "sessionLimit": "MEMESH_SESSION_LIMIT",
    "autoUpdate": "MEMESH_AUTO_UPDATE",
    "autoCapture": "MEMESH_AUTO_CAPTURE",
    "recallMode": "MEMESH_RECALL_MODE",
}


def readable(stored: Mapping[str, Any]) -> dict[str, Any]:
    """The stored values of known keys as GET /v1/config returns them: type-checked where a wrong type would mislead
    a reader, but `sessionLimit` unranged and `briefing` passed through whatever its JSON type."""
    out: dict[str, Any] = {}
    for key in KEYS:
        if key not in stored:
            continue
        value = stored[key]
        if key in ("autoCapture", "setupCompleted", "daemon") and not isinstance(value, bool):
            continue
        if key == "autoUpdate" and value not in AUTO_UPDATE:
            continue
        if key == "sessionLimit" and (isinstance(value, bool) or not isinstance(value, int | float)):
            continue
        out[key] = value
    return out


def parse_cli_value(key: str, raw: str) -> tuple[Any, str | None]:
    """`memesh config set` text as the JSON value the key's schema types it as (true/false/1/0 for a boolean, a
    whole number for an integer, the text itself otherwise), or why it is none. Whether the value is allowed is the
    gate's call, against the same schema POST /v1/config uses."""
    kind = facts.field(_SCHEMA, key).get("type")
    if kind == "boolean":
        word = raw.strip().lower()
        if word in BOOLEAN_WORDS:
            return BOOLEAN_WORDS[word], None
        return None, f"{key}: must be one of: true, false, 1, 0"
    if kind == "integer":
        text = raw.strip()
        if text.lstrip("-").isdigit() and len(text) <= 18:
            return int(text), None
        low, high = facts.bounds(_SCHEMA, key)
        return None, f'{key}: needs a whole number of {low} to {high}, not "{raw}"'
    return raw, None


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "[array]"
    if isinstance(value, dict):
        return "[object]"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:99] + "…"


@dataclass(frozen=True)
class Effective:
    """A value in effect, the `config list` text that says where it came from, and one reason per source the value
    had to be adjusted from (what the SessionStart hook records; none when nothing was adjusted)."""

    value: Any
    row: str
    adjusted: tuple[str, ...] = ()


def briefing(stored: Mapping[str, Any], env: str | None) -> Effective:
    """The briefing level in effect: MEMESH_BRIEFING, else config.json, else minimal; invalid values say so."""
    if env is not None:
        if env in BRIEFING_LEVELS:
            return Effective(env, f"{env} (env MEMESH_BRIEFING)")
        return Effective(
            DEFAULT_BRIEFING,
            f"{DEFAULT_BRIEFING} (default; the value in env MEMESH_BRIEFING is invalid: {_shown(env)})",
        )
    if "briefing" in stored:
        value = stored["briefing"]
        if value in BRIEFING_LEVELS:
            return Effective(value, f"{value} (config.json)")
        return Effective(
            DEFAULT_BRIEFING, f"{DEFAULT_BRIEFING} (default; the value in config.json is invalid: {_shown(value)})"
        )
    return Effective(DEFAULT_BRIEFING, f"{DEFAULT_BRIEFING} (default)")


@dataclass(frozen=True)
class RecallModeSetting:
    """The recall mode in effect, the one asked for (they differ when hybrid answers as broad), the
    `config list` text that says where it came from, and (hybrid answering as broad) why the extra cannot run."""

    value: str
    requested: str
    row: str
    missing: str | None = None


def recall_mode(
    stored: Mapping[str, Any], env: str | None, semantic_missing: Callable[[], str | None]
) -> RecallModeSetting:
    """The recall mode in effect: MEMESH_RECALL_MODE, else config.json, else fts; invalid values fall back to fts
    and say so. `hybrid` without the semantic extra (`semantic_missing()` says why) answers as `broad`."""
    if env is not None:
        where, asked = "env MEMESH_RECALL_MODE", env
    elif "recallMode" in stored:
        where, asked = "config.json", stored["recallMode"]
    else:
        return RecallModeSetting(DEFAULT_RECALL_MODE, DEFAULT_RECALL_MODE, f"{DEFAULT_RECALL_MODE} (default)")
    if asked not in RECALL_MODES:
        row = f"{DEFAULT_RECALL_MODE} (default; the value in {where} is invalid: {_shown(asked)})"
        return RecallModeSetting(DEFAULT_RECALL_MODE, DEFAULT_RECALL_MODE, row)
    missing = semantic_missing() if asked == "hybrid" else None
    if missing is not None:
        row = f"broad (hybrid from {where}, but {missing}: answering as broad)"
        return RecallModeSetting("broad", asked, row, missing)
    return RecallModeSetting(asked, asked, f"{asked} ({where})")


def _js_number(raw: str) -> float | None:
    """The number JavaScript's Number() reads from an environment string ("" is 0, "0x10" is 16)."""
    text = raw.strip()
    if text == "":
        return 0.0
    try:
        return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
    except ValueError:
        return None


def _limit_problem(value: float | None) -> str | None:
    if value is None or math.isnan(value) or math.isinf(value) or not float(value).is_integer():
        return "above 100" if value == math.inf else "not a whole number"
    if value > SESSION_LIMIT_MAX:
        return "above 100"
    if value < SESSION_LIMIT_MIN:
        return "below 1"
    return None


def _display(value: float | None, raw: Any) -> str:
    if value is None or math.isnan(value):
        return str(raw)
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(int(value)) if float(value).is_integer() else str(value)


def session_limit(stored: Mapping[str, Any], env: str | None) -> Effective:
    """The session limit the SessionStart hook uses (1–100), and why, when an env or stored value was adjusted.

    A valid MEMESH_SESSION_LIMIT wins; above 100 is used as 100; below 1 or not whole falls through to the stored
    value, then to the default 10. A stored value that is no number at all is not a whole number either.
    """
    found = _session_limit_row(stored, env)
    sources = [(f"{shown} from MEMESH_SESSION_LIMIT", problem) for shown, problem in found.env_problem]
    sources += [(f"{shown} in config.json", problem) for shown, problem in found.stored_problem]
    uses = "100" if found.value == SESSION_LIMIT_MAX and found.capped else None
    tail = uses or (f"the default {SESSION_LIMIT_DEFAULT}" if found.defaulted else str(found.value))
    adjusted = tuple(f"{source} ({problem}; the SessionStart hook uses {tail})" for source, problem in sources)
    return Effective(found.value, found.row, adjusted)


@dataclass(frozen=True)
class _LimitFound:
    value: int
    row: str
    env_problem: tuple[tuple[str, str], ...] = ()
    stored_problem: tuple[tuple[str, str], ...] = ()
    capped: bool = False
    defaulted: bool = False


def _stored_limit(raw: Any) -> tuple[float | None, str] | None:
    """The stored sessionLimit as a number and as shown; None when nothing is stored. A value of another JSON type
    is no number (shown as JSON, so a string reads as one)."""
    if raw is None:
        return None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw), _display(float(raw), raw)
    return math.nan, _shown(raw)


def _stored_out_of_range(raw: Any) -> tuple[tuple[str, str], ...]:
    """The stored sessionLimit and why it is out of range, or nothing (none stored, or one in range)."""
    found = _stored_limit(raw)
    if found is None:
        return ()
    problem = _limit_problem(found[0])
    return ((found[1], problem),) if problem is not None else ()


def _session_limit_row(stored: Mapping[str, Any], env: str | None) -> _LimitFound:
    env_problem: tuple[tuple[str, str], ...] = ()
    if env is not None:
        number = _js_number(env)
        problem = _limit_problem(number)
        if problem is None:
            return _LimitFound(int(number or 0), f"{int(number or 0)} (env MEMESH_SESSION_LIMIT)")
        shown = _display(number, env)
        if problem == "above 100":
            # The env value wins (as 100); a stored value out of range too is named as well (issue 35: the spec
            # names both whenever both are out of range), though it is not used.
            ignored = _stored_out_of_range(stored.get("sessionLimit"))
            row = f"{shown} from MEMESH_SESSION_LIMIT (above 100; the SessionStart hook uses 100)"
            if ignored:
                row = f"{shown} from MEMESH_SESSION_LIMIT (above 100), then {ignored[0][0]} ({ignored[0][1]}; the "
                row += "SessionStart hook uses 100)"
            return _LimitFound(SESSION_LIMIT_MAX, row, ((shown, problem),), ignored, capped=True)
        env_problem = ((shown, problem),)
    adjusted = [f"{shown} from MEMESH_SESSION_LIMIT ({problem})" for shown, problem in env_problem]
    found = _stored_limit(stored.get("sessionLimit"))
    stored_problem: tuple[tuple[str, str], ...] = ()
    if found is not None:
        number, shown = found
        problem = _limit_problem(number)
        if problem is None and adjusted:  # the env value is set aside and the stored one applies, in the same form
            value = int(number or 0)
            return _LimitFound(value, f"{adjusted[0][:-1]}; the SessionStart hook uses {value})", env_problem)
        if problem is None:
            return _LimitFound(int(number or 0), f"{int(number or 0)}")
        lead = f"{adjusted[0]}, then " if adjusted else ""
        if problem == "above 100":
            row = f"{lead}{shown} (above 100; the SessionStart hook uses 100)"
            return _LimitFound(SESSION_LIMIT_MAX, row, env_problem, ((shown, problem),), capped=True)
        adjusted.append(f"{shown} ({problem})")
        stored_problem = ((shown, problem),)
    if not adjusted:
        return _LimitFound(SESSION_LIMIT_DEFAULT, f"{SESSION_LIMIT_DEFAULT} (default)")
    text = ", then ".join(adjusted)
    row = f"{text[:-1]}; the SessionStart hook uses the default {SESSION_LIMIT_DEFAULT})"
    return _LimitFound(SESSION_LIMIT_DEFAULT, row, env_problem, stored_problem, defaulted=True)


# What a person sets a switch in the environment to: MEMESH_AUTO_CAPTURE=off is as plain as =false.
SWITCH_WORDS = {**BOOLEAN_WORDS, "on": True, "yes": True, "off": False, "no": False}


def auto_capture(stored: Mapping[str, Any], env: str | None) -> bool:
    """Whether the hooks capture on their own: MEMESH_AUTO_CAPTURE (true/false/1/0/on/off/yes/no), else
    config.json, else on."""
    if env is not None and env.strip().lower() in SWITCH_WORDS:
        return SWITCH_WORDS[env.strip().lower()]
    value = stored.get("autoCapture")
    return value if isinstance(value, bool) else True
