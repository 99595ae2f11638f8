"""briefing: the project's memory block for the start of a session (the tool, `memesh briefing`, SessionStart)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import access, briefing, briefing_index, handoff, messages, scoring, task
from memesh.core import settings as config_rules
from memesh.core.keys import checked_project
from memesh.errors import ErrorCode, MemeshError
from memesh.model import Filters
from memesh.values import CandidateRow, Inbox

if TYPE_CHECKING:  # annotations only: a TypedDict module costs ~4 M instructions to import
    from memesh.generated.http.briefing_index_input import BriefingIndexInput
    from memesh.generated.http.briefing_index_output import BriefingIndexOutput
    from memesh.generated.tools.briefing_input import BriefingInput
    from memesh.generated.tools.briefing_output import BriefingOutput

# The newest memories a briefing ranks for the project's slots (decisions by date, the rest by score).
SLOT_WINDOW = 200
# The newest accepted product improvements the product-work pool chooses its five from (by priority, then date).
PRODUCT_WORK_WINDOW = 50
# A scope identifier spelled as an absolute path: POSIX, Windows drive, or UNC.
_ABSOLUTE_PATH = re.compile(r"^(?:/|\\|[A-Za-z]:[\\/])")


class BriefingStore(Protocol):
    def database_failure(self, exc: BaseException) -> MemeshError | None: ...
    def project_candidates(
        self, project_tag: str, exclude_types: Collection[str], limit: int
    ) -> list[CandidateRow]: ...
    def product_work(self, project_tag: str, limit: int) -> list[tuple[CandidateRow, list[str]]]: ...
    def global_candidates(self, exclude_types: Collection[str], limit: int) -> list[CandidateRow]: ...
    def other_project_candidates(
        self, project_tag: str, exclude_types: Collection[str], limit: int
    ) -> list[tuple[str, CandidateRow]]: ...
    def first_observations(self, ids: Sequence[int]) -> dict[int, str]: ...
    def trusted_record(
        self, name: str, entity_type: str, project_tag: str, people: Filters | None = None
    ) -> tuple[str, str | None, str] | None: ...
    def inbox(self, project: str, recipient: str, session: str | None) -> Inbox: ...


class NamedBriefingStore(BriefingStore, Protocol):
    """A briefing asked for a project by name: its label is read against the stored projects."""

    def project_counts(self) -> dict[str, dict[str, int]]: ...


def canonical_recipient(raw: str) -> Result[str, MemeshError]:
    """The recipient as the message inbox keys it (`messages.scope_text`: NFC, trimmed of what cannot be seen); a
    filesystem-path spelling is refused, however invisible characters disguise it."""
    value = messages.scope_text(raw)
    if not value:
        return Failure(MemeshError.bad_body("recipient: must not be blank, e.g. reviewer-agent"))
    if _ABSOLUTE_PATH.match(messages.seen(value)):
        return Failure(
            MemeshError.bad_body(
                "recipient: is spelled as a filesystem path; a recipient is a logical id such as reviewer-agent"
            )
        )
    return Success(value)


def _seen(ctx: CallContext, row: CandidateRow) -> bool:
    return access.may_see(ctx.caller, row.namespace or "", row.author, ())


def _candidate(row: CandidateRow, snippets: dict[int, str], reader: str | None = None) -> briefing.Candidate:
    """One candidate; `reader` is who the briefing is for: a memory someone else wrote names its author."""
    return briefing.Candidate(
        id=row.id,
        type=row.type,
        title=row.title or row.name,
        snippet=snippets.get(row.id),
        activity=row.activity,
        signals=scoring.Signals(
            row.id, row.last_accessed_at, row.access_count, row.confidence, row.recall_hits, row.recall_misses
        ),
        by=row.author if row.author and row.author != reader else None,
    )


def _people(ctx: CallContext) -> Filters | None:
    """A member's view of the project's records (the hand-off a hook wrote is the owner's `personal` memory)."""
    return access.scoped(Filters(), ctx.caller) if ctx.caller is not None else None


def _task_record(store: BriefingStore, project: str, tag: str, ctx: CallContext) -> briefing.TaskRecord | None:
    found = store.trusted_record(task.entity_name(project), task.ENTITY_TYPE, tag, _people(ctx))
    if found is None:
        return None
    try:
        metadata = json.loads(found[2])
    except ValueError:
        return briefing.TaskRecord(None)
    raw = metadata.get("task_state") if isinstance(metadata, dict) else None
    if not isinstance(raw, dict):
        return briefing.TaskRecord(None)
    return briefing.TaskRecord(task.stored_state(metadata))


def index_candidates(
    store: BriefingStore, project: str, ctx: CallContext, rows: list[CandidateRow] | None = None
) -> tuple[list[briefing_index.Candidate], bool]:
    """The index's candidates (newest first, snippets for those it can list) and whether the window was full;
    `rows`: the project's durable candidates when the caller has read them already."""
    if rows is None:
        rows = store.project_candidates(
            f"project:{project}", briefing_index.NOT_INDEXED, briefing_index.CANDIDATE_WINDOW
        )
    listable = [r.id for r in rows if not briefing_index.is_older(r.activity, ctx.now)][: briefing_index.MAX_LINES]
    snippets = store.first_observations(listable)
    candidates = [
        briefing_index.Candidate(r.id, r.type, r.title or r.name, snippets.get(r.id), r.activity) for r in rows
    ]
    return candidates, len(rows) >= briefing_index.CANDIDATE_WINDOW


def gather(
    store: BriefingStore,
    project: str,
    *,
    level: str,
    slots: int,
    recipient: str | None,
    ctx: CallContext,
) -> briefing.Inputs:
    """Everything the assembly rules read, from the store."""
    tag = f"project:{project}"
    found = store.trusted_record(handoff.entity_name(project), handoff.HANDOFF_TYPE, tag, _people(ctx))
    # One read serves both: the newest rows take the slots, the durable ones among them make the index. The window
    # is the index's 2000 plus room for the evidence rows that sit among them.
    window = store.project_candidates(
        tag, {task.ENTITY_TYPE, handoff.HANDOFF_TYPE}, briefing_index.CANDIDATE_WINDOW + SLOT_WINDOW
    )
    read_whole = len(window) == briefing_index.CANDIDATE_WINDOW + SLOT_WINDOW
    work = store.product_work(tag, PRODUCT_WORK_WINDOW)
    if ctx.caller is not None:  # a member's briefing, its index and product work leave out others' personal memories
        window = [r for r in window if _seen(ctx, r)]
        work = [(r, tags) for r, tags in work if _seen(ctx, r)]
    # Accepted product improvements are shown as product work, apart from the ranked slots.
    rows = [r for r in window[:SLOT_WINDOW] if r.type != briefing.PRODUCT_WORK_TYPE]
    extra: list[CandidateRow] = []
    others: list[tuple[str, CandidateRow]] = []
    if level == "full":
        extra = store.global_candidates(briefing_index.NOT_INDEXED, briefing.EXTRA_POOL)
        others = store.other_project_candidates(tag, briefing_index.NOT_INDEXED, briefing.EXTRA_POOL)
    snippets = store.first_observations([r.id for r in [*rows, *extra, *(row for _, row in others)]])
    product_work = []
    for row, tags in work:
        priority, implementation, outcome = briefing.product_work_states(tags)
        product_work.append(briefing.ProductWork(_candidate(row, {}), priority, implementation, outcome))
    durable = [r for r in window if r.type not in briefing_index.NOT_INDEXED]
    index_error = False
    try:
        index_rows, window_full = index_candidates(store, project, ctx, durable[: briefing_index.CANDIDATE_WINDOW])
    except Exception as exc:  # a failed read of the index costs the index, not the briefing (it says so instead)
        if store.database_failure(exc) is None:
            raise
        index_rows, window_full, index_error = [], False, True
    # A window that filled up (evidence rows take room in it) means the counts past it are lower bounds.
    window_full = window_full or read_whole
    inbox = None
    if recipient is not None:
        counted = store.inbox(project, recipient, ctx.caller_session)  # a session sees what is meant for it
        inbox = briefing.Inbox(recipient, counted.unread, counted.known)
    if ctx.caller is not None:  # a member's briefing leaves out the other members' personal memories
        extra = [r for r in extra if _seen(ctx, r)]
        others = [(p, r) for p, r in others if _seen(ctx, r)]
    # Asked only when a memory has an author: the local author may cost one git call, once per process.
    authored = any(r.author for r in rows) or any(r.author for r in extra) or any(r.author for _, r in others)
    reader = ctx.author() if authored else None
    return briefing.Inputs(
        project=project,
        level=level,
        now=ctx.now,
        handoff=briefing.Handoff(found[0], found[1]) if found else None,
        task=_task_record(store, project, tag, ctx),
        inbox=inbox,
        candidates=[_candidate(r, snippets, reader) for r in rows],
        slots=slots,
        product_work=product_work,
        global_memories=[_candidate(r, snippets, reader) for r in extra],
        other_projects=[(p, _candidate(r, snippets, reader)) for p, r in others],
        index_candidates=index_rows,
        index_window_full=window_full,
        index_error=index_error,
    )


def settings(ctx: CallContext) -> tuple[str, int]:
    """The briefing level and the number of project slots in effect (the caller's environment, else this
    process's, over config.json over defaults); an unreadable config.json reads as defaults, as an invalid value
    does."""
    stored = ctx.settings()
    env = os.environ if ctx.environment is None else ctx.environment
    level = config_rules.briefing(stored, env.get(config_rules.ENV["briefing"]))
    limit = config_rules.session_limit(stored, env.get(config_rules.ENV["sessionLimit"]))
    return level.value, limit.value


def build(store: BriefingStore, request: BriefingInput, *, ctx: CallContext) -> Result[briefing.Briefing, MemeshError]:
    """The assembled briefing, injected ids included (the SessionStart hook records them)."""
    recipient = None
    if "recipient" in request:
        match canonical_recipient(request["recipient"]):
            case Failure() as refused:
                return refused
            case Success(value):
                recipient = value
    project = request.get("project") or ctx.project()
    level, slots = settings(ctx)
    inputs = gather(store, project, level=level, slots=slots, recipient=recipient, ctx=ctx)
    return Success(briefing.assemble(inputs))


def briefing_tool(
    store: NamedBriefingStore, request: BriefingInput, *, ctx: CallContext
) -> Result[BriefingOutput, MemeshError]:
    """The project's briefing at the configured level; Failure(validation.bad-body) for a path-shaped recipient or
    a `project` that is a label several projects share."""
    if "project" in request:
        match checked_project(request["project"], ctx.project, store.project_counts):
            case Failure(str() as problem):
                return Failure(MemeshError.bad_body(problem))
            case Success(str() as project):
                request = {**request, "project": project}
    return build(store, request, ctx=ctx).map(lambda built: cast("BriefingOutput", built.as_output()))


def briefing_index_of(
    store: NamedBriefingStore, request: BriefingIndexInput, /, *, ctx: CallContext
) -> Result[BriefingIndexOutput, MemeshError]:
    """The standalone durable-memory index of one project, with the staleness window it uses (`memesh briefing
    --index`, GET /v1/briefing-index); a project with no durable memory gets the empty-state line, never a failure;
    Failure(validation.bad-param) for a `project` that is a label several projects share."""
    from memesh.core.identity import project_label

    match checked_project(request["project"], ctx.project, store.project_counts):
        case Failure(str() as problem):
            return Failure(MemeshError(ErrorCode.BAD_PARAM, problem, {"param": "project"}))
        case Success(str() as project):
            pass
    found = store.project_candidates(f"project:{project}", briefing_index.NOT_INDEXED, briefing_index.CANDIDATE_WINDOW)
    rows, window_full = index_candidates(store, project, ctx, found)
    built = briefing_index.build(project_label(project), rows, ctx.now, window_full=window_full)
    names = {row.id: row.name for row in found}
    by_id = {row.id: row for row in rows}
    entries = [
        {
            "id": entity_id,
            "name": names[entity_id],
            "type": by_id[entity_id].type,
            "title": by_id[entity_id].title,
            "snippet": by_id[entity_id].snippet,
            "activity": by_id[entity_id].activity,
        }
        for entity_id in built.ids
    ]
    answer = {"project": project, "staleDays": briefing_index.STALE_DAYS, **built.as_dict(), "entries": entries}
    return Success(cast("BriefingIndexOutput", answer))
