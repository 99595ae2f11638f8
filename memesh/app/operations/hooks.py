"""Entries of the seven hook events: each admits the event's hook JSON against its schema (schemas/hooks/, where fields
a host adds later are accepted and ignored) and answers a HookAnswer (what the host reads, and the outcome records).
They use `Resources.hooks`, the outside world of one hook event (memesh.app.hook_resources)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from memesh.app.registry import Op, Operation

if TYPE_CHECKING:
    from memesh.app.hook_resources import HookResources
    from memesh.app.resources import Resources
    from memesh.generated.hooks.answer_output import HookAnswer
    from memesh.generated.hooks.prompt_input import PromptHookInput
    from memesh.generated.hooks.session_start_input import SessionStartHookInput
    from memesh.generated.hooks.stop_input import StopHookInput
    from memesh.generated.hooks.tool_use_input import ToolUseHookInput

OUTPUT = "hooks/answer.output"
I = TypeVar("I")  # noqa: E741 - the input type, as in memesh.app.registry


def the_hooks(resources: Resources) -> HookResources:
    """What every hook operation uses: the hook event's outside world."""
    return resources.hooks


def _session_start() -> Operation[HookResources, SessionStartHookInput, HookAnswer]:
    from memesh.ops.hooks.session_start import session_start

    return session_start


def _pre_tool_use() -> Operation[HookResources, ToolUseHookInput, HookAnswer]:
    from memesh.ops.hooks.pre_tool_use import pre_tool_use

    return pre_tool_use


def _post_tool_use() -> Operation[HookResources, ToolUseHookInput, HookAnswer]:
    from memesh.ops.hooks.post_tool_use import post_tool_use

    return post_tool_use


def _stop() -> Operation[HookResources, StopHookInput, HookAnswer]:
    from memesh.ops.hooks.stop import stop

    return stop


def _pre_compact() -> Operation[HookResources, StopHookInput, HookAnswer]:
    from memesh.ops.hooks.pre_compact import pre_compact

    return pre_compact


def _stop_gate() -> Operation[HookResources, StopHookInput, HookAnswer]:
    from memesh.ops.hooks.messages import stop_gate

    return stop_gate


def _user_prompt_submit() -> Operation[HookResources, PromptHookInput, HookAnswer]:
    from memesh.ops.hooks.messages import user_prompt_submit

    return user_prompt_submit


def hook(
    name: str, input_schema: str, load: Callable[[], Operation[HookResources, I, HookAnswer]], summary: str
) -> Op[HookResources, I, HookAnswer]:
    """A hook event's entry: its input is the hook JSON (schemas/hooks/<…>.input), its answer a HookAnswer."""
    return Op(name=name, input_schema=input_schema, output_schema=OUTPUT, load=load, uses=the_hooks, summary=summary)


SESSION_START = hook(
    "hook_session_start",
    "hooks/session_start.input",
    _session_start,
    "SessionStart: the project's briefing injected, and what it injected recorded",
)
PRE_TOOL_USE = hook(
    "hook_pre_tool_use",
    "hooks/tool_use.input",
    _pre_tool_use,
    "PreToolUse: a file's memories before an edit, matching lessons before a Bash command",
)
POST_TOOL_USE = hook(
    "hook_post_tool_use",
    "hooks/tool_use.input",
    _post_tool_use,
    "PostToolUse: a git commit remembered",
)
STOP = hook(
    "hook_stop",
    "hooks/stop.input",
    _stop,
    "Stop: the handoff, session snapshots and note files captured; cited memories credited",
)
PRE_COMPACT = hook(
    "hook_pre_compact",
    "hooks/stop.input",
    _pre_compact,
    "PreCompact: the session snapshots kept before the conversation is compacted",
)
STOP_GATE = hook(
    "hook_stop_gate",
    "hooks/stop.input",
    _stop_gate,
    "The Claude Code Stop gate: a turn held once per message waiting for the declared recipient",
)
USER_PROMPT_SUBMIT = hook(
    "hook_user_prompt_submit",
    "hooks/prompt.input",
    _user_prompt_submit,
    "UserPromptSubmit: a reminder of the messages waiting for the declared recipient",
)

# memesh-hook's event names (hooks/hooks.json) → their entries.
BY_EVENT: dict[str, Op[Any, Any, HookAnswer]] = {
    "session-start": SESSION_START,
    "pre-tool-use": PRE_TOOL_USE,
    "post-tool-use": POST_TOOL_USE,
    "stop": STOP,
    "pre-compact": PRE_COMPACT,
    "stop-gate": STOP_GATE,
    "user-prompt-submit": USER_PROMPT_SUBMIT,
}

OPS: tuple[Op[Any, Any, Any], ...] = tuple(BY_EVENT.values())


def preload() -> None:
    """Import every hook operation and what they import on first use, and read their schemas: a warm memesh-mcp
    does it before it serves hooks, so the first served hook pays for none of it."""
    from memesh.app.hook_resources import ADAPTERS
    from memesh.schema import files

    for op in OPS:
        op.load()
        files.load(op.input_schema)
    for name in ADAPTERS:
        importlib.import_module(name)
