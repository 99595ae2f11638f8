"""One table maps every error code to a status, and failures share one envelope."""

from __future__ import annotations

from typing import Any

from memesh.errors import ErrorCode, MemeshError
from memesh.transports.http.errors import HTTP_STATUS, failure, status_for, success


def test_every_error_code_has_an_http_status() -> None:
    assert set(HTTP_STATUS) == set(ErrorCode)


def test_statuses_follow_the_spec_table() -> None:
    assert HTTP_STATUS[ErrorCode.OPERATION_FAILED] == 400
    assert HTTP_STATUS[ErrorCode.NOT_FOUND] == 404
    assert HTTP_STATUS[ErrorCode.ROUTE_RETIRED] == 410
    assert HTTP_STATUS[ErrorCode.PAYLOAD_TOO_LARGE] == 413
    assert HTTP_STATUS[ErrorCode.AUTH_NOT_CONFIGURED] == 503
    assert HTTP_STATUS[ErrorCode.PERMISSION_DENIED] == 500


def test_failure_envelope_carries_the_code_and_the_message_only() -> None:
    body = failure(MemeshError.not_found('Entity "x" not found', name="x"))
    assert body == {"success": False, "errorCode": "resource.not-found", "error": 'Entity "x" not found'}


def test_route_not_found_keeps_the_legacy_code_field() -> None:
    assert failure(MemeshError(ErrorCode.ROUTE_NOT_FOUND, "No route"))["code"] == "NOT_FOUND"


def test_success_envelope_wraps_the_data() -> None:
    data: dict[str, Any] = {"a": 1}
    assert success(data) == {"success": True, "data": data}


def test_an_unavailable_database_answers_503_with_its_reason_beside_the_code() -> None:
    error = MemeshError(ErrorCode.STORE_UNAVAILABLE, "the database server cannot be reached", {"store": "unreachable"})
    assert status_for(error) == 503 and error.unavailable
    body = failure(error)
    assert (body["errorCode"], body["store"]) == ("store.unavailable", "unreachable")
