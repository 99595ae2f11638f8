"""The registry: every operation a transport may call is an `Op` (its schema files, what it uses, the loader of its
code), and the 12 MCP tools are `Tool`s (an `Op` plus the hints MCP clients read). Every transport iterates these
entries, so an operation cannot be added to one surface and forgotten on another; the other entries live in
`memesh.app.operations`, grouped like the transports' handlers.

Each entry is typed with what it uses, its generated input and output: `dispatch.run(REMEMBER, resources, …)` is
checked by mypy all the way into `memesh.ops.remember.remember`, and the store adapter is checked against the
operation's store protocol. An operation is reached by an explicit import inside its loader, run on its first call:
a CLI command runs one operation, and importing every one (with the core rules each pulls in) would make every
command pay for all of them at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from returns.result import Result

from memesh.app.recall_factory import RecallSetup, recall_setup
from memesh.app.resources import the_store, themselves
from memesh.context import CallContext
from memesh.errors import ErrorCode, MemeshError
from memesh.records import dataclass

if TYPE_CHECKING:
    from memesh.app.resources import Resources, Store
    from memesh.generated.tools.briefing_input import BriefingInput
    from memesh.generated.tools.briefing_output import BriefingOutput
    from memesh.generated.tools.export_input import ExportInput
    from memesh.generated.tools.export_output import ExportBundle
    from memesh.generated.tools.forget_input import ForgetInput
    from memesh.generated.tools.forget_output import ForgetOutput
    from memesh.generated.tools.import_input import ImportInput
    from memesh.generated.tools.import_output import ImportOutput
    from memesh.generated.tools.improvement_input import ImprovementInput
    from memesh.generated.tools.improvement_output import ImprovementOutput
    from memesh.generated.tools.learn_input import LearnInput
    from memesh.generated.tools.learn_output import LearnOutput
    from memesh.generated.tools.message_input import MessageInput
    from memesh.generated.tools.message_output import MessageOutput
    from memesh.generated.tools.recall_input import RecallInput
    from memesh.generated.tools.recall_output import RecallOutput
    from memesh.generated.tools.remember_input import RememberInput
    from memesh.generated.tools.remember_output import RememberOutput
    from memesh.generated.tools.task_state_input import TaskStateInput
    from memesh.generated.tools.task_state_output import TaskStateOutput
    from memesh.generated.tools.user_patterns_input import UserPatternsInput
    from memesh.generated.tools.user_patterns_output import UserPatternsOutput
    from memesh.generated.tools.work_package_input import WorkPackageInput
    from memesh.generated.tools.work_package_output import WorkPackageOutput
    from memesh.ops.briefing import NamedBriefingStore
    from memesh.ops.export import ExportStore
    from memesh.ops.forget import ForgetStore
    from memesh.ops.import_bundle import ImportStore
    from memesh.ops.improvement import ImprovementStore
    from memesh.ops.learn import LearnStore
    from memesh.ops.message import MessageStore
    from memesh.ops.recall import RecallUses
    from memesh.ops.remember import RememberStore
    from memesh.ops.task_state import TaskStateStore
    from memesh.ops.user_patterns import PatternsStore

S_contra = TypeVar("S_contra", contravariant=True)
I_contra = TypeVar("I_contra", contravariant=True)
O_co = TypeVar("O_co", covariant=True)
S = TypeVar("S")
I = TypeVar("I")  # noqa: E741 - the input type, beside S (what it uses) and O (output)
O = TypeVar("O")  # noqa: E741


class Operation(Protocol[S_contra, I_contra, O_co]):
    """What every operation is: what it uses (a protocol), its validated input in, a Result out."""

    def __call__(self, uses: S_contra, request: I_contra, /, *, ctx: CallContext) -> Result[O_co, MemeshError]: ...


@dataclass(frozen=True, kw_only=True)
class Op(Generic[S, I, O]):
    """One operation a transport may call: its schema files (names under schemas/), the loader of its code, and
    what it uses from the composition root (`uses(resources)`: the store, or the resources themselves seen through
    the operation's protocol). `dispatch.run(op, resources, arguments, ctx)` is the only way in.

    `summary` and `errors` (the codes it may give beyond validation) describe it in /openapi.json and `--help`.
    """

    name: str
    input_schema: str
    output_schema: str | None
    load: Callable[[], Operation[S, I, O]]
    uses: Callable[[Resources], S]
    summary: str = ""
    errors: tuple[ErrorCode, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Tool(Op[S, I, O]):
    """An operation that is also an MCP tool: its schemas are `tools/<name>.{input,output}`, and it carries the
    hints MCP clients read."""

    title: str
    read_only: bool
    destructive: bool
    idempotent: bool
    # Whether the HTTP API offers the tool as POST /v1/<name> (task_state is read there as GET /v1/task-state).
    http_post: bool = True


def tool(
    name: str,
    title: str,
    load: Callable[[], Operation[Store, I, O]],
    *,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    http_post: bool = True,
) -> Tool[Store, I, O]:
    """A tool entry that uses the store alone (mypy checks that each store adapter is what the operation's store
    protocol asks for)."""
    return tool_using(
        the_store,
        name,
        title,
        load,
        read_only=read_only,
        destructive=destructive,
        idempotent=idempotent,
        http_post=http_post,
    )


def tool_using(
    uses: Callable[[Resources], S],
    name: str,
    title: str,
    load: Callable[[], Operation[S, I, O]],
    *,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    http_post: bool = True,
) -> Tool[S, I, O]:
    """A tool entry whose operation reaches more than the store: `uses(resources)` is what it is handed."""
    return Tool(
        name=name,
        input_schema=f"tools/{name}.input",
        output_schema=f"tools/{name}.output",
        load=load,
        uses=uses,
        summary=title,
        errors=(ErrorCode.OPERATION_FAILED, ErrorCode.NOT_FOUND),
        title=title,
        read_only=read_only,
        destructive=destructive,
        idempotent=idempotent,
        http_post=http_post,
    )


def _remember() -> Operation[RememberStore, RememberInput, RememberOutput]:
    from memesh.ops.remember import remember

    return remember


def _recall() -> Operation[RecallUses, RecallInput, RecallOutput]:
    from memesh.ops.recall import recall

    return recall


def _forget() -> Operation[ForgetStore, ForgetInput, ForgetOutput]:
    from memesh.ops.forget import forget

    return forget


def _export() -> Operation[ExportStore, ExportInput, ExportBundle]:
    from memesh.ops.export import export

    return export


def _import() -> Operation[ImportStore, ImportInput, ImportOutput]:
    from memesh.ops.import_bundle import import_bundle

    return import_bundle


def _learn() -> Operation[LearnStore, LearnInput, LearnOutput]:
    from memesh.ops.learn import learn

    return learn


def _task_state() -> Operation[TaskStateStore, TaskStateInput, TaskStateOutput]:
    from memesh.ops.task_state import task_state

    return task_state


def _message() -> Operation[MessageStore, MessageInput, MessageOutput]:
    from memesh.ops.message import message

    return message


def _work_package() -> Operation[Resources, WorkPackageInput, WorkPackageOutput]:
    from memesh.ops.work_package import work_package

    return work_package


def _improvement() -> Operation[ImprovementStore, ImprovementInput, ImprovementOutput]:
    from memesh.ops.improvement import improvement

    return improvement


def _briefing() -> Operation[NamedBriefingStore, BriefingInput, BriefingOutput]:
    from memesh.ops.briefing import briefing_tool

    return briefing_tool


def _user_patterns() -> Operation[PatternsStore, UserPatternsInput, UserPatternsOutput]:
    from memesh.ops.user_patterns import user_patterns

    return user_patterns


# remember writes and can archive (supersedes) but never deletes; a repeat of the same call appends nothing.
REMEMBER = tool("remember", "Remember", _remember, read_only=False, destructive=False, idempotent=True)
# recall only reads memories (it does count accesses, which is bookkeeping, not a change of content).
# It also uses the recall mode in effect (fts, broad, hybrid) and, in hybrid, the semantic signal.
RECALL: Tool[RecallSetup, RecallInput, RecallOutput] = Tool(
    name="recall",
    input_schema="tools/recall.input",
    output_schema="tools/recall.output",
    load=_recall,
    uses=recall_setup,
    summary="Recall",
    errors=(ErrorCode.OPERATION_FAILED, ErrorCode.NOT_FOUND),
    title="Recall",
    read_only=True,
    destructive=False,
    idempotent=True,
)
# forget hides a memory or removes an observation: a loss from the caller's point of view.
FORGET = tool("forget", "Forget", _forget, read_only=False, destructive=True, idempotent=True)
EXPORT = tool("export", "Export memories", _export, read_only=True, destructive=False, idempotent=True)
# import with overwrite replaces content (kept in history): destructive; the same bundle twice adds nothing.
IMPORT = tool("import", "Import memories", _import, read_only=False, destructive=True, idempotent=True)
LEARN = tool("learn", "Learn from a mistake", _learn, read_only=False, destructive=False, idempotent=True)
# task_state can clear a field the owner stated ("" clears), so a write can lose information.
TASK_STATE = tool(
    "task_state", "Task state", _task_state, read_only=False, destructive=True, idempotent=True, http_post=False
)

# message sends and records receipts (never deletes); a retry with the same idempotency key stores nothing new.
MESSAGE = tool("message", "Message another agent", _message, read_only=False, destructive=False, idempotent=True)

# work_package and improvement only stage proposals for a person to review, and the spec serves them over MCP alone
# (the review itself is GET/POST /v1/dream/proposals and `memesh dream`). The same submission twice stages once.
# It reads the host's transcripts beside the store (a transcript package), handed in by the composition root.
WORK_PACKAGE = tool_using(
    themselves,
    "work_package",
    "Work package",
    _work_package,
    read_only=False,
    destructive=False,
    idempotent=True,
    http_post=False,
)
IMPROVEMENT = tool(
    "improvement",
    "Product improvement",
    _improvement,
    read_only=False,
    destructive=False,
    idempotent=True,
    http_post=False,
)

# briefing only reads; the HTTP API offers its index alone (GET /v1/briefing-index), not the block.
BRIEFING = tool(
    "briefing", "Session briefing", _briefing, read_only=True, destructive=False, idempotent=True, http_post=False
)

# user_patterns only reads; over MCP it answers in markdown, over HTTP it is read as GET /v1/patterns.
USER_PATTERNS = tool(
    "user_patterns",
    "User work patterns",
    _user_patterns,
    read_only=True,
    destructive=False,
    idempotent=True,
    http_post=False,
)

TOOLS: tuple[Tool[Any, Any, Any], ...] = (
    REMEMBER,
    RECALL,
    FORGET,
    EXPORT,
    IMPORT,
    LEARN,
    TASK_STATE,
    WORK_PACKAGE,
    IMPROVEMENT,
    MESSAGE,
    BRIEFING,
    USER_PATTERNS,
)

BY_NAME: dict[str, Tool[Any, Any, Any]] = {tool.name: tool for tool in TOOLS}
