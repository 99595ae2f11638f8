"""Entries of the ways to write memories beside the tools: `memesh remember` as typed (its form decided by the
operation), and the Anthropic memory tool's commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.remember_typed_input import RememberTypedInput
    from memesh.generated.memory_tool.command_input import MemoryCommandInput
    from memesh.generated.tools.remember_output import RememberOutput


def _remember_typed() -> Operation[Store, RememberTypedInput, RememberOutput]:
    from memesh.ops.remember import remember_typed

    return remember_typed


def _memory_tool_command() -> Operation[Store, MemoryCommandInput, str]:
    from memesh.ops.memory_tool import memory_tool_command

    return memory_tool_command


# The answer is the remember tool's: --json prints exactly what remember answers.
REMEMBER_TYPED = Op(
    name="remember_typed",
    input_schema="cli/remember_typed.input",
    output_schema="tools/remember.output",
    load=_remember_typed,
    uses=the_store,
    summary="Remember what was typed: free text as a note, or with a name, title and observations",
    errors=(ErrorCode.OPERATION_FAILED,),
)

# Not an MCP tool, HTTP route or CLI command: `memesh.handle_memory_command` for applications that call the Messages
# API directly. Its refusals are worded as the tool's reference implementation words them, so the command is
# carried as given and checked field by field by the operation.
MEMORY_TOOL_COMMAND = Op(
    name="memory_tool_command",
    input_schema="memory_tool/command.input",
    output_schema="memory_tool/command.output",
    load=_memory_tool_command,
    uses=the_store,
    summary="Perform one call of the Anthropic memory tool (memory_20250818) on the memories",
    errors=(ErrorCode.NOT_FOUND, ErrorCode.OPERATION_FAILED),
)

OPS: tuple[Op[Any, Any, Any], ...] = (REMEMBER_TYPED, MEMORY_TOOL_COMMAND)
