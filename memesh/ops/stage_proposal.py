"""Stage a pattern_emergent, relation or guard proposal for human review (`memesh kg propose <kind>`).

The staging side of the three review kinds that are not work packages: the input was already checked against its
schema (`schemas/proposals/`); this checks what a schema cannot (the memories exist and are active, a guard's
pattern does what its examples say), cleans the text like every write, and stages one pending proposal in one
transaction. Staging is idempotent: the same normalized proposal while one is pending answers that one, created:
false. Nothing here applies a proposal: only a person does, through the review surface (`memesh.ops.proposals`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import guards
from memesh.core import proposals as rules
from memesh.core.clean import clean_all, clean_text
from memesh.core.improvement import normalized
from memesh.errors import MemeshError
from memesh.generated.cli.propose_output import ProposeOutput
from memesh.generated.proposals.guard_input import GuardProposalInput
from memesh.generated.proposals.pattern_emergent_input import PatternProposalInput
from memesh.generated.proposals.relation_input import RelationProposalInput
from memesh.model import ACTIVE, Entity, canonical_type

LESSON_TYPE = "lesson_learned"


class StageStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def find(self, name: str) -> Entity | None: ...
    def proposal(self, proposal_id: int) -> rules.Proposal | None: ...
    def proposals_in_cluster(self, project: str, cluster_key: str) -> list[rules.Proposal]: ...
    def stage(self, proposal: rules.NewProposal) -> int: ...


class GuardStore(StageStore, Protocol):
    def project_counts(self) -> dict[str, dict[str, int]]: ...


Staged = Result[ProposeOutput, MemeshError]


def _active(store: StageStore, names: list[str]) -> dict[str, Entity] | MemeshError:
    found = {name: store.find(name) for name in names}
    unavailable = [name for name, entity in found.items() if entity is None or entity.status != ACTIVE]
    if unavailable:
        message = f"source memories must exist and be active: {', '.join(unavailable)}"
        return MemeshError.failed(message, missing=unavailable)
    return {name: entity for name, entity in found.items() if entity is not None}


def _stage_once(
    store: StageStore,
    *,
    project: str,
    kind: str,
    identity: dict[str, Any],
    build: Callable[[str], rules.NewProposal],
) -> dict[str, Any]:
    """The pending proposal with this identity, or a new one `build` makes for the cluster key; inside the
    caller's transaction."""
    key = f"{kind}:{rules.sha256_of({'project': project, **identity})}"
    pending = [item for item in store.proposals_in_cluster(project, key) if item.status == rules.PENDING]
    if pending:
        return rules.staged_answer(pending[0], created=False)
    proposal_id = store.stage(build(key))
    staged = store.proposal(proposal_id)
    assert staged is not None
    return rules.staged_answer(staged, created=True)


def _fingerprints(entities: list[Entity]) -> dict[str, str]:
    return {str(entity.id): rules.fingerprint(entity) for entity in entities}


def stage_relation(store: StageStore, request: RelationProposalInput, *, ctx: CallContext) -> Staged:
    """Failure(validation.bad-body) for two ends that are one memory; Failure(operation.failed) for an end that is
    missing or archived, or two memories that already carry this relation."""
    args = cast(dict[str, Any], request)
    project = normalized(args["project"])
    names = [normalized(args["from"]), normalized(args["to"])]
    if names[0] == names[1]:
        return Failure(MemeshError.bad_body("to: must name another memory than from"))
    rationale = clean_text(normalized(args["rationale"]))
    relation_type = args["relation_type"]
    with store.transaction():
        found = _active(store, names)
        if isinstance(found, MemeshError):
            return Failure(found)
        start, end = found[names[0]], found[names[1]]
        if start.id == end.id:
            return Failure(MemeshError.bad_body("to: must name another memory than from"))
        if any(r.to_name == end.name and r.type == relation_type for r in start.relations):
            message = f'"{start.name}" already {relation_type} "{end.name}"; there is nothing to review'
            return Failure(MemeshError.failed(message))
        payload = {
            "relation_type": relation_type,
            "from": {"id": start.id, "name": start.name},
            "to": {"id": end.id, "name": end.name},
            "rationale": rationale,
        }
        answer = _stage_once(
            store,
            project=project,
            kind=rules.RELATION,
            identity={"from": start.id, "to": end.id, "relation_type": relation_type},
            build=lambda key: rules.NewProposal(
                project=project,
                cluster_key=key,
                kind=rules.RELATION,
                source_kind="entities",
                source_ids=[start.id, end.id],
                proposed=payload,
                fingerprints=_fingerprints([start, end]),
                author=ctx.author(),
            ),
        )
    return Success(cast(ProposeOutput, answer))


def stage_pattern(store: StageStore, request: PatternProposalInput, *, ctx: CallContext) -> Staged:
    """Failure(validation.bad-body) for fewer than two distinct sources; Failure(operation.failed) naming the
    sources that are missing or archived."""
    args = cast(dict[str, Any], request)
    project = normalized(args["project"])
    names = sorted({normalized(name) for name in args["source_names"]})
    if len(names) < 2:
        return Failure(MemeshError.bad_body("source_names: a pattern needs at least 2 different source memories"))
    observations = clean_all([text.strip() for text in args["observations"]])
    tags = list(dict.fromkeys(clean_text(tag.strip()) for tag in args.get("tags", [])))
    payload = {
        "name": clean_text(normalized(args["name"])),
        "type": rules.PATTERN_EMERGENT,
        "observations": observations,
        "tags": tags,
    }
    with store.transaction():
        found = _active(store, names)
        if isinstance(found, MemeshError):
            return Failure(found)
        sources = sorted(found.values(), key=lambda entity: entity.id)
        source_ids = [entity.id for entity in sources]
        answer = _stage_once(
            store,
            project=project,
            kind="pattern",
            identity={"source_ids": source_ids, **payload},
            build=lambda key: rules.NewProposal(
                project=project,
                cluster_key=key,
                kind=rules.PATTERN_EMERGENT,
                source_kind="entities",
                source_ids=source_ids,
                proposed=payload,
                fingerprints=_fingerprints(sources),
                author=ctx.author(),
            ),
        )
    return Success(cast(ProposeOutput, answer))


def _guard_project(store: GuardStore, given: str, ctx: CallContext) -> str | MemeshError:
    """The project id a guard is for: `given` when it is an id; for a bare label, the working folder's project when
    it has that label, else the one stored project with it; a label several projects share is refused with their ids
    (a guard for a label would fire in all of them)."""
    from memesh.core.keys import project_for, working_project

    match project_for(given, working_project(ctx.project), store.project_counts() if "~" not in given else ()):
        case Success(str() as project):
            return project
        case Failure(str() as problem):
            return MemeshError.bad_body(problem)
    raise AssertionError("project_for answers Success or Failure")  # pragma: no cover


def stage_guard(store: GuardStore, request: GuardProposalInput, *, ctx: CallContext) -> Staged:
    """Failure(validation.bad-body) listing every way the guard is unusable (pattern too broad, an example it
    contradicts, a credential in the pattern); Failure(operation.failed) for a lesson that is missing, archived,
    untrusted (its guard would never fire) or not a lesson_learned."""
    args = cast(dict[str, Any], request)
    resolved = _guard_project(store, normalized(args["project"]), ctx)
    if isinstance(resolved, MemeshError):
        return Failure(resolved)
    project = resolved
    lesson_name = normalized(args["lesson"])
    pattern = args["pattern"]
    if clean_text(pattern) != pattern:
        return Failure(MemeshError.bad_body("pattern: looks like it holds a credential; a guard must not"))
    message = clean_text(normalized(args["message"]))
    should_match = [clean_text(text) for text in args["should_match"]]
    should_not_match = [clean_text(text) for text in args["should_not_match"]]
    problems = guards.check_spec(pattern, message, should_match, should_not_match)
    if problems:
        return Failure(MemeshError.bad_body("; ".join(problems)))
    with store.transaction():
        found = _active(store, [lesson_name])
        if isinstance(found, MemeshError):
            return Failure(found)
        lesson = found[lesson_name]
        if canonical_type(lesson.type) != LESSON_TYPE:
            message_ = f'"{lesson.name}" is a {lesson.type}, not a lesson_learned: only a lesson can carry a guard'
            return Failure(MemeshError.failed(message_))
        if lesson.metadata.get("trust", "trusted") != "trusted":
            refused = (
                f'"{lesson.name}" is untrusted (imported without --trust): the PreToolUse hook takes guards from '
                "trusted lessons only"
            )
            return Failure(MemeshError.failed(refused))
        spec = {
            "tool": guards.TOOL,
            "pattern": pattern,
            "message": message,
            "should_match": should_match,
            "should_not_match": should_not_match,
        }
        payload = {
            "guard": spec,
            "source_lesson": {"id": lesson.id, "name": lesson.name, "title": lesson.title},
            # The guard the lesson carried when staged: accept refuses to overwrite one added since.
            "replaces": lesson.metadata.get("guard"),
        }
        answer = _stage_once(
            store,
            project=project,
            kind=rules.GUARD,
            identity={"lesson": lesson.id, **spec},
            build=lambda key: rules.NewProposal(
                project=project,
                cluster_key=key,
                kind=rules.GUARD,
                source_kind="entities",
                source_ids=[lesson.id],
                proposed=payload,
                fingerprints=_fingerprints([lesson]),
                author=ctx.author(),
            ),
        )
    return Success(cast(ProposeOutput, answer))
