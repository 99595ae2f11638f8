"""Installing MeMesh's hooks into Claude Code's settings.json (for a pip/pipx install without the plugin). Pure.

Only the top-level `hooks` value is rewritten; every other byte of the file stays as the user wrote it. Entries are
recognised as MeMesh's by their command (`…memesh-hook <event>`), so installing twice changes nothing, a newer
install replaces an older one, and uninstalling removes exactly them — other hooks under the same events stay.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public since 2.x, absent from the stubs
from typing import Any

from memesh.core.hook_entries import Edit, is_ours, merged, ours, quote

# Claude Code event → (the memesh-hook event, the tool matcher or None, timeout in seconds)
EVENTS: tuple[tuple[str, str, str | None, int], ...] = (
    ("SessionStart", "session-start", None, 10),
    ("UserPromptSubmit", "user-prompt-submit", None, 10),
    ("Stop", "stop", None, 30),
    ("Stop", "stop-gate", None, 10),  # a separate entry (spec: "a separate Stop hook"), so it can block alone
    ("PreCompact", "pre-compact", None, 30),
    ("PostToolUse", "post-tool-use", "Bash", 15),
    ("PreToolUse", "pre-tool-use", "Read|Edit|Write|MultiEdit|NotebookEdit|Bash", 10),
)


class SettingsError(ValueError):
    """settings.json is not a JSON object (or its hooks are not an object): refusing to rewrite it."""


def _top_level(text: str) -> tuple[dict[str, tuple[int, int, int]], int]:
    """Each top-level key → (start of its key, start of its value, end of its value), and the closing brace's index."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")
    index = ws.match(text, 0).end()  # type: ignore[union-attr]
    if index >= len(text) or text[index] != "{":
        raise SettingsError("settings.json does not hold a JSON object")
    index = ws.match(text, index + 1).end()  # type: ignore[union-attr]
    spans: dict[str, tuple[int, int, int]] = {}
    if index < len(text) and text[index] == "}":
        return spans, index
    while True:
        if index >= len(text) or text[index] != '"':
            raise SettingsError("settings.json is not valid JSON")
        key_start = index
        try:
            key, index = scanstring(text, index + 1)
            index = ws.match(text, index).end()  # type: ignore[union-attr]
            if text[index] != ":":
                raise SettingsError("settings.json is not valid JSON")
            index = ws.match(text, index + 1).end()  # type: ignore[union-attr]
            _, end = decoder.raw_decode(text, index)
        except (ValueError, IndexError) as exc:
            raise SettingsError("settings.json is not valid JSON") from exc
        spans[key] = (key_start, index, end)
        index = ws.match(text, end).end()  # type: ignore[union-attr]
        if index < len(text) and text[index] == ",":
            index = ws.match(text, index + 1).end()  # type: ignore[union-attr]
            continue
        if index < len(text) and text[index] == "}":
            if text[index + 1 :].strip():
                raise SettingsError("settings.json is not valid JSON")
            return spans, index
        raise SettingsError("settings.json is not valid JSON")


def _hooks_of(text: str) -> dict[str, Any]:
    spans, _ = _top_level(text)
    if "hooks" not in spans:
        return {}
    value = json.loads(text[spans["hooks"][1] : spans["hooks"][2]])
    if not isinstance(value, dict):
        raise SettingsError("settings.json has a `hooks` value that is not an object")
    return value


def wanted(hook_command: str) -> dict[str, list[dict[str, Any]]]:
    """MeMesh's hook groups, each running `hook_command <event>`."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event, name, matcher, timeout in EVENTS:
        group: dict[str, Any] = {}
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": f"{quote(hook_command)} {name}", "timeout": timeout}]
        out.setdefault(event, []).append(group)
    return out


def _replace_hooks(text: str, hooks: dict[str, Any]) -> str:
    spans, closing = _top_level(text)
    rendered = json.dumps(hooks, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    if "hooks" in spans:
        key_start, value_start, value_end = spans["hooks"]
        if hooks:
            return text[:value_start] + rendered + text[value_end:]
        # Remove the key with the comma that joined it to a neighbour, so an uninstall restores the original file.
        before = text[:key_start].rstrip()
        after = text[value_end:].lstrip()
        if after.startswith(","):
            return text[:key_start] + after[1:].lstrip()
        if before.endswith(","):
            return before[:-1] + text[value_end:]
        return text[:key_start] + after
    if not hooks:
        return text
    body = text[:closing].rstrip()
    separator = "," if not body.endswith("{") else ""
    return f'{body}{separator}\n  "hooks": {rendered}\n' + text[closing:]


def install(text: str, hook_command: str) -> Edit:
    """settings.json with MeMesh's hooks installed (replacing any older MeMesh entries)."""
    source = text if text.strip() else "{}\n"
    current = _hooks_of(source)
    hooks = merged(current, wanted(hook_command))
    if hooks == current:
        return Edit(text, False)
    return Edit(_replace_hooks(source, hooks), True)


def uninstall(text: str) -> Edit:
    """settings.json without MeMesh's hooks; unchanged text when there were none."""
    if not text.strip():
        return Edit(text, False)
    current = _hooks_of(text)
    cleaned = merged(current, {})
    if cleaned == current:
        return Edit(text, False)
    return Edit(_replace_hooks(text, cleaned), True)


def installed_events(text: str) -> list[str]:
    """The Claude Code events that run a MeMesh hook, per this settings text."""
    if not text.strip():
        return []
    hooks = _hooks_of(text)
    return [
        event
        for event, groups in hooks.items()
        if isinstance(groups, list)
        and any(
            isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(e) for e in g["hooks"])
            for g in groups
        )
    ]


def installed_hooks(text: str) -> set[str]:
    """The MeMesh hooks (session-start, stop, stop-gate, …) this settings text runs, each under the event it
    belongs to: Stop carries two (stop and stop-gate), so counting events can never reach every hook."""
    if not text.strip():
        return set()
    expected = {name: event for event, name, _, _ in EVENTS}
    found: set[str] = set()
    for event, groups in _hooks_of(text).items():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                name = ours(entry)
                if name is not None and expected.get(name) == event:
                    found.add(name)
    return found


def duplicated_hooks(text: str) -> list[str]:
    """The MeMesh hooks this settings text runs more than once (each run would inject or capture twice)."""
    if not text.strip():
        return []
    counts: dict[str, int] = {}
    for groups in _hooks_of(text).values():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                name = ours(entry)
                if name is not None:
                    counts[name] = counts.get(name, 0) + 1
    return sorted(name for name, count in counts.items() if count > 1)


def plugin_disabled(text: str, plugin: str) -> bool:
    """Whether this settings text turns the plugin off (`enabledPlugins: {"memesh@…": false}`): installed, its hooks
    then do not run."""
    if not text.strip():
        return False
    spans, _ = _top_level(text)
    if "enabledPlugins" not in spans:
        return False
    try:
        enabled = json.loads(text[spans["enabledPlugins"][1] : spans["enabledPlugins"][2]])
    except ValueError:
        return False
    return isinstance(enabled, dict) and enabled.get(plugin) is False
