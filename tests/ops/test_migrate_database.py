"""db migrate's decisions on plain values: a database that opened but still lacks migrations (a file its
permissions let MeMesh open only read-only) is a failure that names them, not "up to date"."""

from __future__ import annotations

from dataclasses import dataclass, field

from returns.result import Failure, Success

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.ops.migrate_database import migrate_database


@dataclass
class OpenedStore:
    missing: list[int] = field(default_factory=list)
    migrated: list[tuple[int, str]] = field(default_factory=list)
    closed: bool = False

    def missing_migrations(self) -> list[int]:
        return self.missing

    def newer_migrations(self) -> list[int]:
        return []

    def recorded_version(self) -> int:
        return 13

    def close(self) -> None:
        self.closed = True


@dataclass
class OneDatabase:
    store: OpenedStore

    def open_at(self, target: str | None) -> OpenedStore:
        return self.store

    def described(self, target: str | None) -> str:
        return "…/memory.db"


def test_a_database_that_opened_without_its_migrations_fails_naming_them(ctx: CallContext) -> None:
    store = OpenedStore(missing=[14, 15])
    match migrate_database(OneDatabase(store), {}, ctx=ctx):
        case Failure(error):
            assert (error.code, error.data["store"], error.data["missing"]) == (
                ErrorCode.OPERATION_FAILED,
                "read-only",
                [14, 15],
            )
        case other:
            raise AssertionError(other)
    assert store.closed


def test_what_was_applied_as_it_opened_is_the_answer(ctx: CallContext) -> None:
    store = OpenedStore(migrated=[(14, "a"), (15, "b")])
    answer = migrate_database(OneDatabase(store), {"database": "x.db"}, ctx=ctx)
    assert isinstance(answer, Success)
    assert answer.unwrap()["applied"] == [{"version": 14, "name": "a"}, {"version": 15, "name": "b"}]
    assert store.closed
