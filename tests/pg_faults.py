"""What the PostgreSQL fault tests break things with: a cluster of the test's own on 127.0.0.1 (so restarting it
spares the suite's shared one), a TCP proxy the test can stop forwarding through (a partition that resets nothing),
and the admin's `pg_terminate_backend` of every MeMesh connection."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from tests.backends import _pg_cluster, engines, server_programs


def own_cluster(settings: tuple[str, ...] = ()) -> Any:
    """A migrated-template cluster listening on 127.0.0.1, with `settings` (NAME=VALUE) over the suite's (skipped
    where PostgreSQL is not installed or not asked for); the caller stops it."""
    if "postgres" not in engines():
        pytest.skip("PostgreSQL is not among MEMESH_TEST_BACKENDS")
    bindir = server_programs()
    return _pg_cluster().Cluster(bindir, tcp=True, settings=settings)


def running_cluster(settings: tuple[str, ...] = ()) -> Iterator[Any]:
    """A module's `cluster` fixture: `own_cluster`, stopped when the module is done."""
    started = own_cluster(settings=settings)
    yield started
    started.stop()


def fresh_database(cluster: Any) -> Iterator[str]:
    """A test's `url` fixture: a migrated database of its own on `cluster`, dropped after it."""
    made: str = cluster.new_database()
    yield made
    cluster.drop(made)


def terminate_memesh(admin_url: str) -> int:
    """Every MeMesh connection (application_name memesh) ended by the server, as an admin's `pg_terminate_backend`
    or a managed service's idle timeout ends it; how many there were."""
    with psycopg.connect(admin_url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'memesh' AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


def wait_for(condition: Callable[[], bool], within: float, step: float = 0.02) -> float:
    """Seconds until `condition()` held; AssertionError when it did not within `within` seconds."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > within:
            raise AssertionError(f"not within {within} s")
        time.sleep(step)
    return time.monotonic() - start


class Proxy:
    """A TCP forwarder on 127.0.0.1 to `upstream` that can stop forwarding: `pause` holds every byte in both
    directions (the kernel still acknowledges them, as a stalled middlebox or a link that went quiet does) and
    answers no new connection; `resume` lets everything through again."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def pause(self) -> None:
        self._flowing.clear()

    def resume(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        for sock in [self._server, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._link, args=(client,), daemon=True).start()

    def _link(self, client: socket.socket) -> None:
        self._flowing.wait()
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        self._sockets += [client, server]
        for source, target in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                self._flowing.wait()
                if self._closed:
                    break
                target.sendall(chunk)
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def proxy_to(port: int) -> Iterator[Proxy]:
    proxy = Proxy(("127.0.0.1", port))
    try:
        yield proxy
    finally:
        proxy.close()
