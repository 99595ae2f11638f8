"""The HTTP app's store: a connection per worker thread, and the connection of a worker thread that has ended is
closed (anyio ends idle workers; a long-running server would otherwise gather one connection per ended thread)."""

from __future__ import annotations

import threading
from pathlib import Path

from returns.result import Success

from memesh.transports.http.runtime import Runtime
from tests.descriptors import needs_proc, open_to


@needs_proc
def test_the_connection_of_a_worker_thread_that_ended_is_closed(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    runtime = Runtime(db)
    seen: list[int] = []
    try:
        for _ in range(6):  # six worker threads one after another, each ending, as idle anyio workers do
            worker = threading.Thread(
                target=lambda: seen.append(runtime._on_store(lambda s: Success(s.count())).unwrap())
            )
            worker.start()
            worker.join()
        assert seen == [0] * 6
        assert open_to(db) <= 2  # the newest connection, none of the five ended threads' before it
    finally:
        runtime.close()
    assert open_to(db) == 0
