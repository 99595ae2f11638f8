"""GET /openapi.json describes every route of the table, and a bounded property-based fuzz of every route from that
document finds no 500, a stable errorCode on every 4xx, and every 2xx matching its schema."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance
from starlette.routing import Route

from memesh.errors import ErrorCode
from memesh.transports.http.app import create_app
from memesh.transports.http.endpoint import PARAMETER
from memesh.transports.http.routes import API, PAGES, ROUTES
from tests.transports.http.conftest import Api

# One app and database for the whole fuzz: hypothesis calls the test many times, and each call is a real request.
_FOLDER = Path(tempfile.mkdtemp(prefix="memesh-fuzz-"))
APP = create_app(db_path=_FOLDER / "memesh" / "knowledge-graph.db")
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP)
CODES = {str(code) for code in ErrorCode}
EXAMPLES_PER_ROUTE = 8  # bounded: the whole fuzz stays well under a minute on this machine


@schemathesis.check
def stable_error_code(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx is the failure envelope with one of the spec's error codes."""
    if 400 <= response.status_code < 500:
        body = response.json()
        assert body.get("success") is False, body
        assert body.get("errorCode") in CODES, body
        assert isinstance(body.get("error"), str) and body["error"], body
    return None


def test_the_document_lists_every_route_and_method_of_the_table(api: Api) -> None:
    response = api.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"] == "3.1.0"
    listed = {
        (path.replace("{name}", "{name:path}"), method.upper())
        for path, ops in document["paths"].items()
        for method in ops
    }
    expected = {
        (route.path, method)
        for route in ROUTES
        if isinstance(route, Route)
        for method in (route.methods or set()) - {"HEAD"}
    }
    assert listed == expected
    remember = document["paths"]["/v1/remember"]["post"]
    assert remember["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/tools_remember_input"
    }
    assert "validation.bad-body" in remember["x-errorCodes"]


def _vague_objects(value: Any, where: str = "") -> list[str]:
    """Where an object schema says nothing of what it holds: neither its properties nor what any property holds."""
    found: list[str] = []
    if isinstance(value, dict):
        kind = value.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object and not {"properties", "additionalProperties", "anyOf", "oneOf", "$ref"} & set(value):
            found.append(where or "/")
        for key, item in value.items():
            found += _vague_objects(item, f"{where}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _vague_objects(item, f"{where}/{index}")
    return found


def test_no_schema_in_the_document_is_a_bare_object(api: Api) -> None:
    assert _vague_objects(api.get("/openapi.json").json()) == []


def test_every_operation_publishes_its_own_input_and_output_schema(api: Api) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    for route in API:
        for method in route.methods:
            described = paths[PARAMETER.sub(r"{\1}", route.path)][method.lower()]
            data = described["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
            assert route.op.output_schema is not None, route.path  # every answer has its real schema
            key = route.op.output_schema.replace("/", "_").replace(".", "_")
            assert data == {"$ref": f"#/components/schemas/{key}"}, (method, route.path)
            if method == "POST":
                body = described["requestBody"]["content"]["application/json"]["schema"]
                assert body["$ref"].startswith(
                    "#/components/schemas/" + route.op.input_schema.replace("/", "_").replace(".", "_")
                )
                assert described["requestBody"]["required"] is not route.body_optional


def test_the_pages_are_described_by_their_own_table(api: Api) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    for page in PAGES:
        for method in page.methods:
            described = paths[page.path][method.lower()]
            assert described["summary"] == page.summary
            assert set(map(str, page.errors)) <= set(described["x-errorCodes"])
            assert ("200" in described["responses"]) is (page.answer is not None)
    dashboard = paths["/dashboard"]["get"]["responses"]["200"]["content"]
    assert dashboard == {"text/html": {"schema": {"$ref": "#/components/schemas/http_dashboard_output"}}}


@SCHEMA.parametrize()
@settings(
    max_examples=EXAMPLES_PER_ROUTE,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_route_survives_a_bounded_fuzz(case: Any) -> None:
    case.call_and_validate(
        checks=[not_a_server_error, response_schema_conformance, status_code_conformance, stable_error_code]
    )
