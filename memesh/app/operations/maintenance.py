"""Entries of the owner's upkeep and backup commands (CLI only): pin, reindex, restoring a bundle file, note
folders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.pin_input import PinInput
    from memesh.generated.cli.pin_output import PinOutput
    from memesh.generated.cli.reindex_input import ReindexInput
    from memesh.generated.cli.reindex_output import ReindexOutput


def _resources(resources: Resources) -> Resources:
    """An operation that sees the resources themselves, through its own protocol."""
    return resources


def _pin() -> Operation[Store, PinInput, PinOutput]:
    from memesh.ops.pin import pin

    return pin


def _reindex() -> Operation[Resources, ReindexInput, ReindexOutput]:
    from memesh.ops.reindex import reindex

    return reindex


PIN = Op(
    name="pin",
    input_schema="cli/pin.input",
    output_schema="cli/pin.output",
    load=_pin,
    uses=the_store,
    summary="Pin a memory (digest work packages leave it alone), or unpin it",
    errors=(ErrorCode.NOT_FOUND,),
)
REINDEX = Op(
    name="reindex",
    input_schema="cli/reindex.input",
    output_schema="cli/reindex.output",
    load=_reindex,
    uses=_resources,
    summary="Rebuild the keyword index from the stored memories",
)

OPS: tuple[Op[Any, Any, Any], ...] = (PIN, REINDEX)
