"""The one path from decoded arguments to an operation's Result, shared by every transport.

Validation happens here, once, against the tool's schema file; operations never re-validate.
"""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result

from memesh.app.registry import BY_NAME
from memesh.context import CallContext
from memesh.core.storable import storable_input
from memesh.errors import MemeshError
from memesh.schema import files as schemas
from memesh.schema import validation
from memesh.store.sqlite import SqliteStore


def validate(schema_name: str, arguments: Any) -> Result[Any, MemeshError] | None:
    """Failure(validation.bad-body) listing every issue, or None when the arguments fit the schema."""
    problems = validation.issues(schemas.load(schema_name), arguments)
    return Failure(MemeshError.bad_body("; ".join(problems))) if problems else None


def drop_null_fields(schema_name: str, arguments: Any) -> Result[Any, MemeshError] | Any:
    """MCP's decoding: unknown keys are refused on their own first; then a top-level null means "not given"."""
    unknown = validation.unknown_key_issues(schemas.load(schema_name), arguments)
    if unknown:
        return Failure(MemeshError.bad_body("; ".join(unknown)))
    if isinstance(arguments, dict):
        return {key: value for key, value in arguments.items() if value is not None}
    return arguments


def call(
    name: str, store: SqliteStore, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """Validate `arguments` for tool `name` and run it; Failure(validation.bad-body) for an unknown tool too."""
    tool = BY_NAME.get(name)
    if tool is None:
        return Failure(MemeshError.bad_body(f"Unknown tool: {name}"))
    if arguments is None:
        arguments = {}
    # JSON can carry lone surrogates that SQLite cannot store or even bind: a name, tag or filter holding one
    # would otherwise raise inside the store. Each becomes U+FFFD (one character, so no length limit changes).
    checked = storable_input(arguments)
    if isinstance(checked, Failure):
        return checked
    arguments = checked.unwrap()
    if nulls_mean_absent:
        arguments = drop_null_fields(tool.input_schema, arguments)
        if isinstance(arguments, Failure):
            return arguments
    refused = validate(tool.input_schema, arguments)
    if refused is not None:
        return refused
    return tool.run(store, validation.normalize_numbers(arguments), ctx)
