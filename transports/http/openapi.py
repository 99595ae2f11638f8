"""GET /openapi.json: an OpenAPI 3.1 document of the HTTP API, generated from the route table and the schema files.

Nothing here restates a field: every body, query, path parameter and answer is the schema file the gate and the
tools already use, embedded under `components/schemas` (its `$defs` references rewritten to point there). Each route
in `routes.ROUTES` is described, so a route added to the table is in the document at once; `DESCRIBED` names the
schema files and the extra error codes of a handler, by the handler's name, and a tool route is described from the
registry (`post_<tool>`). A route with no entry is still listed, with its path parameters and the envelope.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import BaseRoute, Route

import memesh
from memesh.errors import ErrorCode
from memesh.schema import files as schemas
from memesh.transports.http.endpoint import ApiRoute
from memesh.transports.http.errors import HTTP_STATUS


@dataclass(frozen=True)
class Described:
    """What a handler takes and answers: schema names under `schemas/` and the error codes its operation may give
    (beyond the ones every route can give: auth, origin, server, and body or parameter validation)."""

    summary: str
    query: str | None = None
    path: str | None = None
    body: str | None = None
    output: str | None = None
    errors: tuple[ErrorCode, ...] = ()
    status: dict[ErrorCode, int] = field(default_factory=dict)


DESCRIBED: dict[str, Described] = {
    "health": Described("Liveness and the number of stored memories"),
    "list_entities": Described(
        "The newest memories, archived ones included", query="http/entities.query", errors=(ErrorCode.BAD_PARAM,)
    ),
    "get_entity": Described(
        "One memory by name, with its full metadata",
        path="http/entity.path",
        errors=(ErrorCode.BAD_PARAM, ErrorCode.NOT_FOUND),
    ),
    "task_state": Described(
        "Where the work stands on a project",
        query="http/task_state.query",
        output="tools/task_state.output",
        errors=(ErrorCode.BAD_PARAM, ErrorCode.BAD_BODY),
    ),
    "get_config": Described("The owner-local settings", output="http/config.output"),
    "post_config": Described(
        "Change the owner-local settings",
        body="http/config.input",
        output="http/config.output",
        errors=(ErrorCode.OPERATION_FAILED,),
    ),
    "gone": Described("Retired: answers 410 with a pointer to what replaced it", errors=(ErrorCode.ROUTE_RETIRED,)),
    "openapi": Described("This document"),
}

# What any route can answer, whatever it does.
ALWAYS = (
    ErrorCode.AUTH_MISSING_BEARER,
    ErrorCode.AUTH_INVALID_TOKEN,
    ErrorCode.AUTH_NOT_CONFIGURED,
    ErrorCode.AUTH_CROSS_ORIGIN,
    ErrorCode.ROUTE_NOT_FOUND,
    ErrorCode.INTERNAL,
)
WITH_BODY = (ErrorCode.BAD_BODY, ErrorCode.PAYLOAD_TOO_LARGE)
_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")


def _described(route: Route, method: str) -> Described:
    found = DESCRIBED.get(route.endpoint.__name__)
    if found is not None:
        return found
    return Described(f"{method} {route.path}", errors=(ErrorCode.BAD_PARAM, ErrorCode.OPERATION_FAILED))


class _Components:
    """The schema files the document embeds, each once, with its `$defs` references made document-absolute."""

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}

    def ref(self, schema_name: str) -> dict[str, str]:
        key = re.sub(r"[^A-Za-z0-9]+", "_", schema_name).strip("_")
        if key not in self.schemas:  # a derived body (`without`) is embedded already
            loaded = {k: v for k, v in schemas.load(schema_name).items() if k != "$schema"}
            self.schemas[key] = _rebased(loaded, f"#/components/schemas/{key}")
        return {"$ref": f"#/components/schemas/{key}"}

    def without(self, schema_name: str, fields: list[str]) -> str:
        """The name of `schema_name` less `fields` (a body, without the path parameters), embedded once."""
        derived = f"{schema_name}.body"
        key = re.sub(r"[^A-Za-z0-9]+", "_", derived).strip("_")
        if key not in self.schemas:
            loaded = {k: v for k, v in schemas.load(schema_name).items() if k != "$schema"}
            loaded["properties"] = {k: v for k, v in loaded.get("properties", {}).items() if k not in fields}
            if "required" in loaded:
                loaded["required"] = [name for name in loaded["required"] if name not in fields]
            self.schemas[key] = _rebased(loaded, f"#/components/schemas/{key}")
        return derived

    def parameters(self, schema_name: str, where: str) -> list[dict[str, Any]]:
        loaded = schemas.load(schema_name)
        required = set(loaded.get("required", []))
        return [
            {
                "name": name,
                "in": where,
                "required": where == "path" or name in required,
                "description": prop.get("description", ""),
                "schema": {k: v for k, v in prop.items() if k != "description"},
            }
            for name, prop in loaded.get("properties", {}).items()
        ]


def _rebased(value: Any, base: str) -> Any:
    if isinstance(value, dict):
        return {
            key: (
                base + item[1:]
                if key == "$ref" and isinstance(item, str) and item.startswith("#/")
                else _rebased(item, base)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_rebased(item, base) for item in value]
    return value


def _failure_schema(codes: list[ErrorCode]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "success": {"const": False},
            "errorCode": {"enum": sorted(str(code) for code in codes)},
            "error": {"type": "string", "minLength": 1},
        },
        "required": ["success", "errorCode", "error"],
    }


def _of_op(route: ApiRoute, method: str, components: _Components) -> tuple[Described, list[dict[str, Any]]]:
    """What an operation route takes and answers, read from its entry: the input schema is the path parameters,
    then (GET) the query or (POST) the body; the output schema is the answer's data."""
    op = route.op
    loaded = schemas.load(op.input_schema)
    properties: dict[str, Any] = loaded.get("properties", {})
    required = set(loaded.get("required", []))
    in_path = route.path_parameters
    parameters = [_parameter(name, "path", properties.get(name, {"type": "string"}), required=True) for name in in_path]
    body: str | None = None
    if method == "GET":
        parameters += [
            _parameter(name, "query", prop, required=name in required)
            for name, prop in properties.items()
            if name not in in_path
        ]
    elif in_path:
        body = components.without(op.input_schema, in_path)
    else:
        body = op.input_schema
    errors = (*op.errors, ErrorCode.BAD_PARAM)
    return Described(op.summary or op.name, body=body, output=op.output_schema, errors=errors), parameters


def _parameter(name: str, where: str, prop: dict[str, Any], *, required: bool) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": required,
        "description": prop.get("description", ""),
        "schema": {k: v for k, v in prop.items() if k != "description"},
    }


def _operation(route: Route | ApiRoute, path: str, method: str, components: _Components) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = []
    if isinstance(route, ApiRoute):
        described, parameters = _of_op(route, method, components)
    else:
        described = _described(route, method)
    if described.query:
        parameters += components.parameters(described.query, "query")
    if described.path:
        parameters += components.parameters(described.path, "path")
    route_path = route.path
    named = {p["name"] for p in parameters if p["in"] == "path"}
    parameters += [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PARAM.findall(route_path)
        if name not in named
    ]
    codes = [*ALWAYS, *described.errors, *(WITH_BODY if method == "POST" else ())]
    by_status: dict[int, list[ErrorCode]] = {}
    for code in dict.fromkeys(codes):
        by_status.setdefault(described.status.get(code, HTTP_STATUS[code]), []).append(code)
    if method == "POST":  # a body that stops arriving (`body.BODY_READ_SECONDS`)
        by_status.setdefault(408, []).append(ErrorCode.BAD_BODY)
    if ErrorCode.INTERNAL in codes:
        by_status.setdefault(503, []).append(ErrorCode.INTERNAL)  # a database unavailable rather than broken
    data = components.ref(described.output) if described.output else {}
    responses: dict[str, Any] = {
        "200": {
            "description": "Success",
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {"success": {"const": True}, "data": data},
                        "required": ["success", "data"],
                    }
                }
            },
        }
    }
    for status, status_codes in sorted(by_status.items()):
        responses[str(status)] = {
            "description": ", ".join(sorted(str(code) for code in status_codes)),
            "content": {"application/json": {"schema": _failure_schema(status_codes)}},
        }
    operation: dict[str, Any] = {
        "operationId": f"{method.lower()}_{re.sub(r'[^A-Za-z0-9]+', '_', path).strip('_')}",
        "summary": described.summary,
        "responses": responses,
        "x-errorCodes": sorted(str(code) for code in dict.fromkeys(codes)),
    }
    if parameters:
        operation["parameters"] = parameters
    if method == "POST":
        body = components.ref(described.body) if described.body else {"type": "object"}
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return operation


def document(api: list[ApiRoute], routes: list[BaseRoute]) -> dict[str, Any]:
    """The OpenAPI 3.1 document for the operation routes `api` and the other `routes` (each Starlette Route, each
    of its methods but HEAD)."""
    components = _Components()
    paths: dict[str, dict[str, Any]] = {}
    for entry in api:
        path = _PARAM.sub(r"{\1}", entry.path)
        for method in entry.methods:
            paths.setdefault(path, {})[method.lower()] = _operation(entry, path, method, components)
    for route in routes:
        if not isinstance(route, Route) or route.endpoint.__name__.startswith("serve_"):
            continue
        path = _PARAM.sub(r"{\1}", route.path)
        for method in sorted((route.methods or set()) - {"HEAD"}):
            paths.setdefault(path, {})[method.lower()] = _operation(route, path, method, components)
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "MeMesh HTTP API",
            "version": memesh.__version__,
            "description": "Every answer is an envelope: {success: true, data} or {success: false, errorCode, error}. "
            "Branch on errorCode, never on the message.",
        },
        "paths": paths,
        "components": {"schemas": components.schemas},
    }
