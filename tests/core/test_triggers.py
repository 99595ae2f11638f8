"""The triggers the hook runner tells before it imports anything else, from the canonical input a host's module made:
a shell command that is not a commit, a session that can name no recipient, a host the Stop gate does not hold turns
under."""

from __future__ import annotations

import pytest

from memesh import hosts
from memesh.core import triggers


@pytest.mark.parametrize(
    ("payload", "plainly"),
    [
        ({"tool_name": "Bash", "tool_input": {"command": "ls"}}, True),
        ({"tool_name": "Edit", "tool_input": {"file_path": "a"}}, True),
        ({"tool_name": "Bash", "tool_input": {"command": "git add . && git commit -m x"}}, False),
        ({"tool_name": "Bash", "tool_input": "ls"}, False),  # malformed: the gate says what is wrong
        ({"tool_input": {"command": "ls"}}, False),
        ({"tool_name": "", "tool_input": {}}, False),
    ],
)
def test_only_a_well_formed_call_that_is_not_a_commit_leaves_before_the_door(
    payload: dict[str, object], plainly: bool
) -> None:
    canonical, _ = hosts.module("claude-code").normalize("post-tool-use", payload)
    assert triggers.plainly_not_a_commit(canonical) is plainly


def _host(name: str | None) -> dict[str, bool]:
    return dict((hosts.module(name) if name else hosts.fallback()).CAPABILITIES)


@pytest.mark.parametrize(
    ("environment", "host", "channel", "may"),
    [
        ({}, "claude-code", False, False),
        ({}, "claude-code", True, True),  # the memesh-channel's host config may name one
        ({}, "codex", True, False),  # only Claude Code reads that config
        ({}, None, True, False),
        ({"MEMESH_RECIPIENT": "reviewer"}, None, False, True),
        ({"MEMESH_RECIPIENT": "/not/one"}, "codex", False, True),  # declared: the operation says it is refused
        ({"MEMESH_RECIPIENT": "  "}, "codex", False, False),
    ],
)
def test_a_session_names_a_recipient_by_its_environment_or_claude_codes_channel(
    environment: dict[str, str], host: str | None, channel: bool, may: bool
) -> None:
    assert triggers.may_name_a_recipient(environment, _host(host), lambda: channel) is may


def test_the_stop_gate_holds_turns_under_hosts_whose_turn_a_block_holds() -> None:
    assert [host.ID for host in hosts.all_hosts() if triggers.gate_applies(host.CAPABILITIES)] == [
        "claude-code", "copilot-cli", "cursor",
    ]  # fmt: skip
    assert not triggers.gate_applies(hosts.fallback().CAPABILITIES)
