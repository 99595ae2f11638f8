"""The PostgreSQL adapter: its schema, postings, counters, write lock, migrations, URLs and errors."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from memesh.errors import ErrorCode
from memesh.model import EntityWrite, Filters
from memesh.store.errors import StoreError, translate
from memesh.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from memesh.store.postgres import PostgresStore, open_postgres, redacted
from memesh.store.postgres_base import pg_sql
from memesh.store.postgres_migrations import MIGRATIONS
from memesh.store.sqlite import open_store as open_sqlite
from memesh.store.sqlite_tokens import phrase, term_counts
from memesh.store.writes import index_columns
from tests.calls import match


def _write(name: str, observations: tuple[str, ...] = ("o",), **fields: object) -> EntityWrite:
    values: dict[str, object] = {
        "entity_id": None,
        "name": name,
        "type": "fact",
        "title": None,
        "namespace": "personal",
        "status": "active",
        "metadata": {},
        "observations": observations,
        "tags": ("t",),
    }
    values.update(fields)
    return EntityWrite(**values)  # type: ignore[arg-type]


@pytest.fixture
def pg(pg_url: str) -> Iterator[PostgresStore]:
    store = open_postgres(pg_url)
    yield store
    store.close()


def _postings(store: PostgresStore) -> set[tuple[str, int]]:
    return {
        (str(term), int(entity)) for term, entity in store.conn.execute("SELECT term, entity_id FROM search_postings")
    }


def test_the_migrations_are_numbered_and_named_like_sqlites_and_recorded_once(pg_url: str) -> None:
    assert [(v, n) for v, n, _ in MIGRATIONS] == [(v, n) for v, n, _ in SQLITE_MIGRATIONS]
    for _ in range(2):
        open_postgres(pg_url).close()
    store = open_postgres(pg_url)
    try:
        rows = store.conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        assert rows == [(v, n) for v, n, _ in MIGRATIONS]
        assert store.missing_migrations() == []
    finally:
        store.close()


def test_processes_opening_a_new_database_together_migrate_it_once(tmp_path: Path) -> None:
    from tests.backends import cluster

    bare = cluster().new_database(migrated=False)  # a database nothing has opened yet
    errors: list[BaseException] = []

    def opener() -> None:
        try:
            open_postgres(bare).close()
        except BaseException as exc:  # pragma: no cover - the assertion reports it
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    store = open_postgres(bare)
    try:
        assert store.conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    finally:
        store.close()
        cluster().drop(bare)


def test_foreign_keys_are_enforced(pg: PostgresStore) -> None:
    with pytest.raises(psycopg.errors.ForeignKeyViolation), pg.transaction():
        pg.conn.execute("INSERT INTO observations (entity_id, content) VALUES (999, 'orphan')")


def test_a_sql_error_mid_transaction_rolls_back_the_earlier_statements_and_their_postings(pg: PostgresStore) -> None:
    with pytest.raises(psycopg.errors.UniqueViolation), pg.transaction():
        pg.save(_write("first"))
        pg.save(_write("first"))
    assert pg.count() == 0
    assert _postings(pg) == set()
    assert pg.index_matches() == (0, 0)


def test_the_postings_follow_every_write(pg: PostgresStore) -> None:
    with pg.transaction():
        entity_id = pg.save(_write("m", ("apple",)))
    with pg.transaction():
        pg.save(_write("m", ("banana",), entity_id=entity_id, title="Pear"))
    assert pg.search(match("apple"), Filters(), 10) == []
    assert [found for found, _ in pg.search(match("banana"), Filters(), 10)] == [entity_id]
    assert [found for found, _ in pg.search(match("pear"), Filters(), 10)] == [entity_id]
    assert {term for term, _ in _postings(pg)} == {"m", "pear", "banana"}
    assert pg.doc_freq(["apple", "banana"]) == {"banana": 1}
    with pg.transaction():
        pg.remove_observation(entity_id, "banana")
    assert pg.search(match("banana"), Filters(), 10) == []
    with pg.transaction():
        assert pg.delete([entity_id]) == 1
    assert _postings(pg) == set()
    assert pg.index_matches() == (0, 0)
    assert pg.integrity() == "ok"


def test_the_postings_hold_exactly_fts5s_tokens_of_the_index_text(pg: PostgresStore, tmp_path: Path) -> None:
    text = ("Café Über-Camping", "Supported 認證方式 x", ("He camped; CAMPING!", "naïve résumé 2024 ß"))
    with pg.transaction():
        entity_id = pg.save(_write("cafe-camping", text[2], title=text[1]))
    sqlite = open_sqlite(tmp_path / "m.db")
    try:
        with sqlite.transaction():
            sqlite.save(_write("cafe-camping", text[2], title=text[1]))
        sqlite.conn.execute("CREATE VIRTUAL TABLE temp.cols USING fts5vocab(main, entities_fts, 'col')")
        vocab = {(str(t), str(c), int(n)) for t, c, n in sqlite.conn.execute("SELECT term, col, cnt FROM temp.cols")}
    finally:
        sqlite.close()
    stored = {
        (str(term), column, int(count))
        for term, name_tf, title_tf, body_tf in pg.conn.execute(
            "SELECT term, name_tf, title_tf, body_tf FROM search_postings WHERE entity_id = ?", (entity_id,)
        )
        for column, count in (("name", name_tf), ("title", title_tf), ("observations", body_tf))
        if count
    }
    assert stored == vocab
    assert term_counts(*index_columns("cafe-camping", text[1], text[2]))


def test_a_query_term_is_the_phrase_fts5_makes_of_it() -> None:
    assert phrase("camping") == ("camp",)
    assert phrase("Über") == ("uber",)
    assert phrase("---") == ()


def test_the_entity_and_index_counters_track_inserts_and_deletes(pg: PostgresStore) -> None:
    with pg.transaction():
        ids = [pg.save(_write(f"m{n}", ("one two", "two"))) for n in range(3)]
    assert pg.count() == 3
    tokens = pg.conn.execute("SELECT value FROM counters WHERE name = 'search_tokens'").fetchone()[0]
    assert tokens == 3 * 4  # the name and three words in each
    with pg.transaction():
        pg.delete(ids[:2])
    assert pg.count() == 1
    assert pg.doc_freq(["two"]) == {"two": 1}
    assert pg.integrity() == "ok"


def test_writers_take_turns_on_the_write_lock(pg_url: str) -> None:
    first, second = open_postgres(pg_url), open_postgres(pg_url)
    order: list[str] = []
    try:
        with first.transaction():
            first.save(_write("a"))

            def write_second() -> None:
                with second.transaction():
                    order.append("second")
                    second.save(_write("b"))

            waiting = threading.Thread(target=write_second)
            waiting.start()
            time.sleep(0.3)
            order.append("first")
        waiting.join()
        assert order == ["first", "second"]
        assert first.count() == 2
    finally:
        first.close()
        second.close()


def test_a_writer_that_waits_past_the_lock_timeout_fails_as_locked(pg_url: str) -> None:
    holder, waiter = open_postgres(pg_url), open_postgres(pg_url)
    try:
        waiter.conn.raw.execute("SET lock_timeout = '100ms'")
        with holder.transaction(), pytest.raises(psycopg.errors.LockNotAvailable) as caught, waiter.transaction():
            waiter.save(_write("b"))
        error = translate(caught.value)
        assert error is not None and error.data["store"] == "locked" and error.unavailable
    finally:
        holder.close()
        waiter.close()


def test_a_write_outside_a_transaction_takes_the_lock_too(pg_url: str) -> None:
    holder, other = open_postgres(pg_url), open_postgres(pg_url)
    try:
        other.conn.raw.execute("SET lock_timeout = '100ms'")
        with holder.transaction(), pytest.raises(psycopg.errors.LockNotAvailable):
            other.set_meta("k", "v")
        other.set_meta("k", "v")
        assert holder.get_meta("k") == "v"
    finally:
        holder.close()
        other.close()


def _accesses(store: PostgresStore, entity_id: int) -> tuple[int, str | None]:
    row = store.conn.execute("SELECT access_count, last_accessed_at FROM entities WHERE id = ?", (entity_id,))
    count, when = row.fetchone()
    return int(count), when


def test_recalls_access_count_is_sent_and_seen_by_the_next_statement_and_other_connections(pg_url: str) -> None:
    pg, other = open_postgres(pg_url), open_postgres(pg_url)
    try:
        with pg.transaction():
            ids = [pg.save(_write(name)) for name in ("a", "b", "c")]
        pg.touch(ids[:2], "2026-01-02T03:04:05Z")
        pg.touch(ids[:1], "2026-01-02T03:04:06Z")  # the first one's answer read before this is sent
        assert _accesses(pg, ids[0]) == (2, "2026-01-02T03:04:06Z")
        assert _accesses(other, ids[1]) == (1, "2026-01-02T03:04:05Z")
        assert _accesses(other, ids[2]) == (0, None)
        assert not pg.conn.in_transaction
        with pg.transaction():  # inside a transaction: part of it, rolled back with it
            pg.touch(ids[2:], "2026-01-02T03:04:07Z")
            assert _accesses(pg, ids[2]) == (1, "2026-01-02T03:04:07Z")
            pg.conn.execute("SELECT 1/0")
    except psycopg.errors.DivisionByZero:
        assert _accesses(other, ids[2]) == (0, None)
    finally:
        pg.close()
        other.close()


def test_an_access_count_the_database_refuses_still_answers_and_counts_nothing(pg_url: str) -> None:
    pg = open_postgres(pg_url)
    try:
        entity_id = pg.save(_write("a"))
        pg.conn.raw.execute("SET default_transaction_read_only = on")
        pg.touch([entity_id], "2026-01-02T03:04:05Z")  # read-only: refused, as a full disk would be
        assert _accesses(pg, entity_id) == (0, None)
        assert not pg.conn.in_transaction  # the failed script's transaction was rolled back
    finally:
        pg.close()


def test_an_access_count_that_fails_otherwise_fails_the_next_statement_then_the_connection_goes_on(
    pg_url: str,
) -> None:
    pg, holder = open_postgres(pg_url), open_postgres(pg_url)
    try:
        entity_id = pg.save(_write("a"))
        pg.conn.raw.execute("SET lock_timeout = '100ms'")
        with holder.transaction():
            holder.save(_write("b"))  # holding the write lock past pg's timeout
            pg.touch([entity_id], "2026-01-02T03:04:05Z")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                pg.count()
        assert _accesses(pg, entity_id) == (0, None)
        assert pg.count() == 2
    finally:
        pg.close()
        holder.close()


def test_a_schema_named_in_the_url_is_a_database_of_its_own(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA team_b")
    other = open_postgres(f"{pg_url}&options=-csearch_path%3Dteam_b")
    main = open_postgres(pg_url)
    try:
        with other.transaction():
            other.save(_write("only-in-b"))
        assert other.count() == 1 and main.count() == 0
        with main.transaction(), other.transaction():  # different schemas: different write locks
            main.save(_write("only-in-main"))
            other.save(_write("also-in-b"))
    finally:
        other.close()
        main.close()


def test_a_url_is_shown_with_its_password_redacted() -> None:
    assert redacted("postgresql://ann:s3cret@db.example:5432/memesh?sslmode=require") == (
        "postgresql://ann:***@db.example:5432/memesh?sslmode=require"
    )
    assert "hunter2" not in redacted("postgresql://db/memesh?user=ann&password=hunter2")
    assert redacted("postgres://db/memesh") == "postgres://db/memesh"


def test_a_server_that_does_not_answer_is_unavailable_and_named_only_redacted(tmp_path: Path) -> None:
    url = f"postgresql://ann:s3cret@/memesh?host={tmp_path}&connect_timeout=2"
    with pytest.raises(StoreError) as caught:
        open_postgres(url)
    error = caught.value.error
    assert error.code is ErrorCode.STORE_UNAVAILABLE and error.data["store"] == "unreachable" and error.unavailable
    assert "s3cret" not in str(caught.value) and str(tmp_path) not in error.message
    assert "s3cret" not in error.message


def test_a_database_that_does_not_exist_cannot_be_opened(pg_url: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_postgres(pg_url.replace("/t", "/nope_t", 1))
    assert caught.value.error.data["store"] == "no-database" and caught.value.error.unavailable
    assert caught.value.error.code is ErrorCode.STORE_UNAVAILABLE
    assert "nope_t" not in caught.value.error.message  # libpq's text names the server: never passed on


def test_question_marks_become_parameters_only_outside_quotes() -> None:
    assert pg_sql("SELECT ? , '?', \"a?\" WHERE x LIKE 'p:%' AND y = ?") == (
        "SELECT %s , '?', \"a?\" WHERE x LIKE 'p:%%' AND y = %s"
    )
    assert pg_sql("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', %s"


def test_config_jsons_database_chooses_postgresql_and_the_environment_wins(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from memesh.store import open as opening

    monkeypatch.setenv("MEMESH_DIR", str(tmp_path))
    monkeypatch.setenv("MEMESH_DB_PATH", str(tmp_path / "knowledge-graph.db"))
    monkeypatch.delenv("MEMESH_DATABASE_URL", raising=False)
    assert opening.chosen() == tmp_path / "knowledge-graph.db"
    (tmp_path / "config.json").write_text(json.dumps({"database": pg_url}))
    assert opening.chosen() == pg_url
    store = opening.open_store()
    try:
        assert isinstance(store, PostgresStore)
    finally:
        store.close()
    monkeypatch.setenv("MEMESH_DATABASE_URL", "postgresql://other@/elsewhere")
    assert opening.chosen() == "postgresql://other@/elsewhere"


def test_a_database_setting_that_is_not_a_url_is_refused_without_repeating_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_DIR", str(tmp_path))
    monkeypatch.setenv("MEMESH_DATABASE_URL", "mysql://me:s3cret@db/x")
    from memesh.store import open as opening

    with pytest.raises(StoreError) as refused:
        opening.open_store()
    assert "s3cret" not in str(refused.value) and "MEMESH_DATABASE_URL" in str(refused.value)
