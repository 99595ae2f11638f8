"""The SQLite store's part of the message store: what the storage report says about the database file."""

from __future__ import annotations

from pathlib import Path

from memesh.store.messages import Messages
from memesh.store.sqlite_base import SqliteBase


class SqliteMessages(SqliteBase, Messages):
    """Agent messages in the same file as the memories, so one backup and one transaction cover both."""

    def _storage_pages(self) -> dict[str, int]:
        one = self.conn.execute
        page_size = int(one("PRAGMA page_size").fetchone()[0])
        free_pages = int(one("PRAGMA freelist_count").fetchone()[0])
        main_path = one("PRAGMA database_list").fetchone()[2]
        return {
            "page_size": page_size,
            "reusable_pages": free_pages,
            "reusable_bytes": page_size * free_pages,
            "main_bytes": _size(main_path),
            "wal_bytes": _size(f"{main_path}-wal") if main_path else 0,
        }


def _size(path: str | None) -> int:
    try:
        return Path(path).stat().st_size if path else 0
    except OSError:
        return 0
