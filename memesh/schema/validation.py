"""Validate a decoded request against its schema file once, at the edge, with one error format for every transport.

The schemas in `schemas/` are the single source. This module interprets the subset of JSON Schema 2020-12 they are
written in (`tools/codegen.py` refuses a schema that uses any other keyword), because the CLI must start in well
under 0.2 s and the `jsonschema` package alone costs more than half of that to import. `tests/test_validation.py`
holds this interpreter to the reference: for generated and hand-picked instances, it must accept exactly what
`jsonschema.Draft202012Validator` accepts.

Messages follow the spec: an issue at the root gives only its message; an issue on a field or an unknown key is
prefixed with its path (`relations.0.to: Required`). Several issues are joined with `; `, in document order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

# Keywords that only describe; they never reject anything.
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})
ASSERTIONS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "items",
        "$ref",
        "anyOf",
        "oneOf",
        "minProperties",
    }
)
SUPPORTED_KEYWORDS = ANNOTATIONS | ASSERTIONS

_TYPE_NAMES: dict[str, str] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
    "null": "null",
}


def json_type(value: object) -> str:
    """The JSON type name of a decoded value (`integer` for whole numbers, as JSON Schema counts them)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _matches_type(value: object, expected: str) -> bool:
    actual = json_type(value)
    return actual == expected or (expected == "number" and actual == "integer")


@cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


class _Validator:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.issues: list[tuple[tuple[str | int, ...], str]] = []
        self.unknown: list[tuple[tuple[str | int, ...], str]] = []

    def resolve(self, ref: str) -> Mapping[str, Any]:
        if not ref.startswith("#/"):
            raise ValueError(f"only local references are supported: {ref}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node  # type: ignore[no-any-return]

    def fail(self, path: tuple[str | int, ...], message: str, *, unknown: bool = False) -> None:
        self.issues.append((path, message))
        if unknown:
            self.unknown.append((path, message))

    def check(self, schema: Mapping[str, Any] | bool, value: Any, path: tuple[str | int, ...]) -> None:
        if schema is True:
            return
        if schema is False:
            self.fail(path, "Invalid input: not allowed")
            return
        if "$ref" in schema:
            self.check(self.resolve(schema["$ref"]), value, path)
        if "anyOf" in schema:
            self._any_of(schema["anyOf"], value, path)
        if "oneOf" in schema:
            self._one_of(schema["oneOf"], value, path)
        if "type" in schema and not self._type(schema["type"], value, path):
            return  # the other keywords would only restate the type error
        if "const" in schema and not _same(value, schema["const"]):
            self.fail(path, f"Invalid input: expected {_literal(schema['const'])}")
        if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
            options = "|".join(_literal(option) for option in schema["enum"])
            self.fail(path, f"Invalid option: expected one of {options}")
        if isinstance(value, str):
            self._string(schema, value, path)
        elif isinstance(value, dict):
            self._object(schema, value, path)
        elif isinstance(value, list):
            self._array(schema, value, path)
        elif isinstance(value, int | float) and not isinstance(value, bool):  # json_type's integer and number
            self._number(schema, value, path)

    def _type(self, expected: str | list[str], value: Any, path: tuple[str | int, ...]) -> bool:
        if isinstance(expected, str):  # most schemas name one type: no list, no generator
            if _matches_type(value, expected):
                return True
            options = [expected]
        else:
            options = list(expected)
            if any(_matches_type(value, option) for option in options):
                return True
        names = " | ".join(_TYPE_NAMES[option] for option in options)
        received = "number" if json_type(value) == "integer" else json_type(value)
        self.fail(path, f"Invalid input: expected {names}, received {received}")
        return False

    def _any_of(self, options: list[Mapping[str, Any]], value: Any, path: tuple[str | int, ...]) -> None:
        best: list[tuple[tuple[str | int, ...], str]] | None = None
        for option in options:
            trial = _Validator(self.root)
            trial.check(option, value, path)
            if not trial.issues:
                return
            if best is None or len(trial.issues) < len(best):
                best = trial.issues
        self.issues.extend(best or [(path, "Invalid input")])

    def _one_of(self, options: list[Mapping[str, Any]], value: Any, path: tuple[str | int, ...]) -> None:
        """Exactly one option must hold. When the options are told apart by a `const` property (`action`, `kind`),
        a failure reports the issues of the option the value names, or that the discriminator itself is wrong,
        rather than whichever option happened to have the fewest issues."""
        trials: list[_Validator] = []
        for option in options:
            trial = _Validator(self.root)
            trial.check(option, value, path)
            trials.append(trial)
        passing = [trial for trial in trials if not trial.issues]
        if len(passing) == 1:
            return
        if len(passing) > 1:
            self.fail(path, "Invalid input: matches more than one option")
            return
        chosen = self._discriminated(options, trials, value, path)
        if chosen is None:
            chosen = min(trials, key=lambda trial: len(trial.issues))
        self.issues.extend(chosen.issues)
        self.unknown.extend(chosen.unknown)

    def _discriminated(
        self, options: list[Mapping[str, Any]], trials: list[_Validator], value: Any, path: tuple[str | int, ...]
    ) -> _Validator | None:
        """The trial of the option `value` names by its discriminator, or one reporting a bad discriminator."""
        if not isinstance(value, dict):
            return None
        branches = [self._deref(option) for option in options]
        key = _discriminator(branches)
        if key is None:
            return None
        consts = [branch["properties"][key]["const"] for branch in branches]
        for const, trial in zip(consts, trials, strict=True):
            if key in value and _same(value[key], const):
                return trial
        report = _Validator(self.root)
        expected = "|".join(_literal(const) for const in consts)
        if key not in value:
            report.fail((*path, key), f"Invalid input: expected {expected}, received undefined")
        else:
            report.fail((*path, key), f"Invalid option: expected one of {expected}")
        return report

    def _string(self, schema: Mapping[str, Any], value: str, path: tuple[str | int, ...]) -> None:
        if "minLength" in schema and len(value) < schema["minLength"]:
            self.fail(path, f"Too small: expected string to have >={schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            self.fail(path, f"Too big: expected string to have <={schema['maxLength']} characters")
        if "pattern" in schema and not _pattern(schema["pattern"]).search(value):
            self.fail(path, f"Invalid string: must match pattern {schema['pattern']}")

    def _number(self, schema: Mapping[str, Any], value: float, path: tuple[str | int, ...]) -> None:
        if "minimum" in schema and value < schema["minimum"]:
            self.fail(path, f"Too small: expected number to be >={_literal(schema['minimum'])}")
        if "maximum" in schema and value > schema["maximum"]:
            self.fail(path, f"Too big: expected number to be <={_literal(schema['maximum'])}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            self.fail(path, f"Too small: expected number to be >{_literal(schema['exclusiveMinimum'])}")
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            self.fail(path, f"Too big: expected number to be <{_literal(schema['exclusiveMaximum'])}")

    def _array(self, schema: Mapping[str, Any], value: list[Any], path: tuple[str | int, ...]) -> None:
        if "minItems" in schema and len(value) < schema["minItems"]:
            self.fail(path, f"Too small: expected array to have >={schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            self.fail(path, f"Too big: expected array to have <={schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                self.check(schema["items"], item, (*path, index))

    def _object(self, schema: Mapping[str, Any], value: dict[str, Any], path: tuple[str | int, ...]) -> None:
        properties: Mapping[str, Any] = schema.get("properties", {})
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            self.fail(path, f"Too small: expected object to have >={schema['minProperties']} properties")
        for key in schema.get("required", ()):
            if key not in value:
                expected = _expected_name(self._deref(properties.get(key, {})))
                self.fail((*path, key), f"Invalid input: expected {expected}, received undefined")
        extra = schema.get("additionalProperties", True)
        for key in value:
            if extra is False and key not in properties:
                self.fail((*path, key), "Unrecognized key", unknown=True)
        for key, item in value.items():
            if key in properties:
                self.check(properties[key], item, (*path, key))
            elif extra is not False and extra is not True:
                self.check(extra, item, (*path, key))

    def _deref(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.resolve(schema["$ref"])
        return schema


def _discriminator(branches: list[Any]) -> str | None:
    """A property every branch fixes with `const` (distinct values), when there is one."""
    if not branches or not all(isinstance(branch, dict) for branch in branches):
        return None
    first = branches[0].get("properties", {})
    for key, sub in first.items():
        if not (isinstance(sub, dict) and "const" in sub):
            continue
        consts = []
        for branch in branches:
            prop = branch.get("properties", {}).get(key)
            if not (isinstance(prop, dict) and "const" in prop):
                break
            consts.append(_literal(prop["const"]))
        else:
            if len(set(consts)) == len(consts):
                return str(key)
    return None


def _expected_name(schema: Any) -> str:
    if isinstance(schema, dict):
        kind = schema.get("type")
        if isinstance(kind, str):
            return _TYPE_NAMES.get(kind, kind)
        if "enum" in schema:
            return "|".join(_literal(option) for option in schema["enum"])
        if "const" in schema:
            return _literal(schema["const"])
    return "value"


def _same(a: object, b: object) -> bool:
    # JSON equality: true is not 1, and 1.0 is 1.
    return json_type(a) == json_type(b) and a == b


def _literal(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json_type(value)
    return str(value)


def format_path(path: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in path)


def _format(found: list[tuple[tuple[str | int, ...], str]]) -> list[str]:
    return [f"{format_path(path)}: {message}" if path else message for path, message in found]


Issue = tuple[tuple[str | int, ...], str]  # (the field path, empty at the root; the message)


def located_issues(schema: Mapping[str, Any], instance: Any) -> list[Issue]:
    """Every way `instance` breaks `schema`, as (field path, message), in the order `issues` lists them."""
    return _unique(_checked(schema, instance).issues)


def formatted(found: list[Issue]) -> list[str]:
    """Issues as the spec writes them: `<path>: <message>`, or the message alone at the root."""
    return _format(found)


def issues(schema: Mapping[str, Any], instance: Any) -> list[str]:
    """Every way `instance` breaks `schema`, formatted `<path>: <message>` (root issues: the message alone).

    A schema whose `$defs` holds `refine` is held to it too: that is where a tool keeps its action-discriminated
    rules (`oneOf` on a `const` action), because Anthropic's API refuses a tool whose input schema has
    `oneOf`/`anyOf`/`allOf` at the top. The refinement is read first, so a call reads as if the action's own
    object were the schema (its missing fields, then its unknown keys, then bad values), and the flat top level
    adds only what the refinement did not already say.
    """
    return _format(_unique(_checked(schema, instance).issues))


def unknown_key_issues(schema: Mapping[str, Any], instance: Any) -> list[str]:
    """Only the unknown-key issues of `instance` (what MCP reports first, before anything else is checked)."""
    return _format(_unique(_checked(schema, instance).unknown))


def _checked(schema: Mapping[str, Any], instance: Any) -> _Validator:
    validator = _Validator(schema)
    refine = schema.get("$defs", {}).get("refine")
    if refine is not None:
        validator.check(refine, instance, ())
    validator.check(schema, instance, ())
    return validator


def _unique(found: list[tuple[tuple[str | int, ...], str]]) -> list[tuple[tuple[str | int, ...], str]]:
    """`found` with each issue once (a refined schema's two levels check the same fields), in first-seen order."""
    return list(dict.fromkeys(found))


def normalize_numbers(value: Any) -> Any:
    """Whole floats become ints (JSON does not tell `5` from `5.0`, and an integer field may arrive as either)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [normalize_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: normalize_numbers(item) for key, item in value.items()}
    return value


def unsupported_keywords(schema: Any, where: str = "") -> list[str]:
    """Keywords this interpreter does not implement, so codegen can refuse a schema it would misread."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key not in SUPPORTED_KEYWORDS:
                found.append(f"{where}/{key}")
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    found += unsupported_keywords(sub, f"{where}/{key}/{name}")
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                found += unsupported_keywords(value, f"{where}/{key}")
            elif key in ("anyOf", "oneOf"):
                for index, sub in enumerate(value):
                    found += unsupported_keywords(sub, f"{where}/{key}/{index}")
    return found
