"""Entries of the ways to write memories beside the tools: `memesh remember` as typed (its form decided by the
operation), and the Anthropic memory tool's commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.remember_typed_input import RememberTypedInput
    from memesh.generated.tools.remember_output import RememberOutput


def _remember_typed() -> Operation[Store, RememberTypedInput, RememberOutput]:
    from memesh.ops.remember import remember_typed

    return remember_typed


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

OPS: tuple[Op[Any, Any, Any], ...] = (REMEMBER_TYPED,)
