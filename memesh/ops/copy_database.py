"""db copy: every row of one database copied into an empty one of either engine, in one transaction (CLI only)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.generated.cli.copy_database_input import CopyDatabaseInput
from memesh.generated.cli.copy_database_output import CopyDatabaseOutput


class CopyStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def holds_data(self) -> list[str]: ...
    def row_counts(self) -> dict[str, int]: ...
    def rows_of(self, table: str, columns: Sequence[str]) -> Iterator[list[tuple[Any, ...]]]: ...
    def put_rows(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> int: ...
    def after_copy(self) -> None: ...
    def copied_tables(self) -> Sequence[tuple[str, Sequence[str]]]: ...
    def close(self) -> None: ...


class Databases(Protocol):
    """Opening a database by what a person typed (a path or a URL), and naming it back safely."""

    def open_at(self, target: str) -> CopyStore: ...
    def described(self, target: str) -> str: ...


class CopyMismatch(Exception):
    """The target's rows did not read back as many as were copied: the copy is rolled back."""


def copy_database(
    databases: Databases, request: CopyDatabaseInput, *, ctx: CallContext
) -> Result[CopyDatabaseOutput, MemeshError]:
    """The rows copied by table; Failure(operation.failed) when the two are the same database, either will not
    open, or the target already holds data. Nothing is written to the target unless every row is."""
    shown_from, shown_to = databases.described(request["from"]), databases.described(request["to"])
    if shown_from == shown_to:
        return Failure(MemeshError.failed(f"--from and --to are the same database ({shown_to}): nothing to copy"))
    opened: list[CopyStore] = []
    try:
        for side, target in (("--from", request["from"]), ("--to", request["to"])):
            try:
                opened.append(databases.open_at(target))
            except Exception as exc:  # StoreError: said with the side it is about
                reason = getattr(getattr(exc, "error", None), "message", None)
                if reason is None:
                    raise
                return Failure(MemeshError.failed(f"cannot open {side} ({databases.described(target)}): {reason}"))
        source, into = opened
        try:
            with source.transaction(), into.transaction():  # the source holds still while it is read
                filled = into.holds_data()
                if filled:
                    return Failure(
                        MemeshError.failed(
                            f"the database to copy into ({shown_to}) is not empty (it holds {', '.join(filled)}): "
                            "copy only into a new database",
                            tables=filled,
                        )
                    )
                copied = _copy(source, into)
        except CopyMismatch as exc:
            return Failure(MemeshError.failed(f"nothing was copied: {exc}"))
    finally:
        for store in opened:
            store.close()
    return Success({"from": shown_from, "to": shown_to, "copied": copied})


def _copy(source: CopyStore, into: CopyStore) -> dict[str, int]:
    """Every table's rows, then what the target makes of them; CopyMismatch (rolling back) unless they all read back."""
    copied = {}
    for table, columns in source.copied_tables():
        copied[table] = sum(into.put_rows(table, columns, rows) for rows in source.rows_of(table, columns))
    into.after_copy()
    if into.row_counts() != copied or source.row_counts() != copied:
        raise CopyMismatch("the rows in the database copied into did not read back as they were copied")
    return copied
