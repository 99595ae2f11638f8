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
from memesh.transports.http.routes import ROUTES
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
