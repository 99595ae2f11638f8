"""memesh message storage report|prune: the owner's accounting of message storage and bounded payload retention."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.core import messages as rules
from memesh.errors import MemeshError
from memesh.model import iso_time


class StorageStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def message_storage_report(self, cutoff: str) -> dict[str, Any]: ...
    def prunable_messages(self, cutoff: str, limit: int) -> list[str]: ...
    def prune_payloads(self, message_ids: list[str], when: str) -> int: ...


def storage_report(store: StorageStore, cutoff: str) -> Result[dict[str, Any], MemeshError]:
    """Logical payload, protected/unresolved and prunable rows, audit counts, reusable pages, main/WAL sizes."""
    match rules.parse_cutoff(cutoff):
        case Success(when):
            return Success(store.message_storage_report(when))
        case Failure() as refused:
            return refused
    raise AssertionError("unreachable")  # pragma: no cover


def storage_prune(
    store: StorageStore, cutoff: str, *, batch: int, apply: bool, now: datetime
) -> Result[dict[str, Any], MemeshError]:
    """Dry run by default: how many payloads could go. With `apply`, replace them batch by batch (one transaction
    each), keeping every message, delivery, event and receipt row: the lifecycle audit stays."""
    parsed = rules.parse_cutoff(cutoff)
    if isinstance(parsed, Failure):
        return parsed
    size = rules.batch_size(batch)
    if isinstance(size, Failure):
        return size
    when, limit = parsed.unwrap(), size.unwrap()
    if not apply:
        report = store.message_storage_report(when)["prunable_terminal"]
        return Success({"cutoff": when, "dry_run": True, "prunable": report["messages"], "bytes": report["bytes"]})
    pruned = batches = 0
    while True:
        with store.transaction():
            ids = store.prunable_messages(when, limit)
            if not ids:
                break
            pruned += store.prune_payloads(ids, iso_time(now))
        batches += 1
    return Success({"cutoff": when, "dry_run": False, "pruned": pruned, "batches": batches})
