"""learn: record a structured lesson (error, root cause, fix, prevention) as a lesson_learned memory."""

from __future__ import annotations

from typing import Protocol

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import lessons
from memesh.core.clean import redact
from memesh.core.keys import checked_project
from memesh.errors import MemeshError
from memesh.generated.tools.learn_input import LearnInput
from memesh.generated.tools.learn_output import LearnOutput
from memesh.ops.remember import RememberStore, remember


class LearnStore(RememberStore, Protocol):
    def project_counts(self) -> dict[str, dict[str, int]]: ...


def learn(store: LearnStore, request: LearnInput, *, ctx: CallContext) -> Result[LearnOutput, MemeshError]:
    """Store (or extend) the project's lesson for this error, answering with the name it is stored under;
    Failure(operation.failed) when the error text is only credentials, since a lesson named after a secret could not
    be told apart from any other; Failure(validation.bad-body) for a project that is blank or holds a credential."""
    error = request["error"]
    if lessons.only_credentials(redact(error)):
        return Failure(
            MemeshError.failed(
                "MeMesh did not store this lesson: its error text is only credentials once redacted (or part of a "
                "private key), so it cannot be told apart from other lessons. Describe the error without the secret."
            )
        )
    match checked_project(request.get("project") or None, ctx.project, store.project_counts):
        case Failure(problem):
            return Failure(MemeshError.bad_body(problem))
        case Success(project):
            pass
    severity = request.get("severity", lessons.DEFAULT_SEVERITY)
    pattern = lessons.error_pattern(error)
    name = lessons.lesson_name(project, redact(error))
    observations = lessons.lesson_observations(
        error, request["fix"], request.get("root_cause"), request.get("prevention")
    )
    tags = [f"project:{project}", f"error-pattern:{pattern}", f"severity:{severity}", "source:explicit"]
    existing = store.find(name)
    if existing is not None:
        # The same lesson stated again adds only what is new about it, never a second copy of the same lines (a
        # lesson keeps repeated lines when they are stated in one call, so remember does not drop them for us).
        already = set(existing.observations)
        observations = [line for line in observations if line not in already]
    stored = remember(
        store,
        {"name": name, "type": "lesson_learned", "observations": observations, "tags": tags},
        ctx=ctx,
    )
    return stored.map(lambda out: LearnOutput(learned=True, name=out["name"], type="lesson_learned"))
