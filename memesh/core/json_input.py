"""One JSON object read from bytes a caller pipes in (a command's stdin): the object, or the refusal that says why —
over the byte limit, not UTF-8 JSON (nesting past the parser's depth included), or not an object."""

from __future__ import annotations

import json
from typing import Any

from returns.result import Failure, Result, Success

from memesh.errors import ErrorCode, MemeshError


def json_object(data: bytes, *, max_bytes: int, limit: str) -> Result[dict[str, Any], MemeshError]:
    """`limit` names `max_bytes` for a person ("8 MiB")."""
    if len(data) > max_bytes:
        return Failure(MemeshError(ErrorCode.PAYLOAD_TOO_LARGE, f"the input on stdin is over {limit}"))
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return Failure(MemeshError.bad_body(f"the input on stdin is not JSON: {exc}"))
    if not isinstance(value, dict):
        return Failure(MemeshError.bad_body("the input on stdin must be one JSON object"))
    return Success(value)
