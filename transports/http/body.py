"""Request bodies: read at most the 1 MB limit, then decode one JSON object or array."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from memesh.core.storable import TOO_DEEP
from memesh.transports.http.errors import BODY_LIMIT_BYTES, bad_json, too_large

Receive = Callable[[], Awaitable[dict[str, Any]]]


class Disconnected(Exception):
    """The client went away before its body arrived: there is no one left to answer."""


NO_BODY = "No JSON body was parsed from this request."
NOT_JSON = "Request body is not valid JSON."


async def read_limited(headers: Mapping[str, str], receive: Receive, limit: int = BODY_LIMIT_BYTES) -> bytes:
    """The whole body; HttpFailure(payload.too-large) as soon as the declared or the received size passes `limit`.

    Content-Length is checked before reading, and the stream is counted as it arrives (a chunked body declares no
    length), so no more than `limit` bytes are ever held.
    """
    declared = headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        raise too_large()
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def is_json(content_type: str | None) -> bool:
    """`application/json`, with or without parameters such as charset."""
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


def _refuse_constant(name: str) -> Any:
    # NaN and Infinity are Python extensions: JSON has no such literals.
    raise ValueError(name)


def decode_json(content_type: str | None, body: bytes) -> Any:
    """The decoded body; HttpFailure(validation.bad-body) when there is none, or it is not a JSON object or array.

    As JSON parsers in strict mode do, a top-level string, number, boolean or null is refused as not JSON: a tool
    input is an object, and an array still reaches schema validation, which names what it expected.
    """
    if not is_json(content_type) or not body:
        raise bad_json(NO_BODY)
    try:
        value = json.loads(body.decode("utf-8-sig"), parse_constant=_refuse_constant)
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise bad_json(NOT_JSON) from exc
    except RecursionError as exc:  # valid JSON, nested past what the parser can follow
        raise bad_json(TOO_DEEP) from exc
    if not isinstance(value, (dict, list)):
        raise bad_json(NOT_JSON)
    return value
