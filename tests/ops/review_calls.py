"""The review entries (queue, show, accept, reject) through the door on an open database, as `memesh dream` and the
HTTP review routes call them."""

from __future__ import annotations

from typing import Any

from returns.result import Result

from memesh.app.operations import review
from memesh.app.resources import local_router
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.sqlite import SqliteStore
from tests.calls import run
from tests.conftest import NOW, TEST_PROJECT

# Reading the queue or a proposal takes no clock and no project: any context does.
READER = CallContext(
    source_host="test-host", agent_view=False, now=NOW, project=lambda: TEST_PROJECT, router=local_router
)


def listed(store: SqliteStore, status: str | None = None) -> Result[Any, MemeshError]:
    return run(review.PROPOSALS, store, {} if status is None else {"status": status}, READER)


def show(store: SqliteStore, proposal_id: int) -> Result[Any, MemeshError]:
    return run(review.PROPOSAL, store, {"id": proposal_id}, READER)


def accept(store: SqliteStore, proposal_id: int, *, ctx: CallContext) -> Result[Any, MemeshError]:
    return run(review.ACCEPT, store, {"id": proposal_id}, ctx)


def reject(store: SqliteStore, proposal_id: int, reason: str | None, *, ctx: CallContext) -> Result[Any, MemeshError]:
    return run(review.REJECT, store, {"id": proposal_id, **({"reason": reason} if reason is not None else {})}, ctx)
