"""The roles, the project scope and personal-memory ownership as plain rules (memesh.core.access)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.app.operations import all_ops
from memesh.context import Caller
from memesh.core import access
from memesh.errors import ErrorCode
from memesh.model import Filters

READER = Caller(name="carl", role="reader")
WRITER = Caller(name="bea", role="writer")
ADMIN = Caller(name="eve", role="admin")
SCOPED = Caller(name="dana", role="writer", projects=("alpha",))
OWNER = Caller(name="al", role="admin", owner=True)


def _code(caller: Caller | None, op: str) -> ErrorCode | None:
    refused = access.admit(caller, op)
    return None if refused is None else refused.code


def test_a_local_call_and_the_owner_are_admitted_to_every_operation() -> None:
    for op in all_ops():
        assert _code(None, op.name) is None
        assert _code(OWNER, op.name) is None


def test_every_operation_a_reader_may_run_exists_and_every_other_is_forbidden_to_it() -> None:
    names = {op.name for op in all_ops()}
    assert names >= access.READ_OPS
    assert names >= access.ADMIN_OPS
    assert names >= access.SCOPED_OPS
    readable = access.READ_OPS - access.WHOLE_STORE_OPS
    for name in names:
        assert _code(READER, name) == (None if name in readable else ErrorCode.AUTH_FORBIDDEN)


def test_a_writer_writes_memories_but_not_the_installs_settings_or_members() -> None:
    assert _code(WRITER, "remember") is None
    assert _code(WRITER, "forget") is None
    for name in ("config_update", "member_add", "audit", "demo_reset", "reindex"):
        assert _code(WRITER, name) == ErrorCode.AUTH_FORBIDDEN
        assert _code(ADMIN, name) is None


def test_whole_store_reads_that_would_show_anothers_personal_memories_are_an_admins_alone() -> None:
    for name in access.WHOLE_STORE_OPS:
        assert _code(WRITER, name) == ErrorCode.AUTH_FORBIDDEN
        assert _code(READER, name) == ErrorCode.AUTH_FORBIDDEN
        assert _code(ADMIN, name) is None


def test_a_member_scoped_to_projects_runs_only_the_operations_the_scope_is_applied_to() -> None:
    assert _code(SCOPED, "recall") is None
    assert _code(SCOPED, "remember") is None
    for name in ("graph", "briefing", "message", "import", "forget"):
        assert _code(SCOPED, name) == ErrorCode.AUTH_FORBIDDEN


def test_a_scoped_member_writes_only_memories_tagged_with_its_projects() -> None:
    assert access.may_write(SCOPED, None, ["project:alpha"]) is None
    assert access.may_write(SCOPED, ["project:alpha"], []) is None
    refused = access.may_write(SCOPED, ["project:beta"], ["project:alpha"])  # an existing memory keeps its tags
    assert refused is not None and refused.code is ErrorCode.AUTH_FORBIDDEN
    assert access.may_write(SCOPED, None, ["topic:x"]) is not None
    assert access.may_write(WRITER, ["project:beta"], []) is None


def test_personal_memories_are_seen_by_their_author_and_unattributed_ones_by_the_owner_alone() -> None:
    assert access.may_see(WRITER, "personal", "bea", [])
    assert not access.may_see(READER, "personal", "bea", [])
    assert not access.may_see(READER, "personal", None, [])
    assert access.may_see(OWNER, "personal", None, [])
    assert not access.may_see(OWNER, "personal", "bea", [])
    assert access.may_see(READER, "team", "bea", [])
    assert access.may_see(None, "personal", "bea", [])


def test_scoped_filters_carry_the_callers_projects_and_name_and_leave_a_local_call_alone() -> None:
    base = Filters(tag="x")
    assert access.scoped(base, None) is base
    assert access.scoped(base, SCOPED) == Filters(tag="x", projects=("alpha",), viewer="dana")
    assert access.scoped(base, OWNER) == Filters(tag="x", viewer="al", viewer_is_owner=True)


def test_counts_are_of_the_whole_store_for_a_local_call_and_the_owner_and_of_a_members_view_otherwise() -> None:
    assert access.counted(None) is None
    assert access.counted(OWNER) is None
    assert access.counted(READER) == Filters(viewer="carl")
    assert access.counted(SCOPED) == Filters(projects=("alpha",), viewer="dana")
    assert access.counted(ADMIN) == Filters(viewer="eve")


def test_only_remote_writes_are_audited_by_the_door() -> None:
    assert access.audited(WRITER, "remember")
    assert not access.audited(WRITER, "recall")
    assert not access.audited(None, "remember")
    assert not access.audited(ADMIN, "member_add")  # the member operations record themselves


@given(st.text())
def test_a_tokens_hash_is_its_sha256_and_never_the_token(token: str) -> None:
    digest = access.hash_token(token)
    assert digest == hashlib.sha256(token.encode("utf-8")).hexdigest()
    assert len(digest) == 64


@pytest.mark.parametrize("role", access.ROLES)
def test_every_role_reads(role: str) -> None:
    assert _code(Caller(name="x", role=role), "recall") is None
