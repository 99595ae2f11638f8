"""The one gate every request passes, whatever way it came in: MCP arguments, HTTP bodies and query parameters, the
files and values the CLI reads. It refuses what nests too deep, makes text storable, validates against the schema
file and normalises numbers, so a defect reads the same — same code, same field path — on every surface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from returns.result import Failure, Result, Success

from memesh.core.storable import TOO_DEEP, nested_deeper_than, storable
from memesh.errors import ErrorCode, MemeshError
from memesh.schema import files as schemas
from memesh.schema import validation


class Parts(NamedTuple):
    """An operation's input as an HTTP request carries it: parameters (query and path, each name to the texts sent)
    and the decoded body (None where the method has none). The gate admits both against the one input schema."""

    params: Mapping[str, list[str]]
    body: Any = None


def admit(
    schema_name: str, value: Any, *, code: ErrorCode = ErrorCode.BAD_BODY, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """`value` made storable, checked against `schemas/<schema_name>.json` and with whole floats as ints; else
    Failure(`code`) listing every issue as `<field path>: <message>`.

    `nulls_mean_absent` is MCP's decoding: a top-level null for an argument the schema declares means it was not
    given (an unknown key is still an unknown key, null or not). `value` may be `Parts` (an HTTP request): see
    `admit_parts`.
    """
    if isinstance(value, Parts):
        return admit_parts(schema_name, value)
    return _admitted(schema_name, value, lambda problems: (code, problems), nulls_mean_absent=nulls_mean_absent)


# What a refusal reports, from every issue found: its code and the issues it lists.
Classify = Callable[[list[validation.Issue]], tuple[ErrorCode, list[validation.Issue]]]


def _admitted(
    schema_name: str, value: Any, classify: Classify, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    if nested_deeper_than(value):
        return Failure(MemeshError(classify([])[0], TOO_DEEP))
    # JSON can carry lone surrogates that SQLite cannot store or even bind: each becomes U+FFFD (one character, so
    # no length limit changes).
    value = storable(value)
    schema = schemas.load(schema_name)
    if nulls_mean_absent and isinstance(value, dict):
        declared = schema.get("properties", {})
        value = {key: item for key, item in value.items() if item is not None or key not in declared}
    problems = validation.located_issues(schema, value)
    if problems:
        code, reported = classify(problems)
        return Failure(MemeshError(code, "; ".join(validation.formatted(reported)), _param(code, reported)))
    return Success(validation.normalize_numbers(value))


def _param(code: ErrorCode, problems: list[validation.Issue]) -> dict[str, Any]:
    # A bad query or path parameter names it, as the spec's validation.bad-param answers do.
    if code is not ErrorCode.BAD_PARAM or not problems or not problems[0][0]:
        return {}
    return {"param": str(problems[0][0][0])}


def admit_params(schema_name: str, given: Mapping[str, list[str]]) -> Result[dict[str, Any], MemeshError]:
    """Query or path parameters (each name to the values sent) as typed arguments, through the same gate:
    Failure(validation.bad-param) for a parameter sent twice, a number that is not one, or any schema issue."""
    return admit_parts(schema_name, Parts(given))


def admit_parts(schema_name: str, parts: Parts) -> Result[Any, MemeshError]:
    """One input from an HTTP request's parameters and body together, through the same gate.

    The one rule for which code a refusal carries: an issue with a parameter (unknown, sent twice, not of its type,
    or missing from a request that has no body) is validation.bad-param naming it; every other issue is
    validation.bad-body, and when both kinds are present the parameter's is reported. A parameter is text on the
    wire; where its schema says integer, the text must be decimal digits; boolean takes 1/0/true/false; an array
    takes comma-separated values, or the parameter repeated.
    """
    properties: Mapping[str, Any] = schemas.load(schema_name).get("properties", {})
    arguments: dict[str, Any] = {}
    for name, values in parts.params.items():
        prop = properties.get(name, {})
        if prop.get("type") == "array":
            item = prop.get("items", {})
            arguments[name] = [
                _typed(item, part.strip()) for value in values for part in value.split(",") if part.strip()
            ]
            continue
        if len(values) > 1:
            return Failure(MemeshError(ErrorCode.BAD_PARAM, f"{name}: must be given once", {"param": name}))
        arguments[name] = _typed(prop, values[0])
    if parts.body is None:
        return _admitted(schema_name, arguments, lambda problems: (ErrorCode.BAD_PARAM, problems))
    if not isinstance(parts.body, dict):  # the body is the input object: the schema's issue names what it expected
        return _admitted(schema_name, parts.body, lambda problems: (ErrorCode.BAD_BODY, problems))
    clash = sorted(set(arguments) & set(parts.body))
    if clash:
        message = f"{clash[0]}: given both as a parameter and in the body"
        return Failure(MemeshError(ErrorCode.BAD_PARAM, message, {"param": clash[0]}))

    def classify(problems: list[validation.Issue]) -> tuple[ErrorCode, list[validation.Issue]]:
        # The parameters' issues first: the body's are for after the parameters are right.
        on_params = [problem for problem in problems if problem[0] and problem[0][0] in arguments]
        return (ErrorCode.BAD_PARAM, on_params) if on_params else (ErrorCode.BAD_BODY, problems)

    return _admitted(schema_name, {**parts.body, **arguments}, classify)


def _typed(schema: Mapping[str, Any], text: str) -> Any:
    if schema.get("type") == "integer":
        stripped = text.strip()
        # Length first: int() refuses strings past 4300 digits, and nothing that long is in any range anyway.
        if stripped and len(stripped) <= 18 and stripped.lstrip("-").isascii() and stripped.lstrip("-").isdigit():
            return int(stripped)
    elif schema.get("type") == "boolean" and text.strip().lower() in _BOOLEANS:
        return _BOOLEANS[text.strip().lower()]
    return text


_BOOLEANS = {"1": True, "true": True, "0": False, "false": False}
