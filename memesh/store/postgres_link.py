"""The network link under a PostgreSQL store: a psycopg connection that never waits unbounded, and the checks that
tell a broken connection from a live one.

Imported only once a URL selects PostgreSQL (it imports psycopg).

Every wait for the server's answer is bounded (`Link.answer_within`, the session's statement_timeout plus a margin
for the network): the server cancels a statement that runs too long itself, so an answer later than that means the
link is gone (a partition, a proxy that stopped forwarding, a host that vanished without a reset), which TCP alone
may take many minutes to notice. The connection is then closed, since its protocol state is unknown, and its
statement fails as unreachable.

Waits release the GIL: psycopg's own waiting functions (`wait_c` in the binary build) poll the socket with the GIL
released, and `answers` below waits the same way for a script sent without waiting (`PgConnection.send_write`).
libpq's blocking `PQgetResult` does not release it in psycopg's binary build (measured: another thread of the process
made no progress for the whole wait), so a thread waiting there for a write lock held by another thread of the same
process would stop that holder from ever reading its own answer.
"""

from __future__ import annotations

import math
import select
from time import monotonic
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg.pq import ConnStatus, TransactionStatus

if TYPE_CHECKING:
    from psycopg.abc import PQGen
    from psycopg.pq.abc import PGconn, PGresult

RV = TypeVar("RV")
# Above the server's own statement_timeout: the network's round trip and a large answer's transfer. A statement
# the server cancels answers 57014 well within it.
ANSWER_MARGIN_S = 1.0
# Exceptions that mean the connection itself broke (not a statement's failure): the server ended the session
# (admin shutdown, crash shutdown, cannot connect now, idle session timeout) or the link failed (class 08).
_BROKEN_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "57P05"})


class AnswerTimeout(psycopg.OperationalError):
    """No answer from the server within the connection's bound: the link is taken as lost (and closed)."""


class Link(psycopg.Connection[tuple[Any, ...]]):
    """A psycopg connection whose every wait for the server ends within `answer_within` seconds (None: unbounded)."""

    answer_within: float | None = None

    def wait(self, gen: PQGen[RV], interval: float = 0.1, timeout: float | None = None) -> RV:
        if timeout is not None or self.answer_within is None:  # a wait psycopg bounds itself (or nothing to bound)
            return super().wait(gen, interval, timeout) if timeout is not None else super().wait(gen, interval)
        try:
            return super().wait(_within(gen, monotonic() + self.answer_within), interval)
        except _Expired:
            self.pgconn.finish()  # mid-protocol: nothing sent or read later could be trusted
            raise AnswerTimeout(f"no answer from the database within {self.answer_within:g} s") from None


class _Expired(Exception):
    pass


def _within(gen: PQGen[RV], deadline: float) -> PQGen[RV]:
    """`gen`, ended by _Expired once `deadline` passes: psycopg's waits send it "nothing ready" every `interval`
    while the socket is quiet (so this needs no timeout of psycopg's own, which only its 3.3 waits take)."""
    try:
        waiting = next(gen)
        while True:
            ready = yield waiting
            if not ready and monotonic() >= deadline:
                gen.close()
                raise _Expired
            waiting = gen.send(ready)
    except StopIteration as done:
        result: RV = done.value
        return result


def broke(raw: psycopg.Connection[tuple[Any, ...]], exc: BaseException | None = None) -> bool:
    """Whether `raw` can no longer be used: closed or BAD, or `exc` says the server ended the session or the link
    failed."""
    if raw.pgconn.status == ConnStatus.BAD:
        return True
    sqlstate = str(getattr(exc, "sqlstate", None) or "")
    return sqlstate in _BROKEN_SQLSTATES or sqlstate.startswith("08")


def idle_and_dead(raw: psycopg.Connection[tuple[Any, ...]]) -> bool:
    """Whether an idle connection was ended while it waited: the server's goodbye (a FATAL error, then end of file)
    is already on the socket after `pg_terminate_backend`, a restart or an idle timeout. One zero-timeout poll of
    the socket when nothing is there (a few microseconds), so a live connection costs nothing noticeable."""
    pgconn = raw.pgconn
    if pgconn.status == ConnStatus.BAD:
        return True
    if pgconn.transaction_status != TransactionStatus.IDLE:
        return False  # mid-statement or in a transaction: its own statement will tell
    try:
        if _ready(pgconn.socket, select.POLLIN, 0):
            pgconn.consume_input()  # end of file marks the connection BAD
    except (OSError, psycopg.OperationalError):
        return True
    return pgconn.status == ConnStatus.BAD


def answers(pgconn: PGconn, within: float | None) -> list[PGresult]:
    """Every result of the query last sent on `pgconn`, waiting as psycopg's waiting functions do: poll the socket
    with the GIL released until libpq has a whole result, then take it (never libpq's blocking read). AnswerTimeout
    (the connection closed) when they take longer than `within` seconds."""
    from psycopg import OperationalError

    deadline = None if within is None else monotonic() + within
    results: list[PGresult] = []
    while True:
        while pgconn.is_busy():
            left = None if deadline is None else deadline - monotonic()
            if left is not None and left <= 0:
                pgconn.finish()
                raise AnswerTimeout(f"no answer from the database within {within:g} s")
            try:
                _ready(pgconn.socket, select.POLLIN, left)
            except OSError as exc:
                raise OperationalError(f"the connection's socket failed: {exc.strerror}") from None
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            return results
        results.append(result)


def wait_writable(pgconn: PGconn, within: float | None) -> None:
    """Until `pgconn`'s socket takes more of a query being sent; AnswerTimeout (closed) after `within` seconds."""
    if not _ready(pgconn.socket, select.POLLOUT, within):
        pgconn.finish()
        raise AnswerTimeout(f"the database took no data for {within:g} s")


def _ready(socket: int, events: int, within: float | None) -> bool:
    """Whether `socket` is ready for `events` (or failed: the next read or write says how) within `within` seconds
    (None: however long it takes), the GIL released meanwhile. poll, not select: a server with many open files
    has sockets past select's 1024."""
    poller = select.poll()
    poller.register(socket, events)
    return bool(poller.poll(None if within is None else max(0, math.ceil(within * 1000))))


def seconds(setting: str) -> float | None:
    """A PostgreSQL time setting as `current_setting` shows it ("40s", "1min", "250ms", "0") in seconds; None for 0
    (no limit) or a form not known here."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
    number = setting.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = setting[len(number) :] or "ms"
    try:
        value = float(number) * units[unit]
    except (ValueError, KeyError):
        return None
    return value or None
