"""Entries of the owner's message upkeep beside the message tool (`memesh message storage report|prune`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store

if TYPE_CHECKING:
    from memesh.generated.cli.message_storage_prune_input import MessageStoragePruneInput
    from memesh.generated.cli.message_storage_prune_output import MessageStoragePruneOutput
    from memesh.generated.cli.message_storage_report_input import MessageStorageReportInput
    from memesh.generated.cli.message_storage_report_output import MessageStorageReportOutput


def _report() -> Operation[Store, MessageStorageReportInput, MessageStorageReportOutput]:
    from memesh.ops.message_storage import storage_report

    return storage_report


def _prune() -> Operation[Store, MessageStoragePruneInput, MessageStoragePruneOutput]:
    from memesh.ops.message_storage import storage_prune

    return storage_prune


MESSAGE_STORAGE_REPORT = Op(
    name="message_storage_report",
    input_schema="cli/message_storage_report.input",
    output_schema="cli/message_storage_report.output",
    load=_report,
    uses=the_store,
    summary="Account for message storage: payloads, prunable rows, audit counts, file sizes",
)
MESSAGE_STORAGE_PRUNE = Op(
    name="message_storage_prune",
    input_schema="cli/message_storage_prune.input",
    output_schema="cli/message_storage_prune.output",
    load=_prune,
    uses=the_store,
    summary="Drop the payloads of settled old messages, keeping their audit rows (a dry run unless applied)",
)

OPS: tuple[Op[Any, Any, Any], ...] = (MESSAGE_STORAGE_REPORT, MESSAGE_STORAGE_PRUNE)
