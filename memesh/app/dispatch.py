"""The one path from decoded arguments to an operation's Result, shared by every transport.

Arguments pass the gate (`memesh.app.gate`) once, against the tool's schema file; operations never re-validate.
A database failure raised inside an operation is translated here, in one place, into the spec's codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from returns.result import Failure, Result, Success

from memesh.app import gate
from memesh.app.registry import BY_NAME, Tool
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.store.errors import translate

S = TypeVar("S")
I = TypeVar("I")  # noqa: E741 - the input type, beside S (store) and O (output)
O = TypeVar("O")  # noqa: E741
T = TypeVar("T")


def guarded(work: Callable[[], Result[T, MemeshError]]) -> Result[T, MemeshError]:
    """`work()`, with a database failure (locked, damaged, read-only, disk full, not a database) as
    Failure(<the spec's code>) carrying a message a person can act on; any other exception propagates."""
    try:
        return work()
    except Exception as exc:
        error = translate(exc)
        if error is None:
            raise
        return Failure(error)


def run(
    tool: Tool[S, I, O], store: S, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[O, MemeshError]:
    """Admit `arguments` for `tool` through the gate and run its operation on `store`."""
    match gate.admit(tool.input_schema, {} if arguments is None else arguments, nulls_mean_absent=nulls_mean_absent):
        case Failure() as refused:
            return refused
        case Success(admitted):
            request = cast(I, admitted)
    return guarded(lambda: tool.load()(store, request, ctx=ctx))


def call(
    name: str, store: Any, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """Validate `arguments` for the tool called `name` and run it; Failure(validation.bad-body) for an unknown tool."""
    tool = BY_NAME.get(name)
    if tool is None:
        return Failure(MemeshError.bad_body(f"Unknown tool: {name}"))
    return run(tool, store, arguments, ctx, nulls_mean_absent=nulls_mean_absent)
