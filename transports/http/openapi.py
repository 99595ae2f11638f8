"""GET /openapi.json: an OpenAPI 3.1 document of the HTTP API, generated from the two route tables and the schema files.

Nothing here restates a field: every body, query, path parameter and answer is the schema file the gate and the
operations already use, embedded under `components/schemas` (its `$defs` references rewritten to point there). An
operation route (`routes.API`) is described from its registry entry: the input schema is its path parameters, then
(GET) its query or (POST) its body, and the output schema is the answer's `data`. A page (`routes.PAGES`) says its
summary, its codes and the schema of what it serves. A route added to either table is in the document at once.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import memesh
from memesh.errors import ErrorCode
from memesh.records import dataclass
from memesh.schema import files as schemas
from memesh.transports.http.endpoint import PARAMETER, ApiRoute
from memesh.transports.http.errors import HTTP_STATUS

if TYPE_CHECKING:
    from memesh.transports.http.routes import Page

# What any route can answer, whatever it does.
ALWAYS = (
    ErrorCode.AUTH_MISSING_BEARER,
    ErrorCode.AUTH_INVALID_TOKEN,
    ErrorCode.AUTH_NOT_CONFIGURED,
    ErrorCode.AUTH_CROSS_ORIGIN,
    ErrorCode.AUTH_FORBIDDEN,
    ErrorCode.ROUTE_NOT_FOUND,
    ErrorCode.INTERNAL,
    ErrorCode.STORE_UNAVAILABLE,
)
WITH_BODY = (ErrorCode.BAD_BODY, ErrorCode.PAYLOAD_TOO_LARGE)


@dataclass(frozen=True)
class Described:
    """One method of one route as the document tells it: schema names under `schemas/`, and the codes it may give
    beyond the ones every route can give (auth, origin, server, and for a POST the body's)."""

    summary: str
    parameters: list[dict[str, Any]]
    body: str | None
    body_required: bool
    answer: str | None
    enveloped: bool
    media_type: str
    errors: tuple[ErrorCode, ...]
    redirect: str | None = None


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
            "store": {
                "type": "string",
                "description": "A database failure's stable reason: unreachable, auth-failed, tls-refused, "
                "tls-required, no-database, server-busy, server-restarting, timeout, not-granted, schema-behind, "
                "locked, read-only, disk-full, corrupt, …",
            },
        },
        "required": ["success", "errorCode", "error"],
    }


def _parameter(name: str, where: str, prop: dict[str, Any], *, required: bool) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": required,
        "description": prop.get("description", ""),
        "schema": {k: v for k, v in prop.items() if k != "description"},
    }


def _of_op(route: ApiRoute, method: str, components: _Components) -> Described:
    """What an operation route takes and answers, read from its entry."""
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
    else:
        body = components.without(op.input_schema, in_path) if in_path else op.input_schema
    return Described(
        summary=op.summary or op.name,
        parameters=parameters,
        body=body,
        body_required=not route.body_optional,
        answer=op.output_schema,
        enveloped=True,
        media_type="application/json",
        errors=(*op.errors, ErrorCode.BAD_PARAM),
    )


def _of_page(page: Page) -> Described:
    return Described(
        summary=page.summary,
        parameters=[],
        body=page.body,
        body_required=page.body is not None,
        answer=page.answer,
        enveloped=page.enveloped,
        media_type=page.media_type,
        errors=page.errors,
        redirect=page.redirect,
    )


def _responses(described: Described, method: str, components: _Components) -> tuple[dict[str, Any], list[ErrorCode]]:
    codes = [*ALWAYS, *described.errors, *(WITH_BODY if method == "POST" else ())]
    by_status: dict[int, list[ErrorCode]] = {}
    for code in dict.fromkeys(codes):
        by_status.setdefault(HTTP_STATUS[code], []).append(code)
    if method == "POST":  # a body that stops arriving (`body.BODY_READ_SECONDS`)
        by_status.setdefault(408, []).append(ErrorCode.BAD_BODY)
    by_status.setdefault(503, []).append(ErrorCode.INTERNAL)  # a database unavailable rather than broken
    responses: dict[str, Any] = {}
    if described.answer is not None:
        answer: dict[str, Any] = components.ref(described.answer)
        if described.enveloped:
            answer = {
                "type": "object",
                "properties": {"success": {"const": True}, "data": answer},
                "required": ["success", "data"],
                "additionalProperties": False,
            }
        responses["200"] = {"description": "Success", "content": {described.media_type: {"schema": answer}}}
    if described.redirect is not None:
        location = {"schema": {"type": "string", "const": described.redirect}}
        responses["307"] = {"description": f"Go to {described.redirect}", "headers": {"Location": location}}
    for status, status_codes in sorted(by_status.items()):
        responses[str(status)] = {
            "description": ", ".join(sorted(str(code) for code in status_codes)),
            "content": {"application/json": {"schema": _failure_schema(status_codes)}},
        }
    return responses, list(dict.fromkeys(codes))


def _operation(described: Described, path: str, method: str, components: _Components) -> dict[str, Any]:
    responses, codes = _responses(described, method, components)
    operation: dict[str, Any] = {
        "operationId": f"{method.lower()}_{re.sub(r'[^A-Za-z0-9]+', '_', path).strip('_')}",
        "summary": described.summary,
        "responses": responses,
        "x-errorCodes": sorted(str(code) for code in codes),
    }
    if described.parameters:
        operation["parameters"] = described.parameters
    if described.body is not None:
        operation["requestBody"] = {
            "required": described.body_required,
            "content": {"application/json": {"schema": components.ref(described.body)}},
        }
    return operation


def document(api: list[ApiRoute], pages: list[Page]) -> dict[str, Any]:
    """The OpenAPI 3.1 document for the operation routes `api` and the `pages` (each method of each)."""
    components = _Components()
    paths: dict[str, dict[str, Any]] = {}
    for route in api:
        path = PARAMETER.sub(r"{\1}", route.path)
        for method in route.methods:
            described = _of_op(route, method, components)
            paths.setdefault(path, {})[method.lower()] = _operation(described, path, method, components)
    for page in pages:
        for method in page.methods:
            paths.setdefault(page.path, {})[method.lower()] = _operation(_of_page(page), page.path, method, components)
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
