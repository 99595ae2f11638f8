"""PostgreSQL's notifications of new message events: what wakes the waiting polls and watches of one process.

A send's transaction runs `pg_notify` on its MeMesh database's channel (`events_channel`); PostgreSQL delivers it at
commit, and only if it commits. One connection per process and database LISTENs on that channel, in a daemon thread
(`Listener`), and counts a *generation* for each thing that may have brought a new event: a notification, the
connection (re)established (what was sent while it was down was not heard), and a slow safety tick (a writer that
does not notify, an older MeMesh). Waiters read the newest event id once per generation, shared (memesh.app.waiting),
so an idle process costs the server one short read per tick while something waits, and none when nothing does.

The listening connection breaks like any other (the server restarts, a backend is terminated, a pooler in session
mode drops it): it is reconnected with backoff, the safety ticks going on meanwhile.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, Final

SAFETY_S: Final = 2.0  # how long a waiter goes without a fresh look when no notification comes
RETRY_FIRST_S: Final = 0.1  # the first reconnect comes soon (a terminated backend: the server itself is fine)
RETRY_MAX_S: Final = 10.0  # then the attempts slow down, for a server that is down
APPLICATION_NAME: Final = "memesh-listen"  # how the listening connection shows in pg_stat_activity
# An idle listening connection sends nothing, so a peer gone silent (a partition, a host that died) is noticed only
# by TCP keepalives: these, unless the URL sets its own, notice it within about a minute.
KEEPALIVES: Final = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}


def events_channel(scope: int) -> str:
    """The notification channel of the MeMesh database whose scope (a hash of its schema) is `scope`: two MeMesh
    schemas of one PostgreSQL database do not wake each other's waiters."""
    return f"memesh_events_{scope & 0xFFFFFFFF:08x}"


class Listener:
    """One LISTENing connection to one database, in a daemon thread: its generation counts what may have brought a
    new message event; `subscribe`d callbacks run (in that thread) each time it grows."""

    def __init__(self, url: str, *, safety_s: float = SAFETY_S, pooled_tick_s: float | None = None) -> None:
        self._url = url
        self.safety_s = safety_s
        # A pooler told at connect (PgBouncer's made-up process id) with MEMESH_DATABASE_POOLER unset: LISTEN would
        # hold on a server connection the pooler hands to others, and no notification would come back. Then this
        # thread only ticks, every `pooled_tick_s`, as the setting's shared tick does.
        self._pooled_tick_s = pooled_tick_s
        self.pooled = False
        self._generation = 0
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.connected = threading.Event()  # set while LISTEN is in force (tests wait for it)
        self._thread = threading.Thread(target=self._run, name="memesh-listen", daemon=True)
        self._thread.start()

    @property
    def generation(self) -> int:
        return self._generation

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` each time the generation grows, until the returned function is called."""
        key = id(callback)
        with self._lock:
            self._callbacks[key] = callback
        return lambda: self._drop(key)

    def _drop(self, key: int) -> None:
        with self._lock:
            self._callbacks.pop(key, None)

    def bump(self) -> None:
        """Something may have happened: a new generation, and every subscriber told."""
        with self._lock:
            self._generation += 1
            callbacks = list(self._callbacks.values())
        for callback in callbacks:
            with contextlib.suppress(Exception):  # a waiter whose event loop has closed: it is gone anyway
                callback()

    def longest_sleep(self) -> float:
        """How long a waiter sleeps unwoken at most: past the safety tick, in case this thread itself has died."""
        return 2 * self.safety_s

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        retry = RETRY_FIRST_S
        while not self._stop.is_set():
            try:
                self._listen()
                retry = RETRY_FIRST_S
            except Exception:  # unreachable, terminated, refused: the same answer, try again later
                self.connected.clear()
            if self._stop.is_set():
                return
            self._pause(retry)
            retry = min(retry * 2, RETRY_MAX_S)

    def _pause(self, seconds: float) -> None:
        """Wait `seconds` before reconnecting, the safety ticks going on meanwhile."""
        while seconds > 0 and not self._stop.is_set():
            step = min(seconds, self.safety_s)
            if self._stop.wait(step):
                return
            seconds -= step
            self.bump()

    def _listen(self) -> None:
        import psycopg

        conn: psycopg.Connection[tuple[Any, ...]] = psycopg.connect(_conninfo(self._url), autocommit=True)
        try:
            row = conn.execute(
                "SELECT hashtext(COALESCE(current_schema(), '')), pg_backend_pid() <> %s", (conn.info.backend_pid,)
            ).fetchone()
            assert row is not None
            if row[1] and self._pooled_tick_s is not None and _detects_poolers():
                self._tick_only(conn, self._pooled_tick_s)
                return
            conn.execute(f"LISTEN {events_channel(int(row[0]))}")
            self.connected.set()
            self.bump()  # what was committed while no one listened was not heard
            while not self._stop.is_set():
                # psycopg waits for the socket with the GIL released: the thread costs the process nothing idle.
                for _ in conn.notifies(timeout=self.safety_s, stop_after=1):
                    pass
                self.bump()  # a notification, or the safety tick: either way, one shared look
        finally:
            self.connected.clear()
            with contextlib.suppress(Exception):
                conn.close()

    def _tick_only(self, conn: Any, tick_s: float) -> None:
        """Behind a pooler: no listening connection held, a shared look every `tick_s` instead."""
        self.pooled = True
        with contextlib.suppress(Exception):
            conn.close()
        self.connected.set()
        self.bump()
        while not self._stop.wait(tick_s):
            self.bump()


def _detects_poolers() -> bool:
    """Whether a pooler told at connect counts (MEMESH_DATABASE_POOLER=session says there is none to mind)."""
    from memesh import paths

    try:
        return paths.database_pooler_mode() != "session"
    except paths.DatabaseSettingError:
        return True


def _conninfo(url: str) -> str:
    """The URL with the listening connection's defaults where it sets none (MeMesh's connect timeout, this
    connection's name, keepalives)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    from memesh.store.postgres_open import CONNECT_TIMEOUT_S

    given = conninfo_to_dict(url)
    defaults: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "application_name": APPLICATION_NAME,
        **KEEPALIVES,
    }
    extra = {name: value for name, value in defaults.items() if name not in given}
    return make_conninfo(url, **extra) if extra else url


_LISTENERS: dict[str, Listener] = {}
_STARTING = threading.Lock()


def listener_for(url: str, *, pooled_tick_s: float | None = None) -> Listener:
    """This process's one listener for the database at `url` (started on first use); behind a pooler it tells at
    connect, a tick every `pooled_tick_s` instead."""
    with _STARTING:
        found = _LISTENERS.get(url)
        if found is None:
            found = _LISTENERS[url] = Listener(url, pooled_tick_s=pooled_tick_s)
        return found
