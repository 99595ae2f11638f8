"""POST /v1/remember with a near-miss type: stored as given (the API refuses nothing new), with a `warnings` entry
naming the known type; a known type carries no warnings at all."""

from __future__ import annotations

from typing import Any


def test_a_near_miss_type_is_stored_as_given_with_a_warning_naming_the_known_type(api: Any) -> None:
    body = {"name": "auth", "type": "desicion", "observations": ["PKCE"]}
    data = api.ok("POST", "/v1/remember", json=body)
    assert data["type"] == "desicion"
    (warning,) = data["warnings"]
    assert '"decision"' in warning
    plain = api.ok("POST", "/v1/remember", json={"name": "other", "type": "decision", "observations": ["x"]})
    assert "warnings" not in plain
