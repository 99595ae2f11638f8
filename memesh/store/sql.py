"""What both engines' stores share: the connection they are written against, the SQL that differs, helpers.

The store's reads and writes are written once (`memesh/store/reads.py`, `writes.py`, …) in SQL both SQLite and
PostgreSQL run, with `?` parameters (the PostgreSQL connection turns them into its own). Where the two engines spell
a thing differently, a query asks its store's `Dialect` for the fragment; what one engine does in another way
altogether (the keyword index, migrations, self-checks) lives in that engine's own modules.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from memesh.records import dataclass

_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit


class Cursor(Protocol):
    """The rows of one statement: what the store reads from either engine's cursor."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """One connection to the database, statements with `?` parameters: sqlite3's, or `PgConnection`."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...
    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor: ...
    @property
    def in_transaction(self) -> bool: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Dialect:
    """The SQL fragments the two engines spell differently (each a format string or a plain fragment)."""

    now: str  # the current time as created_at stores it: `YYYY-MM-DD HH:MM:SS`, UTC
    greatest: str  # the larger of {0} and {1} (neither is NULL where it is used)
    json_text: str  # the text at key {1} of the JSON object in column {0} (NULL when absent or null)
    cross_join: str  # an inner join whose left side the planner should walk first
    lines_of: str  # {0}'s values of a group joined by newlines
    contains: str  # whether text {0} holds text {1}
    count_if: str  # how many rows of a group satisfy {0} (0 for none)
    like: str  # LIKE as SQLite reads it: ASCII letters match either case
    round2: str  # the number {0} rounded to 2 decimals

    def json_field(self, column: str, key: str) -> str:
        return self.json_text.format(column, key)


SQLITE = Dialect(
    now="datetime('now')",
    greatest="MAX({0}, {1})",
    json_text="json_extract({0}, '$.{1}')",
    cross_join="CROSS JOIN",
    lines_of="group_concat({0}, char(10))",
    contains="instr({0}, {1}) > 0",
    count_if="COALESCE(SUM({0}), 0)",
    like="LIKE",
    round2="ROUND({0}, 2)",
)

POSTGRES = Dialect(
    now="memesh_now()",  # the schema's own function (postgres_migrations): statement time, as SQLite's 'now' is
    greatest="GREATEST({0}, {1})",
    json_text="({0}::json ->> '{1}')",
    cross_join="JOIN",
    lines_of="string_agg({0}, E'\\n' ORDER BY {0})",
    contains="strpos({0}, {1}) > 0",
    count_if="COUNT(*) FILTER (WHERE {0})",
    like="ILIKE",  # every text column is COLLATE "C": ILIKE folds ASCII letters only, as SQLite's LIKE does
    round2="ROUND(({0})::numeric, 2)",
)


class SqlBase:
    """What every store mixin may use: the connection, the engine's dialect, and a transaction."""

    conn: Connection
    dialect: Dialect
    read_only: bool
    open_mode: str

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic unit of writes (a savepoint when nested); each engine makes concurrent writers take turns."""
        raise NotImplementedError

    def close(self) -> None:
        self.conn.close()

    def _insert_id(self, sql: str, params: Sequence[Any]) -> int:
        """Run one INSERT into a table with an `id` key and return the new row's id."""
        raise NotImplementedError

    def _has_table(self, table: str) -> bool:
        raise NotImplementedError

    def _counter(self, name: str) -> int:
        """One of the counts the schema's triggers keep (`counters`): memories, payload bytes, …"""
        raise NotImplementedError

    def _unindex(self, ids: Sequence[int]) -> None:
        """Take these memories out of the keyword index (their rows are being deleted)."""
        raise NotImplementedError


def _loads(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _marks(items: Sequence[Any]) -> str:
    return ",".join("?" * len(items))


def shown_file(path: str) -> str:
    """A database file as doctor may show it anywhere (its answer goes over HTTP too): under the home folder as
    `~/…`, elsewhere only its name, so that no folder of this machine outside the user's own is named."""
    from pathlib import Path

    file, home = Path(path), Path.home()
    if file == home or home in file.parents:
        return str(Path("~") / file.relative_to(home))
    return f"…/{file.name}" if len(file.parts) > 1 else path
