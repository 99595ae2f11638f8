"""work_package: prepare one bounded package, submit one result for it into pending human review, or defer it.

Refusals are Failure(operation.failed) whose message starts with the reason an agent acts on (`stale_package`,
`submission_conflict`, `proposal_overlap`, `already_represented`, `workspace_unavailable`,
`workspace_ambiguous`), also given as `data.error`. Nothing is staged on any refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access
from memesh.core import work_package as rules
from memesh.core.proposals import NewProposal, Proposal, encoded_size, sha256_of
from memesh.core.transcripts import INSTRUCTIONS, SOURCE, recent_turns, visible_turns
from memesh.errors import MemeshError
from memesh.generated.tools.work_package_input import WorkPackageInput
from memesh.generated.tools.work_package_output import WorkPackageOutput
from memesh.model import Entity, Filters

Output = Result[WorkPackageOutput, MemeshError]


class WorkPackageStore(Protocol):
    def transaction(self) -> AbstractContextManager[None]: ...
    def digest_candidates(
        self, project_tag: str, types: Sequence[str], since: str, people: Filters | None = None
    ) -> list[rules.Candidate]: ...
    def load(self, ids: Sequence[int]) -> list[Entity]: ...
    def proposed_packages(self, package_ids: Sequence[str]) -> set[str]: ...
    def pending_entity_sources(self, project: str) -> set[int]: ...
    def proposal_for_package(self, package_id: str) -> Proposal | None: ...
    def proposals_in_cluster(self, project: str, cluster_key: str) -> list[Proposal]: ...
    def stage(self, proposal: NewProposal) -> int: ...


class Session(Protocol):
    @property
    def session_id(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def source_hash(self) -> str: ...
    @property
    def modified_at(self) -> str: ...


class Scan(Protocol):
    @property
    def sessions(self) -> Sequence[Session]: ...
    @property
    def skipped(self) -> dict[str, int]: ...
    def skip(self, reason: str, count: int = 1) -> None: ...


class Workspace(Protocol):
    """The one root the client offered for the project; `hash` binds a package to it without its path."""

    @property
    def hash(self) -> str: ...
    def scan(self, now: datetime) -> Scan: ...


class TranscriptFiles(Protocol):
    """The host's session transcripts on this machine (memesh.adapters.transcripts.TranscriptFiles)."""

    def workspace(self, project: str, root_uris: Sequence[str] | None) -> Workspace | str: ...
    def recent_session_ids(self, folder: str, now: datetime) -> list[str]: ...
    def home_prefix(self) -> str | None: ...


class WorkPackageWorld(Protocol):
    """What work_package reaches: the store, and the transcripts a transcript package is read from."""

    @property
    def store(self) -> WorkPackageStore: ...
    def transcripts(self) -> TranscriptFiles: ...


def refused(reason: str, message: str) -> Failure[MemeshError]:
    return Failure(MemeshError.failed(f"{reason}: {message}", error=reason))


STALE = "the package changed, expired or was never prepared: prepare again"


def work_package(world: WorkPackageWorld, request: WorkPackageInput, *, ctx: CallContext) -> Output:
    """The prepared package (or none_available), the staged proposal, or the deferral; Failure(validation.bad-body)
    for a result or ref the schema cannot refuse, Failure(operation.failed) for a stale, forged, conflicting or
    out-of-workspace call."""
    args = cast(dict[str, Any], request)
    action = args["action"]
    if action == "prepare":
        kind, project = args["kind"], args["project"]
    else:
        kind, project = args["ref"]["kind"], args["ref"]["project"]
        problem = rules.ref_problem(args["ref"])
        if problem is None and action == "submit":
            problem = rules.result_problem(kind, args["result"])
        if problem is not None:
            return Failure(MemeshError.bad_body(problem))
    refusal = _member_refusal(ctx, kind, project)
    if refusal is not None:
        return Failure(refusal)
    if kind == "digest":
        return _digest(world.store, args, project, ctx)
    return _transcript(world.store, world.transcripts(), args, project, ctx)


def _member_refusal(ctx: CallContext, kind: str, project: str) -> MemeshError | None:
    """Why a member on a remote listener may not have this package (issue 32): a project outside its scope, or a
    transcript package, which reads this machine's own session transcripts (the owner's, never a member's)."""
    caller = ctx.caller
    if caller is None or caller.owner:
        return None
    if caller.projects is not None and project not in caller.projects:
        return access.forbidden(f'member "{caller.name}" may not prepare packages of project "{project}"')
    if kind != "digest":
        return access.forbidden("transcript packages read this machine's own session transcripts: not a member's")
    return None


def _available(package: rules.Package) -> Output:
    return Success(
        cast(
            WorkPackageOutput,
            {"status": "available", "package": package.body, "available_action": list(rules.AVAILABLE_ACTIONS)},
        )
    )


def _none(selection_mode: str, skipped: dict[str, int] | None = None) -> Output:
    out: dict[str, Any] = {"status": "none_available", "selection_mode": selection_mode, "available_action": []}
    if skipped:
        out["skipped_sessions"] = skipped
    return Success(cast(WorkPackageOutput, out))


def _replay(prior: Proposal, ref: dict[str, Any], result_hash: str | None) -> Output:
    """The answer to a second call for a package that already has a proposal."""
    stored = prior.proposed.get("work_package") or {}
    if stored.get("ref") != ref:
        return refused("stale_package", STALE)
    if result_hash is not None and stored.get("result_hash") != result_hash:
        return refused(
            "submission_conflict",
            f"another result was already staged for this package as proposal #{prior.id}; one package stages "
            "one proposal",
        )
    if result_hash is None:
        return _deferred()
    return Success(
        cast(
            WorkPackageOutput,
            {
                "status": "existing",
                "proposal_id": prior.id,
                "proposal_status": prior.status,
                "review_authority": "human",
                "available_action": [],
            },
        )
    )


def _result_hash(args: dict[str, Any]) -> str | None:
    """The stored hash a submit's result would have; None for a defer."""
    return sha256_of(rules.cleaned_result(args["result"])) if args["action"] == "submit" else None


def _deferred() -> Output:
    return Success(cast(WorkPackageOutput, {"status": "deferred", "durable_change": False, "available_action": []}))


def _staged(proposal_id: int) -> Output:
    return Success(
        cast(
            WorkPackageOutput,
            {
                "status": "staged",
                "proposal_id": proposal_id,
                "proposal_status": "pending",
                "review_authority": "human",
                "available_action": [],
            },
        )
    )


def _proposed(result: dict[str, Any], package: rules.Package) -> tuple[dict[str, Any], str]:
    cleaned = rules.cleaned_result(result)
    result_hash = sha256_of(cleaned)
    return {**cleaned, "work_package": {"id": package.id, "ref": package.ref, "result_hash": result_hash}}, result_hash


def _digest_packages(store: WorkPackageStore, project: str, ctx: CallContext) -> list[tuple[rules.Package, str]]:
    # A member's package holds only what its recall would show it (its projects; personal memories its own).
    people = access.scoped(Filters(), ctx.caller) if ctx.caller is not None else None
    candidates = store.digest_candidates(f"project:{project}", rules.DIGEST_TYPES, rules.digest_cutoff(ctx.now), people)
    found: list[tuple[rules.Package, str]] = []
    for key, ids in rules.week_groups(candidates):
        package = rules.digest_package(project, rules.Cluster(key, store.load(ids)))
        if package is not None:
            found.append((package, key))
    return found


def _first_digest(store: WorkPackageStore, project: str, ctx: CallContext) -> rules.Package | None:
    """The digest package prepare would return now: the oldest complete week no proposal has staged or claims."""
    packages = _digest_packages(store, project, ctx)
    held = store.pending_entity_sources(project)
    staged = store.proposed_packages([package.id for package, _ in packages])
    for package, _ in packages:
        if package.id not in staged and not held.intersection(package.ref["source_ids"]):
            return package
    return None


def _digest(store: WorkPackageStore, args: dict[str, Any], project: str, ctx: CallContext) -> Output:
    if args["action"] == "prepare":
        package = _first_digest(store, project, ctx)
        return _none("calendar") if package is None else _available(package)
    ref = args["ref"]
    with store.transaction():  # BEGIN IMMEDIATE: two agents submitting at once are served one after the other
        prior = store.proposal_for_package(args["package_id"])
        if prior is not None:
            return _replay(prior, ref, _result_hash(args))
        if args["package_id"] != rules.package_id(ref):
            return refused("stale_package", STALE)
        current = [(p, key) for p, key in _digest_packages(store, project, ctx) if p.id == args["package_id"]]
        if not current or current[0][0].ref != ref:
            return refused("stale_package", STALE)
        package, cluster_key = current[0]
        if store.pending_entity_sources(project).intersection(ref["source_ids"]):
            return refused("proposal_overlap", "a pending proposal already claims some of these sources")
        if args["action"] == "defer":
            return _deferred()
        proposed, _ = _proposed(args["result"], package)
        proposal_id = store.stage(
            NewProposal(
                project=project,
                cluster_key=cluster_key,
                kind="digest",
                source_kind="entities",
                source_ids=list(ref["source_ids"]),
                proposed=proposed,
                package_id=package.id,
                fingerprints=package.fingerprints,
                author=ctx.author(),
            )
        )
    return _staged(proposal_id)


def _transcript(
    store: WorkPackageStore, transcripts: TranscriptFiles, args: dict[str, Any], project: str, ctx: CallContext
) -> Output:
    roots = ctx.workspace_roots() if ctx.workspace_roots is not None else None
    workspace = transcripts.workspace(project, roots)
    if isinstance(workspace, str):
        detail = (
            "more than one of the client's workspace roots is this project"
            if workspace == rules.WORKSPACE_AMBIGUOUS
            else "transcript packages need an MCP client that answers roots/list with exactly one root of this project"
        )
        return refused(workspace, detail)
    if args["action"] != "prepare":
        ref = args["ref"]
        if ref["workspace_hash"] != workspace.hash or args["package_id"] != rules.package_id(ref):
            return refused("stale_package", STALE)
        prior = store.proposal_for_package(args["package_id"])
        if prior is not None:  # checked after the workspace, so a replay reveals nothing to another workspace
            return _replay(prior, ref, _result_hash(args))
    scan = workspace.scan(ctx.now)
    home = transcripts.home_prefix()
    for session in scan.sessions:
        if args["action"] != "prepare" and args["ref"]["session_id"] != session.session_id:
            continue
        represented = store.proposals_in_cluster(project, f"transcript:{session.session_id}")
        if represented and args["action"] == "prepare":
            scan.skip("already_proposed")
            continue
        turns = visible_turns(session.data, home)
        recent = recent_turns(turns)
        kept = recent.turns
        if not kept:
            scan.skip("no_visible_turns")
            continue
        ref = {
            "kind": "transcript",
            "project": project,
            "session_id": session.session_id,
            "modified_at": session.modified_at,
            "source_hash": session.source_hash,
            "workspace_hash": workspace.hash,
        }
        identifier = rules.package_id(ref)
        coverage = {
            "truncated": len(kept) < len(turns) or recent.clipped > 0,
            "total_turns": len(turns),
            "included_turns": len(kept),
        }
        if recent.clipped:
            coverage["clipped_turns"] = recent.clipped
        body = {
            "id": identifier,
            "ref": ref,
            "sources": [turn.as_json() for turn in kept],
            "source": dict(SOURCE),
            "instructions": INSTRUCTIONS,
            "limits": dict(rules.LIMITS),
            "coverage": coverage,
            "trust": "untrusted",
            "selection_mode": "newest_session",
        }
        if encoded_size(body) > rules.PACKAGE_MAX_BYTES:
            scan.skip("package_too_large")
            continue
        package = rules.Package(identifier, ref, body, {})
        if args["action"] == "prepare":
            return _available(package)
        return _stage_transcript(store, args, package, represented, workspace.hash, author=ctx.author())
    if args["action"] == "prepare":
        return _none("newest_session", scan.skipped)
    return refused("stale_package", STALE)


def _stage_transcript(
    store: WorkPackageStore,
    args: dict[str, Any],
    package: rules.Package,
    represented: list[Proposal],
    workspace_hash: str,
    *,
    author: str | None,
) -> Output:
    with store.transaction():
        prior = store.proposal_for_package(args["package_id"])
        if prior is not None:
            return _replay(prior, args["ref"], _result_hash(args))
        if package.id != args["package_id"] or package.ref != args["ref"]:
            return refused("stale_package", STALE)
        session_id = package.ref["session_id"]
        if represented or store.proposals_in_cluster(package.ref["project"], f"transcript:{session_id}"):
            return refused("already_represented", "this session is already represented by a proposal")
        if args["action"] == "defer":
            return _deferred()
        proposed, _ = _proposed(args["result"], package)
        body = package.body
        evidence = {
            "session_id": session_id,
            "source": body["source"],
            "workspace_hash": workspace_hash,
            "coverage": body["coverage"],
            "sources": body["sources"],
            "trust": "untrusted",
        }
        proposal_id = store.stage(
            NewProposal(
                project=package.ref["project"],
                cluster_key=f"transcript:{session_id}",
                kind="digest",
                source_kind="transcript",
                source_ids=evidence,
                proposed=proposed,
                package_id=package.id,
                author=author,
            )
        )
    return _staged(proposal_id)


def available_kinds(
    store: WorkPackageStore,
    transcripts: TranscriptFiles,
    project: str,
    *,
    ctx: CallContext,
    session_folder: str,
    current_session: str,
) -> list[str]:
    """Which kinds of package prepare could offer for `project` now, for the SessionStart notice at level full.

    digest is decided exactly as prepare decides it. transcript is a cheap look, reading no transcript: another
    session (of the host whose transcripts MeMesh reads) of `session_folder` (the folder this session runs in, whose
    identity `project` is) modified in the window and within the size limits, not yet represented by a proposal.
    prepare still reads the file and may answer none_available (no visible turns, another recorded folder).
    """
    kinds = ["digest"] if _first_digest(store, project, ctx) is not None else []
    for session_id in transcripts.recent_session_ids(session_folder, ctx.now):
        if session_id != current_session and not store.proposals_in_cluster(project, f"transcript:{session_id}"):
            kinds.append("transcript")
            break
    return kinds
