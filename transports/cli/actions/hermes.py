"""`memesh hermes` once its flags are parsed: check the session id, read stdin, run the operation, one JSON line."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from returns.result import Failure, Result, Success

from memesh.app import dispatch
from memesh.app.database import Database
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core import hermes_capture as rules
from memesh.errors import ErrorCode, MemeshError
from memesh.ops import hermes
from memesh.transports.cli.actions.memory import on_store
from memesh.transports.cli.exits import OK, dumps, fail

RECALL_MAX = 20
Operation = Callable[..., Result[dict[str, Any], MemeshError]]


def _input(session: str | None) -> Result[dict[str, Any], MemeshError]:
    """stdin's JSON object once the session id is checked; stdin is never waited on at a terminal."""
    if session is None:
        return Failure(MemeshError(ErrorCode.BAD_PARAM, "--session <id> is required", {"param": "session"}))
    if sys.stdin is None or sys.stdin.isatty():
        return rules.check_session_id(session).bind(
            lambda _: Failure(MemeshError.bad_body("this command reads one JSON object on stdin"))
        )
    return rules.check_session_id(session).bind(
        lambda _: rules.read_input(sys.stdin.buffer.read(rules.INPUT_MAX_BYTES + 1))
    )


def _run(session: str | None, operation: Operation) -> int:
    ctx = Resources().context(rules.SOURCE_HOST, True)
    result = _input(session).bind(
        lambda body: on_store(lambda store: dispatch.guarded(lambda: operation(store, session, body, ctx=ctx)))
    )
    match result:
        case Failure(error):
            return fail(error, as_json=False)
        case Success(answer):
            print(dumps(answer))
    return OK


def capture_session(session: str | None) -> int:
    return _run(session, hermes.capture_session)


def capture_turn(session: str | None) -> int:
    return _run(session, hermes.capture_turn)


def recall(session: str | None) -> int:
    return _run(session, _recall)


def _recall(store: Database, session: str, body: dict[str, Any], *, ctx: CallContext) -> Result[Any, MemeshError]:
    query, limit = body.get("query"), body.get("limit", 5)
    if not isinstance(query, str) or isinstance(limit, bool) or not isinstance(limit, int):
        return Failure(MemeshError.bad_body('recall reads {"query": "<text>", "limit": <1-20>}'))
    found = dispatch.call(
        "recall", Resources.over(store), {"query": query, "limit": max(1, min(limit, RECALL_MAX))}, ctx
    )
    return found.map(_context)


def _context(output: dict[str, Any]) -> dict[str, Any]:
    """Recalled memories as the block Hermes injects: `- (type) name: first observations`."""
    lines = [
        f"- ({e.get('type')}) {e.get('name')}: {'; '.join(str(o) for o in (e.get('observations') or [])[:3])}"
        for e in output.get("entities", [])
    ]
    return {"context": "\n".join(["[MeMesh recall]", *lines]) if lines else "", "count": len(lines)}
