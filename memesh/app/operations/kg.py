"""Entries of the knowledge-graph upkeep commands (`memesh kg`, CLI only): the relation backfill, renaming a project
across the database file, and staging a proposal for a person to review."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.backfill_relations_input import BackfillRelationsInput
    from memesh.generated.cli.backfill_relations_output import BackfillRelationsOutput
    from memesh.generated.cli.propose_output import ProposeOutput
    from memesh.generated.cli.rename_project_input import RenameProjectInput
    from memesh.generated.cli.rename_project_output import RenameProjectOutput
    from memesh.generated.proposals.guard_input import GuardProposalInput
    from memesh.generated.proposals.pattern_emergent_input import PatternProposalInput
    from memesh.generated.proposals.relation_input import RelationProposalInput
    from memesh.store.database_file import DatabaseFile
    from memesh.store.postgres_upkeep import SharedDatabaseAt


def _database_file(resources: Resources) -> DatabaseFile | SharedDatabaseAt:
    return resources.database_file()


def _backfill() -> Operation[Store, BackfillRelationsInput, BackfillRelationsOutput]:
    from memesh.ops.backfill import backfill_relations

    return backfill_relations


def _rename_project() -> Operation[DatabaseFile | SharedDatabaseAt, RenameProjectInput, RenameProjectOutput]:
    from memesh.ops.rename_project import rename_project

    return rename_project


def _propose_relation() -> Operation[Store, RelationProposalInput, ProposeOutput]:
    from memesh.ops.stage_proposal import stage_relation

    return stage_relation


def _propose_pattern() -> Operation[Store, PatternProposalInput, ProposeOutput]:
    from memesh.ops.stage_proposal import stage_pattern

    return stage_pattern


def _propose_guard() -> Operation[Store, GuardProposalInput, ProposeOutput]:
    from memesh.ops.stage_proposal import stage_guard

    return stage_guard


BACKFILL_RELATIONS = Op(
    name="backfill_relations",
    input_schema="cli/backfill_relations.input",
    output_schema="cli/backfill_relations.output",
    load=_backfill,
    uses=the_store,
    summary="Propose or create heuristic relations for orphan memories (no LLM)",
)
# Works on the database file itself (a read-only open, a private copy, a backup), never through `resources.store`:
# listing and the preview must not create or migrate a database.
RENAME_PROJECT = Op(
    name="rename_project",
    input_schema="cli/rename_project.input",
    output_schema="cli/rename_project.output",
    load=_rename_project,
    uses=_database_file,
    summary="List the projects, or rename one across every memory and message (previewed on a copy first)",
    errors=(ErrorCode.OPERATION_FAILED,),
)
PROPOSE_RELATION = Op(
    name="propose_relation",
    input_schema="proposals/relation.input",
    output_schema="cli/propose.output",
    load=_propose_relation,
    uses=the_store,
    summary="Stage a relation between two memories for a person to review",
    errors=(ErrorCode.OPERATION_FAILED,),
)
PROPOSE_PATTERN = Op(
    name="propose_pattern_emergent",
    input_schema="proposals/pattern_emergent.input",
    output_schema="cli/propose.output",
    load=_propose_pattern,
    uses=the_store,
    summary="Stage a pattern that emerges from several memories for a person to review",
    errors=(ErrorCode.OPERATION_FAILED,),
)
PROPOSE_GUARD = Op(
    name="propose_guard",
    input_schema="proposals/guard.input",
    output_schema="cli/propose.output",
    load=_propose_guard,
    uses=the_store,
    summary="Stage a Bash-command guard on a lesson for a person to review",
    errors=(ErrorCode.OPERATION_FAILED,),
)
# `memesh kg propose <kind>`: the entry for each kind.
PROPOSE: dict[str, Op[Any, Any, Any]] = {
    "relation": PROPOSE_RELATION,
    "pattern_emergent": PROPOSE_PATTERN,
    "guard": PROPOSE_GUARD,
}

OPS: tuple[Op[Any, Any, Any], ...] = (
    BACKFILL_RELATIONS,
    RENAME_PROJECT,
    PROPOSE_RELATION,
    PROPOSE_PATTERN,
    PROPOSE_GUARD,
)
