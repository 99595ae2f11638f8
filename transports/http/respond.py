"""Answers in the spec's envelopes: `{success: true, data}` or `{success: false, errorCode, error}`."""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result, Success
from starlette.responses import Response

from memesh import jsontext
from memesh.errors import MemeshError
from memesh.transports.http.errors import RETRY_AFTER_SECONDS, HttpFailure, failure, status_for, success


def encode(body: Any) -> bytes:
    # jsontext: a stored number too large for a double (sessionLimit 1e400) is returned as written, not a 500.
    # surrogatepass: whatever a message quotes, the answer is still bytes (and still JSON).
    return jsontext.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def json_response(status: int, body: Any) -> Response:
    return Response(encode(body), status_code=status, media_type="application/json; charset=utf-8")


def ok(data: Any) -> Response:
    return json_response(200, success(data))


def refused(error: MemeshError, *, status: int | None = None, extra: dict[str, Any] | None = None) -> Response:
    response = json_response(status_for(error) if status is None else status, failure(error, extra))
    if error.unavailable:  # the database or the process cannot serve now: when to ask again (issue 35)
        response.headers["retry-after"] = str(RETRY_AFTER_SECONDS)
    return response


def from_failure(exc: HttpFailure) -> Response:
    response = refused(exc.error, status=exc.status, extra=exc.extra)
    for name, value in exc.headers.items():
        response.headers.append(name, value)
    if exc.close:  # the answer ends the connection: a kept-alive client would otherwise wait on the unread body
        response.headers["connection"] = "close"
    return response


def result(outcome: Result[Any, MemeshError]) -> Response:
    """200 with the data of a Success; the mapped status and envelope of a Failure."""
    match outcome:
        case Success(data):
            return ok(data)
        case Failure(error):
            return refused(error)
    raise AssertionError("unreachable")  # pragma: no cover
