"""memesh.core.host_setup: the merge of Copilot CLI's and Cursor's JSON files, over free-text foreign entries."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.core import host_setup

HOOK = "/venv/bin/memesh-hook"
MCP = "/venv/bin/memesh-mcp"
HOSTS = (host_setup.COPILOT, host_setup.CURSOR)

events = st.sampled_from(["sessionStart", "agentStop", "afterShellExecution", "preToolUse", "somethingElse"])
foreign_entry = st.fixed_dictionaries({"command": st.text(max_size=40).filter(lambda c: "memesh-hook" not in c)})
foreign_hooks = st.dictionaries(events, st.lists(foreign_entry, min_size=1, max_size=3), max_size=4)
foreign_servers = st.dictionaries(
    st.text(min_size=1, max_size=12).filter(lambda name: name != "memesh"),
    st.fixed_dictionaries({"command": st.text(max_size=30)}),
    max_size=3,
)


@given(host=st.sampled_from(HOSTS), hooks=foreign_hooks, extra=st.text(max_size=20))
def test_install_keeps_foreign_hooks_is_idempotent_and_uninstall_restores_them(
    host: str, hooks: dict[str, Any], extra: str
) -> None:
    text = json.dumps({"version": 1, "hooks": hooks, "note": extra})
    first = host_setup.hooks_edit(text, "f", host, HOOK)
    assert first.changed
    assert host_setup.hooks_state(first.text, host, HOOK) == "ok"
    written = json.loads(first.text)
    assert written["note"] == extra
    for event, entries in hooks.items():
        assert written["hooks"][event][: len(entries)] == entries
    assert host_setup.hooks_edit(first.text, "f", host, HOOK) == host_setup.Edit(first.text, False)
    assert host_setup.hooks_state(first.text, host, "/other/memesh-hook") == "stale"
    back = host_setup.hooks_edit(first.text, "f", host, HOOK, uninstall=True)
    assert json.loads(back.text)["hooks"] == hooks


@given(host=st.sampled_from(HOSTS), servers=foreign_servers)
def test_the_memesh_server_is_added_beside_foreign_ones_once(host: str, servers: dict[str, Any]) -> None:
    text = json.dumps({"mcpServers": servers})
    first = host_setup.mcp_edit(text, "m", host, MCP)
    merged = json.loads(first.text)["mcpServers"]
    assert {k: v for k, v in merged.items() if k != "memesh"} == servers
    assert host_setup.mcp_state(first.text, MCP) == "ok" and host_setup.mcp_state(first.text, "/x") == "stale"
    assert not host_setup.mcp_edit(first.text, "m", host, MCP).changed
    assert json.loads(host_setup.mcp_edit(first.text, "m", host, MCP, uninstall=True).text)["mcpServers"] == servers


@given(text=st.text(max_size=60))
def test_text_that_is_not_a_json_object_is_refused(text: str) -> None:
    try:
        parsed = json.loads(text) if text.strip() else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return  # a JSON object is merged, not refused (the cases above)
    with pytest.raises(host_setup.ConfigError):
        host_setup.hooks_edit(text, "f", host_setup.CURSOR, HOOK)
    with pytest.raises(host_setup.ConfigError):
        host_setup.mcp_edit(text, "m", host_setup.COPILOT, MCP)


def test_hooks_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(host_setup.ConfigError, match="`hooks`"):
        host_setup.hooks_edit('{"hooks": []}', "f", host_setup.CURSOR, HOOK)


def test_an_empty_file_is_written_fresh_and_reads_as_absent() -> None:
    assert host_setup.hooks_state("", host_setup.COPILOT, HOOK) == "absent"
    assert host_setup.mcp_state("", MCP) == "absent"
    fresh = host_setup.hooks_edit("", "f", host_setup.COPILOT, HOOK).text
    assert host_setup.installed_events(fresh, "copilot-cli") == [
        "sessionStart",
        "preToolUse",
        "postToolUse",
        "agentStop",
    ]


MANAGED = "// User settings belong in settings.json.\n// This file is managed automatically.\n"


def test_a_repository_is_trusted_when_it_or_a_folder_it_is_in_is_listed_under_either_name() -> None:
    assert host_setup.trusts(MANAGED + '{"trustedFolders": ["/work"]}', "/work/repo")
    assert host_setup.trusts('{"trusted_folders": ["/work/repo"]}', "/work/repo")
    assert not host_setup.trusts('{"trustedFolders": ["/work/repo-other", 3]}', "/work/repo")
    assert not host_setup.trusts("", "/work/repo")


def test_trusting_adds_the_repository_once_keeping_the_comment_lines_and_other_keys() -> None:
    text = MANAGED + json.dumps({"trustedFolders": ["/a"], "firstLaunchAt": "x"})
    first = host_setup.trust_edit(text, "c", "/work/repo")
    assert first.changed and first.text.startswith(MANAGED)
    assert json.loads(first.text.removeprefix(MANAGED)) == {
        "trustedFolders": ["/a", "/work/repo"],
        "firstLaunchAt": "x",
    }
    assert host_setup.trust_edit(first.text, "c", "/work/repo") == host_setup.Edit(first.text, False)
    assert json.loads(host_setup.trust_edit("", "c", "/r").text) == {"trustedFolders": ["/r"]}
    # Only the older name present: the repository joins that list, which the CLI reads and renames itself.
    assert json.loads(host_setup.trust_edit('{"trusted_folders": []}', "c", "/r").text) == {"trusted_folders": ["/r"]}
    with pytest.raises(host_setup.ConfigError):
        host_setup.trust_edit('{"trustedFolders": "/r"}', "c", "/x")
    with pytest.raises(host_setup.ConfigError):
        host_setup.trust_edit("// only a comment\n[1]", "c", "/x")
