"""The reads and the one write the memory tool needs beyond the common ones: catalogue listings and a rename.

Listings are catalogue reads: the memory tool's first call in every conversation is a directory view, so nothing
here counts an access (which would flatten the ranking's frequency and recency signals for every memory listed).
"""

from __future__ import annotations

from typing import Any

from memesh.model import Listed
from memesh.store.sql import _dumps
from memesh.store.writes import Writes


class MemoryFiles(Writes):
    """Namespace counts and listings (active memories only), and renaming one memory."""

    def active_counts(self) -> dict[str, int]:
        """How many active memories each namespace holds."""
        rows = self.conn.execute("SELECT namespace, COUNT(*) FROM entities WHERE status = 'active' GROUP BY namespace")
        return {namespace: int(count) for namespace, count in rows}

    def active_listing(self, namespace: str) -> list[Listed]:
        """The namespace's active memories by name, with type, file size and tags; no access is counted."""
        rows = self.conn.execute(
            "SELECT e.id, e.name, e.type, "
            "COALESCE((SELECT SUM(LENGTH(content)) + COUNT(*) - 1 FROM observations o WHERE o.entity_id = e.id), 0) "
            "FROM entities e WHERE e.status = 'active' AND e.namespace = ? ORDER BY e.name",
            (namespace,),
        ).fetchall()
        tags: dict[int, list[str]] = {}
        for entity_id, tag in self.conn.execute(
            "SELECT t.entity_id, t.tag FROM tags t JOIN entities e ON e.id = t.entity_id "
            "WHERE e.status = 'active' AND e.namespace = ? ORDER BY t.entity_id, t.id",
            (namespace,),
        ):
            tags.setdefault(entity_id, []).append(tag)
        return [
            Listed(name, kind, max(int(size), 0), tuple(tags.get(entity_id, [])))
            for entity_id, name, kind, size in rows
        ]

    def rename(self, entity_id: int, name: str, namespace: str, metadata: dict[str, Any]) -> None:
        """Give the memory a new name (and namespace) and reindex it under that name, in the caller's transaction."""
        self.conn.execute(
            "UPDATE entities SET name = ?, namespace = ?, metadata = ? WHERE id = ?",
            (name, namespace, _dumps(metadata), entity_id),
        )
        entity = self.load([entity_id])[0]
        self._index(entity_id, entity.name, entity.title, entity.observations)
