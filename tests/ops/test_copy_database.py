"""memesh db copy: a whole database into an empty one of either engine, every row with its id, all or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from returns.result import Result

from memesh.app import dispatch
from memesh.app.operations.database import COPY_DATABASE
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core.messages_model import NewReceipt
from memesh.core.proposals import NewProposal
from memesh.errors import ErrorCode, MemeshError
from memesh.store.copying import TABLES
from memesh.store.open import Store, open_store
from memesh.store.postgres import open_postgres
from tests.calls import call

BIN = Path(sys.executable).parent


def _copy(source: str, target: str, ctx: CallContext) -> Result[Any, MemeshError]:
    return dispatch.run(COPY_DATABASE, Resources(), {"from": source, "to": target}, ctx)


def _fill(store: Store, ctx: CallContext) -> None:
    """One of everything: memories with tags and relations, session records, a proposal, a message with its
    delivery, event, cursor and receipt, a session registration, the Stop gate's memory and MeMesh's own values."""
    call("remember", store, {"name": "use-postgres", "type": "decision", "observations": ["Team memory in PG"]}, ctx)
    call(
        "remember",
        store,
        {
            "name": "camping-trip",
            "type": "note",
            "title": "Lake 認證",
            "observations": ["We camped by the lake", "naïve café"],
            "tags": ["project:p", "topic:outdoors"],
            "relations": [{"to": "use-postgres", "type": "related-to"}],
        },
        ctx,
    ).unwrap()
    sent = call(
        "message",
        store,
        {"action": "send", "project": "p", "sender": "ann", "recipient": "bob", "idempotency_key": "k1",
         "payload": "hello"},
        ctx,
    ).unwrap()  # fmt: skip
    with store.transaction():
        store.record_session_memories("session-1", [1, 2], "injected", "2026-11-30T12:00:00.000Z")
        store.stage(NewProposal("p", "cluster", "digest", "entities", [1, 2], {"name": "digest"}, "pkg-1"))
        store.register_session(
            session_id="session-1",
            principal_id="bob",
            host_kind="claude-code",
            project="p",
            work_summary=None,
            lease_expires_at_ms=1,
            connected_at="2026-11-30T12:00:00.000Z",
        )
        store.record_gate_blocks("session-1", [sent["message_id"]], "2026-11-30T12:00:00.000Z")
        store.record_guard_stops("session-1", [1], "2026-11-30T12:00:00.000Z")  # a lesson guard's stop travels too
        delivered = store.delivered("p", "bob", sent["message_id"])
        assert delivered is not None
        store.add_receipt(
            NewReceipt(
                delivered.delivery_id, sent["message_id"], "intake", None, None, "receipt", "bob", None, None, "r1",
                None, "2026-11-30T12:00:00.000Z",
            )
        )  # fmt: skip
        store.cursor_for("p", "bob", "principal", 1, token="tok-1", created_at="2026-11-30T12:00:00.000Z")
        store.set_meta("install", "kept")
        store.store_vectors(1, "a-model", bytes(range(256)))  # hybrid recall's vectors travel with the memory
        store.add_member(  # a team member (its token's hash) and the audit travel too (issue 32)
            "bea", "writer", projects=["p"], token_hash="0" * 64, now="2026-11-30T12:00:00.000Z", expires_at=None
        )
        store.append_audit("2026-11-30T12:00:00.000Z", "al", "member_add", "bea", {"role": "writer"})
        # An OAuth client bea approved, its request and tokens (hashes only) travel with her (migration 17).
        store.oauth_add_client("client-1", '{"client_name": "app"}', None, 1_796_000_000)
        store.oauth_add_request(
            "1" * 64, "client-1", '{"redirect_uri": "http://127.0.0.1/cb"}', 1_796_000_000, 1_796_000_600
        )
        store.oauth_identify("1" * 64, 1, None)
        store.oauth_add_token(
            "2" * 64, "access", client_id="client-1", grant_id="1" * 64, member_id=1, owner_key=None, scopes="",
            resource=None, now=1_796_000_000, expires_at=1_796_003_600,
        )  # fmt: skip


def _rows(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {table: [row for rows in store.rows_of(table, columns) for row in rows] for table, columns in TABLES}


def test_a_file_copied_into_postgresql_and_back_keeps_every_row_and_id(
    tmp_path: Path, pg_url: str, ctx: CallContext
) -> None:
    source = tmp_path / "source.db"
    store = open_store(source)
    try:
        _fill(store, ctx)
        before, payload = _rows(store), store.payload_bytes_stored()
    finally:
        store.close()
    assert all(before[table] for table, _ in TABLES)  # every table holds something to copy

    there = _copy(str(source), pg_url, ctx).unwrap()
    assert there["copied"] == {table: len(rows) for table, rows in before.items()}
    back = tmp_path / "back.db"
    assert _copy(pg_url, str(back), ctx).unwrap()["copied"] == there["copied"]

    for target in (pg_url, back):
        copy = open_store(target)
        try:
            assert _rows(copy) == before
            assert copy.integrity() == "ok" and copy.index_matches() == (2, 2)
            found = call("recall", copy, {"query": "camped lake"}, ctx).unwrap()["entities"]
            assert [entity["name"] for entity in found] == ["camping-trip"]
            assert [entity["name"] for entity in call("recall", copy, {"query": "認"}, ctx).unwrap()["entities"]]
            new = call("remember", copy, {"name": "after-copy", "type": "note", "observations": ["x"]}, ctx).unwrap()
            assert new["entityId"] == 3  # the next id follows the ids the copy brought
            assert copy.payload_bytes_stored() == payload > 0
        finally:
            copy.close()


def test_a_target_that_holds_anything_is_refused_and_left_as_it_was(
    tmp_path: Path, pg_url: str, ctx: CallContext
) -> None:
    source = tmp_path / "source.db"
    store = open_store(source)
    _fill(store, ctx)
    store.close()
    target = open_postgres(pg_url)
    try:
        call("remember", target, {"name": "theirs", "type": "note", "observations": ["already here"]}, ctx).unwrap()
    finally:
        target.close()
    error = _copy(str(source), pg_url, ctx).failure()
    assert error.code is ErrorCode.OPERATION_FAILED and error.data["tables"] == ["entities", "observations"]
    target = open_postgres(pg_url)
    try:
        assert target.count() == 1 and not target.proposals(None)
    finally:
        target.close()


def test_a_row_the_target_refuses_leaves_nothing_copied(tmp_path: Path, pg_url: str, ctx: CallContext) -> None:
    source = tmp_path / "source.db"
    store = open_store(source)
    _fill(store, ctx)
    with store.transaction():  # a NUL another program left in a file: PostgreSQL text cannot hold it
        store.conn.execute("UPDATE agent_messages SET payload = ?", ("bad\x00byte",))
    store.close()
    error = _copy(str(source), pg_url, ctx).failure()
    assert error.code is ErrorCode.INTERNAL
    target = open_postgres(pg_url)
    try:
        assert target.holds_data() == []
    finally:
        target.close()


def test_copying_a_database_onto_itself_is_refused(tmp_path: Path, ctx: CallContext) -> None:
    path = str(tmp_path / "one.db")
    error = _copy(path, path, ctx).failure()
    assert error.code is ErrorCode.OPERATION_FAILED and "same database" in error.message


def test_every_table_of_both_schemas_is_copied_but_what_each_engine_rebuilds(tmp_path: Path, pg_url: str) -> None:
    rebuilt = {"schema_migrations", "counters", "search_docs", "search_postings", "search_terms"}
    pg_only = {"counter_deltas", "search_term_deltas"}  # emptied by every commit
    sqlite = open_store(tmp_path / "s.db")
    try:
        tables = {
            str(row[0])
            for row in sqlite.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(row[0]).startswith(("entities_fts", "sqlite_"))
        }
    finally:
        sqlite.close()
    with psycopg.connect(pg_url) as conn:
        pg_tables = {str(row[0]) for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {table for table, _ in TABLES} == tables - rebuilt == pg_tables - rebuilt - pg_only


def test_the_cli_copies_and_says_what_it_copied(tmp_path: Path, pg_url: str, ctx: CallContext) -> None:
    source = tmp_path / "mine.db"
    store = open_store(source)
    _fill(store, ctx)
    store.close()
    env = {key: value for key, value in os.environ.items() if (not key.startswith("MEMESH_") or key == "MEMESH_DAEMON")}
    env.update({"MEMESH_DIR": str(tmp_path / "home"), "MEMESH_UPDATE_CHECK": "0"})
    secret_url = pg_url.replace("memesh@", "memesh:hunter2@")
    done = subprocess.run(
        [str(BIN / "memesh"), "db", "copy", "--from", str(source), "--to", secret_url, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["copied"]["entities"] == 2 and "hunter2" not in done.stdout
    again = subprocess.run(
        [str(BIN / "memesh"), "db", "copy", "--from", str(source), "--to", secret_url],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 1 and "not empty" in again.stderr and "hunter2" not in again.stderr


@pytest.mark.parametrize("flag", ["--from", "--to"])
def test_a_database_that_will_not_open_is_named_by_its_flag(tmp_path: Path, flag: str, ctx: CallContext) -> None:
    bad = f"postgresql://ann:s3cret@/nowhere?host={tmp_path}&connect_timeout=1"
    good = str(tmp_path / "ok.db")
    source, target = (bad, good) if flag == "--from" else (good, bad)
    error = _copy(source, target, ctx).failure()
    assert error.code is ErrorCode.OPERATION_FAILED and error.message.startswith(f"cannot open {flag}")
    assert "s3cret" not in error.message
