"""The PostgreSQL store behind a real PgBouncer in transaction mode: a pooler is told by itself, nothing of a
session is left on a server connection another client gets next, and the failures the issue measured without the
setting are real."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from returns.result import Failure

from memesh import paths
from memesh.context import CallContext
from memesh.store.errors import StoreError
from memesh.store.postgres import open_postgres
from memesh.store.postgres_base import LOCK_TIMEOUT
from tests.calls import call
from tests.pooler import POOLER_SQLSTATES, Pooled, sqlstate

CTX = CallContext(source_host="pooler-test", agent_view=False)
Start = Callable[..., Pooled]


@pytest.mark.parametrize(
    ("value", "mode", "pooler"),
    [("transaction", "transaction", "transaction"), (" Transaction ", "transaction", "transaction"),
     ("session", "session", None), ("", None, None)],
)  # fmt: skip
def test_the_pooler_setting_reads_transaction_session_or_unset(
    monkeypatch: pytest.MonkeyPatch, value: str, mode: str | None, pooler: str | None
) -> None:
    monkeypatch.setenv(paths.DATABASE_POOLER_ENV, value)
    assert paths.database_pooler_mode() == mode
    assert paths.database_pooler() == pooler


def test_a_pooler_mode_memesh_cannot_work_in_is_refused_before_connecting_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(paths.DATABASE_POOLER_ENV, "statement")
    with pytest.raises(paths.DatabaseSettingError, match=paths.DATABASE_POOLER_ENV):
        paths.database_pooler()
    # No server is needed to refuse it: the URL names a port nothing listens on.
    with pytest.raises(StoreError) as refused:
        open_postgres("postgresql://memesh@127.0.0.1:1/none?connect_timeout=1")
    assert refused.value.error.data == {"store": "cannot-open"}
    assert paths.DATABASE_POOLER_ENV in refused.value.error.message


def _settings(conn: psycopg.Connection[Any]) -> tuple[str, str, str]:
    row = conn.execute(
        "SELECT current_setting('lock_timeout'), current_setting('jit'), current_setting('plan_cache_mode')"
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def test_a_connection_of_its_own_is_not_taken_for_a_pooler_and_keeps_its_session_settings(pg_url: str) -> None:
    store = open_postgres(pg_url)
    try:
        assert store.conn.pooled is False
        assert _settings(store.conn.raw) == (LOCK_TIMEOUT, "off", "force_generic_plan")
        assert store.conn.raw.prepare_threshold == 5  # psycopg's default: statements run often are prepared
    finally:
        store.close()


def test_pgbouncer_in_transaction_mode_is_told_without_the_setting(pgbouncer: Start) -> None:
    pooled = pgbouncer()
    store = open_postgres(pooled.url)
    try:
        assert store.conn.pooled is True
        assert store.conn.raw.prepare_threshold is None
        assert "through a transaction-mode pooler" in store.where()
    finally:
        store.close()


def test_the_session_setting_keeps_session_behaviour_behind_a_pooler(
    pgbouncer: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.DATABASE_POOLER_ENV, "session")
    store = open_postgres(pgbouncer(mode="session").url)
    try:
        assert store.conn.pooled is False
        assert _settings(store.conn.raw) == (LOCK_TIMEOUT, "off", "force_generic_plan")
    finally:
        store.close()


def test_the_transaction_setting_on_a_direct_connection_sets_nothing_for_the_session(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.DATABASE_POOLER_ENV, "transaction")
    store = open_postgres(pg_url)
    try:
        assert store.conn.pooled is True
        assert _settings(store.conn.raw)[:2] == ("0", "on")  # the server's defaults: nothing set by MeMesh
        with store.transaction():  # each write transaction sets them for itself
            assert _settings(store.conn.raw)[:2] == (LOCK_TIMEOUT, "off")
        assert _settings(store.conn.raw)[:2] == ("0", "on")
    finally:
        store.close()


def _traffic(stores: list[Any], rounds: int) -> list[Failure[Any]]:
    """Each store in turn remembers and recalls, `rounds` times: enough for psycopg to prepare what it runs often."""
    failures: list[Failure[Any]] = []
    for index in range(rounds):
        for number, store in enumerate(stores):
            memory = {"name": f"s{number}-m{index}", "type": "note", "observations": [f"pooled memory {index}"]}
            for tool, request in (("remember", memory), ("recall", {"query": "pooled memory"})):
                result = call(tool, store, request, CTX)
                if isinstance(result, Failure):
                    failures.append(result)
    return failures


def test_behind_pgbouncer_nothing_is_prepared_or_left_set_on_the_shared_server_connection(pgbouncer: Start) -> None:
    pooled = pgbouncer(pool_size=1)  # one server connection: every client's transactions run on it
    stores = [open_postgres(pooled.url) for _ in range(2)]
    try:
        assert _traffic(stores, rounds=8) == []
        # Another client on the same server connection finds nothing of theirs there.
        with psycopg.connect(pooled.url, autocommit=True, prepare_threshold=None) as other:
            assert other.execute("SELECT count(*) FROM pg_prepared_statements").fetchone() == (0,)
            assert _settings(other)[:2] == ("0", "on")
            assert other.execute("SELECT count(*) FROM entities").fetchone() == (16,)
    finally:
        for store in stores:
            store.close()


def test_without_the_setting_a_transaction_pooler_fails_calls_on_prepared_statements_as_the_issue_measured(
    pgbouncer: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What MeMesh did before it could tell a pooler: a session's prepared statements and settings, which PgBouncer
    # in transaction mode hands to whichever client runs next on that server connection.
    monkeypatch.setenv(paths.DATABASE_POOLER_ENV, "session")
    pooled = pgbouncer(pool_size=1)
    stores = [open_postgres(pooled.url) for _ in range(2)]
    try:
        failures = _traffic(stores, rounds=8)
    finally:
        for store in stores:
            store.close()
    states = {sqlstate(failure.failure().message) for failure in failures}
    assert failures
    assert states & POOLER_SQLSTATES, states


def test_a_new_database_is_migrated_through_the_pooler(pgbouncer: Start) -> None:
    from memesh.store.postgres_migrations import MIGRATIONS

    pooled = pgbouncer(migrated=False)
    store = open_postgres(pooled.url)
    try:
        assert store.conn.pooled is True
        assert store.missing_migrations() == []
        applied = store.conn.execute("SELECT count(*) FROM schema_migrations").fetchone()
        assert applied == (len(MIGRATIONS),)
    finally:
        store.close()


def test_a_waiting_process_behind_pgbouncer_without_the_setting_ticks_instead_of_listening(pgbouncer: Start) -> None:
    from memesh.store.postgres_listen import Listener

    # LISTEN through a transaction pooler holds on a server connection others get next: no notification would come.
    listener = Listener(pgbouncer().url, pooled_tick_s=0.05)
    try:
        assert listener.connected.wait(10)
        assert listener.pooled is True
        seen = listener.generation
        deadline = time.monotonic() + 5
        while listener.generation < seen + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert listener.generation >= seen + 3  # the shared tick goes on with no connection held
    finally:
        listener.stop()


def test_a_waiting_process_on_a_connection_of_its_own_listens(pg_url: str) -> None:
    from memesh.store.postgres_listen import Listener

    listener = Listener(pg_url, pooled_tick_s=0.05)
    try:
        assert listener.connected.wait(10)
        assert listener.pooled is False
    finally:
        listener.stop()
