"""A real `memesh serve --database URL` process when its PostgreSQL fails under it: every backend terminated, the
cluster restarted (fast and immediate) under traffic, a partition (a proxy that stops forwarding). A cluster of the
module's own on 127.0.0.1, since these tests end and restart its connections."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from memesh.store.errors import translate
from tests.pg_faults import Proxy, fresh_database, proxy_to, running_cluster, terminate_memesh, wait_for
from tests.transports.http.test_serve import Running

MEMESH = Path(sys.executable).parent / "memesh"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from running_cluster(("synchronous_commit=on",))  # acknowledged is durable, even through -m immediate


@pytest.fixture
def url(cluster: Any) -> Iterator[str]:
    yield from fresh_database(cluster)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[str], httpx.Client]]:
    """`memesh serve --database URL` on a free loopback port, as a user types it; an HTTP client to it."""
    started: list[tuple[subprocess.Popen[str], httpx.Client]] = []

    def launch(database: str) -> httpx.Client:
        home = tmp_path / "home"
        env = {k: v for k, v in os.environ.items() if (not k.startswith("MEMESH_") or k == "MEMESH_DAEMON")}
        env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_UPDATE_CHECK="0")
        proc = subprocess.Popen(
            [str(MEMESH), "serve", "--port", "0", "--database", database],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        client = httpx.Client(base_url=Running(proc).url, timeout=60)
        started.append((proc, client))
        return client

    yield launch
    for proc, client in started:
        client.close()
        proc.kill()
        proc.wait()


def _remember(client: httpx.Client, name: str) -> httpx.Response:
    return client.post("/v1/remember", json={"name": name, "type": "fact", "observations": [f"{name} noted"]})


def _recall(client: httpx.Client) -> httpx.Response:
    return client.post("/v1/recall", json={"query": "noted"})


def _names(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {str(row[0]) for row in conn.execute("SELECT name FROM entities")}


def _unreachable_code() -> str:
    error = translate(psycopg.OperationalError("no server"))
    assert error is not None
    return str(error.code)


def test_serve_answers_the_next_calls_within_5_s_after_every_backend_was_terminated(
    cluster: Any, url: str, serve: Callable[[str], httpx.Client]
) -> None:
    client = serve(url)
    for name in ("a", "b", "c"):
        assert _remember(client, name).status_code == 200
    assert _recall(client).status_code == 200
    assert terminate_memesh(cluster.url()) >= 1
    started = time.monotonic()
    statuses = [_recall(client).status_code, _remember(client, "d").status_code, _recall(client).status_code]
    assert statuses == [200, 200, 200]
    assert time.monotonic() - started < 5
    assert {"a", "b", "c", "d"} <= _names(url)


class Writer:
    """A thread writing through serve as fast as it is answered, keeping every write serve acknowledged."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.acknowledged: list[str] = []
        self.failed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        count = 0
        while not self._stop.is_set():
            name = f"w{count}"
            count += 1
            try:
                answer = _remember(self.client, name)
            except httpx.HTTPError:
                self.failed.append(0)
                continue
            if answer.status_code == 200:
                self.acknowledged.append(name)
            else:
                self.failed.append(answer.status_code)
                time.sleep(0.05)  # a client backing off, not a spin against a database that is down

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_serve_answers_within_10_s_of_a_restart_under_traffic_and_keeps_every_acknowledged_write(
    cluster: Any, url: str, serve: Callable[[str], httpx.Client], mode: str
) -> None:
    client = serve(url)
    reader = httpx.Client(base_url=str(client.base_url), timeout=60)
    writer = Writer(client)
    try:
        wait_for(lambda: len(writer.acknowledged) >= 20, within=10)
        cluster.restart(mode)
        back = time.monotonic()
        wait_for(lambda: _recall(reader).status_code == 200, within=10, step=0.1)
        assert [_recall(reader).status_code for _ in range(20)] == [200] * 20  # on every worker thread, not one
        count = len(writer.acknowledged)
        wait_for(lambda: len(writer.acknowledged) > count + 5, within=10)  # the writer is answered again too
        assert time.monotonic() - back < 10
    finally:
        writer.stop()
        reader.close()
    assert set(writer.acknowledged) <= _names(url)
    assert set(writer.failed) <= {503}  # while it was down: the store's error, never a bug's 500


def test_serve_fails_a_partitioned_call_within_its_budget_with_the_store_error_and_recovers(
    cluster: Any, url: str, serve: Callable[[str], httpx.Client]
) -> None:
    database = conninfo_to_dict(url)["dbname"]
    proxy: Proxy
    with proxy_to(cluster.port) as proxy:
        client = serve(
            f"postgresql://memesh@127.0.0.1:{proxy.port}/{database}?connect_timeout=2"
            "&options=-c%20statement_timeout%3D1s%20-c%20lock_timeout%3D500ms"
        )
        assert _remember(client, "before").status_code == 200
        proxy.pause()
        calls: list[Callable[[], httpx.Response]] = [lambda: _recall(client), lambda: _remember(client, "during")]
        for call in calls:
            started = time.monotonic()
            answer = call()
            assert time.monotonic() - started < 4  # an answer's bound (2 s) or a connect's (2 s), not minutes
            assert answer.status_code == 503
            assert answer.json()["errorCode"] == _unreachable_code()
        proxy.resume()
        assert wait_for(lambda: _recall(client).status_code == 200, within=8, step=0.1) < 8
        assert _remember(client, "after").status_code == 200
    assert {"before", "after"} <= _names(url)
