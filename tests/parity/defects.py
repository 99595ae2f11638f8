"""Defective requests derived from an operation's input schema, each in the forms a surface can carry it: as a JSON
object (MCP arguments, `memesh call`, an HTTP body, the door) and, where every value is text, as query parameters.

A new operation gets its defects by being registered: nothing here names one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memesh.app.registry import Op
from memesh.schema import files as schemas

DEEP = 150
UNKNOWN = "not_a_field"
WRONG_TEXT = "not-the-right-type"
# The types a query parameter's text is read as (the gate's rule): there, text of the wrong kind stays text. An array
# parameter takes comma-separated items instead, so a wrong-typed array only a JSON body can carry.
TEXT_IN_A_PARAMETER = ("integer", "number", "boolean")


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@dataclass(frozen=True)
class Defect:
    """One defect: `fields` is what the request holds besides the valid `base` (the action of an action-shaped
    schema, the path parameters of a route); `as_params` says whether query parameters can carry it."""

    label: str
    fields: dict[str, Any]
    base: dict[str, Any] = field(default_factory=dict)
    as_params: bool = False

    def body(self, without: tuple[str, ...] = ()) -> dict[str, Any]:
        """The request as a JSON object, leaving out `without` (the path parameters, when the path carries them)."""
        return {key: value for key, value in {**self.base, **self.fields}.items() if key not in without}

    def params(self, without: tuple[str, ...] = ()) -> dict[str, list[str]]:
        return {key: [str(value)] for key, value in self.body(without).items()}


def _wrong(schema: dict[str, Any]) -> Any | None:
    """A value of the wrong JSON type for a property schema, or None when any type would do."""
    kind = schema.get("type")
    if kind == "string" or "enum" in schema:
        return 12345
    if kind in ("integer", "number", "boolean", "array", "object"):
        return WRONG_TEXT
    return None


def valid_path_value(schema: dict[str, Any]) -> Any:
    """A value a path parameter's schema takes (the route must match for its body to be read)."""
    if schema.get("type") == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if "enum" in schema:
        return schema["enum"][0]
    return "x" * max(1, int(schema.get("minLength", 1)))


def defects(op: Op[Any, Any, Any], path_parameters: tuple[str, ...] = ()) -> list[Defect]:
    """Requests for `op` that each carry one defect its input schema refuses."""
    schema = schemas.load(op.input_schema)
    top: dict[str, Any] = schema.get("properties", {})
    base: dict[str, Any] = {name: valid_path_value(top[name]) for name in path_parameters if name in top}
    refine = schema.get("$defs", {}).get("refine")
    if refine is not None:
        # Action-discriminated (a flat top level, the rules in $defs/refine): the defects of its first action, each
        # request naming that action, its fields as the top level declares them.
        action = refine["oneOf"][0]
        base |= {name: prop["const"] for name, prop in action["properties"].items() if "const" in prop}
        schema = {**action, "properties": {name: top[name] for name in action["properties"]}}
    properties: dict[str, Any] = {k: v for k, v in schema.get("properties", {}).items() if k not in base}
    required = [name for name in schema.get("required", []) if name not in base]
    first = next(iter(properties), UNKNOWN)
    found = [Defect("too deep", {first: nested(DEEP)}, base)]
    if schema.get("additionalProperties") is False:
        found.append(Defect("unknown key", {UNKNOWN: 1}, base, as_params=True))
        found.append(Defect("lone surrogate in a key", {"bad\ud800key": 1}, base))
    if required:
        found.append(Defect("missing required field", {}, base, as_params=True))
    # A wrong type query parameters can carry (text where a number or a boolean belongs) first, so every surface
    # is asked the same; else one only a JSON body can carry.
    wrong = [(name, _wrong(prop)) for name, prop in properties.items() if _wrong(prop) is not None]
    as_text = [(name, value) for name, value in wrong if properties[name].get("type") in TEXT_IN_A_PARAMETER]
    for name, value in as_text[:1] or wrong[:1]:
        found.append(Defect("wrong type", {name: value}, base, as_params=bool(as_text)))
    return found
