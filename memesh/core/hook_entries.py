"""MeMesh's entries in a host's hooks object, merged in and out beside the user's own: the one rule every installer
follows (claude_settings, whose events hold groups of entries; host_setup, whose events hold the entries). Pure.

An entry is MeMesh's by its command (`…memesh-hook <event>`, under `command`, or `bash` as one host names it):
installing drops MeMesh's entries and appends the wanted ones, so installing twice changes nothing and a newer
install replaces an older one's path; uninstalling drops exactly them. Every other entry, event and value stays.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memesh.records import dataclass

# The memesh-hook events, as the end of an entry's command names them.
_OURS = re.compile(
    r"memesh-hook[\"']?\s+(session-start|user-prompt-submit|stop|stop-gate|pre-compact|post-tool-use|pre-tool-use)\s*$"
)


@dataclass(frozen=True)
class Edit:
    """A file's new text, and whether it differs from what was read."""

    text: str
    changed: bool


def quote(path: str) -> str:
    """A command path as a shell reads it back whole (quoted when it holds a space, quote, `$`, backtick or `\\`)."""
    return f'"{path}"' if re.search(r"[\s\"'$`\\]", path) else path


def command_of(entry: Any) -> str | None:
    """The command an entry runs (`bash`, else `command`), or None."""
    if not isinstance(entry, dict):
        return None
    found = entry.get("bash", entry.get("command"))
    return found if isinstance(found, str) else None


def ours(entry: Any) -> str | None:
    """The memesh-hook event an entry runs, or None for an entry that is not MeMesh's."""
    command = command_of(entry)
    found = _OURS.search(command) if command is not None else None
    return found.group(1) if found else None


def is_ours(entry: Any) -> bool:
    return ours(entry) is not None


def without_ours(hooks: Mapping[str, Any]) -> dict[str, Any]:
    """`hooks` (event → its list) without MeMesh's entries. An entry of the list that is MeMesh's is dropped; a
    group of entries (`{"matcher": …, "hooks": […]}`) loses MeMesh's and is dropped when it held only
    those; an event whose list is emptied so is dropped, while one the user left empty stays, as does a value that
    is not a list."""
    cleaned: dict[str, Any] = {}
    for event, items in hooks.items():
        if not isinstance(items, list):
            cleaned[event] = items
            continue
        kept: list[Any] = []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("hooks"), list):
                inner = [each for each in item["hooks"] if not is_ours(each)]
                if inner or not item["hooks"]:
                    kept.append({**item, "hooks": inner})
            elif not is_ours(item):
                kept.append(item)
        if kept or not items:
            cleaned[event] = kept
    return cleaned


def merged(hooks: Mapping[str, Any], wanted: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """`hooks` with MeMesh's entries replaced by `wanted` (event → the items to append after the user's own);
    uninstalling is merging nothing."""
    result = without_ours(hooks)
    for event, items in wanted.items():
        existing = result.get(event)
        result[event] = [*(existing if isinstance(existing, list) else []), *items]
    return result
