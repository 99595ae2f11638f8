"""Request bodies: JSON only, one object, and never more than 1 MB read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memesh.transports.http.app import create_app
from memesh.transports.http.errors import BODY_LIMIT_BYTES

from .conftest import Api

JSON = {"Content-Type": "application/json"}


def test_invalid_json_is_bad_body_with_a_hint(api: Api) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", content=b"{nope", headers=JSON)
    assert body["error"] == "Request body is not valid JSON."
    assert body["hint"] == "Send a JSON object with Content-Type: application/json."


@pytest.mark.parametrize("raw", [b"null", b'"text"', b"42", b"true", b'{"limit": NaN}', b"\xff\xfe"])
def test_a_body_that_is_not_a_json_object_or_array_is_not_json(api: Api, raw: bytes) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", content=raw, headers=JSON)
    assert body["error"] == "Request body is not valid JSON."


def test_a_json_array_fails_schema_validation(api: Api) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", json=[])
    assert "expected object" in body["error"]


def test_deeply_nested_json_is_refused_not_crashed(api: Api) -> None:
    api.fails("POST", "/v1/recall", 400, "validation.bad-body", content=b"[" * 200_000, headers=JSON)


@pytest.mark.parametrize("headers", [{}, {"Content-Type": "text/plain"}, {"Content-Type": "application/jsonx"}])
def test_a_body_without_a_json_content_type_was_not_parsed(api: Api, headers: dict[str, str]) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", content=b"{}", headers=headers)
    assert body["error"] == "No JSON body was parsed from this request."


def test_an_empty_body_was_not_parsed(api: Api) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", content=b"", headers=JSON)
    assert body["error"] == "No JSON body was parsed from this request."


def test_json_with_a_charset_is_accepted(api: Api) -> None:
    headers = {"Content-Type": "Application/JSON; charset=utf-8"}
    assert api.ok("POST", "/v1/recall", content=b"{}", headers=headers)["entities"] == []


def test_an_oversize_body_with_content_length_is_refused_with_413(api: Api) -> None:
    oversize = b'{"query": "' + b"x" * BODY_LIMIT_BYTES + b'"}'
    body = api.fails("POST", "/v1/recall", 413, "payload.too-large", content=oversize, headers=JSON)
    assert body["code"] == "PAYLOAD_TOO_LARGE"
    assert body["limit"] == "1mb"
    assert "memesh export" in body["hint"]


def test_an_oversize_chunked_body_is_refused_without_reading_it_all(api: Api) -> None:
    pulled: list[int] = []

    async def chunked() -> AsyncIterator[bytes]:
        for _ in range(64):  # 4 MB offered in 64 KB pieces, with no Content-Length
            pulled.append(1)
            yield b" " * 65536

    api.fails("POST", "/v1/recall", 413, "payload.too-large", content=chunked(), headers=JSON)
    assert len(pulled) <= BODY_LIMIT_BYTES // 65536 + 2


def test_a_body_at_the_limit_is_read(api: Api) -> None:
    padded = b"{}" + b" " * (BODY_LIMIT_BYTES - 2)
    assert api.ok("POST", "/v1/recall", content=padded, headers=JSON)["entities"] == []


def test_the_app_holds_no_more_than_the_limit_of_an_endless_body(tmp_path: Path) -> None:
    app = create_app(db_path=tmp_path / "db.sqlite")
    received: list[int] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        received.append(1)
        return {"type": "http.request", "body": b" " * 100_000, "more_body": True}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    scope = {"type": "http", "method": "POST", "path": "/v1/remember", "headers": [], "query_string": b""}
    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == 413
    assert len(received) == BODY_LIMIT_BYTES // 100_000 + 1


def test_an_unknown_post_route_still_enforces_the_limit(api: Api) -> None:
    api.fails("POST", "/v1/nope", 413, "payload.too-large", content=b" " * (BODY_LIMIT_BYTES + 1), headers=JSON)


@pytest.mark.parametrize("depth", [150, 600, 5000])
def test_a_body_nested_too_deep_is_a_bad_body_not_a_server_failure(api: Api, depth: int) -> None:
    raw = b'{"query": ' + b"[" * depth + b"]" * depth + b"}"
    for route in ("/v1/recall", "/v1/remember", "/v1/config"):
        body = api.fails("POST", route, 400, "validation.bad-body", content=raw, headers=JSON)
        assert "nest" in body["error"]


def test_a_lone_surrogate_in_an_unknown_config_key_is_named_in_json(api: Api) -> None:
    body = api.fails("POST", "/v1/config", 400, "validation.bad-body", content=b'{"\\ud800": 1}', headers=JSON)
    assert body["error"] == "\ufffd: Unrecognized key"
