"""Entries of the team's members and audit (issue 32): `memesh member add|list|revoke|audit` and GET /v1/audit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.member_add_input import MemberAddInput
    from memesh.generated.cli.member_add_output import MemberAddOutput
    from memesh.generated.cli.member_list_input import MemberListInput
    from memesh.generated.cli.member_list_output import MemberListOutput
    from memesh.generated.cli.member_revoke_input import MemberRevokeInput
    from memesh.generated.cli.member_revoke_output import MemberRevokeOutput
    from memesh.generated.http.audit_input import AuditInput
    from memesh.generated.http.audit_output import AuditOutput


def _add() -> Operation[Store, MemberAddInput, MemberAddOutput]:
    from memesh.ops.members import member_add

    return member_add


def _list() -> Operation[Store, MemberListInput, MemberListOutput]:
    from memesh.ops.members import member_list

    return member_list


def _revoke() -> Operation[Store, MemberRevokeInput, MemberRevokeOutput]:
    from memesh.ops.members import member_revoke

    return member_revoke


def _audit() -> Operation[Store, AuditInput, AuditOutput]:
    from memesh.ops.members import audit

    return audit


MEMBER_ADD = Op(
    name="member_add",
    input_schema="cli/member_add.input",
    output_schema="cli/member_add.output",
    load=_add,
    uses=the_store,
    summary="Add a team member with its own token (shown once; only its hash is stored)",
    errors=(ErrorCode.OPERATION_FAILED, ErrorCode.AUTH_FORBIDDEN),
)
MEMBER_LIST = Op(
    name="member_list",
    input_schema="cli/member_list.input",
    output_schema="cli/member_list.output",
    load=_list,
    uses=the_store,
    summary="List the team members with their roles, projects and last use (never a token)",
    errors=(ErrorCode.AUTH_FORBIDDEN,),
)
MEMBER_REVOKE = Op(
    name="member_revoke",
    input_schema="cli/member_revoke.input",
    output_schema="cli/member_revoke.output",
    load=_revoke,
    uses=the_store,
    summary="Revoke a team member: its token stops working from the next request",
    errors=(ErrorCode.NOT_FOUND, ErrorCode.AUTH_FORBIDDEN),
)
AUDIT = Op(
    name="audit",
    input_schema="http/audit.input",
    output_schema="http/audit.output",
    load=_audit,
    uses=the_store,
    summary="The append-only audit of writes, forgets and member changes, newest first (admins only)",
    errors=(ErrorCode.AUTH_FORBIDDEN,),
)

OPS = (MEMBER_ADD, MEMBER_LIST, MEMBER_REVOKE, AUDIT)
