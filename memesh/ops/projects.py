"""projects: the distinct projects memory knows, from project: tags and, for untagged memories, name prefixes."""

from __future__ import annotations

from typing import Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.core import projects as rules
from memesh.errors import MemeshError
from memesh.generated.http.projects_input import ProjectsInput
from memesh.generated.http.projects_output import ProjectsOutput
from memesh.model import Filters


class ProjectsStore(Protocol):
    def project_tag_types(self, people: Filters | None = None) -> list[tuple[str, str, int]]: ...
    def untagged_names(self, people: Filters | None = None) -> list[tuple[str, str]]: ...


def projects(
    store: ProjectsStore, _request: ProjectsInput, /, *, ctx: CallContext
) -> Result[ProjectsOutput, MemeshError]:
    """Every project with its active-memory count, main types and how it was found, largest first; never fails."""
    people = access.counted(ctx.caller)  # a member lists the projects of what it may see (issue 32)
    return Success(rules.merge(store.project_tag_types(people), store.untagged_names(people)))
