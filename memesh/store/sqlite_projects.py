"""The store's project-wide maintenance: which projects exist, renaming one everywhere it is a scope, backups.

A project is carried by entity tags (`project:<id>`), entity metadata (`metadata.project`), the task-state memory
named after it, staged proposals, and durable agent messages. Messages live in a table another part of MeMesh
owns: `MESSAGE_CARRIERS` is the seam that names it (table, project column), and a carrier whose table does not
exist in this database is skipped, so the rename works before and after messages exist.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from memesh.model import Entity
from memesh.store.sqlite_base import _dumps, _loads
from memesh.store.sqlite_reads import SqliteReads

# (table, project column) of every durable message table scoped by project. A row whose destination scope already
# holds an equivalent row (a UNIQUE constraint refuses the move) is left in place and counted.
MESSAGE_CARRIERS: Final[tuple[tuple[str, str], ...]] = (("agent_messages", "project"), ("messages", "project"))
TASK_STATE_PREFIX = "task-state:"


class RenameRefused(Exception):
    """A write the rename made did not read back as written (a trigger ignored or undid it)."""


class SqliteProjects(SqliteReads):
    """Listing and renaming projects across every carrier."""

    def _has_table(self, table: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        return row is not None

    def _has_column(self, table: str, column: str) -> bool:
        return any(row[1] == column for row in self.conn.execute(f"PRAGMA table_info({table})"))

    def _message_tables(self) -> list[tuple[str, str]]:
        return [(t, c) for t, c in MESSAGE_CARRIERS if self._has_table(t) and self._has_column(t, c)]

    def project_counts(self) -> dict[str, dict[str, int]]:
        """Every project any carrier names, with how many entities and messages carry it."""
        counts: dict[str, dict[str, int]] = {}
        for tag, entities in self.conn.execute(
            "SELECT tag, COUNT(*) FROM tags WHERE tag LIKE 'project:%' GROUP BY tag ORDER BY tag"
        ):
            counts.setdefault(tag[len("project:") :], {"entities": 0, "messages": 0})["entities"] = entities
        for table, column in self._message_tables():
            for project, messages in self.conn.execute(
                f"SELECT {column}, COUNT(*) FROM {table} WHERE {column} IS NOT NULL GROUP BY {column}"
            ):
                counts.setdefault(str(project), {"entities": 0, "messages": 0})["messages"] += messages
        return dict(sorted(counts.items()))

    def rename_project(self, old: str, new: str) -> dict[str, int]:
        """Move every carrier of project `old` to `new` (the caller holds the transaction); the counts moved."""
        old_tag, new_tag = f"project:{old}", f"project:{new}"
        carriers = [row[0] for row in self.conn.execute("SELECT entity_id FROM tags WHERE tag = ?", (old_tag,))]
        merged = renamed = 0
        for entity_id in carriers:
            has_new = self.conn.execute(
                "SELECT 1 FROM tags WHERE entity_id = ? AND tag = ?", (entity_id, new_tag)
            ).fetchone()
            if has_new:  # UNIQUE(entity_id, tag): the old tag goes, the one it already has stays (a merge)
                self.conn.execute("DELETE FROM tags WHERE entity_id = ? AND tag = ?", (entity_id, old_tag))
                merged += 1
            else:
                self.conn.execute(
                    "UPDATE tags SET tag = ? WHERE entity_id = ? AND tag = ?", (new_tag, entity_id, old_tag)
                )
                renamed += 1
            if not self._tag_moved(entity_id, old_tag, new_tag):
                raise RenameRefused(f"entity #{entity_id} did not take the tag {new_tag}")
        metadata = 0
        for entity_id, text in self.conn.execute(
            "SELECT id, metadata FROM entities WHERE json_valid(metadata) AND json_extract(metadata, '$.project') = ?",
            (old,),
        ).fetchall():
            self.conn.execute(
                "UPDATE entities SET metadata = ? WHERE id = ?", (_dumps({**_loads(text), "project": new}), entity_id)
            )
            metadata += 1
        task_state = 0
        if self.entity_id(TASK_STATE_PREFIX + new) is None:
            cursor = self.conn.execute(
                "UPDATE entities SET name = ? WHERE name = ?", (TASK_STATE_PREFIX + new, TASK_STATE_PREFIX + old)
            )
            task_state = cursor.rowcount
        proposals = 0
        if self._has_table("dream_proposals"):
            proposals = self.conn.execute(
                "UPDATE dream_proposals SET project = ? WHERE project = ?", (new, old)
            ).rowcount
        moved = left = 0
        for table, column in self._message_tables():
            moved += self.conn.execute(
                f"UPDATE OR IGNORE {table} SET {column} = ? WHERE {column} = ?", (new, old)
            ).rowcount
            row = self.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (old,)).fetchone()
            left += int(row[0]) if row else 0
        return {
            "entities_renamed": renamed,
            "entities_merged": merged,
            "metadata_updated": metadata,
            "task_state_moved": task_state,
            "proposals_moved": proposals,
            "messages_moved": moved,
            "messages_left_in_place": left,
        }

    def _tag_moved(self, entity_id: int, old_tag: str, new_tag: str) -> bool:
        tags = {row[0] for row in self.conn.execute("SELECT tag FROM tags WHERE entity_id = ?", (entity_id,))}
        return new_tag in tags and old_tag not in tags

    def graph(self, include_archived: bool) -> tuple[list[Entity], set[tuple[int, int, str]]]:
        """Every memory (active only unless asked) and every relation as (from id, to id, type)."""
        where = "" if include_archived else "WHERE status = 'active'"
        ids = [row[0] for row in self.conn.execute(f"SELECT id FROM entities {where} ORDER BY id")]
        edges = {
            (row[0], row[1], row[2])
            for row in self.conn.execute("SELECT from_entity_id, to_entity_id, relation_type FROM relations")
        }
        return self.load(ids), edges

    def relate_ids(self, from_id: int, to_id: int, relation_type: str) -> bool:
        """Create the relation between two memories by id; True only when this call created it."""
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO relations (from_entity_id, to_entity_id, relation_type) VALUES (?, ?, ?)",
            (from_id, to_id, relation_type),
        )
        return cursor.rowcount > 0

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the whole database (WAL included) in `target`, written owner-only."""
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        copy = sqlite3.connect(target)
        try:
            self.conn.backup(copy)
        finally:
            copy.close()
        target.chmod(0o600)
