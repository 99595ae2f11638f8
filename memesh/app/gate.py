"""The one gate every request passes, whatever way it came in: MCP arguments, HTTP bodies and query parameters, the
files and values the CLI reads. It refuses what nests too deep, makes text storable, validates against the schema
file and normalises numbers, so a defect reads the same — same code, same field path — on every surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from memesh.core.storable import TOO_DEEP, nested_deeper_than, storable
from memesh.errors import ErrorCode, MemeshError
from memesh.schema import files as schemas
from memesh.schema import validation


def admit(
    schema_name: str, value: Any, *, code: ErrorCode = ErrorCode.BAD_BODY, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """`value` made storable, checked against `schemas/<schema_name>.json` and with whole floats as ints; else
    Failure(`code`) listing every issue as `<field path>: <message>`.

    `nulls_mean_absent` is MCP's decoding: a top-level null for an argument the schema declares means it was not
    given (an unknown key is still an unknown key, null or not).
    """
    if nested_deeper_than(value):
        return Failure(MemeshError(code, TOO_DEEP))
    # JSON can carry lone surrogates that SQLite cannot store or even bind: each becomes U+FFFD (one character, so
    # no length limit changes).
    value = storable(value)
    schema = schemas.load(schema_name)
    if nulls_mean_absent and isinstance(value, dict):
        declared = schema.get("properties", {})
        value = {key: item for key, item in value.items() if item is not None or key not in declared}
    problems = validation.issues(schema, value)
    if problems:
        return Failure(MemeshError(code, "; ".join(problems), _param(code, problems)))
    return Success(validation.normalize_numbers(value))


def _param(code: ErrorCode, problems: list[str]) -> dict[str, Any]:
    # A bad query or path parameter names it, as the spec's validation.bad-param answers do.
    if code is not ErrorCode.BAD_PARAM:
        return {}
    first = problems[0].split(":", 1)[0] if ":" in problems[0] else ""
    return {"param": first.split(".", 1)[0]} if first else {}


def admit_params(schema_name: str, given: Mapping[str, list[str]]) -> Result[dict[str, Any], MemeshError]:
    """Query or path parameters (each name to the values sent) as typed arguments, through the same gate:
    Failure(validation.bad-param) for a parameter sent twice, a number that is not one, or any schema issue.

    A parameter is text on the wire; where its schema says integer, the text must be decimal digits.
    """
    properties: Mapping[str, Any] = schemas.load(schema_name).get("properties", {})
    arguments: dict[str, Any] = {}
    for name, values in given.items():
        if len(values) > 1:
            return Failure(MemeshError(ErrorCode.BAD_PARAM, f"{name}: must be given once", {"param": name}))
        arguments[name] = _typed(properties.get(name, {}), values[0])
    return admit(schema_name, arguments, code=ErrorCode.BAD_PARAM)


def _typed(schema: Mapping[str, Any], text: str) -> Any:
    if schema.get("type") == "integer":
        stripped = text.strip()
        # Length first: int() refuses strings past 4300 digits, and nothing that long is in any range anyway.
        if stripped and len(stripped) <= 18 and stripped.lstrip("-").isascii() and stripped.lstrip("-").isdigit():
            return int(stripped)
    return text
