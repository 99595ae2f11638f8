"""The answer of every hook event, built as the event runs: the JSON the host reads and the outcome records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from returns.result import Result, Success

if TYPE_CHECKING:
    from memesh.errors import MemeshError
    from memesh.generated.hooks.answer_output import Block, Context, Deny, HookAnswer, Notice, Outcome, Refusal

# The hooks MeMesh ships and the outcomes they record (memesh.hook_outcomes.HOOKS and OUTCOMES; a test holds them
# equal to the output schema's enums).
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
    """What the event did so far: `output` for the host (None prints nothing) and one outcome per capture."""

    __slots__ = ("outcomes", "output")

    def __init__(self) -> None:
        self.output: Context | Deny | Refusal | Notice | Block | None = None
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
        if self.output is not None:
            answer["output"] = self.output
        return Success(answer)


def context(event: Literal["SessionStart", "PreToolUse", "UserPromptSubmit", "AfterTool"], text: str) -> Context:
    """Context for the agent, as the host's hook-specific output carries it."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def deny(reason: str) -> Deny:
    """A PreToolUse refusal of the tool call: the host does not run it and gives the model the reason as its result."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def refusal(reason: str) -> Refusal:
    """Gemini CLI's BeforeTool refusal of the tool call: it does not run it and gives the model
    `Tool execution blocked: <reason>` as its result (Gemini reads no permissionDecision)."""
    return {"decision": "deny", "reason": reason}
