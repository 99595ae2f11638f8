"""delegation: record a task handed to an untrusted worker, and the orchestrator's verdict on it (CLI only)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import delegation
from memesh.errors import MemeshError
from memesh.generated.cli.delegation_record_input import DelegationRecordInput
from memesh.generated.cli.delegation_record_output import DelegationRecordOutput
from memesh.generated.cli.delegation_verify_input import DelegationVerifyInput
from memesh.generated.cli.delegation_verify_output import DelegationVerifyOutput
from memesh.model import Entity, EntityWrite


class DelegationStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def save(self, write: EntityWrite) -> int: ...


class LocalFiles(Protocol):
    def read_at_most(self, path: str, limit: int) -> bytes: ...
    def sha256_of(self, path: str) -> str: ...


class Delegating(Protocol):
    """The database, and reads of the two files the orchestrator names."""

    @property
    def store(self) -> DelegationStore: ...
    def local_files(self) -> LocalFiles: ...


def record_delegation(
    uses: Delegating, request: DelegationRecordInput, /, *, ctx: CallContext
) -> Result[DelegationRecordOutput, MemeshError]:
    """`memesh delegation record`: read at most 4 MiB + 1 byte of the envelope (so an oversized one is refused,
    not loaded) and hash the prompt file, then `record`; Failure(operation.failed) naming a file that cannot be
    read, and as `record` fails."""
    files = uses.local_files()
    try:
        envelope = files.read_at_most(request["envelope"], delegation.ENVELOPE_MAX_BYTES + 1)
        prompt_sha256 = files.sha256_of(request["prompt_file"])
    except OSError as exc:
        return Failure(MemeshError.failed(f"cannot read {exc.filename}: {exc.strerror or exc}"))
    granted = request.get("allow_tool")
    recorded = delegation.RecordRequest(
        envelope=envelope,
        prompt_sha256=prompt_sha256,
        source=request["source"],
        granted_tools=tuple(granted) if granted else None,
        verdict=request.get("verdict", "unreviewed"),
        follow_up=request.get("follow_up"),
    )
    return record(uses.store, recorded, ctx=ctx).map(lambda answer: cast(DelegationRecordOutput, answer))


def verify_delegation(
    store: DelegationStore, request: DelegationVerifyInput, /, *, ctx: CallContext
) -> Result[DelegationVerifyOutput, MemeshError]:
    """`memesh delegation verify`: `verify` with the verdict and note given."""
    answer = verify(store, request["name"], request["verdict"], request.get("note"), ctx=ctx)
    return answer.map(lambda verified: cast(DelegationVerifyOutput, verified))


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
