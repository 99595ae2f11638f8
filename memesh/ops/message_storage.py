"""memesh message storage report|prune: the owner's accounting of message storage and bounded payload retention."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import messages as rules
from memesh.errors import MemeshError
from memesh.generated.cli.message_storage_prune_input import MessageStoragePruneInput
from memesh.generated.cli.message_storage_prune_output import MessageStoragePruneOutput
from memesh.generated.cli.message_storage_report_input import MessageStorageReportInput
from memesh.generated.cli.message_storage_report_output import MessageStorageReportOutput
from memesh.model import iso_time

DEFAULT_BATCH = 100


class StorageStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def message_storage_report(self, cutoff: str) -> dict[str, Any]: ...
    def prunable_messages(self, cutoff: str, limit: int) -> list[str]: ...
    def prune_payloads(self, message_ids: list[str], when: str) -> int: ...


def storage_report(
    store: StorageStore, request: MessageStorageReportInput, /, *, ctx: CallContext
) -> Result[MessageStorageReportOutput, MemeshError]:
    """Logical payload, protected/unresolved and prunable rows, audit counts, reusable pages, main/WAL sizes;
    Failure(validation.bad-body) for a cutoff that is not an ISO timestamp."""
    match rules.parse_cutoff(request["cutoff"]):
        case Success(when):
            return Success(cast(MessageStorageReportOutput, store.message_storage_report(when)))
        case Failure() as refused:
            return refused
    raise AssertionError("unreachable")  # pragma: no cover


def storage_prune(
    store: StorageStore, request: MessageStoragePruneInput, /, *, ctx: CallContext
) -> Result[MessageStoragePruneOutput, MemeshError]:
    """Dry run by default: how many payloads could go. With `apply`, replace them batch by batch (one transaction
    each), keeping every message, delivery, event and receipt row: the lifecycle audit stays.
    Failure(validation.bad-body) for a cutoff that is not an ISO timestamp."""
    match rules.parse_cutoff(request["cutoff"]):
        case Failure() as refused:
            return refused
        case Success(when):
            pass
    limit = request.get("batch_size", DEFAULT_BATCH)
    if not request.get("apply", False):
        report = store.message_storage_report(when)["prunable_terminal"]
        return Success({"cutoff": when, "dry_run": True, "prunable": report["messages"], "bytes": report["bytes"]})
    pruned = batches = 0
    while True:
        with store.transaction():
            ids = store.prunable_messages(when, limit)
            if not ids:
                break
            pruned += store.prune_payloads(ids, iso_time(ctx.now))
        batches += 1
    return Success({"cutoff": when, "dry_run": False, "pruned": pruned, "batches": batches})
