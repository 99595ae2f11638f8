"""The PostgreSQL store when its connection fails: it reconnects, retries only what changed nothing, fails a write
that may have committed, bounds every wait, and never holds the GIL while it waits (a cluster of the module's own
on 127.0.0.1, since these tests end its connections)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from memesh.app.resources import Resources
from memesh.errors import ErrorCode
from memesh.store import postgres_link
from memesh.store.errors import StoreError, translate
from memesh.store.postgres import PostgresStore, open_postgres
from memesh.store.postgres_hooks import open_postgres_hooks
from memesh.store.postgres_link import AnswerTimeout
from memesh.store.postgres_open import _with_defaults
from tests.pg_faults import fresh_database, proxy_to, running_cluster, terminate_memesh, wait_for


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from running_cluster()


@pytest.fixture
def url(cluster: Any) -> Iterator[str]:
    yield from fresh_database(cluster)


@pytest.fixture
def pg(url: str) -> Iterator[PostgresStore]:
    store = open_postgres(url)
    yield store
    store.close()


def _terminated(cluster: Any, store: PostgresStore) -> None:
    """Every MeMesh connection ended, and its goodbye on `store`'s socket (as when the next call comes)."""
    assert terminate_memesh(cluster.url()) >= 1
    wait_for(lambda: postgres_link.idle_and_dead(store.conn._raw), within=5)


def _unnoticed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection's death not seen before the next statement (the server's goodbye not yet arrived): that
    statement is the one to fail."""
    monkeypatch.setattr(postgres_link, "idle_and_dead", lambda raw: raw.pgconn.status == psycopg.pq.ConnStatus.BAD)


def test_the_next_call_after_every_backend_was_terminated_answers_on_a_new_connection(
    cluster: Any, pg: PostgresStore
) -> None:
    pg.set_meta("k", "v")
    uses = pg.conn.uses
    _terminated(cluster, pg)
    assert pg.get_meta("k") == "v"
    assert pg.conn.reconnects == 1
    assert pg.conn.uses > uses + 1  # the new connection counted: nothing cached against the old one is trusted


def test_a_read_whose_connection_broke_under_it_is_run_once_more(
    cluster: Any, pg: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    pg.set_meta("k", "v")
    _unnoticed(monkeypatch)
    assert terminate_memesh(cluster.url()) >= 1
    assert pg.get_meta("k") == "v"
    assert pg.conn.reconnects == 1


def test_a_write_whose_begin_found_the_connection_broken_is_begun_again(
    cluster: Any, pg: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unnoticed(monkeypatch)
    assert terminate_memesh(cluster.url()) >= 1
    pg.set_meta("k", "v")
    assert pg.get_meta("k") == "v"
    assert pg.conn.reconnects == 1


def test_a_transaction_whose_connection_broke_fails_whole_and_the_next_call_reconnects(
    cluster: Any, pg: PostgresStore
) -> None:
    with pytest.raises(psycopg.OperationalError) as failed, pg.transaction():
        pg.set_meta("first", "1")
        assert terminate_memesh(cluster.url()) >= 1
        wait_for(lambda: _goodbye_waiting(pg), within=5)
        pg.set_meta("second", "2")  # never on another connection: the transaction's first half is gone
    assert translate(failed.value) is not None
    assert (pg.get_meta("first"), pg.get_meta("second")) == (None, None)
    assert pg.conn.reconnects == 1


def _goodbye_waiting(store: PostgresStore) -> bool:
    import select

    readable, _, _ = select.select([store.conn._raw.pgconn.socket], [], [], 0)
    return bool(readable)


def test_an_access_count_lost_with_its_connection_is_dropped_and_the_next_call_answers(
    cluster: Any, url: str, pg: PostgresStore
) -> None:
    with pg.transaction():
        entity = pg.save(_entity("a"))
    holder = open_postgres(url)
    try:
        with holder.transaction():  # the count's script waits for the write lock, then its connection is ended
            pg.touch([entity], "2026-01-02T03:04:05Z")
            wait_for(lambda: _lock_waiters(holder) == 1, within=5)
            with psycopg.connect(cluster.url(), autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'advisory'"
                ).fetchall()
        assert pg.get_meta("absent") is None
        assert pg.conn.reconnects == 1
    finally:
        holder.close()


def _entity(name: str) -> Any:
    from memesh.model import EntityWrite

    return EntityWrite(
        entity_id=None,
        name=name,
        type="fact",
        title=None,
        namespace="personal",
        status="active",
        metadata={},
        observations=("o",),
        tags=("t",),
    )


def _lock_waiters(store: PostgresStore) -> int:
    row = store.conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'"
    ).fetchone()
    return int(row[0])


def test_a_recall_waiting_for_the_lock_another_thread_holds_lets_that_thread_go_on_and_commit(url: str) -> None:
    # One process, two threads: the holder keeps the write lock in a transaction while the reader's access count
    # (sent, unread) waits for it; the reader's next statement waits for that answer. A wait holding the GIL would
    # freeze the holder until the reader's lock_timeout (5 s here, so a regression fails fast).
    holder = open_postgres(url)
    reader = open_postgres(url + "?options=-c%20lock_timeout%3D5s")
    try:
        with holder.transaction():
            entity = holder.save(_entity("a"))
        sent, done = threading.Event(), threading.Event()
        failures: list[BaseException] = []

        def recall_side() -> None:
            try:
                reader.touch([entity], "2026-01-02T03:04:05Z")
                sent.set()
                reader.conn.execute("SELECT 1")  # reads the count's answer first: waits for the lock
            except BaseException as exc:
                failures.append(exc)
            done.set()

        started = time.monotonic()
        with holder.transaction():
            holder.set_meta("k", "v")
            thread = threading.Thread(target=recall_side, daemon=True)
            thread.start()
            assert sent.wait(5)
            wait_for(lambda: _lock_waiters(holder) == 1, within=4)
            holder.set_meta("k2", "v2")  # the holder reads its own answers while the other thread waits
        held = time.monotonic() - started
        assert done.wait(5)
        assert failures == []
        assert held < 2.5
        row = holder.conn.execute("SELECT access_count FROM entities WHERE id = ?", (entity,)).fetchone()
        assert row[0] == 1
    finally:
        holder.close()
        reader.close()


def test_a_writer_waiting_in_psycopgs_own_execute_lets_the_thread_holding_the_lock_commit(url: str) -> None:
    # psycopg's own waits (wait_c in the binary build the suite installs) poll with the GIL released: the same
    # two threads, the waiter now in BEGIN's lock rather than in a sent script's answer.
    holder = open_postgres(url)
    writer = open_postgres(url + "?options=-c%20lock_timeout%3D5s")
    try:
        done = threading.Event()

        def write_side() -> None:
            writer.set_meta("w", "1")  # BEGIN and the lock: waits in psycopg's execute
            done.set()

        started = time.monotonic()
        with holder.transaction():
            holder.set_meta("k", "v")
            threading.Thread(target=write_side, daemon=True).start()
            wait_for(lambda: _lock_waiters(holder) == 1, within=4)
            holder.set_meta("k2", "v2")
        assert time.monotonic() - started < 2.5
        assert done.wait(5)
        assert writer.get_meta("w") == "1"
    finally:
        holder.close()
        writer.close()


def test_a_call_whose_answer_never_comes_fails_within_the_statement_budget_and_the_link_recovers(
    cluster: Any, url: str
) -> None:
    database = conninfo_to_dict(url)["dbname"]
    with proxy_to(cluster.port) as proxy:
        store = open_postgres(
            f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}?connect_timeout=2"
            "&options=-c%20statement_timeout%3D1s%20-c%20lock_timeout%3D500ms"
        )
        try:
            store.set_meta("k", "v")
            proxy.pause()  # nothing forwarded, nothing reset: only the answer's bound ends the wait
            started = time.monotonic()
            with pytest.raises(AnswerTimeout) as failed:
                store.get_meta("k")
            waited = time.monotonic() - started
            assert 1.0 <= waited < 2.5  # statement_timeout + the margin, and not retried
            error = translate(failed.value)
            assert error is not None and error.code is ErrorCode.STORE_UNAVAILABLE and error.data["store"] == "timeout"
            started = time.monotonic()
            with pytest.raises(psycopg.OperationalError):  # a new connection cannot start either
                store.get_meta("k")
            assert time.monotonic() - started < 3.5  # the URL's connect_timeout (2 s)
            proxy.resume()
            assert store.get_meta("k") == "v"
        finally:
            store.close()


def test_a_database_that_never_answers_the_connection_fails_to_open_within_the_connect_timeout(
    cluster: Any, url: str
) -> None:
    database = conninfo_to_dict(url)["dbname"]
    with proxy_to(cluster.port) as proxy:
        proxy.pause()
        started = time.monotonic()
        with pytest.raises(StoreError):
            open_postgres_hooks(f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}")
        assert time.monotonic() - started < 4.5  # the hooks' 3 s


def test_sessions_get_the_budgets_where_the_url_sets_none_and_keep_the_urls_own(url: str) -> None:
    def settings(store: Any) -> tuple[str, str]:
        row = store.conn.execute("SELECT current_setting('lock_timeout'), current_setting('statement_timeout')")
        found = row.fetchone()
        return str(found[0]), str(found[1])

    hooked = Resources(db_path=url).hooks.full_store()  # a hook reading messages opens the whole store
    assert hooked is not None
    for opened, expected in (
        (open_postgres(url), ("30s", "40s")),
        (open_postgres_hooks(url), ("5s", "6s")),
        (hooked, ("5s", "6s")),
        (open_postgres(url + "?options=-c%20statement_timeout%3D2min"), ("30s", "2min")),
    ):
        try:
            assert settings(opened) == expected
        finally:
            opened.close()
    given = conninfo_to_dict(_with_defaults(url + "?keepalives_idle=30"))
    assert (given["connect_timeout"], given["keepalives_idle"], given["tcp_user_timeout"]) == ("5", "30", "10000")


def test_a_write_after_the_connection_broke_tries_one_new_connection_when_none_will_open(
    cluster: Any, url: str
) -> None:
    database = conninfo_to_dict(url)["dbname"]
    with proxy_to(cluster.port) as proxy:
        store = open_postgres(f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}?connect_timeout=2")
        try:
            _terminated(cluster, store)
            proxy.pause()
            started = time.monotonic()
            with pytest.raises(psycopg.OperationalError):
                store.set_meta("k", "v")
            assert time.monotonic() - started < 3.5  # one connect_timeout (2 s), not one per attempt
            proxy.resume()
            store.set_meta("k", "v")
            assert store.get_meta("k") == "v"
        finally:
            store.close()


def test_a_notification_asked_for_inside_a_write_is_sent_with_its_commit_and_not_after_a_rollback(pg_url: str) -> None:
    store = open_postgres(pg_url)
    listener = psycopg.connect(pg_url, autocommit=True)
    try:
        listener.execute("LISTEN memesh_test_channel")
        with store.transaction():
            store.conn.notify_at_commit("memesh_test_channel")
        heard = [n.channel for n in listener.notifies(timeout=2, stop_after=1)]
        assert heard == ["memesh_test_channel"]
        with pytest.raises(RuntimeError), store.transaction():
            store.conn.notify_at_commit("memesh_test_channel")
            raise RuntimeError("rolled back")
        assert [n.channel for n in listener.notifies(timeout=0.5, stop_after=1)] == []
        with store.transaction():  # the rolled-back request is not carried into the next transaction
            pass
        assert [n.channel for n in listener.notifies(timeout=0.5, stop_after=1)] == []
    finally:
        listener.close()
        store.close()
