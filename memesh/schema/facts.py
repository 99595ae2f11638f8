"""Values the schema files state — enums, defaults, bounds — read from them, so code that needs one asks here
instead of restating it. A schema change is then a change of behaviour everywhere at once."""

from __future__ import annotations

from typing import Any

from memesh.schema import files


def field(schema_name: str, name: str) -> dict[str, Any]:
    """The schema of top-level property `name` of `schemas/<schema_name>.json`."""
    found: dict[str, Any] = files.load(schema_name)["properties"][name]
    return found


def enum(schema_name: str, name: str) -> tuple[str, ...]:
    """The allowed values of a property, in the order the schema lists them."""
    return tuple(field(schema_name, name)["enum"])


def default(schema_name: str, name: str) -> Any:
    """The default a property states."""
    return field(schema_name, name)["default"]


def bounds(schema_name: str, name: str) -> tuple[int, int]:
    """The inclusive (minimum, maximum) of an integer property."""
    spec = field(schema_name, name)
    return int(spec["minimum"]), int(spec["maximum"])


def properties(schema_name: str) -> tuple[str, ...]:
    """The property names of an object schema, in the order it lists them."""
    return tuple(files.load(schema_name)["properties"])
