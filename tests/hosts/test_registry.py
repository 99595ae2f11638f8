"""The hosts registry (memesh.hosts) against the host modules: what each module states is what the registry asks, and
a host's normalize() takes any JSON object its host could send without raising."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from memesh import hosts
from memesh.hosts import claude_code, codex, copilot_cli, cursor, gemini_cli, unknown
from memesh.schema import files as schemas
from memesh.transports.hooks import runner, wire

EVENTS = tuple(runner.EVENTS)
# mypy holds each module to the Host protocol here.
MODULES: tuple[hosts.Host, ...] = (claude_code, codex, gemini_cli, copilot_cli, cursor)
INPUT = {
    "session-start": "hooks/session_start.input",
    "user-prompt-submit": "hooks/prompt.input",
    "pre-tool-use": "hooks/tool_use.input",
    "post-tool-use": "hooks/tool_use.input",
    "stop": "hooks/stop.input",
    "stop-gate": "hooks/stop.input",
    "pre-compact": "hooks/stop.input",
}


def test_the_registry_lists_every_host_module_under_its_id() -> None:
    assert hosts.all_hosts() == MODULES
    assert {host.ID: host for host in MODULES} == {host_id: hosts.module(host_id) for host_id in hosts.MODULES}


def test_the_registrys_detection_tables_are_the_marks_each_module_states() -> None:
    stated = sorted((rank, names, host.ID) for host in MODULES for rank, names in host.ENV_MARKS)
    assert list(hosts.DETECTION) == stated
    assert sorted(hosts.PAYLOAD_DETECTION) == sorted((mark, host.ID) for host in MODULES for mark in host.PAYLOAD_MARKS)
    assert tuple(name for host in MODULES for name in host.SESSION_ENV) == hosts.SESSION_VARIABLES


def test_every_environment_mark_reaches_a_warm_server() -> None:
    names = [name for _, marks, _ in hosts.DETECTION for name in marks] + [hosts.HOST_ENV]
    assert [name for name in names if not name.startswith(wire.FORWARDED_PREFIXES)] == []


@pytest.mark.parametrize("host", [*MODULES, unknown], ids=lambda host: host.ID or "unknown")
def test_each_host_states_every_capability_and_maps_its_events_to_memesh_hooks(host: hosts.Host) -> None:
    assert tuple(host.CAPABILITIES) == hosts.CAPABILITY_NAMES
    assert set(host.EVENTS.values()) <= set(EVENTS)
    assert set(host.TOOLS.values()) <= {hosts.SHELL, hosts.READ, hosts.EDIT}


@pytest.mark.parametrize(
    ("env", "payload", "found"),
    [
        ({"CLAUDECODE": "1"}, {}, "claude-code"),
        ({"CODEX_HOME": "/h", "CLAUDECODE": "1"}, {}, "claude-code"),  # a profile's CODEX_HOME is not Codex running
        ({"CODEX_THREAD_ID": "t", "CLAUDECODE": "1"}, {}, "codex"),
        ({"GEMINI_SESSION_ID": "g", "GEMINI_CWD": "/p", "CLAUDE_PROJECT_DIR": "/p"}, {}, "gemini-cli"),
        ({"CLAUDECODE": "1"}, {"conversation_id": "c", "workspace_roots": []}, "cursor"),  # started from Claude Code
        ({}, {"sessionId": "s", "toolName": "bash"}, "copilot-cli"),
        ({"MEMESH_HOST": "copilot-cli", "CLAUDECODE": "1"}, {"session_id": "s"}, "copilot-cli"),
        ({"MEMESH_HOST": "nonesuch"}, {}, None),
        ({}, {"session_id": "s"}, None),
    ],
)
def test_a_host_is_told_by_name_then_payload_then_environment(
    env: dict[str, str], payload: dict[str, Any], found: str | None
) -> None:
    assert hosts.detect(env, payload) == found


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    [
        "session_id", "sessionId", "cwd", "tool_name", "toolName", "tool_input", "toolArgs", "tool_response",
        "toolResult", "hook_event_name", "transcript_path", "transcriptPath", "last_assistant_message",
        "prompt_response", "prompt", "command", "output", "file_path", "workspace_roots", "conversation_id", "text",
    ]
)  # fmt: skip


@given(event=st.sampled_from(EVENTS), payload=st.dictionaries(KEYS | st.text(max_size=8), JSON, max_size=8))
def test_normalize_never_raises_and_leaves_the_gate_a_verdict(event: str, payload: dict[str, Any]) -> None:
    validator = Draft202012Validator(schemas.load(INPUT[event]))
    for host in (*MODULES, unknown):
        canonical, native = host.normalize(event, payload)
        assert isinstance(native, str)
        assert canonical["host"] == dict(host.CAPABILITIES)
        list(validator.iter_errors(canonical))  # a verdict either way, never an exception


@pytest.mark.parametrize("host", [*MODULES, unknown], ids=lambda host: host.ID or "unknown")
def test_render_says_nothing_for_an_empty_output_and_a_refusal_always_carries_its_reason(host: hosts.Host) -> None:
    assert host.render(next(iter(host.EVENTS)), {}) is None
    refused = host.render(next(iter(host.EVENTS)), {"deny": "the lesson", "message": "line"})
    assert refused is not None and "the lesson" in str(refused)
