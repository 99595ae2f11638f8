"""The HTTP API's one table from error code to status, and the spec's two envelopes."""

from __future__ import annotations

from typing import Any

from memesh.errors import ErrorCode, MemeshError

# Every ErrorCode has a row; tests/transports/http/test_errors.py fails when a code is added without one.
HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.AUTH_MISSING_BEARER: 401,
    ErrorCode.AUTH_INVALID_TOKEN: 401,
    ErrorCode.AUTH_NOT_CONFIGURED: 503,
    ErrorCode.AUTH_CROSS_ORIGIN: 403,
    ErrorCode.AUTH_FORBIDDEN: 403,
    ErrorCode.BAD_BODY: 400,
    ErrorCode.BAD_PARAM: 400,
    ErrorCode.ROUTE_RETIRED: 410,
    ErrorCode.ROUTE_NOT_FOUND: 404,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.OPERATION_FAILED: 400,
    ErrorCode.PERMISSION_DENIED: 500,
    ErrorCode.INTERNAL: 500,
    ErrorCode.STORE_UNAVAILABLE: 503,
    # message delivery: the session is not there (409), the local router is down (503), the envelope can never
    # fit (413), the delivery belongs to another session (403), the owner's quota is full (507), a key reused (409).
    ErrorCode.RECIPIENT_UNAVAILABLE: 409,
    ErrorCode.ROUTER_UNREACHABLE: 503,
    ErrorCode.NATIVE_MESSAGE_TOO_LARGE: 413,
    ErrorCode.INTENDED_FOR_OTHER_SESSION: 403,
    ErrorCode.STORAGE_QUOTA_EXCEEDED: 507,
    ErrorCode.IDEMPOTENCY_CONFLICT: 409,
}

# Fields older clients branch on, kept beside errorCode on the two failures that had them.
LEGACY_CODE: dict[ErrorCode, str] = {
    ErrorCode.ROUTE_NOT_FOUND: "NOT_FOUND",
    ErrorCode.PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
}

BODY_LIMIT_BYTES = 1024 * 1024
# Every 503 of a database or a process that cannot serve now says when to ask again: a second is enough for a storm
# of waiting polls to free descriptors, or a locked database to be released (docs/adr/0015-descriptor-exhaustion.md).
RETRY_AFTER_SECONDS = 1
BODY_LIMIT_HINT = (
    "Split large exports/imports into smaller batches, or stream them via the CLI (`memesh export` / `memesh "
    "import`) which reads/writes files directly and is not subject to the per-request 1MB cap."
)
JSON_BODY_HINT = "Send a JSON object with Content-Type: application/json."


def status_for(error: MemeshError) -> int:
    """The status of `error`: its code's row, but 503 for a database that is unavailable rather than broken by a
    bug (locked, damaged, not a database, disk full, cannot be opened), as the spec's server.internal 500/503."""
    if error.unavailable:
        return 503
    return HTTP_STATUS[error.code]


class HttpFailure(Exception):
    """A failure the app answers with an envelope; raised by the request-decoding helpers, caught in one place."""

    def __init__(
        self,
        error: MemeshError,
        *,
        status: int | None = None,
        extra: dict[str, Any] | None = None,
        close: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(error.message)
        self.error = error
        self.status = status_for(error) if status is None else status
        self.extra = extra or {}
        # `close`: the request's body was not read to its end, so what follows on the connection is not a request.
        self.close = close
        self.headers = headers or {}  # sent with the answer (a signed-out session's cookie removed)


def success(data: Any) -> dict[str, Any]:
    return {"success": True, "data": data}


def failure(error: MemeshError, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """`{success: false, errorCode, error}`, with the legacy `code` where one existed, a database failure's reason
    (`store`) and any extra fields."""
    body: dict[str, Any] = {"success": False, "errorCode": str(error.code)}
    if error.code in LEGACY_CODE:
        body["code"] = LEGACY_CODE[error.code]
    body["error"] = error.message
    if isinstance(error.data.get("store"), str):  # why a database failed (unreachable, auth-failed, …): additive
        body["store"] = error.data["store"]
    body.update(extra or {})
    return body


def too_large() -> HttpFailure:
    error = MemeshError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body exceeds the 1MB limit")
    return HttpFailure(error, extra={"limit": "1mb", "hint": BODY_LIMIT_HINT}, close=True)


def incomplete_body() -> HttpFailure:
    error = MemeshError.bad_body("the request body ended before it was complete, or its chunked encoding is broken")
    return HttpFailure(error, extra={"hint": JSON_BODY_HINT}, close=True)


def bad_json(message: str) -> HttpFailure:
    return HttpFailure(MemeshError.bad_body(message), extra={"hint": JSON_BODY_HINT})
