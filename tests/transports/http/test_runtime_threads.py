"""The HTTP app's store: a connection per worker thread, and the connection of a worker thread that has ended is
closed (anyio ends idle workers; a long-running server would otherwise gather one connection per ended thread)."""

from __future__ import annotations

import threading
from pathlib import Path

from memesh.app import dispatch
from memesh.app.operations.memory import HEALTH
from memesh.transports.http.runtime import Runtime
from tests.descriptors import needs_proc, open_to


@needs_proc
def test_the_connection_of_a_worker_thread_that_ended_is_closed(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    runtime = Runtime(db)
    ctx = runtime.resources.context("http", False)
    seen: list[int] = []

    def health() -> None:  # what an endpoint's worker thread does: an operation through the door
        seen.append(dispatch.run(HEALTH, runtime.resources, {}, ctx).unwrap()["entity_count"])

    try:
        for _ in range(6):  # six worker threads one after another, each ending, as idle anyio workers do
            worker = threading.Thread(target=health)
            worker.start()
            worker.join()
        assert seen == [0] * 6
        assert open_to(db) <= 2  # the newest connection, none of the five ended threads' before it
    finally:
        runtime.close()
    assert open_to(db) == 0
