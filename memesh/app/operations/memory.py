"""Entries over the memories themselves, beside the tools: liveness, listing and lookup as stored, task state read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.http.entities_input import EntitiesInput
    from memesh.generated.http.entities_output import EntitiesOutput
    from memesh.generated.http.entity_input import EntityInput
    from memesh.generated.http.entity_output import StoredEntity
    from memesh.generated.http.graph_input import GraphInput
    from memesh.generated.http.graph_output import GraphOutput
    from memesh.generated.http.health_input import HealthInput
    from memesh.generated.http.health_output import HealthOutput
    from memesh.generated.http.task_state_input import TaskStateReadInput
    from memesh.generated.http.task_state_output import TaskStateReadOutput


def _health() -> Operation[Store, HealthInput, HealthOutput]:
    from memesh.ops.health import health

    return health


def _entities() -> Operation[Store, EntitiesInput, EntitiesOutput]:
    from memesh.ops.entities import list_entities

    return list_entities


def _entity() -> Operation[Store, EntityInput, StoredEntity]:
    from memesh.ops.entities import get_entity

    return get_entity


def _graph() -> Operation[Store, GraphInput, GraphOutput]:
    from memesh.ops.graph import graph_view

    return graph_view


def _task_state_read() -> Operation[Store, TaskStateReadInput, TaskStateReadOutput]:
    from memesh.ops.task_state import read_task_state

    return read_task_state


HEALTH = Op(
    name="health",
    input_schema="http/health.input",
    output_schema="http/health.output",
    load=_health,
    uses=the_store,
    summary="Liveness and the number of stored memories",
)
ENTITIES = Op(
    name="entities",
    input_schema="http/entities.input",
    output_schema="http/entities.output",
    load=_entities,
    uses=the_store,
    summary="The newest memories, archived ones included",
)
ENTITY = Op(
    name="entity",
    input_schema="http/entity.input",
    output_schema="http/entity.output",
    load=_entity,
    uses=the_store,
    summary="One memory by name, with its full metadata",
    errors=(ErrorCode.NOT_FOUND,),
)
GRAPH = Op(
    name="graph",
    input_schema="http/graph.input",
    output_schema="http/graph.output",
    load=_graph,
    uses=the_store,
    summary="A bounded picture of memories and their relations: the most connected, or one memory's neighbourhood",
    errors=(ErrorCode.NOT_FOUND,),
)
# The read half of the task_state tool, with its own input: it never writes, whatever it is sent.
TASK_STATE_READ = Op(
    name="task_state_read",
    input_schema="http/task_state.input",
    output_schema="http/task_state.output",
    load=_task_state_read,
    uses=the_store,
    summary="Where the work stands on a project",
)

OPS: tuple[Op[Any, Any, Any], ...] = (HEALTH, ENTITIES, ENTITY, GRAPH, TASK_STATE_READ)
