"""The store's proposals (`dream_proposals`) and the reads curation needs: digest candidates and proposal rows.

Callers hold a transaction around every write; reads may run outside one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memesh.store.reads import Reads, people_sql
from memesh.store.sql import _dumps, _loads, _marks

if TYPE_CHECKING:  # the models are imported by the methods that make them: a recall loads none of curation's code
    from memesh.core.proposals import NewProposal, Proposal
    from memesh.core.work_package import Candidate
    from memesh.model import Entity, Filters

_COLUMNS = (
    "id, project, cluster_key, kind, source_kind, source_ids, proposed_digest, package_id, fingerprints, status, "
    "reason, created_at, reviewed_at, applied_entity"
)


def _json(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _row(row: Sequence[Any]) -> Proposal:
    from memesh.core.proposals import Proposal

    fingerprints = _loads(row[8])
    return Proposal(
        id=row[0],
        project=row[1],
        cluster_key=row[2],
        kind=row[3],
        source_kind=row[4],
        source_ids=_json(row[5]),
        proposed=_loads(row[6]),
        package_id=row[7],
        fingerprints={str(key): str(value) for key, value in fingerprints.items()},
        status=row[9],
        reason=row[10],
        created_at=row[11],
        reviewed_at=row[12],
        applied_entity=row[13],
    )


class Proposals(Reads):
    """Staged proposals and their review state."""

    def proposal(self, proposal_id: int) -> Proposal | None:
        row = self.conn.execute(f"SELECT {_COLUMNS} FROM dream_proposals WHERE id = ?", (proposal_id,)).fetchone()
        return _row(row) if row else None

    def proposal_for_package(self, package_id: str) -> Proposal | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM dream_proposals WHERE package_id = ?", (package_id,)
        ).fetchone()
        return _row(row) if row else None

    def proposals(self, status: str | None) -> list[Proposal]:
        """Every proposal with this status (all with None), newest first."""
        where, params = ("WHERE status = ?", (status,)) if status is not None else ("", ())
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM dream_proposals {where} ORDER BY created_at DESC, id DESC", params
        )
        return [_row(row) for row in rows]

    def proposals_in_cluster(self, project: str, cluster_key: str) -> list[Proposal]:
        """Every proposal of this project staged under this cluster key, oldest first."""
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM dream_proposals WHERE project = ? AND cluster_key = ? ORDER BY id",
            (project, cluster_key),
        )
        return [_row(row) for row in rows]

    def pending_entity_sources(self, project: str) -> set[int]:
        """Ids held by this project's pending digests over memories (a second digest may not claim them too)."""
        from memesh.core.proposals import PENDING

        held: set[int] = set()
        rows = self.conn.execute(
            "SELECT source_ids FROM dream_proposals WHERE project = ? AND status = ? AND kind = 'digest' "
            "AND source_kind = 'entities'",
            (project, PENDING),
        )
        for (text,) in rows:
            ids = _json(text)
            if isinstance(ids, list):
                held.update(item for item in ids if isinstance(item, int))
        return held

    def proposed_packages(self, package_ids: Sequence[str]) -> set[str]:
        """Which of these work packages already have a proposal, whatever its status."""
        if not package_ids:
            return set()
        rows = self.conn.execute(
            f"SELECT package_id FROM dream_proposals WHERE package_id IN ({_marks(package_ids)})", tuple(package_ids)
        )
        return {row[0] for row in rows}

    def stage(self, proposal: NewProposal) -> int:
        """Insert a pending proposal; returns its id."""
        return self._insert_id(
            "INSERT INTO dream_proposals (project, cluster_key, kind, source_kind, source_ids, proposed_digest, "
            "package_id, fingerprints, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                proposal.project,
                proposal.cluster_key,
                proposal.kind,
                proposal.source_kind,
                _dumps(proposal.source_ids),
                _dumps(proposal.proposed),
                proposal.package_id,
                _dumps(proposal.fingerprints),
                proposal.author,
            ),
        )

    def settle(
        self, proposal_id: int, status: str, when: str, *, reason: str | None = None, entity: str | None = None
    ) -> bool:
        """Mark a pending proposal applied or rejected; False when it was not pending (someone decided first)."""
        from memesh.core.proposals import PENDING

        cursor = self.conn.execute(
            "UPDATE dream_proposals SET status = ?, reason = ?, reviewed_at = ?, applied_entity = ? "
            "WHERE id = ? AND status = ?",
            (status, reason, when, entity, proposal_id, PENDING),
        )
        return cursor.rowcount == 1

    def digest_candidates(
        self, project_tag: str, types: Sequence[str], since: str, people: Filters | None = None
    ) -> list[Candidate]:
        """Active memories of these types carrying this project tag, created at or after `since`, oldest first:
        id, created_at and metadata only (content is read for the groups that can become packages). `people`: a
        member's view (`people_sql`, the rule recall applies), so another member's `personal` memory or a memory
        outside its projects never enters its package."""
        scope, scope_params = people_sql(people) if people is not None else ("", [])
        rows = self.conn.execute(
            "SELECT e.id, e.created_at, e.metadata FROM entities e JOIN tags t ON t.entity_id = e.id AND t.tag = ? "
            f"WHERE e.status = 'active' AND e.type IN ({_marks(types)}) AND e.created_at >= ? {scope} "
            "ORDER BY e.created_at, e.id",
            (project_tag, *types, since, *scope_params),
        )
        from memesh.core.work_package import Candidate

        return [Candidate(row[0], row[1], _loads(row[2])) for row in rows]

    def entities_by_id(self, ids: Sequence[int]) -> dict[int, Entity]:
        return {entity.id: entity for entity in self.load(list(ids))}
