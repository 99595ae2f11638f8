"""hermes: what the Hermes Agent memory plugin writes: a session's insights, and a turn that decided or learned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol, cast

from returns.result import Failure, Result, Success

from memesh.context import CallContext
from memesh.core import hermes_capture as rules
from memesh.core.remembering import observation_hash
from memesh.errors import MemeshError
from memesh.generated.cli.hermes_capture_session_input import HermesCaptureSessionInput
from memesh.generated.cli.hermes_capture_session_output import HermesCaptureSessionOutput
from memesh.generated.cli.hermes_capture_turn_input import HermesCaptureTurnInput
from memesh.generated.cli.hermes_capture_turn_output import HermesCaptureTurnOutput
from memesh.generated.cli.hermes_recall_input import HermesRecallInput
from memesh.generated.cli.hermes_recall_output import HermesRecallOutput
from memesh.generated.tools.recall_input import RecallInput
from memesh.generated.tools.recall_output import RecallOutput
from memesh.generated.tools.remember_input import RememberInput
from memesh.model import Entity
from memesh.ops.recall import RecallStore, RecallUses, recall
from memesh.ops.remember import RememberStore, remember

INSIGHT_TYPE = "session-insight"
TURN_TYPE = "conversation"
RECALL_MAX = 20


class HermesStore(RememberStore, RecallStore, Protocol):
    """What the plugin's three commands use: remember's store and recall's."""


def session_capture(
    store: HermesStore, request: HermesCaptureSessionInput, /, *, ctx: CallContext
) -> Result[HermesCaptureSessionOutput, MemeshError]:
    """`memesh hermes capture-session`: `capture_session` for the session and stdin object given."""
    answer = capture_session(store, request["session"], dict(request["input"]), ctx=ctx)
    return cast(Result[HermesCaptureSessionOutput, MemeshError], answer)


def turn_capture(
    store: HermesStore, request: HermesCaptureTurnInput, /, *, ctx: CallContext
) -> Result[HermesCaptureTurnOutput, MemeshError]:
    """`memesh hermes capture-turn`: `capture_turn` for the session and stdin object given."""
    answer = capture_turn(store, request["session"], dict(request["input"]), ctx=ctx)
    return cast(Result[HermesCaptureTurnOutput, MemeshError], answer)


def recall_block(
    uses: RecallUses, request: HermesRecallInput, /, *, ctx: CallContext
) -> Result[HermesRecallOutput, MemeshError]:
    """`memesh hermes recall`: recall (in the recall mode in effect) for the query (at most 1-20 memories) as the
    block Hermes injects; Failure(validation.bad-param) for a bad session id."""
    match rules.check_session_id(request["session"]):
        case Failure() as refused:
            return refused
    body = request["input"]
    limit = max(1, min(body.get("limit", 5), RECALL_MAX))
    return recall(uses, cast(RecallInput, {"query": body["query"], "limit": limit}), ctx=ctx).map(_context)


def _context(output: RecallOutput) -> HermesRecallOutput:
    """Recalled memories as the block Hermes injects: `- (type) name: first observations`."""
    lines = [
        f"- ({e.get('type')}) {e.get('name')}: {'; '.join(str(o) for o in (e.get('observations') or [])[:3])}"
        for e in output.get("entities", [])
    ]
    return {"context": "\n".join(["[MeMesh recall]", *lines]) if lines else "", "count": len(lines)}


def _as_hermes(ctx: CallContext) -> CallContext:
    """Every capture is Hermes's, whichever way in called it: provenance.source_host is always `hermes`."""
    return replace(ctx, source_host=rules.SOURCE_HOST)


def _forgotten(store: RememberStore, name: str) -> set[str]:
    """Hashes of the lines someone forgot on this memory: a capture must not bring them back."""
    existing = store.find(name)
    hashes = existing.metadata.get("forgotten_observation_hashes") if existing else None
    return {h for h in hashes if isinstance(h, str)} if isinstance(hashes, list) else set()


def capture_session(
    store: RememberStore, session: str, body: dict[str, Any], *, ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """Store up to three session-insight memories from a chat message list, appending only lines not already there;
    Failure(validation.bad-param / bad-body) for a bad session id or a body without a messages array."""
    match rules.check_session_id(session).bind(lambda _: rules.session_messages(body)):
        case Failure() as refused:
            return refused
        case Success(messages):
            pass
    activity = rules.activity_from_messages(messages)
    counts: dict[str, Any] = {
        "toolCallCount": activity.tool_calls,
        "filesEdited": len(activity.files_edited),
        "errorsEncountered": len(activity.errors),
        "unrecognizedTools": activity.unrecognized_tools,
        "toolResultsNonJson": activity.tool_results_non_json,
    }
    insights = rules.session_insights(activity, session, date=ctx.now.date().isoformat(), label=rules.SOURCE_HOST)
    if not insights:
        return Success({"outcome": "skipped", "reason": rules.skip_reason(activity), "written": [], **counts})
    written: list[str] = []
    ctx = _as_hermes(ctx)
    with store.transaction():
        for insight in insights:
            forgotten = _forgotten(store, insight.name)
            observations = [line for line in insight.observations if observation_hash(line) not in forgotten]
            existing = store.find(insight.name)
            if existing is not None and _holds(existing, observations, insight.tags):
                continue  # a rerun for the same session: nothing new for this memory
            request = {
                "name": insight.name,
                "type": INSIGHT_TYPE,
                "title": insight.title,
                "observations": observations,
                "tags": insight.tags,
            }
            match remember(store, cast(RememberInput, request), ctx=ctx):
                case Failure() as refused:
                    return refused
            written.append(insight.name)
    if not written:
        return Success({"outcome": "skipped", "reason": NOTHING_NEW, "written": [], **counts})
    return Success({"outcome": "wrote", "written": written, **counts})


NOTHING_NEW = "nothing new in the session insights"
TURN_STORED = "this turn is stored already"


def _holds(existing: Entity, observations: Sequence[str], tags: Sequence[str]) -> bool:
    """Whether remembering these lines and tags on `existing` would add nothing."""
    return set(observations) <= set(existing.observations) and set(tags) <= set(existing.tags)


def capture_turn(
    store: RememberStore, session: str, body: dict[str, Any], *, ctx: CallContext
) -> Result[dict[str, Any], MemeshError]:
    """Store the turn as one conversation memory when the assistant's reply states a decision or a lesson, else
    report `skipped`; Failure for a bad session id or a body without string `user` and `assistant`."""
    match rules.check_session_id(session).bind(lambda _: rules.turn_texts(body)):
        case Failure() as refused:
            return refused
        case Success((user, assistant)):
            pass
    signal = rules.classify_turn(assistant)
    if signal is None:
        return Success({"outcome": "skipped", "reason": "no decision or lesson stated in the reply"})
    kind, cue = signal
    name = rules.turn_name(session, user, assistant)
    request = {
        "name": name,
        "type": TURN_TYPE,
        "observations": rules.turn_observations(user, assistant),
        "tags": [rules.PLATFORM_TAG, f"session:{session}", f"signal:{kind}"],
    }
    ctx = _as_hermes(ctx)
    with store.transaction():
        existing = store.find(name)
        existed = existing is not None
        if existing is not None and _holds(existing, request["observations"], request["tags"]):
            # A retry of a turn stored already (issue 35): nothing is written, and the answer says so, as a rerun
            # of capture-session does; the spec's "anything else stores nothing and reports skipped".
            return Success({"outcome": "skipped", "reason": TURN_STORED})
        match remember(store, cast(RememberInput, request), ctx=ctx):
            case Failure() as refused:
                return refused
    return Success({"outcome": "wrote", "name": name, "kind": kind, "cue": cue, "new": not existed})
