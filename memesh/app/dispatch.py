"""The one door: the only path from a transport's decoded arguments to an operation's Result.

Arguments pass the gate (`memesh.app.gate`) once, against the operation's input schema; operations never
re-validate. The operation gets what its registry entry `uses` from the composition root (`memesh.app.resources`).
A database failure raised inside an operation — or when its database will not open — is translated here, in one
place, into the spec's codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from returns.result import Failure, Result, Success

from memesh.app import gate
from memesh.app.registry import BY_NAME, Op
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core import access
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
    op: Op[S, I, O], resources: Resources, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[O, MemeshError]:
    """Admit `arguments` for `op` through the gate and run its operation on what it uses of `resources`."""
    given = {} if arguments is None else arguments
    # Guarded: a schema file read while the process has no descriptor left is unavailable now, not a bug.
    match guarded(lambda: gate.admit(op.input_schema, given, nulls_mean_absent=nulls_mean_absent)):
        case Failure() as refused:
            return refused
        case Success(admitted):
            request = cast(I, admitted)
    if ctx.caller is not None:  # a member on a remote listener: its role and project scope (issue 32)
        forbidden = access.admit(ctx.caller, op.name)
        if forbidden is not None:
            return Failure(forbidden)
    outcome = guarded(lambda: op.load()(op.uses(resources), request, ctx=ctx))
    if isinstance(outcome, Success) and access.audited(ctx.caller, op.name):
        audit = guarded(lambda: _audit(resources, op.name, request, ctx))
        if isinstance(audit, Failure):
            return audit
    return outcome


def _audit(resources: Resources, name: str, request: Any, ctx: CallContext) -> Result[None, MemeshError]:
    """Append who did what, when, to the audit (after the write: a write that failed is not recorded)."""
    from memesh.model import iso_time

    assert ctx.caller is not None
    target = request.get("name") if isinstance(request, dict) else None
    detail = {"surface": ctx.source_host, "role": ctx.caller.role}
    resources.store.append_audit(
        iso_time(ctx.now), ctx.caller.name, name, target if isinstance(target, str) else None, detail
    )
    return Success(None)


def call(
    name: str, resources: Resources, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """Validate `arguments` for the tool called `name` and run it; Failure(validation.bad-body) for an unknown tool."""
    tool = BY_NAME.get(name)
    if tool is None:
        return Failure(MemeshError.bad_body(f"Unknown tool: {name}"))
    return run(tool, resources, arguments, ctx, nulls_mean_absent=nulls_mean_absent)
