"""No module under memesh/ops or memesh/core names a host (issue 37): what a host is lives in memesh/hosts, one
module per host, and an operation reads what the host can do from its canonical input. The installers and their
checks write and read one host's own files, so they are named here, each with what it installs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A host's name, as a word (host ids included: claude-code, gemini-cli): the pagination cursor of the message tool is
# not the host, so Cursor is matched as the product's name, capitalised.
HOST_NAMES = re.compile(r"(?i:\b(?:claude|codex|gemini|copilot)\b)|\bCursor\b")
INSTALLERS = {
    "memesh/ops/setup.py": "memesh setup: Claude Code's settings and plugin, the MCP commands of each host",
    "memesh/ops/doctor.py": "memesh doctor: checks what setup installed in each host",
    "memesh/core/claude_settings.py": "the hooks entries setup writes into Claude Code's settings.json",
    "memesh/core/host_setup.py": "the hooks and MCP entries setup writes into Copilot CLI's and Cursor's files",
    "memesh/core/plugin_cache.py": "the plugin caches of the hosts that install MeMesh's plugin",
}


def _named(path: Path) -> list[str]:
    return [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HOST_NAMES.search(line)
    ]


def test_no_operation_or_core_module_names_a_host() -> None:
    found = [
        hit
        for folder in ("memesh/ops", "memesh/core")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.relative_to(ROOT).as_posix() not in INSTALLERS
        for hit in _named(path)
    ]
    assert found == []


def test_the_check_finds_a_host_named_where_it_looks() -> None:
    assert HOST_NAMES.search('if host == "claude-code":')
    assert HOST_NAMES.search("# Gemini CLI's events")
    assert HOST_NAMES.search("under Cursor, a refusal")
    assert HOST_NAMES.search("return ctx.source_host != 'codex'")
    assert not HOST_NAMES.search('scope = store.cursor_scope(fields["cursor"])')


def test_every_named_installer_is_still_there() -> None:
    assert all((ROOT / path).is_file() for path in INSTALLERS)
