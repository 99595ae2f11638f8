"""The demo tour: seeded rows are marked, seeding twice adds nothing, and reset removes exactly the marked rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memesh.app.operations.insight import DEMO_RESET, DEMO_SEED
from memesh.context import CallContext
from memesh.core import demo as dataset
from memesh.store.sqlite import SqliteStore
from tests.calls import run

if TYPE_CHECKING:
    from tests.backends import Backend
    from tests.conftest import Caller


def test_seed_inserts_every_demo_memory_marked_demo(fresh_db: SqliteStore, ctx: CallContext) -> None:
    assert run(DEMO_SEED, fresh_db, {}, ctx).unwrap() == {"inserted": len(dataset.MEMORIES), "removed": 0}
    entity = fresh_db.find("demo-auth-decision")
    assert entity is not None
    assert entity.metadata["demo"] is True
    assert f"project:{dataset.PROJECT}" in entity.tags
    assert len(fresh_db.marked_ids("demo")) == len(dataset.MEMORIES)


def test_seeding_twice_inserts_nothing_the_second_time(fresh_db: SqliteStore, ctx: CallContext) -> None:
    run(DEMO_SEED, fresh_db, {}, ctx)
    assert run(DEMO_SEED, fresh_db, {}, ctx).unwrap() == {"inserted": 0, "removed": 0}


def test_a_user_memory_under_a_demo_name_is_left_alone_by_seed_and_reset(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller
) -> None:
    tools.ok("remember", {"name": "demo-auth-decision", "type": "decision", "observations": ["mine"]})
    assert run(DEMO_SEED, fresh_db, {}, ctx).unwrap()["inserted"] == len(dataset.MEMORIES) - 1
    assert run(DEMO_RESET, fresh_db, {}, ctx).unwrap() == {"inserted": 0, "removed": len(dataset.MEMORIES) - 1}
    kept = fresh_db.find("demo-auth-decision")
    assert kept is not None
    assert kept.observations == ["mine"]


def test_reset_removes_exactly_the_demo_rows_and_their_index_entries(
    fresh_db: SqliteStore, ctx: CallContext, tools: Caller, backend: Backend
) -> None:
    tools.ok("remember", {"name": "my-pkce-note", "type": "fact", "observations": ["PKCE for our mobile app"]})
    # A row someone else wrote, with metadata that is not JSON in a file (a PostgreSQL database holds only JSON).
    odd = "{}" if backend.postgres else "{bad"
    with fresh_db.transaction():
        fresh_db.conn.execute("INSERT INTO entities (name, type, metadata) VALUES ('odd', 'note', ?)", (odd,))
    run(DEMO_SEED, fresh_db, {}, ctx)
    run(DEMO_RESET, fresh_db, {}, ctx)
    assert fresh_db.count() == 2
    assert fresh_db.find("my-pkce-note") is not None
    found = tools.ok("recall", {"query": "PKCE"})["entities"]
    assert [entity["name"] for entity in found] == ["my-pkce-note"]
    assert fresh_db.conn.execute("SELECT COUNT(*) FROM relations").fetchone()[0] == 0


def test_reset_with_nothing_seeded_removes_nothing(fresh_db: SqliteStore, ctx: CallContext) -> None:
    assert run(DEMO_RESET, fresh_db, {}, ctx).unwrap() == {"inserted": 0, "removed": 0}
