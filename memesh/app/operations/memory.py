"""Entries over the memories themselves, beside the tools: liveness."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store

if TYPE_CHECKING:
    from memesh.generated.http.health_input import HealthInput
    from memesh.generated.http.health_output import HealthOutput


def _health() -> Operation[Store, HealthInput, HealthOutput]:
    from memesh.ops.health import health

    return health


HEALTH = Op(
    name="health",
    input_schema="http/health.input",
    output_schema="http/health.output",
    load=_health,
    uses=the_store,
    summary="Liveness and the number of stored memories",
)

OPS: tuple[Op[Any, Any, Any], ...] = (HEALTH,)
