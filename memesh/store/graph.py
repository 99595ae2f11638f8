"""The store's reads for drawing the graph: who is most connected, who links to whom, and one row per memory drawn.

Every query is one pass over `relations` (its two indexes) or an `IN (...)` over at most a few hundred ids, so the
graph view stays quick at 100k memories: it asks for a bounded set and never loads observations beyond the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memesh.model import ACTIVE
from memesh.store.reads import Reads
from memesh.store.sql import _chunks, _marks

if TYPE_CHECKING:  # made by the methods that return them: only the graph view loads them
    from memesh.core.graph import Link, NodeRow


class Graph(Reads):
    """Bounded reads over memories and their relations; nothing here counts an access."""

    def most_connected(self, limit: int, *, include_archived: bool) -> list[int]:
        """The `limit` memories with the most relations (either way), newest first among equals."""
        where = f"WHERE e.status = '{ACTIVE}'" if not include_archived else ""
        sql = (
            "SELECT e.id FROM entities e LEFT JOIN (SELECT ends.id, COUNT(*) AS degree FROM "
            "(SELECT from_entity_id AS id FROM relations UNION ALL SELECT to_entity_id AS id FROM relations) ends "
            f"GROUP BY ends.id) d ON d.id = e.id {where} ORDER BY COALESCE(d.degree, 0) DESC, e.id DESC LIMIT ?"
        )
        return [int(row[0]) for row in self.conn.execute(sql, (limit,))]

    def links(self, ids: Sequence[int], *, kind: str | None = None) -> list[Link]:
        """Every relation (of `kind`, when given) with at least one end among `ids`, oldest first."""
        found: dict[int, Link] = {}
        only = "r.relation_type = ? AND " if kind is not None else ""
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            where = f"{only}(r.from_entity_id IN ({marks}) OR r.to_entity_id IN ({marks}))"
            found.update(self._links(where, (*((kind,) if kind is not None else ()), *chunk, *chunk)))
        return [found[rid] for rid in sorted(found)]

    def links_among(self, ids: Sequence[int]) -> list[Link]:
        """Every relation whose two ends are both among `ids`, oldest first: what a drawing of them shows, without
        reading the rest of a hub's relations."""
        every = list(ids)
        found: dict[int, Link] = {}
        for chunk in _chunks(every):
            where = f"r.from_entity_id IN ({_marks(chunk)}) AND r.to_entity_id IN ({_marks(every)})"
            found.update(self._links(where, (*chunk, *every)))
        return [found[rid] for rid in sorted(found)]

    def _links(self, where: str, params: Sequence[object]) -> dict[int, Link]:
        rows = self.conn.execute(
            "SELECT r.id, r.from_entity_id, r.to_entity_id, r.relation_type, f.status, t.status FROM relations r "
            f"JOIN entities f ON f.id = r.from_entity_id JOIN entities t ON t.id = r.to_entity_id WHERE {where}",
            params,
        )
        from memesh.core.graph import Link

        return {
            int(rid): Link(int(source), int(target), str(kind), source_status == ACTIVE, target_status == ACTIVE)
            for rid, source, target, kind, source_status, target_status in rows
        }

    def node_rows(self, ids: Sequence[int]) -> list[NodeRow]:
        """One row per memory among `ids` (in that order; ids that do not exist are skipped), with its degree."""
        from memesh.core.graph import NodeRow

        by_id: dict[int, NodeRow] = {}
        for chunk in _chunks(list(ids)):
            rows = self.conn.execute(
                "SELECT e.id, e.name, e.title, e.type, e.status, "
                "(SELECT COUNT(*) FROM relations r WHERE r.from_entity_id = e.id) + "
                "(SELECT COUNT(*) FROM relations r WHERE r.to_entity_id = e.id) "
                f"FROM entities e WHERE e.id IN ({_marks(chunk)})",
                chunk,
            )
            for entity_id, name, title, kind, status, degree in rows:
                by_id[int(entity_id)] = NodeRow(int(entity_id), name, title, kind, status == ACTIVE, int(degree))
        return [by_id[entity_id] for entity_id in ids if entity_id in by_id]

    def relation_count(self) -> int:
        """How many relations are stored."""
        return int(self.conn.execute("SELECT COUNT(*) FROM relations").fetchone()[0])
