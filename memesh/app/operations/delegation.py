"""Entries of `memesh delegation record|verify` (CLI only, by design: no MCP tool or HTTP route, so nothing a
sandboxed worker can reach writes a delegation record)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store, themselves
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.delegation_record_input import DelegationRecordInput
    from memesh.generated.cli.delegation_record_output import DelegationRecordOutput
    from memesh.generated.cli.delegation_verify_input import DelegationVerifyInput
    from memesh.generated.cli.delegation_verify_output import DelegationVerifyOutput


def _record() -> Operation[Resources, DelegationRecordInput, DelegationRecordOutput]:
    from memesh.ops.delegation import record_delegation

    return record_delegation


def _verify() -> Operation[Store, DelegationVerifyInput, DelegationVerifyOutput]:
    from memesh.ops.delegation import verify_delegation

    return verify_delegation


DELEGATION_RECORD = Op(
    name="delegation_record",
    input_schema="cli/delegation_record.input",
    output_schema="cli/delegation_record.output",
    load=_record,
    uses=themselves,
    summary="Record a task delegated to an untrusted worker (the prompt's hash and the envelope's report)",
    errors=(ErrorCode.OPERATION_FAILED, ErrorCode.PAYLOAD_TOO_LARGE),
)
DELEGATION_VERIFY = Op(
    name="delegation_verify",
    input_schema="cli/delegation_verify.input",
    output_schema="cli/delegation_verify.output",
    load=_verify,
    uses=the_store,
    summary="Give a delegation record the orchestrator's verdict",
    errors=(ErrorCode.NOT_FOUND, ErrorCode.OPERATION_FAILED),
)

OPS: tuple[Op[Any, Any, Any], ...] = (DELEGATION_RECORD, DELEGATION_VERIFY)
