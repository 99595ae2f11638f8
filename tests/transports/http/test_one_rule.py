"""The one rule, over the whole route table: every /v1 operation route refuses what its input schema does not name —
an unknown query parameter is validation.bad-param, an unknown body field validation.bad-body — before its
operation runs, and a path parameter is a parameter like any other."""

from __future__ import annotations

import re

import pytest

from memesh.transports.http.endpoint import PARAMETER, ApiRoute
from memesh.transports.http.routes import API
from tests.transports.http.conftest import Api

# A value each path parameter's schema accepts, so the route is reached and only the unknown field is wrong.
VALID = {"name": "some-memory", "id": "1"}


def _url(route: ApiRoute) -> str:
    return PARAMETER.sub(lambda match: VALID[match.group(1)], route.path)


def _routes(method: str) -> list[ApiRoute]:
    return [route for route in API if method in route.methods]


def _id(route: ApiRoute) -> str:
    return re.sub(r"[{}:]", "", route.path)


@pytest.mark.parametrize("route", _routes("GET"), ids=_id)
def test_every_get_route_refuses_an_unknown_query_parameter_naming_it(api: Api, route: ApiRoute) -> None:
    body = api.fails("GET", f"{_url(route)}?bogus=1", 400, "validation.bad-param")
    assert "bogus: Unrecognized key" in body["error"]


@pytest.mark.parametrize("route", _routes("POST"), ids=_id)
def test_every_post_route_refuses_an_unknown_body_field_naming_it(api: Api, route: ApiRoute) -> None:
    body = api.fails("POST", _url(route), 400, "validation.bad-body", json={"bogus": 1})
    assert "bogus: Unrecognized key" in body["error"]


@pytest.mark.parametrize("route", _routes("POST"), ids=_id)
def test_every_post_route_refuses_an_unknown_query_parameter_too(api: Api, route: ApiRoute) -> None:
    body = api.fails("POST", f"{_url(route)}?bogus=1", 400, "validation.bad-param", json={})
    assert "bogus: Unrecognized key" in body["error"]


@pytest.mark.parametrize("route", [route for route in API if route.path_parameters], ids=_id)
def test_a_path_parameter_sent_again_in_the_query_is_a_bad_param(api: Api, route: ApiRoute) -> None:
    [name] = route.path_parameters
    method = route.methods[0]
    body = api.fails(
        method, f"{_url(route)}?{name}=2", 400, "validation.bad-param", json={} if method == "POST" else None
    )
    assert body["error"].startswith(f"{name}: ")


def test_a_proposal_id_that_is_not_one_is_a_bad_param_on_every_review_route(api: Api) -> None:
    for method, suffix in (("GET", ""), ("POST", "/accept"), ("POST", "/reject")):
        for bad in ("abc", "0", "-1", "1.5"):
            body = api.fails(method, f"/v1/dream/proposals/{bad}{suffix}", 400, "validation.bad-param")
            assert body["error"].startswith("id: ")


def test_the_optional_bodies_take_no_field_but_accept_none_or_an_empty_object(api: Api) -> None:
    assert api.ok("POST", "/v1/demo/reset") == {"inserted": 0, "removed": 0}
    assert api.ok("POST", "/v1/demo/reset", json={}) == {"inserted": 0, "removed": 0}
    api.fails("POST", "/v1/demo/seed", 400, "validation.bad-body", json={"count": 3})
    assert api.ok("GET", "/v1/health")["entity_count"] == 0  # the refused seed wrote nothing
    api.fails("POST", "/v1/dream/proposals/1/accept", 404, "resource.not-found")
    api.fails("POST", "/v1/dream/proposals/1/accept", 400, "validation.bad-body", json={"force": True})
