"""The store's project-wide maintenance: which projects exist, renaming one everywhere it is a scope, backups.

A project is carried by entity tags (`project:<id>`), entity metadata (`metadata.project`), the task-state memory
named after it, staged proposals, and durable agent messages. The message tables (`agent_messages`,
`agent_deliveries`, `agent_message_events`, their cursors and `agent_sessions`, migration 5) belong to the message
store: the rename moves them through its `rename_message_project`, then reads the move back. A database opened
read-only before migration 5 has none of them, and is listed without message counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memesh.store.messages import Messages
from memesh.store.reads import Reads
from memesh.store.sql import _dumps, _loads

if TYPE_CHECKING:
    from memesh.model import Entity

# The message tables scoped by project that make a message findable in its inbox: a message row, its one delivery
# and its events (what poll reads). A message row stands for the message in the counts.
MESSAGE_TABLES = ("agent_messages", "agent_deliveries", "agent_message_events")
TASK_STATE_PREFIX = "task-state:"


class Projects(Reads, Messages):
    """Listing and renaming projects across every carrier."""

    def _has_messages(self) -> bool:
        return all(self._has_table(table) for table in MESSAGE_TABLES)

    def project_counts(self) -> dict[str, dict[str, int]]:
        """Every project any carrier names, with how many entities and messages carry it."""
        counts: dict[str, dict[str, int]] = {}
        # A range, not LIKE: LIKE ignores ASCII case, and `Project:x` is not the project tag `project:x`.
        for tag, entities in self.conn.execute(
            "SELECT tag, COUNT(*) FROM tags WHERE tag >= 'project:' AND tag < 'project;' GROUP BY tag ORDER BY tag"
        ):
            counts.setdefault(tag[len("project:") :], {"entities": 0, "messages": 0})["entities"] = entities
        if self._has_messages():
            for project, messages in self.conn.execute("SELECT project, COUNT(*) FROM agent_messages GROUP BY project"):
                counts.setdefault(str(project), {"entities": 0, "messages": 0})["messages"] = messages
        return dict(sorted(counts.items()))

    def rename_project(self, old: str, new: str) -> dict[str, int]:
        """Move every carrier of project `old` to `new` (the caller holds the transaction); the counts moved."""
        from memesh.values import RenameRefused  # only a rename can be refused: a recall does not load it

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
        for entity_id, text in self._project_metadata(old):
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
        messages = self._move_messages(old, new)
        return {
            "entities_renamed": renamed,
            "entities_merged": merged,
            "metadata_updated": metadata,
            "task_state_moved": task_state,
            "proposals_moved": proposals,
            **messages,
        }

    def _project_metadata(self, project: str) -> list[tuple[int, str]]:
        """(id, metadata) of every memory whose metadata names this project (`metadata.project`)."""
        raise NotImplementedError

    def _move_messages(self, old: str, new: str) -> dict[str, int]:
        """The message store's own move of `old`'s messages (with their deliveries, events, cursors and sessions),
        read back: what stays under `old` is exactly the messages left in place, and `new` gained the ones moved."""
        from memesh.values import RenameRefused

        if not self._has_messages():
            return {"messages_moved": 0, "messages_left_in_place": 0}
        before = self._scalar("SELECT COUNT(*) FROM agent_messages WHERE project = ?", new)
        counts = self.rename_message_project(old, new)
        gained = self._scalar("SELECT COUNT(*) FROM agent_messages WHERE project = ?", new) - before
        stayed = self._scalar("SELECT COUNT(*) FROM agent_messages WHERE project = ?", old)
        if gained != counts["messages_moved"] or stayed != counts["messages_left_in_place"]:
            raise RenameRefused(f"{counts['messages_moved']} messages were to move to {new}, {gained} did")
        for table in MESSAGE_TABLES[1:]:
            behind = self._scalar(
                f"SELECT COUNT(*) FROM {table} WHERE project = ? "
                "AND message_id NOT IN (SELECT message_id FROM agent_messages WHERE project = ?)",
                old,
                old,
            )
            if behind:
                raise RenameRefused(f"{behind} rows of {table} stayed under {old} without their message")
        return counts

    def _scalar(self, sql: str, *params: str) -> int:
        row = self.conn.execute(sql, params).fetchone()
        return int(row[0]) if row else 0

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
            "INSERT INTO relations (from_entity_id, to_entity_id, relation_type) VALUES (?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (from_id, to_id, relation_type),
        )
        return cursor.rowcount > 0
