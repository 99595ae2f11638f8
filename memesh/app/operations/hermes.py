"""Entries of `memesh hermes capture-session|capture-turn|recall`: the Hermes Agent memory plugin's way in (one JSON
object on stdin, one JSON line out). Every capture is stamped as Hermes's, whichever way in called it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.recall_factory import RecallSetup, recall_setup
from memesh.app.registry import Op, Operation
from memesh.app.resources import Store, the_store
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.hermes_capture_session_input import HermesCaptureSessionInput
    from memesh.generated.cli.hermes_capture_session_output import HermesCaptureSessionOutput
    from memesh.generated.cli.hermes_capture_turn_input import HermesCaptureTurnInput
    from memesh.generated.cli.hermes_capture_turn_output import HermesCaptureTurnOutput
    from memesh.generated.cli.hermes_recall_input import HermesRecallInput
    from memesh.generated.cli.hermes_recall_output import HermesRecallOutput


def _capture_session() -> Operation[Store, HermesCaptureSessionInput, HermesCaptureSessionOutput]:
    from memesh.ops.hermes import session_capture

    return session_capture


def _capture_turn() -> Operation[Store, HermesCaptureTurnInput, HermesCaptureTurnOutput]:
    from memesh.ops.hermes import turn_capture

    return turn_capture


def _recall() -> Operation[RecallSetup, HermesRecallInput, HermesRecallOutput]:
    from memesh.ops.hermes import recall_block

    return recall_block


HERMES_CAPTURE_SESSION = Op(
    name="hermes_capture_session",
    input_schema="cli/hermes_capture_session.input",
    output_schema="cli/hermes_capture_session.output",
    load=_capture_session,
    uses=the_store,
    summary="Store a Hermes session's insights from its message list",
    errors=(ErrorCode.BAD_PARAM,),
)
HERMES_CAPTURE_TURN = Op(
    name="hermes_capture_turn",
    input_schema="cli/hermes_capture_turn.input",
    output_schema="cli/hermes_capture_turn.output",
    load=_capture_turn,
    uses=the_store,
    summary="Store a Hermes turn whose reply states a decision or a lesson",
    errors=(ErrorCode.BAD_PARAM,),
)
HERMES_RECALL = Op(
    name="hermes_recall",
    input_schema="cli/hermes_recall.input",
    output_schema="cli/hermes_recall.output",
    load=_recall,
    uses=recall_setup,  # the recall mode in effect, as the recall tool
    summary="Recall for the Hermes plugin, as the block it injects",
    errors=(ErrorCode.BAD_PARAM,),
)

OPS: tuple[Op[Any, Any, Any], ...] = (HERMES_CAPTURE_SESSION, HERMES_CAPTURE_TURN, HERMES_RECALL)
