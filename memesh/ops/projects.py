"""projects: the distinct projects memory knows, from project: tags and, for untagged memories, name prefixes."""

from __future__ import annotations

from typing import Protocol

from returns.result import Result, Success

from memesh.context import CallContext
from memesh.core import projects as rules
from memesh.errors import MemeshError
from memesh.generated.http.projects_input import ProjectsInput
from memesh.generated.http.projects_output import ProjectsOutput


class ProjectsStore(Protocol):
    def project_tag_types(self) -> list[tuple[str, str, int]]: ...
    def untagged_names(self) -> list[tuple[str, str]]: ...


def projects(
    store: ProjectsStore, _request: ProjectsInput, /, *, ctx: CallContext
) -> Result[ProjectsOutput, MemeshError]:
    """Every project with its active-memory count, main types and how it was found, largest first; never fails."""
    return Success(rules.merge(store.project_tag_types(), store.untagged_names()))
