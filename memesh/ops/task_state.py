"""task_state: read or update where the work stands on a project (the tool), and the read alone (GET /v1/task-state)."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access, remembering, task
from memesh.core.clean import clean_text
from memesh.core.keys import checked_project
from memesh.errors import ErrorCode, MemeshError
from memesh.generated.http.task_state_input import TaskStateReadInput
from memesh.generated.http.task_state_output import State as StateRead
from memesh.generated.http.task_state_output import TaskStateReadOutput
from memesh.generated.tools.task_state_input import TaskStateInput
from memesh.generated.tools.task_state_output import State, TaskStateOutput
from memesh.model import ACTIVE, Entity, iso_time
from memesh.ops.remember import RememberStore

Field = Literal["goal", "next", "blocked", "done"]


class TaskStateReader(Protocol):
    def find(self, name: str) -> Entity | None: ...
    def project_counts(self) -> dict[str, dict[str, int]]: ...


class TaskStateStore(RememberStore, Protocol):
    def project_counts(self) -> dict[str, dict[str, int]]: ...


def read_task_state(
    store: TaskStateReader, request: TaskStateReadInput, /, *, ctx: CallContext
) -> Result[TaskStateReadOutput, MemeshError]:
    """The project's stated task state ({} when nothing was stated); it never writes. Failure(validation.bad-param)
    for a project that is blank once cleaned, holds a credential, or is a label several projects share."""
    match checked_project(request["project"], ctx.project, store.project_counts):
        case Failure(problem):
            return Failure(MemeshError(ErrorCode.BAD_PARAM, problem, {"param": "project"}))
        case Success(project):
            pass
    existing = _seen(store.find(task.entity_name(project)), ctx)
    current = task.stored_state(existing.metadata) if existing and existing.status == ACTIVE else {}
    return Success({"project": project, "state": cast(StateRead, task.shown(current))})


def _seen(existing: Entity | None, ctx: CallContext) -> Entity | None:
    """The project's task record as the caller may read it: none when it is another member's `personal` memory or
    outside the member's projects (issue 32; the rule recall applies)."""
    if existing is None or ctx.caller is None:
        return existing
    provenance = existing.metadata.get("provenance")
    author = provenance.get("author") if isinstance(provenance, dict) else None
    return existing if access.may_see(ctx.caller, existing.namespace, author, existing.tags) else None


def task_state(
    store: TaskStateStore, request: TaskStateInput, *, ctx: CallContext
) -> Result[TaskStateOutput, MemeshError]:
    """The project's state (a read when no field is given), or the state after writing the fields given;
    Failure(validation.bad-body) for a project that is blank, holds a credential, or is a label several projects
    share."""
    match checked_project(request.get("project") or None, ctx.project, store.project_counts):
        case Failure(problem):
            return Failure(MemeshError.bad_body(problem))
        case Success(project):
            pass
    name = task.entity_name(project)
    # Cleaned as every stored text is: controls stripped, credentials redacted (a blocker often quotes an error).
    patch = {key: clean_text(request[key]) for key in task.FIELDS if key in request}  # type: ignore[literal-required]
    with store.transaction():
        existing = store.find(name)
        if existing is not None and _seen(existing, ctx) is None:  # never read nor rewritten by another member
            return Failure(access.forbidden("this project's task state is another member's personal memory"))
        current = task.stored_state(existing.metadata) if existing and existing.status == ACTIVE else {}
        if not patch:
            return Success({"project": project, "state": cast(State, task.shown(current))})
        update = task.apply(current, patch, iso_time(ctx.now))
        if not update.changed:
            return Success({"project": project, "state": cast(State, task.shown(current)), "changed": []})
        resolved = remembering.Resolved(
            name=name,
            type=task.ENTITY_TYPE,
            title=task.title_for(project, update.state),
            observations=update.observations,
            tags=[f"project:{project}"],
            relations=[],
            namespace=None,
            replace=False,
        )
        match remembering.plan(
            existing,
            resolved,
            set(),
            now=ctx.now,
            source_host=ctx.source_host,
            author=ctx.author(),
            remote=ctx.caller is not None,
        ):
            case Failure() as refused:
                return refused
            case Success(plan):
                pass
        metadata = {**plan.write.metadata, "task_state": update.state}
        store.save(replace(plan.write, metadata=metadata))
    changed = cast(list[Field], update.changed)
    return Success({"project": project, "state": cast(State, task.shown(update.state)), "changed": changed})
