"""The answer of every hook event, built as the event runs: what it says (host-neutral: context, a line for the
person, a refused tool call, a held turn; the host's module renders it) and the outcome records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from returns.result import Result, Success

if TYPE_CHECKING:
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import HookAnswer, Outcome, Output

# The hooks MeMesh ships and the outcomes they record (memesh.adapters.hook_outcomes.HOOKS and OUTCOMES; a test holds
# them equal to the output schema's enums).
Hook = Literal[
    "session-start",
    "handoff-capture",
    "session-summary",
    "note-ingest",
    "citation-credit",
    "post-commit",
    "pre-edit",
    "pre-compact",
    "guard",
    "message-reminder",
    "message-gate",
]
OutcomeName = Literal["wrote", "notified", "skipped", "error"]


class Answer:
    """What the event did so far: `output` for the host (empty: it says nothing) and one outcome per capture."""

    __slots__ = ("outcomes", "output")

    def __init__(self) -> None:
        self.output: Output = {}
        self.outcomes: list[Outcome] = []

    def record(self, hook: Hook, outcome: OutcomeName, *, reason: str | None = None, entity: str | None = None) -> None:
        found: Outcome = {"hook": hook, "outcome": outcome}
        if reason is not None:
            found["reason"] = reason
        if entity is not None:
            found["entity"] = entity
        self.outcomes.append(found)

    def done(self) -> Result[HookAnswer, MemeshError]:
        answer: HookAnswer = {"outcomes": self.outcomes}
        if self.output:
            answer["output"] = self.output
        return Success(answer)
