"""`memesh hermes` once its flags are parsed: read stdin, run the operation through the door, one JSON line."""

from __future__ import annotations

import sys
from typing import Any

from returns.result import Failure, Result, Success

from memesh.app.registry import Op
from memesh.core import hermes_capture as rules
from memesh.errors import ErrorCode, MemeshError
from memesh.transports.cli.actions.memory import cli_resources, run_op
from memesh.transports.cli.exits import OK, dumps, fail


def _input() -> Result[dict[str, Any], MemeshError]:
    """stdin's JSON object (at most 8 MiB); stdin is never waited on at a terminal."""
    if sys.stdin is None or sys.stdin.isatty():
        return Failure(MemeshError.bad_body("this command reads one JSON object on stdin"))
    return rules.read_input(sys.stdin.buffer.read(rules.INPUT_MAX_BYTES + 1))


def _run(session: str | None, op: Op[Any, Any, Any]) -> int:
    if session is None:
        return fail(MemeshError(ErrorCode.BAD_PARAM, "--session <id> is required", {"param": "session"}), as_json=False)
    resources = cli_resources()
    try:
        # Every capture is Hermes's: provenance.source_host is `hermes`, whichever way in called it.
        ctx = resources.context(rules.SOURCE_HOST, True)
        result = _input().bind(
            lambda body: run_op(op, {"session": session, "input": body}, resources=resources, ctx=ctx)
        )
    finally:
        resources.close()
    match result:
        case Failure(error):
            return fail(error, as_json=False)
        case Success(answer):
            print(dumps(answer))
    return OK


def capture_session(session: str | None) -> int:
    from memesh.app.operations.hermes import HERMES_CAPTURE_SESSION

    return _run(session, HERMES_CAPTURE_SESSION)


def capture_turn(session: str | None) -> int:
    from memesh.app.operations.hermes import HERMES_CAPTURE_TURN

    return _run(session, HERMES_CAPTURE_TURN)


def recall(session: str | None) -> int:
    from memesh.app.operations.hermes import HERMES_RECALL

    return _run(session, HERMES_RECALL)
