"""The connection underneath the PostgreSQL store: `?` parameters, transactions, and writers taking turns.

The shared queries are written once with SQLite's `?` parameters; `PgConnection` turns each into psycopg's `%s`
(literal `%` doubled) once per distinct statement.

Writers take turns, as SQLite's `BEGIN IMMEDIATE` makes them: every write transaction starts by taking one
transaction-level advisory lock (`pg_advisory_xact_lock`) for this MeMesh database (the schema the URL selects), and
holds it until it commits. Whatever relied on being the only writer between its read and its write — idempotent
staging of proposals and work packages, counters, message idempotency and event order, the Stop gate's memory,
session generations — keeps that guarantee, on any number of machines; and ids are handed out in commit order, so
a poll reading events after a position never skips one committed later with a smaller id. A writer waits at most
`LOCK_TIMEOUT` for its turn (SQLite's busy timeout), then fails as "locked". Reads take no lock and see every
committed write (READ COMMITTED), as SQLite's WAL readers do.

Round trips. Each statement awaited is a round trip to the server, and on a busy machine each costs a wake-up of
the server process. A write whose answer nobody reads (recall's access count) can be *sent*: its whole transaction
goes out as one script and the caller goes on; its answer is read before the connection's next use (`settle`). The
server runs a connection's statements in order, so the next statement here sees it done, and other connections see
it once it commits. (A write transaction's BEGIN and lock stay a round trip of their own, taken as the transaction
begins: sending them with its first statement would save one, but the turn would then start at that statement, not
where the caller's `with store.transaction()` says it does.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memesh.store.sql import POSTGRES, Cursor, SqlBase

if TYPE_CHECKING:
    import psycopg

    from memesh.errors import MemeshError

LOCK_TIMEOUT = "30s"  # as long as SQLite's busy timeout
# The two keys of the advisory locks (pg_advisory_xact_lock(class, scope)): the class says which lock, the scope
# which MeMesh database (a hash of the schema the connection uses), so that two MeMesh schemas of one PostgreSQL
# database do not wait for each other.
WRITE_LOCK = 0x4D4D5701
MIGRATION_LOCK = 0x4D4D4D01
_WRITES = ("INSERT", "UPDATE", "DELETE")
_CHANNEL = re.compile(r"[a-z_][a-z0-9_]*")


@lru_cache(maxsize=2048)
def pg_sql(sql: str) -> str:
    """`sql` with each `?` parameter outside quotes as `%s` and every `%` doubled, as psycopg reads a query."""
    out: list[str] = []
    quote: str | None = None
    for ch in sql:
        if ch == "%":
            out.append("%%")
            continue
        if quote is None and ch == "?":
            out.append("%s")
            continue
        if quote is None and ch in "'\"":
            quote = ch
        elif ch == quote:
            quote = None  # a doubled quote inside a literal closes and reopens it: the same text either way
        out.append(ch)
    return "".join(out)


def transaction_settings(lock: str = LOCK_TIMEOUT, statement: str | None = None) -> str:
    """The statements that open each write transaction behind a transaction-mode pooler: the settings a session of
    its own sets once (`open_as`), set for this transaction only, since the next one may run on another server
    connection (and a session's setting would stay behind on this one, for another client). plan_cache_mode is not
    among them: nothing is prepared on a pooled connection."""
    bounded = f"SET LOCAL statement_timeout = '{statement}'; " if statement else ""
    return f"SET LOCAL lock_timeout = '{lock}'; {bounded}SET LOCAL jit = off; "


@lru_cache(maxsize=2048)
def _writes(sql: str) -> bool:
    return sql.lstrip().upper().startswith(_WRITES)


class PgConnection:
    """A psycopg connection (autocommit, so a statement outside a transaction commits on its own, as SQLite's does)
    that takes `?` parameters, takes the write lock for a write run outside a transaction, and puts a new connection
    in place of one that broke.

    Reconnecting. A connection is found broken before a use (closed, BAD, or the server's goodbye waiting on its
    socket: `pg_terminate_backend`, a restart, a failover, an idle timeout) or by a statement's failure (class 08,
    57P01/57P02/57P03); the next use outside a transaction opens a new one through `reconnect` (the same URL, the
    same session settings; the same schema, so the same write-lock scope) and counts a use, so nothing cached
    against the old one (PostgresSearch's conflicts) is trusted. What is retried, and what is not:
    - a read outside a transaction that failed because the connection broke is run once more on a new connection
      (it changed nothing); one that timed out is not (the link is down: a second try would double the wait);
    - a write transaction whose BEGIN failed that way is begun once more (nothing of it reached the server);
    - a write that may have committed is never run again: it fails with the store's error, and the next call
      reconnects. Inside a transaction nothing reconnects: its remaining statements fail and the transaction with
      them (the server rolled back what it had), never half on one connection and half on another;
    - a sent script's answer (recall's access count) lost with its connection is dropped: that count may or may not
      be there, and the call it belonged to has answered already.
    """

    def __init__(
        self,
        raw: psycopg.Connection[tuple[Any, ...]],
        scope: int,
        shown: str = "",
        *,
        per_transaction: str | None = None,
        reconnect: Callable[[], psycopg.Connection[tuple[Any, ...]]] | None = None,
    ) -> None:
        self._raw = raw
        self.scope = scope
        self.shown = shown  # the URL with its password redacted
        # Behind a transaction-mode pooler, the settings each write transaction sets for itself
        # (`transaction_settings`); None on a session of its own, whose settings were set once as it opened.
        self.per_transaction = per_transaction
        self._reconnect = reconnect
        self._lock = f"{per_transaction or ''}SELECT pg_advisory_xact_lock({WRITE_LOCK}, {int(scope)})"
        self._unread: Callable[[Exception], bool] | None = None  # a sent script's, until its answer is read
        self._writing = 0  # `writing` blocks open: a connection broken inside one is never replaced under it
        self._notify: str | None = None  # a channel to notify at this write transaction's commit
        # Counts every use of the connection — each hand-out of the raw connection (every statement goes through
        # it), each script sent and each new connection — so a reader can tell that nothing ran since its own
        # statement (PostgresSearch's conflicts).
        self.uses = 0
        self.reconnects = 0

    @property
    def raw(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The psycopg connection, ready for any statement (the answer of a script sent before it read; a new
        connection in place of a broken one, outside a transaction)."""
        self.uses += 1
        self.settle()
        return self._usable()

    def _usable(self) -> psycopg.Connection[tuple[Any, ...]]:
        from memesh.store.postgres_link import idle_and_dead

        if not self._writing and self._reconnect is not None and idle_and_dead(self._raw):
            self._replace()
        return self._raw

    def _replace(self) -> None:
        """A new connection in place of the broken one (its failure, a psycopg error, raised to the caller: the
        next use tries again)."""
        assert self._reconnect is not None
        with suppress(Exception):
            self._raw.close()
        self._unread = None
        self.uses += 1
        self._raw = self._reconnect()
        self.reconnects += 1

    def _retry(self, exc: Exception) -> bool:
        """Whether a statement that raised `exc` outside a transaction may run again on a new connection: the
        connection broke (not a timeout: the link is down)."""
        from memesh.store.postgres_link import AnswerTimeout, broke

        return (
            self._reconnect is not None
            and not self._writing
            and not isinstance(exc, AnswerTimeout)
            and broke(self._raw, exc)
        )

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        from psycopg import Error

        statement, values = pg_sql(sql), tuple(parameters)
        if _writes(sql) and not self.in_transaction:
            with self.writing():
                return self._raw.execute(statement, values)
        raw = self.raw
        if self._writing or raw.info.transaction_status != _idle():
            return raw.execute(statement, values)
        try:
            return raw.execute(statement, values)
        except Error as exc:
            if not self._retry(exc):
                raise
        self._replace()  # a read that changed nothing: once more, on a new connection
        return self._raw.execute(statement, values)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor:
        rows = [tuple(row) for row in parameters]
        cursor = self.raw.cursor()
        if not rows:
            return cursor
        if not self.in_transaction:
            with self.writing():
                cursor = self._raw.cursor()  # on the connection `writing` began with (a new one if it replaced it)
                cursor.executemany(pg_sql(sql), rows)
                return cursor
        cursor.executemany(pg_sql(sql), rows)
        return cursor

    @contextmanager
    def writing(self) -> Iterator[None]:
        """A write transaction: begun with this database's write lock taken (one round trip for both), committed
        at the end, rolled back on any exception. A BEGIN that failed because the connection broke is sent once more
        on a new connection (nothing of the transaction had reached the server)."""
        from psycopg import Error

        begin = f"BEGIN; {self._lock}"
        raw = self.raw  # outside the retry: a new connection that will not open is not tried twice
        try:
            try:
                raw.execute(begin)
            except Error as exc:
                if not self._retry(exc):
                    raise
                self._replace()
                self._raw.execute(begin)
        except BaseException:
            self._roll_back()  # a lock not granted in time leaves the transaction begun
            raise
        self._writing += 1
        self._notify = None
        try:
            yield
            # The counters' deltas folded in, then committed; a notification asked for on the way rides along (it is
            # delivered at the commit, and only if it commits).
            notify = f"SELECT pg_notify('{self._notify}', ''); " if self._notify else ""
            self._raw.execute(f"{notify}SELECT memesh_compact(); COMMIT")
        except BaseException:
            self._roll_back()
            raise
        finally:
            self._writing -= 1
            self._notify = None

    def notify_at_commit(self, channel: str) -> None:
        """Notify `channel`'s listeners when this write transaction commits (in its COMMIT's round trip, no round trip
        of its own); outside `writing`, at once (at the commit of whatever transaction is open)."""
        if not _CHANNEL.fullmatch(channel):
            raise ValueError("a notification channel is a plain identifier")
        if self._writing:
            self._notify = channel
            return
        self.execute("SELECT pg_notify(?, '')", (channel,))

    def _roll_back(self) -> None:
        if self._raw.info.transaction_status != _idle():  # a broken connection has none to roll back: keep the
            with suppress(Exception):  # first error
                self._raw.execute("ROLLBACK")

    def send_write(self, sql: str, refused: Callable[[Exception], bool]) -> None:
        """Send `sql` (statements with no parameters) as a write transaction of its own, with the write lock, and
        return without waiting for its answer; that is read before this connection's next statement. A failure
        `refused` accepts (the database cannot take a write now) is dropped there; any other is raised there.

        For a write that changes no counter the triggers keep (rows counted, index terms): its transaction commits
        without `memesh_compact()`, which would find no deltas of its own to fold and still scan for them."""
        from psycopg import OperationalError

        from memesh.store.postgres_link import wait_writable

        raw = self.raw
        if raw.info.transaction_status != _idle():
            raise RuntimeError("send_write runs a transaction of its own: not inside another one")
        pgconn = raw.pgconn
        pgconn.send_query(f"BEGIN; {self._lock}; {sql}; COMMIT".encode())
        self._unread = refused
        try:
            while pgconn.flush():  # the whole script on its way (a few hundred bytes: nearly always at once)
                wait_writable(pgconn, _answer_within(raw))
        except OperationalError:
            self.settle()  # the connection broke: its answer says how
            raise

    def settle(self) -> None:
        """Read the answer of a script `send_write` sent (waiting for it if it is still running, with the GIL
        released); its transaction rolled back if it failed. A connection that broke meanwhile is left for the
        next use to replace, and the script's failure dropped with it."""
        if self._unread is None:
            return
        from psycopg import OperationalError, errors
        from psycopg.pq import ExecStatus, TransactionStatus

        from memesh.store.postgres_link import answers, broke

        refused, self._unread = self._unread, None
        raw = self._raw
        pgconn = raw.pgconn
        failure: Exception | None = None
        try:
            for result in answers(pgconn, _answer_within(raw)):
                if result.status == ExecStatus.FATAL_ERROR and failure is None:
                    failure = errors.error_from_result(result, encoding=raw.info.encoding)
        except OperationalError as exc:
            failure = exc
        if broke(raw, failure):
            if self._reconnect is not None:
                return  # whether the count committed is unknown; the call it served has answered
            raise failure if failure is not None else OperationalError("the connection is closed")
        if pgconn.transaction_status == TransactionStatus.INERROR:  # the script stopped at its failure
            raw.execute("ROLLBACK")
        if failure is not None and not refused(failure):
            raise failure

    @contextmanager
    def unbounded(self) -> Iterator[None]:
        """Answers awaited without the connection's bound for the block (a migration's statements)."""
        raw = self._raw
        within = _answer_within(raw)
        if within is not None:
            raw.answer_within = None  # type: ignore[attr-defined]
        try:
            yield
        finally:
            if within is not None:
                raw.answer_within = within  # type: ignore[attr-defined]

    @property
    def pooled(self) -> bool:
        """Whether this connection is behind a transaction-mode pooler: nothing of its session may outlive a
        transaction (no prepared statement, no session setting, no LISTEN)."""
        return self.per_transaction is not None

    @property
    def in_transaction(self) -> bool:
        if self._writing:
            return True
        self.settle()
        return bool(self._usable().info.transaction_status != _idle())

    def close(self) -> None:
        with suppress(Exception):  # a write sent last: its answer read, so the server is not left mid-reply
            self.settle()
        if self.kept_in is not None:  # the resident server's: handed back, connected, for its next request
            with suppress(Exception):
                if not self._raw.closed and self._raw.info.transaction_status != _idle():
                    self._raw.rollback()  # a call that failed inside a transaction leaves nothing half-done
            self.kept_in.append(self)
            return
        self._raw.close()

    # Set by `postgres_open.keep_connections` (the resident server): `close` hands the connection back to this list
    # instead of closing it; `release` closes it for good.
    kept_in: list[PgConnection] | None = None

    def release(self) -> None:
        """Close the connection, kept or not."""
        self.kept_in = None
        with suppress(Exception):
            self._raw.close()


def _idle() -> Any:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.IDLE


def _answer_within(raw: psycopg.Connection[tuple[Any, ...]]) -> float | None:
    return getattr(raw, "answer_within", None)


class PostgresBase(SqlBase):
    """One connection to the PostgreSQL database, and its transactions."""

    conn: PgConnection
    dialect = POSTGRES

    def __init__(self, conn: PgConnection) -> None:
        self.conn = conn
        self.read_only = False
        self.open_mode = "rw"

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit, holding the write lock from its start at the outermost level; a savepoint when nested."""
        if self.conn.in_transaction:
            with self.conn.raw.transaction():
                yield
            return
        with self.conn.writing():
            yield

    def database_failure(self, exc: BaseException) -> MemeshError | None:
        """What a failure of this database means to the caller (unreachable, refused, a lock not granted in time,
        …), or None when `exc` is not the database's: for an operation that decides whether a failure stops its
        work."""
        from memesh.store.errors import translate

        return translate(exc)

    def where(self) -> str:
        """The database in use, as doctor shows it: the engine, its version, the URL without its password and the
        schema."""
        row = self.conn.execute(
            "SELECT current_setting('server_version'), current_schema(), current_setting('jit')"
        ).fetchone()
        shown = f"PostgreSQL {row[0]} at {self.conn.shown} (schema {row[1]})"
        if not self.conn.pooled:
            return shown
        # A pooled session sets nothing for its reads, so jit is whatever the role or database says (ADR 0005).
        advice = "" if row[2] == "off" else "; jit is on for reads: ALTER ROLE <role> SET jit = off"
        return f"{shown}, through a transaction-mode pooler{advice}"

    def _insert_id(self, sql: str, params: Sequence[Any]) -> int:
        row = self.conn.execute(f"{sql} RETURNING id", params).fetchone()
        return int(row[0])

    def _counter(self, name: str) -> int:
        row = self.conn.execute("SELECT memesh_counter(?)", (name,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _has_table(self, table: str) -> bool:
        row = self.conn.execute("SELECT to_regclass(?) IS NOT NULL", (table,)).fetchone()
        return bool(row[0])
