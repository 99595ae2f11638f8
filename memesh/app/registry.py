"""The single list of tools: name → schema files, behaviour hints and operation. Every transport iterates it, so a
tool cannot be added to one surface and forgotten on another.

Each entry is typed with its store protocol, generated input and output: `dispatch.run(REMEMBER, store, …)` is
checked by mypy all the way into `memesh.ops.remember.remember`. An operation is reached by an explicit import inside
its loader, run on the tool's first call: a CLI command runs one tool, and importing every operation (with the core
rules each one pulls in) would make every command pay for all of them at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from returns.result import Result

from memesh.context import CallContext
from memesh.errors import MemeshError

if TYPE_CHECKING:
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
    from memesh.generated.tools.work_package_input import WorkPackageInput
    from memesh.generated.tools.work_package_output import WorkPackageOutput
    from memesh.ops.export import ExportStore
    from memesh.ops.forget import ForgetStore
    from memesh.ops.import_bundle import ImportStore
    from memesh.ops.improvement import ImprovementStore
    from memesh.ops.message import MessageStore
    from memesh.ops.recall import RecallStore
    from memesh.ops.remember import RememberStore
    from memesh.ops.work_package import WorkPackageStore

S_contra = TypeVar("S_contra", contravariant=True)
I_contra = TypeVar("I_contra", contravariant=True)
O_co = TypeVar("O_co", covariant=True)
S = TypeVar("S")
I = TypeVar("I")  # noqa: E741 - the input type, beside S (store) and O (output)
O = TypeVar("O")  # noqa: E741


class Operation(Protocol[S_contra, I_contra, O_co]):
    """What every operation is: its store protocol and validated input in, a Result out."""

    def __call__(self, store: S_contra, request: I_contra, /, *, ctx: CallContext) -> Result[O_co, MemeshError]: ...


@dataclass(frozen=True)
class Tool(Generic[S, I, O]):
    """One tool: its schemas (names under schemas/), the hints MCP clients read, and the loader of its operation."""

    name: str
    title: str
    load: Callable[[], Operation[S, I, O]]
    read_only: bool
    destructive: bool
    idempotent: bool
    # Whether the HTTP API offers the tool as POST /v1/<name> (task_state is read there as GET /v1/task-state).
    http_post: bool = True

    @property
    def input_schema(self) -> str:
        return f"tools/{self.name}.input"

    @property
    def output_schema(self) -> str:
        return f"tools/{self.name}.output"


def _remember() -> Operation[RememberStore, RememberInput, RememberOutput]:
    from memesh.ops.remember import remember

    return remember


def _remember_title_derived() -> Operation[RememberStore, RememberInput, RememberOutput]:
    from memesh.ops.remember import remember

    def remember_title_derived(
        store: RememberStore, request: RememberInput, /, *, ctx: CallContext
    ) -> Result[RememberOutput, MemeshError]:
        return remember(store, request, ctx=ctx, title_derived=True)

    return remember_title_derived


def _recall() -> Operation[RecallStore, RecallInput, RecallOutput]:
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


def _learn() -> Operation[RememberStore, LearnInput, LearnOutput]:
    from memesh.ops.learn import learn

    return learn


def _task_state() -> Operation[RememberStore, TaskStateInput, TaskStateOutput]:
    from memesh.ops.task_state import task_state

    return task_state


def _message() -> Operation[MessageStore, MessageInput, MessageOutput]:
    from memesh.ops.message import message

    return message


def _work_package() -> Operation[WorkPackageStore, WorkPackageInput, WorkPackageOutput]:
    from memesh.ops.work_package import work_package

    return work_package


def _improvement() -> Operation[ImprovementStore, ImprovementInput, ImprovementOutput]:
    from memesh.ops.improvement import improvement

    return improvement


# remember writes and can archive (supersedes) but never deletes; a repeat of the same call appends nothing.
REMEMBER = Tool("remember", "Remember", _remember, read_only=False, destructive=False, idempotent=True)
# remember for a title the caller derived from free text (the CLI's `remember "<text>" --name n --obs …`): it names a
# new memory and leaves an existing memory's title alone. Same schema and gate; not a tool of its own.
REMEMBER_DERIVED_TITLE = Tool(
    "remember", "Remember", _remember_title_derived, read_only=False, destructive=False, idempotent=True
)
# recall only reads memories (it does count accesses, which is bookkeeping, not a change of content).
RECALL = Tool("recall", "Recall", _recall, read_only=True, destructive=False, idempotent=True)
# forget hides a memory or removes an observation: a loss from the caller's point of view.
FORGET = Tool("forget", "Forget", _forget, read_only=False, destructive=True, idempotent=True)
EXPORT = Tool("export", "Export memories", _export, read_only=True, destructive=False, idempotent=True)
# import with overwrite replaces content (kept in history): destructive; the same bundle twice adds nothing.
IMPORT = Tool("import", "Import memories", _import, read_only=False, destructive=True, idempotent=True)
LEARN = Tool("learn", "Learn from a mistake", _learn, read_only=False, destructive=False, idempotent=True)
# task_state can clear a field the owner stated ("" clears), so a write can lose information.
TASK_STATE = Tool(
    "task_state", "Task state", _task_state, read_only=False, destructive=True, idempotent=True, http_post=False
)

# message sends and records receipts (never deletes); a retry with the same idempotency key stores nothing new.
MESSAGE = Tool("message", "Message another agent", _message, read_only=False, destructive=False, idempotent=True)

# work_package and improvement only stage proposals for a person to review, and the spec serves them over MCP alone
# (the review itself is GET/POST /v1/dream/proposals and `memesh dream`). The same submission twice stages once.
WORK_PACKAGE = Tool(
    "work_package", "Work package", _work_package, read_only=False, destructive=False, idempotent=True, http_post=False
)
IMPROVEMENT = Tool(
    "improvement",
    "Product improvement",
    _improvement,
    read_only=False,
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
)

BY_NAME: dict[str, Tool[Any, Any, Any]] = {tool.name: tool for tool in TOOLS}
