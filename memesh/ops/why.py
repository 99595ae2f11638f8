"""why: what memesh remembers about the commits that touched a file, their sessions, and the memories tagged with
the file's name. `why` is the graph half alone: commit hashes come from the caller (POST /v1/why never runs git);
`why_here` asks the working folder's git history it is handed which commits those are (`memesh why`)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core.commits import entity_name, file_tag
from memesh.core.keys import project_for, working_project
from memesh.errors import MemeshError
from memesh.generated.cli.why_input import WhyHereInput
from memesh.generated.http.why_input import WhyInput
from memesh.generated.http.why_output import Commit, Session, WhyOutput
from memesh.generated.http.why_output import Entity as ShownEntity
from memesh.model import Entity
from memesh.ops.recall import shown

DEFAULT_LIMIT = 10
SESSION_MAX = 200


class WhyStore(Protocol):
    def find(self, name: str) -> Entity | None: ...
    def ids_with_tag(self, tag: str) -> list[int]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def project_counts(self) -> dict[str, dict[str, int]]: ...


def _is_project(tag: str) -> bool:
    return tag.startswith("project:")


def _entity(entity: Entity) -> ShownEntity:
    return cast(ShownEntity, shown(entity, None))


def _commit_entity(store: WhyStore, commit: str) -> Entity | None:
    """The commit memory for this hash: named by its first 7 characters, and holding the same hash when it
    recorded the full one (two commits sharing a 7-character prefix are not confused)."""
    found = store.find(entity_name(commit.lower()))
    if found is None:
        return None
    recorded = found.metadata.get("commit")
    full = recorded.get("hash") if isinstance(recorded, dict) else None
    if isinstance(full, str) and not (full.startswith(commit.lower()) or commit.lower().startswith(full)):
        return None
    return found


def _session(store: WhyStore, session_id: str) -> Session:
    ids = store.ids_with_tag(f"session:{session_id}")
    return {
        "session_id": session_id,
        "entities": [_entity(e) for e in store.load(ids[:SESSION_MAX])],
        "truncated": len(ids) > SESSION_MAX,
    }


class GitHistory(Protocol):
    """Which commits git says touched a file, newest first, and why it could not say (typed abstentions)."""

    commits: list[str]
    abstentions: list[str]


class WhyResources(Protocol):
    @property
    def store(self) -> WhyStore: ...
    def git_history(self, file: str, *, limit: int, line: int | None) -> GitHistory: ...


def why(store: WhyStore, request: WhyInput, /, *, ctx: CallContext) -> Result[WhyOutput, MemeshError]:
    """The attribution chain for the file; every gap is a typed abstention. Never fails for a missing memory;
    Failure(validation.bad-body) for a `project` that is a label several projects share."""
    limit = request.get("limit", DEFAULT_LIMIT)
    file = request["file"]
    basename = posixpath.basename(file.replace("\\", "/").rstrip("/")) or file
    project = request.get("project")
    if project and "~" not in project:  # a label stands for its project's id (see keys.project_for)
        match project_for(project, working_project(ctx.project), store.project_counts()):
            case Success(str() as resolved):
                project = resolved
            case Failure(str() as problem):
                return Failure(MemeshError.bad_body(problem))
    commits: list[Commit] = []
    for commit in list(dict.fromkeys(request.get("commits", [])))[:limit]:
        entity = _commit_entity(store, commit)
        abstentions: list[str] = []
        session = None
        if entity is None:
            abstentions.append("no_commit_entity")
        else:
            session_id = entity.metadata.get("session_id")
            if isinstance(session_id, str) and session_id:
                session = _session(store, session_id)
            else:
                abstentions.append("no_session_link")
        commits.append(
            cast(
                Commit,
                {
                    "commit": {"hash": commit},
                    "entity": _entity(entity) if entity is not None else None,
                    "session": session,
                    "abstentions": abstentions,
                },
            )
        )
    tagged = [e for e in store.load(store.ids_with_tag(file_tag(basename))) if not e.archived]
    if project:  # the project's, or no project's: as the Read/Edit hooks find a file's memories
        tagged = [e for e in tagged if f"project:{project}" in e.tags or not any(_is_project(t) for t in e.tags)]
    tagged.sort(key=lambda e: -e.id)
    top: list[str] = [] if "commits" in request else ["no_commits_supplied"]
    return Success(
        {
            "file": file,
            "basename": basename,
            "project": project,
            "commits": commits,
            "file_memories": {"basis": "file-tag", "entities": [_entity(e) for e in tagged[:limit]]},
            "abstentions": top,
        }
    )


def why_here(uses: WhyResources, request: WhyHereInput, /, *, ctx: CallContext) -> Result[WhyOutput, MemeshError]:
    """The attribution chain for a file of the working folder's repository, scoped to its project: git's
    abstentions (not a repository, untracked, unreadable history, …) come first. Never fails for a missing memory."""
    limit = request.get("limit", DEFAULT_LIMIT)
    found = uses.git_history(request["file"], limit=limit, line=request.get("line"))
    asked: WhyInput = {"file": request["file"], "commits": found.commits, "project": ctx.project(), "limit": limit}
    return why(uses.store, asked, ctx=ctx).map(
        lambda out: {**out, "abstentions": [*found.abstentions, *out["abstentions"]]}
    )
