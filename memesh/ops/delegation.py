"""delegation: record a task handed to an untrusted worker, and the orchestrator's verdict on it (CLI only)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import delegation
from memesh.errors import MemeshError
from memesh.model import Entity, EntityWrite


class DelegationStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...


def record(
    store: DelegationStore, request: delegation.RecordRequest, *, ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """Store one delegation entity, or report the stored one (`stored: false`, its verdict) when this envelope was
    recorded under this source already; Failure(validation.bad-body / payload.too-large) for an envelope or source
    the rules refuse."""
    match delegation.check_source(request.source).bind(lambda _: delegation.read_envelope(request.envelope)):
        case Failure() as refused:
            return refused
        case Success(summary):
            pass
    name = delegation.record_name(request.prompt_sha256, request.source, request.envelope)
    with store.transaction():
        existing = store.find(name)
        if existing is not None:
            if not delegation.is_record(existing):
                return Failure(MemeshError.failed(f'"{name}" exists and is not a delegation record', name=name))
            # What is stored, not what this call asked: a repeat must not read as having reset a verdict.
            verdict = delegation.stored_verdict(existing)
            return Success(_answer(False, name, verdict, summary))
        store.save(delegation.plan_record(request, summary, project=ctx.project(), now=ctx.now))
    return Success(_answer(True, name, request.verdict, summary))


def _answer(stored: bool, name: str, verdict: str, summary: delegation.Envelope) -> dict[str, Any]:
    return {
        "stored": stored,
        "name": name,
        "verdict": verdict,
        "trust": delegation.trust_for(verdict),
        "model": summary.model,
        "mode": summary.mode,
        "ok": summary.ok,
    }


def verify(
    store: DelegationStore, name: str, verdict: str, note: str | None, *, ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """Set an accepted or rejected verdict on a record; Failure(resource.not-found) when no memory has that name,
    Failure(operation.failed) when it is not a delegation record."""
    with store.transaction():
        entity = store.find(name)
        if entity is None:
            return Failure(MemeshError.not_found(f'no memory named "{name}"', name=name))
        previous = delegation.stored_verdict(entity) if delegation.is_record(entity) else None
        match delegation.plan_verify(entity, verdict, note, now=ctx.now):
            case Failure() as refused:
                return refused
            case Success(write):
                store.save(write)
    return Success(
        {"name": name, "previousVerdict": previous, "verdict": verdict, "trust": delegation.trust_for(verdict)}
    )
