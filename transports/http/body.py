"""Request bodies: read at most the 1 MB limit, then decode one JSON object or array."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from memesh.core.storable import TOO_DEEP
from memesh.errors import MemeshError
from memesh.transports.http.errors import BODY_LIMIT_BYTES, HttpFailure, bad_json, too_large

Receive = Callable[[], Awaitable[dict[str, Any]]]


class Disconnected(Exception):
    """The client went away before its body arrived: there is no one left to answer."""


# A client that sends its headers and part of a body, then nothing (slow-loris), holds a connection and a task for
# as long as it likes: the whole body must arrive within this many seconds of the first read (1 MB on loopback
# takes milliseconds; a slow link sending the largest body allowed has well over 10 KB/s).
BODY_READ_SECONDS = 15.0
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
    try:
        with anyio.fail_after(BODY_READ_SECONDS if BODY_READ_SECONDS > 0 else math.inf):
            return await _read(receive, limit)
    except TimeoutError:
        error = MemeshError.bad_body(f"the request body did not arrive within {BODY_READ_SECONDS:g} s")
        raise HttpFailure(error, status=408, close=True) from None


async def _read(receive: Receive, limit: int) -> bytes:
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
