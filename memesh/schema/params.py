"""Query parameters, checked against their schema file like a body, so a bad one reads the same everywhere.

A query string carries only text. Each parameter is turned into the type its schema property declares — an integer
from ASCII digits, a boolean from 1/0/true/false, an array from comma-separated or repeated values — and anything
that does not convert is kept as the text it was, so the schema check names it. Every issue is
`validation.bad-param`, with the offending parameter in `data.param`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from memesh.errors import ErrorCode, MemeshError
from memesh.schema import files as schemas
from memesh.schema import validation

_TRUE = frozenset({"1", "true"})
_FALSE = frozenset({"0", "false"})
_INT_DIGITS = 12  # longer than any range a query schema allows; int() refuses past 4300 digits anyway


def _declared_type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else None


def _scalar(text: str, schema: Mapping[str, Any]) -> Any:
    kind = _declared_type(schema)
    if kind == "integer":
        digits = text[1:] if text.startswith("-") else text
        if digits and len(digits) <= _INT_DIGITS and digits.isascii() and digits.isdigit():
            return int(text)
    elif kind == "boolean":
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return text


def _convert(name: str, values: list[str], schema: Mapping[str, Any]) -> Any:
    if _declared_type(schema) == "array":
        items = schema.get("items", {})
        return [_scalar(part.strip(), items) for value in values for part in value.split(",") if part.strip()]
    if len(values) > 1:
        raise _Refused(f"{name} must be given once", name)
    return _scalar(values[0], schema)


class _Refused(Exception):
    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.error = MemeshError(ErrorCode.BAD_PARAM, message, {"param": param})


def parse(schema_name: str, query: Mapping[str, list[str]]) -> Result[dict[str, Any], MemeshError]:
    """The query as the typed input `schemas/<schema_name>.json` describes; Failure(validation.bad-param) naming the
    first parameter at fault when one is unknown, given twice, or out of range."""
    schema = schemas.load(schema_name)
    properties: Mapping[str, Any] = schema.get("properties", {})
    decoded: dict[str, Any] = {}
    try:
        for name, values in query.items():
            decoded[name] = _convert(name, values, properties.get(name, {})) if name in properties else values[0]
    except _Refused as refused:
        return Failure(refused.error)
    problems = validation.issues(schema, decoded)
    if problems:
        first = problems[0]
        param = first.split(":", 1)[0].split(".", 1)[0] if ":" in first else ""
        data = {"param": param} if param in decoded else {}
        return Failure(MemeshError(ErrorCode.BAD_PARAM, "; ".join(problems), data))
    return Success(decoded)
